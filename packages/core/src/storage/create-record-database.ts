import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';
import type { MigrateOptions } from './migrate.js';
import { PgRecordDatabase, redactUrl } from './pg-record-database.js';
import type { RecordDatabase } from './record-store.js';
import { SqliteRecordDatabase } from './sqlite-record-database.js';

export interface CreateRecordDatabaseOptions extends MigrateOptions {
  /**
   * DATABASE_URL. Empty = SQLite at `sqliteFile`; `file:` / `sqlite:` = SQLite at that path;
   * `postgres://` / `postgresql://` = PostgreSQL.
   * @default ''
   */
  databaseUrl?: string;
  /** The SQLite file used when `databaseUrl` is empty (the layout's `system/greenfinger.db`). */
  sqliteFile: string;
}

const ACCEPTED =
  'leave it empty for SQLite under the data store, or use file:/path/to/greenfinger.db, sqlite:/path/to/greenfinger.db ' +
  'or postgres://user:password@host:5432/database';

/** The file named by a `file:` or `sqlite:` url: `file:rel.db`, `file:/abs.db`, `file:///abs.db`, `sqlite::memory:`. */
export function sqlitePathFromUrl(url: string): string {
  const withoutQuery = url.replace(/[?#].*$/, '');
  if (/^file:\/\//i.test(withoutQuery)) return fileURLToPath(withoutQuery);
  const rest = withoutQuery.replace(/^(file|sqlite):/i, '');
  const path = rest.startsWith('//') ? rest.slice(2) : rest;
  if (!path) throw new ConfigError('DATABASE_URL', `"${url}" names no SQLite file`, ACCEPTED);
  return decodeURIComponent(path);
}

/**
 * Open the record database DATABASE_URL names and apply pending migrations.
 * @throws ConfigError naming DATABASE_URL for an unsupported url, or the location for an unwritable SQLite file.
 */
export async function createRecordDatabase(options: CreateRecordDatabaseOptions): Promise<RecordDatabase> {
  const url = (options.databaseUrl ?? '').trim();
  const { schemaDir } = options;
  if (url === '') return SqliteRecordDatabase.open({ file: options.sqliteFile, schemaDir, field: 'GF_DATA_STORE' });
  if (/^(file|sqlite):/i.test(url)) {
    return SqliteRecordDatabase.open({ file: sqlitePathFromUrl(url), schemaDir, field: 'DATABASE_URL' });
  }
  if (/^postgres(ql)?:\/\//i.test(url)) return PgRecordDatabase.open({ connectionString: url, schemaDir });
  throw new ConfigError('DATABASE_URL', `unsupported database url "${redactUrl(url)}"`, ACCEPTED);
}
