import {
  collapseLedgerRows,
  ledgerFilter,
  ledgerPage,
  ledgerReplaceCondition,
  ledgerUpdateSet,
  withoutNullPriority,
  zeroCounts,
} from './ledger-rules.js';
import { columnList, rowFromDb, rowToDb, URL_LEDGER } from './record-columns.js';
import type { LedgerQuery, LedgerRow, LedgerState, UrlLedgerStore } from './record-store.js';
import type { SqliteAccess } from './sqlite-access.js';

type Row = Record<string, unknown>;

const COLUMNS = columnList(URL_LEDGER);
const SELECT = `SELECT ${COLUMNS} FROM crawler_url`;
const UPSERT =
  `INSERT INTO crawler_url (${COLUMNS}) VALUES (${URL_LEDGER.columns.map(() => '?').join(', ')}) ` +
  `ON CONFLICT ("id") DO UPDATE SET ${ledgerUpdateSet()} WHERE ${ledgerReplaceCondition()}`;

/** The url ledger on the SQLite record database: one prepared upsert per row, a batch in one transaction. */
export function sqliteUrlLedger(access: SqliteAccess): UrlLedgerStore {
  const { db, run, stmt } = access;
  const read = (record: Row): LedgerRow => withoutNullPriority(rowFromDb(URL_LEDGER, record));
  const recordAll = db.transaction((rows: readonly LedgerRow[]) => {
    const upsert = stmt(UPSERT);
    for (const row of rows) upsert.run(rowToDb(URL_LEDGER, row, true));
  });
  return {
    record: (rows: LedgerRow[]) =>
      rows.length === 0 ? Promise.resolve() : run('record crawler_url', () => recordAll(collapseLedgerRows(rows))),
    get: (id: string) =>
      run('read crawler_url', () => {
        const record = stmt(`${SELECT} WHERE id = ?`).get(id) as Row | undefined;
        return record ? read(record) : undefined;
      }),
    list: (query: LedgerQuery) =>
      run('list crawler_url', () => {
        const { where, params } = ledgerFilter(
          query,
          () => '?',
          (x) => `instr(url, ${x}) > 0`,
        );
        const { limit, offset } = ledgerPage(query);
        return db.transaction(() => {
          const total = Number(
            stmt(`SELECT count(*) FROM crawler_url WHERE ${where}`)
              .pluck()
              .get(...params),
          );
          const items = (
            stmt(`${SELECT} WHERE ${where} ORDER BY url, id LIMIT ? OFFSET ?`).all(...params, limit, offset) as Row[]
          ).map(read);
          return { items, total };
        })();
      }),
    counts: (catalogId: string, version: number) =>
      run('count crawler_url', () => {
        const counts = zeroCounts();
        const rows = stmt(
          'SELECT state, count(*) AS n FROM crawler_url WHERE catalog_id = ? AND version = ? GROUP BY state',
        ).all(catalogId, version) as Array<{ state: string; n: number }>;
        for (const r of rows) if (r.state in counts) counts[r.state as LedgerState] = Number(r.n);
        return counts;
      }),
    deletedUrlHashes: (catalogId: string, version: number) =>
      run(
        'read crawler_url',
        () =>
          stmt("SELECT url_hash FROM crawler_url WHERE catalog_id = ? AND version = ? AND state = 'deleted'")
            .pluck()
            .all(catalogId, version) as string[],
      ),
  };
}
