import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server tests create their databases on. @default postgres://postgres@127.0.0.1:5432/postgres */
export const testPgUrl = process.env.GF_TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase extends AsyncDisposable {
  /** Connection url of the new, empty database. */
  readonly url: string;
  readonly name: string;
  /** Drop the database (closing other sessions on it first). Idempotent. */
  drop(): Promise<void>;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: testPgUrl, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => {});
    throw new Error(
      `PostgreSQL is not reachable at ${testPgUrl.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')}: ${(err as Error).message}. Run \`npm test\` (it starts a server) or set GF_TEST_PG_URL`,
      { cause: err },
    );
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Create an empty database `gf_test_<random>` on the GF_TEST_PG_URL server. Use with `await using db = …`. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `gf_test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  const url = new URL(testPgUrl);
  url.pathname = `/${name}`;
  let dropped: Promise<void> | undefined;
  const drop = () => {
    dropped ??= admin(async (c) => {
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    });
    return dropped;
  };
  return { url: url.href, name, drop, [Symbol.asyncDispose]: drop };
}
