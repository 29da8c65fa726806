import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { PgRecordDatabase } from '../../src/storage/pg-record-database.js';
import { SqliteRecordDatabase } from '../../src/storage/sqlite-record-database.js';
import { createTestDatabase, type TestDatabase, testPgUrl } from '../support/pg.js';
import { createTempDir } from '../support/tmp.js';
import { describeUrlLedgerContract } from './url-ledger.contract.js';

const dir = createTempDir('gf-ledger-');
afterAll(() => dir.remove());

describeUrlLedgerContract('SQLite', () => SqliteRecordDatabase.open({ file: `${dir.path}/greenfinger.db` }));

/** Whether a PostgreSQL server answers at GF_TEST_PG_URL: the suite is skipped only when none does. */
async function pgAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: testPgUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const hasPg = await pgAnswers();

describe.skipIf(!hasPg)('PostgreSQL', () => {
  let own: TestDatabase;
  beforeAll(async () => {
    own = await createTestDatabase();
  });
  afterAll(async () => {
    await own?.drop();
  });
  describeUrlLedgerContract('PostgreSQL', () => PgRecordDatabase.open({ connectionString: own.url }));
});
