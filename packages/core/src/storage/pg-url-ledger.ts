import {
  collapseLedgerRows,
  ledgerFilter,
  ledgerPage,
  ledgerReplaceCondition,
  ledgerUpdateSet,
  withoutNullPriority,
  zeroCounts,
} from './ledger-rules.js';
import type { PgAccess } from './pg-access.js';
import { columnList, rowFromDb, rowToDb, URL_LEDGER } from './record-columns.js';
import type { LedgerQuery, LedgerRow, LedgerState, UrlLedgerStore } from './record-store.js';

const COLUMNS = columnList(URL_LEDGER);
const SELECT = `SELECT ${COLUMNS} FROM crawler_url`;
const ARRAY_TYPE = { text: 'text[]', int: 'int4[]', time: 'timestamptz[]', json: 'text[]' } as const;
/** The whole batch as one array per column: one statement, whatever the batch's size (up to {@link CHUNK}). */
const UPSERT =
  `INSERT INTO crawler_url (${COLUMNS}) SELECT * FROM unnest(` +
  URL_LEDGER.columns.map((c, i) => `$${i + 1}::${ARRAY_TYPE[c.kind as keyof typeof ARRAY_TYPE]}`).join(', ') +
  `) ON CONFLICT ("id") DO UPDATE SET ${ledgerUpdateSet()} WHERE ${ledgerReplaceCondition()}`;
const CHUNK = 2000;

/**
 * The url ledger on PostgreSQL: a batch is collapsed to one row per id (an upsert may not touch a row twice), then
 * written with `INSERT … SELECT FROM unnest(…) ON CONFLICT … DO UPDATE … WHERE` in one transaction. The named
 * statements are prepared once per connection.
 */
export function pgUrlLedger(access: PgAccess): UrlLedgerStore {
  return {
    record: async (rows: LedgerRow[]) => {
      if (rows.length === 0) return;
      // Sorted by id: members recording overlapping urls lock the rows in one order and never deadlock.
      const unique = collapseLedgerRows(rows).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      await access.transaction('record crawler_url', async (client) => {
        for (let start = 0; start < unique.length; start += CHUNK) {
          const columns: unknown[][] = URL_LEDGER.columns.map(() => []);
          for (const row of unique.slice(start, start + CHUNK)) {
            rowToDb(URL_LEDGER, row, false).forEach((value, i) => {
              (columns[i] as unknown[]).push(value);
            });
          }
          await client.query({ name: 'gf-ledger-record', text: UPSERT, values: columns });
        }
      });
    },
    get: async (id: string) => {
      const record = (await access.query('read crawler_url', `${SELECT} WHERE id = $1`, [id])).rows[0];
      return record ? withoutNullPriority(rowFromDb(URL_LEDGER, record)) : undefined;
    },
    list: async (query: LedgerQuery) => {
      const { where, params } = ledgerFilter(
        query,
        (i) => `$${i}`,
        (x) => `strpos(url, ${x}) > 0`,
      );
      const { limit, offset } = ledgerPage(query);
      const n = params.length;
      const [total, items] = await Promise.all([
        access.query('count crawler_url', `SELECT count(*)::int AS n FROM crawler_url WHERE ${where}`, params),
        access.query('list crawler_url', `${SELECT} WHERE ${where} ORDER BY url, id LIMIT $${n + 1} OFFSET $${n + 2}`, [
          ...params,
          limit,
          offset,
        ]),
      ]);
      return {
        items: items.rows.map((r) => withoutNullPriority(rowFromDb(URL_LEDGER, r))),
        total: Number(total.rows[0]?.n ?? 0),
      };
    },
    counts: async (catalogId: string, version: number) => {
      const counts = zeroCounts();
      const result = await access.query(
        'count crawler_url',
        'SELECT state, count(*)::int AS n FROM crawler_url WHERE catalog_id = $1 AND version = $2 GROUP BY state',
        [catalogId, version],
      );
      for (const r of result.rows) {
        const state = String(r.state);
        if (state in counts) counts[state as LedgerState] = Number(r.n);
      }
      return counts;
    },
    deletedUrlHashes: async (catalogId: string, version: number) => {
      const result = await access.query(
        'read crawler_url',
        "SELECT url_hash FROM crawler_url WHERE catalog_id = $1 AND version = $2 AND state = 'deleted'",
        [catalogId, version],
      );
      return result.rows.map((r) => String(r.url_hash));
    },
  };
}
