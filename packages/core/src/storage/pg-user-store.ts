import type { PgAccess } from './pg-access.js';
import { columnList, rowFromDb, rowToDb, toIsoInstant } from './record-columns.js';
import type { UserRow, UserStore } from './record-store.js';
import { USER, userExists } from './user-columns.js';

/** UserStore on PostgreSQL: gf_user and gf_revoked_token. Names sort bytewise (COLLATE "C"), as in SQLite. */
export function pgUserStore(access: PgAccess): UserStore {
  const select = `SELECT ${columnList(USER)} FROM gf_user`;
  const insert =
    `INSERT INTO gf_user (${columnList(USER)}) VALUES (${USER.columns.map((_, i) => `$${i + 1}`).join(', ')}) ` +
    'ON CONFLICT (name) DO NOTHING';
  const others = USER.columns.filter((c) => c.column !== 'name');
  const update = `UPDATE gf_user SET ${others.map((c, i) => `"${c.column}" = $${i + 2}`).join(', ')} WHERE name = $1`;
  const revoke =
    'INSERT INTO gf_revoked_token (token_id, expires_at) VALUES ($1, $2) ' +
    'ON CONFLICT (token_id) DO UPDATE SET expires_at = GREATEST(gf_revoked_token.expires_at, excluded.expires_at)';
  const changed = (result: { rowCount: number | null }): number => result.rowCount ?? 0;
  return {
    create: async (user: UserRow) => {
      if (changed(await access.query('create user', insert, rowToDb(USER, user, false))) === 0)
        throw userExists(user.name);
    },
    update: async (user: UserRow) => changed(await access.query('update user', update, rowToDb(USER, user, false))) > 0,
    get: async (name: string) => {
      const record = (await access.query('read user', `${select} WHERE name = $1`, [name])).rows[0];
      return record ? rowFromDb(USER, record) : undefined;
    },
    list: async () =>
      (await access.query('list users', `${select} ORDER BY name COLLATE "C"`)).rows.map((r) => rowFromDb(USER, r)),
    delete: async (name: string) =>
      changed(await access.query('delete user', 'DELETE FROM gf_user WHERE name = $1', [name])) > 0,
    count: async () => Number((await access.query('count users', 'SELECT count(*)::int AS n FROM gf_user')).rows[0]?.n),
    revoke: async (tokenId: string, expiresAt: string) => {
      await access.query('revoke token', revoke, [tokenId, toIsoInstant(expiresAt, 'expiresAt')]);
    },
    isRevoked: async (tokenId: string) =>
      (await access.query('read revoked token', 'SELECT 1 FROM gf_revoked_token WHERE token_id = $1', [tokenId])).rows
        .length > 0,
    purgeRevoked: async (now: string) =>
      changed(
        await access.query('purge revoked tokens', 'DELETE FROM gf_revoked_token WHERE expires_at < $1', [
          toIsoInstant(now, 'now'),
        ]),
      ),
  };
}
