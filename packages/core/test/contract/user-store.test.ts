import { PgRecordDatabase, SqliteRecordDatabase } from '@greenfinger/core/internal';
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { createTestDatabase, type TestDatabase, testPgUrl } from '../support/pg.js';
import { createTempDir } from '../support/tmp.js';
import { describeUserStoreContract } from './user-store.contract.js';

const tmp = createTempDir('gf-users-');
afterAll(() => tmp.remove());

describeUserStoreContract('SQLite', () => SqliteRecordDatabase.open({ file: `${tmp.path}/greenfinger.db` }));

/** Why the PostgreSQL run cannot happen (no server answers), or undefined when it can. */
async function pgUnavailable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: testPgUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return undefined;
  } catch (err) {
    return `no PostgreSQL answers at ${testPgUrl.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')} (${(err as Error).message}); start one or set GF_TEST_PG_URL`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const pgDown = await pgUnavailable();

describe.skipIf(pgDown !== undefined)(`PostgreSQL${pgDown ? ` — skipped: ${pgDown}` : ''}`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });
  describeUserStoreContract('PostgreSQL', () => PgRecordDatabase.open({ connectionString: db.url }));
});
