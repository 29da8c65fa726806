import type { PgAccess } from '../storage/pg-access.js';
import { columnList, rowFromDb, rowToDb, toIsoInstant } from '../storage/record-columns.js';
import { ALERT } from './alert-columns.js';
import type { AlertMatch, AlertRow, AlertStore } from './alert-store.js';
import { alertExists } from './sqlite-alert-store.js';

/** AlertStore on PostgreSQL: gf_alert. Names sort bytewise (COLLATE "C"), as in SQLite. */
export function pgAlertStore(access: PgAccess): AlertStore {
  const select = `SELECT ${columnList(ALERT)} FROM gf_alert`;
  const insert =
    `INSERT INTO gf_alert (${columnList(ALERT)}) VALUES (${ALERT.columns.map((_, i) => `$${i + 1}`).join(', ')}) ` +
    'ON CONFLICT DO NOTHING';
  const changed = (result: { rowCount: number | null }): number => result.rowCount ?? 0;
  return {
    create: async (row: AlertRow) => {
      if (changed(await access.query('create alert', insert, rowToDb(ALERT, row, false))) === 0) {
        throw alertExists(row.name);
      }
    },
    list: async (catalogId: string) =>
      (
        await access.query('list alerts', `${select} WHERE catalog_id = $1 ORDER BY name COLLATE "C"`, [catalogId])
      ).rows.map((r) => rowFromDb(ALERT, r)),
    delete: async (catalogId: string, id: string) =>
      changed(
        await access.query('delete alert', 'DELETE FROM gf_alert WHERE catalog_id = $1 AND id = $2', [catalogId, id]),
      ) > 0,
    fired: async (id: string, at: string, matches: AlertMatch[]) => {
      await access.query(
        'record alert firing',
        'UPDATE gf_alert SET last_fired_at = $1, last_matches = $2 WHERE id = $3',
        [toIsoInstant(at, 'at'), JSON.stringify(matches), id],
      );
    },
    deleteCatalog: async (catalogId: string) =>
      changed(await access.query('delete alerts', 'DELETE FROM gf_alert WHERE catalog_id = $1', [catalogId])),
  };
}
