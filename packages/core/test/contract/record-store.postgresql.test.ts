import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConfigError,
  CrawlerError,
  createRecordDatabase,
  PgRecordDatabase,
  type RecordDatabase,
} from '@greenfinger/core/internal';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPgTestDatabase,
  describeRecordDatabaseContract,
  makeCatalog,
  type PgTestDatabase,
  skipPg,
} from './record-store.contract.js';

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (e: unknown) => e,
  );
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(skipPg)('PostgreSQL', () => {
  let shared: PgTestDatabase;
  beforeAll(async () => {
    shared = await createPgTestDatabase();
  });
  afterAll(async () => {
    await shared?.drop();
  });

  describeRecordDatabaseContract('PostgreSQL', () => PgRecordDatabase.open({ connectionString: shared.url }));

  describe('migrations', () => {
    let own: PgTestDatabase;
    let scratch = '';
    beforeAll(async () => {
      own = await createPgTestDatabase();
      scratch = mkdtempSync(join(tmpdir(), 'gf-pg-schema-'));
    });
    afterAll(async () => {
      await own?.drop();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    });

    it('applies every migration once even when two processes migrate at the same time; again applies nothing', async () => {
      const a = await PgRecordDatabase.open({ connectionString: own.url, migrate: false });
      const b = await PgRecordDatabase.open({ connectionString: own.url, migrate: false });
      const [ra, rb] = await Promise.all([a.migrate(), b.migrate()]);
      // Each file once over both (each is its own locked transaction, so the two may share the list between them).
      expect([...ra.applied, ...rb.applied].sort()).toEqual([
        '0001_init',
        '0002_ledger_users',
        '0003_version_id_order',
        '0004_url_found_as',
        '0005_resource_response',
        '0006_url_priority',
        '0007_url_changes',
        '0008_url_recrawl',
        '0009_alerts',
      ]);
      expect(await a.migrate()).toEqual({ applied: [] });
      await a.close();
      await b.close();
      await using again = await PgRecordDatabase.open({ connectionString: own.url });
      expect(await again.migrate()).toEqual({ applied: [] });
      const tables = await query<{ table_name: string }>(
        own.url,
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
      );
      expect(tables.map((t) => t.table_name)).toEqual([
        'crawler_catalog',
        'crawler_image',
        'crawler_report',
        'crawler_resource',
        'crawler_resource_image',
        'crawler_url',
        'gf_alert',
        'gf_migrations',
        'gf_revoked_token',
        'gf_user',
      ]);
      const idType = await query<{ data_type: string; len: number }>(
        own.url,
        "SELECT data_type, character_maximum_length AS len FROM information_schema.columns WHERE table_name = 'crawler_resource' AND column_name = 'id'",
      );
      expect(idType).toEqual([{ data_type: 'character', len: 36 }]);
    });

    it('rolls a failing migration back and records only the ones that succeeded', async () => {
      const db = await createPgTestDatabase();
      try {
        const schemaDir = join(scratch, 'schema');
        mkdirSync(join(schemaDir, 'postgresql'), { recursive: true });
        writeFileSync(join(schemaDir, 'postgresql', '0001_first.sql'), 'CREATE TABLE t1 (id TEXT);\n');
        writeFileSync(
          join(schemaDir, 'postgresql', '0002_second.sql'),
          'CREATE TABLE t2 (id TEXT);\nCREATE TABLE broken (;\n',
        );
        const err = await errorOf(PgRecordDatabase.open({ connectionString: db.url, schemaDir }));
        expect(err).toBeInstanceOf(CrawlerError);
        expect((err as CrawlerError).message).toContain('0002_second');
        expect(await query(db.url, 'SELECT name FROM gf_migrations')).toEqual([{ name: '0001_first' }]);
        expect(await query(db.url, "SELECT to_regclass('t2') AS t")).toEqual([{ t: null }]);

        writeFileSync(join(schemaDir, 'postgresql', '0002_second.sql'), 'CREATE TABLE t2 (id TEXT);\n');
        await using fixed = await PgRecordDatabase.open({ connectionString: db.url, schemaDir, migrate: false });
        expect(await fixed.migrate()).toEqual({ applied: ['0002_second'] });
        expect(await fixed.migrate()).toEqual({ applied: [] });
      } finally {
        await db.drop();
      }
    });
  });

  describe('createRecordDatabase (PostgreSQL)', () => {
    it('opens PostgreSQL for postgres:// and postgresql:// urls', async () => {
      const url = shared.url;
      for (const databaseUrl of [url, url.replace(/^postgres:/, 'postgresql:')]) {
        const db: RecordDatabase = await createRecordDatabase({ databaseUrl, sqliteFile: '/nonexistent/never.db' });
        try {
          expect(db.kind).toBe('postgresql');
          const catalog = makeCatalog();
          await db.catalogs.create(catalog);
          expect(await db.catalogs.get(catalog.id)).toEqual(catalog);
        } finally {
          await db.close();
        }
      }
    });

    it('names DATABASE_URL when the database does not exist', async () => {
      const url = new URL(shared.url);
      url.pathname = '/gf_test_does_not_exist';
      const err = await errorOf(createRecordDatabase({ databaseUrl: url.toString(), sqliteFile: 'x.db' }));
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).field).toBe('DATABASE_URL');
    });

    it('says how to fix an unreachable server, hiding the password', async () => {
      const err = await errorOf(
        createRecordDatabase({ databaseUrl: 'postgres://gf:secret@127.0.0.1:1/gf', sqliteFile: 'x.db' }),
      );
      expect(err).toBeInstanceOf(CrawlerError);
      expect((err as CrawlerError).code).toBe('STORAGE');
      expect((err as CrawlerError).toLine()).toContain('start PostgreSQL or correct DATABASE_URL');
      expect((err as CrawlerError).toLine()).not.toContain('secret');
    });
  });
});
