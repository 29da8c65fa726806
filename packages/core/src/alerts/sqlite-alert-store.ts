import { CrawlerError } from '../errors.js';
import { columnList, rowFromDb, rowToDb, toIsoInstant } from '../storage/record-columns.js';
import type { SqliteAccess } from '../storage/sqlite-access.js';
import { ALERT } from './alert-columns.js';
import type { AlertMatch, AlertRow, AlertStore } from './alert-store.js';

/** AlertStore on the SQLite file: gf_alert. */
export function sqliteAlertStore(access: SqliteAccess): AlertStore {
  const select = `SELECT ${columnList(ALERT)} FROM gf_alert`;
  const insert =
    `INSERT INTO gf_alert (${columnList(ALERT)}) VALUES (${ALERT.columns.map(() => '?').join(', ')}) ` +
    'ON CONFLICT DO NOTHING';
  return {
    create: (row: AlertRow) =>
      access.run('create alert', () => {
        if (access.stmt(insert).run(rowToDb(ALERT, row, true)).changes === 0) throw alertExists(row.name);
      }),
    list: (catalogId: string) =>
      access.run('list alerts', () =>
        (access.stmt(`${select} WHERE catalog_id = ? ORDER BY name`).all(catalogId) as Record<string, unknown>[]).map(
          (r) => rowFromDb(ALERT, r),
        ),
      ),
    delete: (catalogId: string, id: string) =>
      access.run(
        'delete alert',
        () => access.stmt('DELETE FROM gf_alert WHERE catalog_id = ? AND id = ?').run(catalogId, id).changes > 0,
      ),
    fired: (id: string, at: string, matches: AlertMatch[]) =>
      access.run('record alert firing', () => {
        access
          .stmt('UPDATE gf_alert SET last_fired_at = ?, last_matches = ? WHERE id = ?')
          .run(toIsoInstant(at, 'at'), JSON.stringify(matches), id);
      }),
    deleteCatalog: (catalogId: string) =>
      access.run(
        'delete alerts',
        () => access.stmt('DELETE FROM gf_alert WHERE catalog_id = ?').run(catalogId).changes,
      ),
  };
}

/** The error for a saved search whose name its catalog already has. */
export function alertExists(name: string): CrawlerError {
  return new CrawlerError('CONFLICT', `the catalog already has an alert named "${name}"`, {
    fix: 'choose another --name, or remove that one first: greenfinger alert remove ID',
  });
}
