import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import { CrawlerError } from '../errors.js';

/** The databases that have a folder of migrations under `schema/`. */
export type DatabaseKind = 'sqlite' | 'postgresql';

/** One numbered SQL file, e.g. `0001_init`. */
export interface Migration {
  name: string;
  sql: string;
}

export interface MigrateOptions {
  /** Folder holding `sqlite/` and `postgresql/`. @default the repository's `schema/` (found from this file) */
  schemaDir?: string;
}

export interface MigrateResult {
  /** Migrations applied by this call, in order; empty when the database was up to date. */
  applied: string[];
}

/** Table recording the applied migration names. */
export const MIGRATIONS_TABLE = 'gf_migrations';

const MIGRATION_FILE = /^(\d{4}_[A-Za-z0-9_-]+)\.sql$/;
/** Key of the PostgreSQL advisory lock that serialises concurrent migrators. */
const PG_LOCK_KEY = 7_316_290_433;

/**
 * The `schema/` folder of the repository: four levels above this file, which sits at
 * `packages/core/src/storage/` when run from source and `packages/core/dist/storage/` when built.
 */
export function defaultSchemaDir(): string {
  return fileURLToPath(new URL('../../../../schema/', import.meta.url));
}

/** The schema folder to use, checked to exist. */
export function resolveSchemaDir(schemaDir?: string): string {
  const dir = resolve(schemaDir ?? defaultSchemaDir());
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new CrawlerError('CONFIG', `schema folder ${dir} does not exist`, {
      fix: 'run from a full checkout (it holds schema/) or pass schemaDir pointing at a folder with sqlite/ and postgresql/',
    });
  }
  return dir;
}

/** The migrations of one database, in name order. */
export function loadMigrations(kind: DatabaseKind, schemaDir?: string): Migration[] {
  const dir = join(resolveSchemaDir(schemaDir), kind);
  if (!existsSync(dir)) {
    throw new CrawlerError('CONFIG', `schema folder ${dir} does not exist`, {
      fix: `generate it with node scripts/schema-generate.mjs or pass schemaDir holding ${kind}/`,
    });
  }
  return readdirSync(dir)
    .map((file) => MIGRATION_FILE.exec(file)?.[1])
    .filter((name): name is string => name !== undefined)
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(dir, `${name}.sql`), 'utf8') }));
}

function migrationFailed(kind: DatabaseKind, name: string, cause: unknown): CrawlerError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new CrawlerError('STORAGE', `${kind} migration ${name} failed and was rolled back: ${why}`, {
    cause,
    fix: `fix schema/${kind}/${name}.sql (or the database it meets) and start again; earlier migrations stay applied`,
  });
}

/**
 * Apply the SQLite migrations not yet recorded in `gf_migrations`, each file in its own immediate transaction,
 * so a second process waits instead of applying the same file twice.
 */
export function migrateSqlite(db: BetterSqlite3.Database, options: MigrateOptions = {}): MigrateResult {
  const migrations = loadMigrations('sqlite', options.schemaDir);
  db.exec(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (name TEXT NOT NULL PRIMARY KEY, applied_at TEXT NOT NULL)`);
  const isApplied = db.prepare(`SELECT 1 FROM ${MIGRATIONS_TABLE} WHERE name = ?`).pluck();
  const record = db.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (name, applied_at) VALUES (?, ?)`);
  const applied: string[] = [];
  for (const migration of migrations) {
    const applyOne = db.transaction((m: Migration): boolean => {
      if (isApplied.get(m.name) !== undefined) return false;
      db.exec(m.sql);
      record.run(m.name, new Date().toISOString());
      return true;
    });
    try {
      if (applyOne.immediate(migration)) applied.push(migration.name);
    } catch (err) {
      throw migrationFailed('sqlite', migration.name, err);
    }
  }
  return { applied };
}

/**
 * Apply the PostgreSQL migrations not yet recorded in `gf_migrations`, each file in its own transaction
 * holding an advisory lock, so concurrent processes apply each file once.
 */
export async function migratePostgres(pool: pg.Pool, options: MigrateOptions = {}): Promise<MigrateResult> {
  const migrations = loadMigrations('postgresql', options.schemaDir);
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [PG_LOCK_KEY]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (name TEXT NOT NULL PRIMARY KEY, applied_at TIMESTAMPTZ(3) NOT NULL)`,
    );
    await client.query('COMMIT');
    for (const migration of migrations) {
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock($1)', [PG_LOCK_KEY]);
        const done = await client.query(`SELECT 1 FROM ${MIGRATIONS_TABLE} WHERE name = $1`, [migration.name]);
        if (done.rowCount) {
          await client.query('COMMIT');
          continue;
        }
        await client.query(migration.sql);
        await client.query(`INSERT INTO ${MIGRATIONS_TABLE} (name, applied_at) VALUES ($1, now())`, [migration.name]);
        await client.query('COMMIT');
        applied.push(migration.name);
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw migrationFailed('postgresql', migration.name, err);
      }
    }
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  return { applied };
}
