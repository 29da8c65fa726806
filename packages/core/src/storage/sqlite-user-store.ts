import { columnList, rowFromDb, rowToDb, toIsoInstant } from './record-columns.js';
import type { UserRow, UserStore } from './record-store.js';
import type { SqliteAccess } from './sqlite-access.js';
import { USER, userExists } from './user-columns.js';

/** UserStore on the SQLite file: gf_user and gf_revoked_token. Times are ISO text, so they compare as text. */
export function sqliteUserStore(access: SqliteAccess): UserStore {
  const select = `SELECT ${columnList(USER)} FROM gf_user`;
  const insert =
    `INSERT INTO gf_user (${columnList(USER)}) VALUES (${USER.columns.map(() => '?').join(', ')}) ` +
    'ON CONFLICT (name) DO NOTHING';
  const others = USER.columns.filter((c) => c.column !== 'name');
  const update = `UPDATE gf_user SET ${others.map((c) => `"${c.column}" = ?`).join(', ')} WHERE name = ?`;
  const revoke =
    'INSERT INTO gf_revoked_token (token_id, expires_at) VALUES (?, ?) ' +
    'ON CONFLICT (token_id) DO UPDATE SET expires_at = max(expires_at, excluded.expires_at)';
  return {
    create: (user: UserRow) =>
      access.run('create user', () => {
        if (access.stmt(insert).run(rowToDb(USER, user, true)).changes === 0) throw userExists(user.name);
      }),
    update: (user: UserRow) =>
      access.run('update user', () => {
        const [name, ...rest] = rowToDb(USER, user, true);
        return access.stmt(update).run(...rest, name).changes > 0;
      }),
    get: (name: string) =>
      access.run('read user', () => {
        const record = access.stmt(`${select} WHERE name = ?`).get(name) as Record<string, unknown> | undefined;
        return record ? rowFromDb(USER, record) : undefined;
      }),
    list: () =>
      access.run('list users', () =>
        (access.stmt(`${select} ORDER BY name`).all() as Record<string, unknown>[]).map((r) => rowFromDb(USER, r)),
      ),
    delete: (name: string) =>
      access.run('delete user', () => access.stmt('DELETE FROM gf_user WHERE name = ?').run(name).changes > 0),
    count: () => access.run('count users', () => Number(access.stmt('SELECT count(*) FROM gf_user').pluck().get())),
    revoke: (tokenId: string, expiresAt: string) =>
      access.run('revoke token', () => {
        access.stmt(revoke).run(tokenId, toIsoInstant(expiresAt, 'expiresAt'));
      }),
    isRevoked: (tokenId: string) =>
      access.run(
        'read revoked token',
        () => access.stmt('SELECT 1 FROM gf_revoked_token WHERE token_id = ?').get(tokenId) !== undefined,
      ),
    purgeRevoked: (now: string) =>
      access.run(
        'purge revoked tokens',
        () => access.stmt('DELETE FROM gf_revoked_token WHERE expires_at < ?').run(toIsoInstant(now, 'now')).changes,
      ),
  };
}
