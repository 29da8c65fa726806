import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ConfigError,
  CrawlerError,
  createRecordDatabase,
  defaultSchemaDir,
  loadMigrations,
  SqliteRecordDatabase,
  sqlitePathFromUrl,
} from '@greenfinger/core/internal';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { describeRecordDatabaseContract, makeCatalog, makeResource } from './record-store.contract.js';

/** The migrations in schema/, in order. */
const MIGRATIONS = [
  '0001_init',
  '0002_ledger_users',
  '0003_version_id_order',
  '0004_url_found_as',
  '0005_resource_response',
  '0006_url_priority',
  '0007_url_changes',
  '0008_url_recrawl',
  '0009_alerts',
];

const root = mkdtempSync(join(tmpdir(), 'gf-sqlite-'));
let n = 0;
const fresh = (): string => join(root, `db-${++n}`, 'greenfinger.db');

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describeRecordDatabaseContract('SQLite', () => SqliteRecordDatabase.open({ file: fresh() }));

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('SQLite migrations', () => {
  it('finds the repository schema folder from the source tree', () => {
    const repoSchema = resolve(fileURLToPath(new URL('../../../../schema', import.meta.url)));
    expect(defaultSchemaDir().replace(/\/$/, '')).toBe(repoSchema);
    expect(loadMigrations('sqlite').map((m) => m.name)).toEqual(MIGRATIONS);
    expect(loadMigrations('postgresql').map((m) => m.name)).toEqual(MIGRATIONS);
  });

  it('applies every migration once; a second run and a reopen apply nothing', async () => {
    const file = fresh();
    const db = await SqliteRecordDatabase.open({ file, migrate: false });
    expect(await db.migrate()).toEqual({ applied: MIGRATIONS });
    expect(await db.migrate()).toEqual({ applied: [] });
    await db.close();
    const again = await SqliteRecordDatabase.open({ file });
    expect(await again.migrate()).toEqual({ applied: [] });
    await again.close();
    const raw = new Database(file, { readonly: true });
    expect(raw.prepare('SELECT name FROM gf_migrations').pluck().all()).toEqual(MIGRATIONS);
    const tables = raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual([
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
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });

  it('applies files in name order, each in its own transaction, and rolls a failing one back', async () => {
    const schemaDir = join(root, 'schema-custom');
    mkdirSync(join(schemaDir, 'sqlite'), { recursive: true });
    writeFileSync(join(schemaDir, 'sqlite', '0002_second.sql'), 'CREATE TABLE t2 (id TEXT);\nCREATE TABLE broken (;\n');
    writeFileSync(join(schemaDir, 'sqlite', '0001_first.sql'), 'CREATE TABLE t1 (id TEXT);\n');
    writeFileSync(join(schemaDir, 'sqlite', 'notes.txt'), 'not a migration');
    const file = fresh();
    const err = await errorOf(SqliteRecordDatabase.open({ file, schemaDir }));
    expect(err).toBeInstanceOf(CrawlerError);
    expect((err as CrawlerError).message).toContain('0002_second');
    const raw = new Database(file);
    expect(raw.prepare('SELECT name FROM gf_migrations').pluck().all()).toEqual(['0001_first']);
    expect(raw.prepare("SELECT name FROM sqlite_master WHERE name = 't2'").pluck().all()).toEqual([]);
    raw.close();

    writeFileSync(join(schemaDir, 'sqlite', '0002_second.sql'), 'CREATE TABLE t2 (id TEXT);\n');
    const db = await SqliteRecordDatabase.open({ file, schemaDir, migrate: false });
    expect(await db.migrate()).toEqual({ applied: ['0002_second'] });
    expect(await db.migrate()).toEqual({ applied: [] });
    await db.close();
  });

  it('names the missing folder when the schema folder is wrong', async () => {
    const err = await errorOf(SqliteRecordDatabase.open({ file: fresh(), schemaDir: join(root, 'nope') }));
    expect(err).toBeInstanceOf(CrawlerError);
    expect((err as CrawlerError).message).toContain(join(root, 'nope'));
  });
});

describe('createRecordDatabase (SQLite)', () => {
  it('opens SQLite at sqliteFile for an empty DATABASE_URL, and keeps data across a reopen', async () => {
    const file = fresh();
    const catalog = makeCatalog();
    const resource = makeResource(catalog.id, 1, '/kept');
    const db = await createRecordDatabase({ databaseUrl: '', sqliteFile: file });
    expect(db.kind).toBe('sqlite');
    await db.catalogs.create(catalog);
    await db.resources.saveResources([resource]);
    await db.close();
    await using again = (await createRecordDatabase({ sqliteFile: file })) as SqliteRecordDatabase;
    expect(again.file).toBe(file);
    expect(await again.catalogs.get(catalog.id)).toEqual(catalog);
    expect(await again.resources.getResource(resource.id)).toEqual(resource);
  });

  it('opens SQLite for file: and sqlite: urls', async () => {
    const a = fresh();
    const b = fresh();
    await using one = (await createRecordDatabase({
      databaseUrl: `file:${a}`,
      sqliteFile: fresh(),
    })) as SqliteRecordDatabase;
    expect(one.file).toBe(a);
    await using two = (await createRecordDatabase({
      databaseUrl: `sqlite://${b}`,
      sqliteFile: fresh(),
    })) as SqliteRecordDatabase;
    expect(two.file).toBe(b);
    expect(sqlitePathFromUrl('file:///var/x/g.db?mode=rwc')).toBe('/var/x/g.db');
    expect(sqlitePathFromUrl('file:./data/g.db')).toBe('./data/g.db');
    expect(sqlitePathFromUrl('sqlite::memory:')).toBe(':memory:');
  });

  it('rejects any other DATABASE_URL with a ConfigError naming it and the accepted forms', async () => {
    const err = await errorOf(createRecordDatabase({ databaseUrl: 'mysql://u:secret@h/db', sqliteFile: fresh() }));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).field).toBe('DATABASE_URL');
    const line = (err as ConfigError).toLine();
    expect(line).toContain('postgres://');
    expect(line).toContain('file:');
    expect(line).not.toContain('secret');
  });

  it('reports an unwritable location as a ConfigError naming the path and the fix', async () => {
    const blocker = join(root, 'a-file');
    writeFileSync(blocker, 'x');
    const file = join(blocker, 'system', 'greenfinger.db');
    const err = await errorOf(createRecordDatabase({ sqliteFile: file }));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).field).toBe('GF_DATA_STORE');
    expect((err as ConfigError).message).toContain(file);
    expect((err as ConfigError).fix).toContain('GF_DATA_STORE');
  });

  it('reports a corrupted file as CORRUPT naming the file and what to do', async () => {
    const file = fresh();
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, Buffer.alloc(8192, 0x5a));
    const err = await errorOf(createRecordDatabase({ sqliteFile: file }));
    expect(err).toBeInstanceOf(CrawlerError);
    expect((err as CrawlerError).code).toBe('CORRUPT');
    expect((err as CrawlerError).message).toContain(file);
    expect((err as CrawlerError).fix).toMatch(/move .* aside/);
    expect(readFileSync(file).subarray(0, 4).toString()).toBe('ZZZZ');
  });
});
