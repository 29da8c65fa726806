import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ids } from '../../src/ids.js';
import { PgRecordDatabase } from '../../src/storage/pg-record-database.js';
import { SqliteRecordDatabase } from '../../src/storage/sqlite-record-database.js';
import { createTestDatabase, type TestDatabase, testPgUrl } from '../support/pg.js';
import { createTempDir } from '../support/tmp.js';
import { describeUrlLedgerContract, ledgerRow } from './url-ledger.contract.js';

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

  // Cluster members record the pages they handled at the same moment, and their batches overlap (a url found by
  // both): CI once saw both followers stop with "deadlock detected". Batches given in opposite orders must all land.
  it('two writers recording overlapping batches at once, in opposite orders, both land: no deadlock', async () => {
    const [a, b] = await Promise.all([
      PgRecordDatabase.open({ connectionString: own.url }),
      PgRecordDatabase.open({ connectionString: own.url }),
    ]);
    try {
      const c = ids.catalog();
      const urls = Array.from({ length: 400 }, (_, i) => `https://example.test/page/${i}`);
      for (let round = 0; round < 12; round++) {
        const state = round % 2 === 0 ? 'queued' : 'done';
        const forward = urls.map((u) => ledgerRow(c, 0, u, state, { detail: `a${round}` }));
        const backward = urls.map((u) => ledgerRow(c, 0, u, state, { detail: `b${round}` })).reverse();
        await Promise.all([a.ledger.record(forward), b.ledger.record(backward)]);
      }
      const counts = await a.ledger.counts(c, 0);
      expect(counts.done).toBe(urls.length);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
