import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { AlertStore } from '../alerts/alert-store.js';
import { sqliteAlertStore } from '../alerts/sqlite-alert-store.js';
import { ConfigError, CrawlerError } from '../errors.js';
import type { Catalog, ImageRow, ReportRow, ResourceImageRow, ResourceRow } from '../model.js';
import { makeDirs } from './make-dirs.js';
import { type MigrateOptions, type MigrateResult, migrateSqlite } from './migrate.js';
import {
  CATALOG,
  catalogMissing,
  columnList,
  IMAGE,
  IMAGE_WITH_REF,
  REPORT,
  RESOURCE,
  RESOURCE_IMAGE,
  RESOURCE_TABLES,
  rowFromDb,
  rowToDb,
  type TableSpec,
  updateSet,
  VERSIONED_TABLES,
} from './record-columns.js';
import type { CatalogStore, RecordDatabase, ResourceRecordStore, UrlLedgerStore, UserStore } from './record-store.js';
import type { SqliteAccess } from './sqlite-access.js';
import { sqliteUrlLedger } from './sqlite-url-ledger.js';
import { sqliteUserStore } from './sqlite-user-store.js';

export type { SqliteAccess } from './sqlite-access.js';

export interface SqliteRecordDatabaseOptions extends MigrateOptions {
  /** The database file (its folder is created), or `:memory:`. */
  file: string;
  /** Setting named in errors about the file's location. @default 'GF_DATA_STORE' */
  field?: string;
  /** Milliseconds a writer waits for another connection's lock. @default 5000 */
  busyTimeoutMs?: number;
  /** Apply pending migrations on open. @default true */
  migrate?: boolean;
}

type Row = Record<string, unknown>;

const DEFAULT_BATCH = 500;

function isSqliteError(err: unknown): err is Error & { code: string } {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'string';
}

/**
 * RecordDatabase on one SQLite file (better-sqlite3): WAL journal, `synchronous=NORMAL`, a busy timeout,
 * prepared statements, and every batch written in one transaction.
 */
export class SqliteRecordDatabase implements RecordDatabase {
  readonly kind = 'sqlite' as const;
  readonly catalogs: CatalogStore;
  readonly resources: ResourceRecordStore;
  readonly ledger: UrlLedgerStore;
  readonly users: UserStore;
  readonly alerts: AlertStore;
  readonly file: string;
  private readonly db: Database.Database;
  private readonly options: SqliteRecordDatabaseOptions;
  private readonly statements = new Map<string, Database.Statement>();

  private constructor(db: Database.Database, file: string, options: SqliteRecordDatabaseOptions) {
    this.db = db;
    this.file = file;
    this.options = options;
    this.catalogs = this.catalogStore();
    this.resources = this.resourceStore();
    const access: SqliteAccess = {
      db,
      run: (operation, fn) => this.run(operation, fn),
      stmt: (sql) => this.stmt(sql),
    };
    this.ledger = sqliteUrlLedger(access);
    this.users = sqliteUserStore(access);
    this.alerts = sqliteAlertStore(access);
  }

  /**
   * Open (creating when missing) the file, set the pragmas and apply pending migrations.
   * @throws ConfigError when the location cannot be written; CrawlerError `CORRUPT` when the file is not a database.
   */
  static async open(options: SqliteRecordDatabaseOptions): Promise<SqliteRecordDatabase> {
    const memory = options.file === ':memory:';
    const file = memory ? options.file : resolve(options.file);
    const field = options.field ?? 'GF_DATA_STORE';
    const unwritable = (cause: unknown): ConfigError =>
      new ConfigError(
        field,
        `cannot create or write the SQLite database ${file} (${cause instanceof Error ? cause.message : String(cause)})`,
        `point ${field} at a folder this user can write, or fix the permissions of ${dirname(file)}`,
        cause,
      );
    if (!memory) {
      try {
        makeDirs(dirname(file));
      } catch (err) {
        throw unwritable(err);
      }
    }
    let db: Database.Database;
    try {
      db = new Database(file, { timeout: options.busyTimeoutMs ?? 5000 });
    } catch (err) {
      throw unwritable(err);
    }
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
      const store = new SqliteRecordDatabase(db, file, options);
      if (options.migrate !== false) store.migrateNow();
      return store;
    } catch (err) {
      db.close();
      throw SqliteRecordDatabase.translate(err, file, 'open', unwritable);
    }
  }

  async migrate(): Promise<MigrateResult> {
    return this.migrateNow();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private migrateNow(): MigrateResult {
    return migrateSqlite(this.db, { schemaDir: this.options.schemaDir });
  }

  private static translate(
    err: unknown,
    file: string,
    operation: string,
    unwritable?: (cause: unknown) => ConfigError,
  ): CrawlerError {
    if (err instanceof CrawlerError) return err;
    const message = err instanceof Error ? err.message : String(err);
    const code = isSqliteError(err) ? err.code : '';
    if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
      return new CrawlerError('CORRUPT', `SQLite database ${file} is damaged or not a database (${message})`, {
        cause: err,
        fix: `stop every greenfinger process, move ${file} (and its -wal/-shm files) aside and start again to create a fresh one, or restore it from a backup`,
      });
    }
    if (code.startsWith('SQLITE_CONSTRAINT')) {
      return new CrawlerError('CONFLICT', `${operation}: ${message}`, {
        cause: err,
        fix: 'ids are deterministic, so a duplicate key means two different rows claim one identity; check the caller',
      });
    }
    if (unwritable && (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY' || code.startsWith('SQLITE_IOERR'))) {
      return unwritable(err);
    }
    return new CrawlerError('STORAGE', `SQLite ${operation} on ${file} failed: ${message}`, { cause: err });
  }

  private run<T>(operation: string, fn: () => T): Promise<T> {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(SqliteRecordDatabase.translate(err, this.file, operation));
    }
  }

  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  private upsertSql<R>(spec: TableSpec<R>): string {
    const placeholders = spec.columns.map(() => '?').join(', ');
    return (
      `INSERT INTO "${spec.table}" (${columnList(spec)}) VALUES (${placeholders}) ` +
      `ON CONFLICT (${spec.conflict.map((c) => `"${c}"`).join(', ')}) DO UPDATE SET ${updateSet(spec)}`
    );
  }

  private saveAll<R>(spec: TableSpec<R>, rows: readonly R[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    return this.run(`save ${spec.table}`, () => {
      const insert = this.stmt(this.upsertSql(spec));
      this.db.transaction((batch: readonly R[]) => {
        for (const row of batch) insert.run(rowToDb(spec, row, true));
      })(rows);
    });
  }

  private one<R>(spec: TableSpec<R>, sql: string, ...params: unknown[]): Promise<R | undefined> {
    return this.run(`read ${spec.table}`, () => {
      const record = this.stmt(sql).get(...params) as Row | undefined;
      return record ? rowFromDb(spec, record) : undefined;
    });
  }

  private many<R>(spec: TableSpec<R>, sql: string, ...params: unknown[]): Promise<R[]> {
    return this.run(`read ${spec.table}`, () =>
      (this.stmt(sql).all(...params) as Row[]).map((record) => rowFromDb(spec, record)),
    );
  }

  private async *pages<R extends { id: string }>(
    spec: TableSpec<R>,
    catalogId: string,
    version: number,
    batch: number,
  ): AsyncIterable<R[]> {
    const size = Math.max(1, Math.trunc(batch));
    const sql =
      `SELECT ${columnList(spec)} FROM "${spec.table}" ` +
      'WHERE catalog_id = ? AND version = ? AND id > ? ORDER BY id LIMIT ?';
    let after = '';
    for (;;) {
      const rows = await this.many(spec, sql, catalogId, version, after, size);
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < size) return;
      after = (rows.at(-1) as R).id;
    }
  }

  private catalogStore(): CatalogStore {
    const select = `SELECT ${columnList(CATALOG)} FROM crawler_catalog`;
    const insert = `INSERT INTO crawler_catalog (${columnList(CATALOG)}) VALUES (${CATALOG.columns.map(() => '?').join(', ')})`;
    const update =
      'UPDATE crawler_catalog SET ' +
      CATALOG.columns
        .filter((c) => c.column !== 'id')
        .map((c) => `"${c.column}" = ?`)
        .join(', ') +
      ' WHERE id = ?';
    return {
      create: (catalog: Catalog) =>
        this.run('create catalog', () => {
          try {
            this.stmt(insert).run(rowToDb(CATALOG, catalog, true));
          } catch (err) {
            throw catalogConflict(err, catalog);
          }
        }),
      update: (catalog: Catalog) =>
        this.run('update catalog', () => {
          const [id, ...rest] = rowToDb(CATALOG, catalog, true);
          let changes: number;
          try {
            changes = this.stmt(update).run(...rest, id).changes;
          } catch (err) {
            throw catalogConflict(err, catalog);
          }
          if (changes === 0) throw catalogMissing(catalog.id);
        }),
      get: (id: string) => this.one(CATALOG, `${select} WHERE id = ?`, id),
      findByName: (name: string) => this.one(CATALOG, `${select} WHERE name = ?`, name),
      findByUrl: (url: string) => this.many(CATALOG, `${select} WHERE url = ? ORDER BY created_at, id`, url),
      list: () => this.many(CATALOG, `${select} ORDER BY name`),
      delete: (id: string) =>
        this.run('delete catalog', () =>
          this.db.transaction((catalogId: string) => {
            for (const table of VERSIONED_TABLES)
              this.stmt(`DELETE FROM "${table}" WHERE catalog_id = ?`).run(catalogId);
            return this.stmt('DELETE FROM crawler_catalog WHERE id = ?').run(catalogId).changes > 0;
          })(id),
        ),
    };
  }

  private resourceStore(): ResourceRecordStore {
    const resourceSelect = `SELECT ${columnList(RESOURCE)} FROM crawler_resource`;
    const reportSelect = `SELECT ${columnList(REPORT)} FROM crawler_report`;
    return {
      saveResources: (rows: ResourceRow[]) => this.saveAll(RESOURCE, rows),
      saveImages: (rows: ImageRow[]) => this.saveAll(IMAGE, rows),
      saveResourceImages: (rows: ResourceImageRow[]) => this.saveAll(RESOURCE_IMAGE, rows),
      getResource: (id: string) => this.one(RESOURCE, `${resourceSelect} WHERE id = ?`, id),
      findResourceByUrlHash: (catalogId: string, version: number, urlHash: string) =>
        this.one(
          RESOURCE,
          `${resourceSelect} WHERE catalog_id = ? AND version = ? AND url_hash = ?`,
          catalogId,
          version,
          urlHash,
        ),
      iterateResources: (catalogId: string, version: number, batch = DEFAULT_BATCH) =>
        this.pages(RESOURCE, catalogId, version, batch),
      iterateImages: (catalogId: string, version: number, batch = DEFAULT_BATCH) =>
        this.pages(IMAGE, catalogId, version, batch),
      listResourceIds: (catalogId: string, version: number) =>
        this.run('read crawler_resource', () =>
          (
            this.stmt('SELECT id FROM crawler_resource WHERE catalog_id = ? AND version = ? ORDER BY id')
              .pluck()
              .all(catalogId, version) as string[]
          ).map((id) => id.trim()),
        ),
      resourcesByIds: async (catalogId: string, version: number, ids: readonly string[]) =>
        ids.length === 0
          ? []
          : this.many(
              RESOURCE,
              `${resourceSelect} WHERE catalog_id = ? AND version = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY id`,
              catalogId,
              version,
              JSON.stringify(ids),
            ),
      newestResources: (catalogId: string, version: number, limit: number, after?: { fetchedAt: string; id: string }) =>
        this.many(
          RESOURCE,
          `${resourceSelect} WHERE catalog_id = ? AND version = ? AND (? IS NULL OR fetched_at < ? OR (fetched_at = ? AND id > ?)) ORDER BY fetched_at DESC, id LIMIT ?`,
          catalogId,
          version,
          after?.fetchedAt ?? null,
          after?.fetchedAt ?? null,
          after?.fetchedAt ?? null,
          after?.id ?? null,
          limit,
        ),
      imagesOfResource: (resourceId: string) =>
        this.many(
          IMAGE_WITH_REF,
          `SELECT ${columnList(IMAGE, 'i.')}, ri.alt, ri.surrounding_text FROM crawler_resource_image ri ` +
            'JOIN crawler_image i ON i.id = ri.image_id WHERE ri.resource_id = ? ORDER BY ri.id',
          resourceId,
        ),
      count: (catalogId: string, version: number) =>
        this.run('count', () => {
          const n = (table: string): number =>
            Number(
              this.stmt(`SELECT count(*) FROM "${table}" WHERE catalog_id = ? AND version = ?`)
                .pluck()
                .get(catalogId, version),
            );
          return this.db.transaction(() => ({
            resources: n(RESOURCE.table),
            images: n(IMAGE.table),
            resourceImages: n(RESOURCE_IMAGE.table),
            reports: n(REPORT.table),
          }))();
        }),
      versions: (catalogId: string) =>
        this.run('versions', () => {
          const sql = RESOURCE_TABLES.map((t) => `SELECT version FROM "${t}" WHERE catalog_id = ?`).join(' UNION ');
          return (
            this.stmt(`${sql} ORDER BY version`)
              .pluck()
              .all(...RESOURCE_TABLES.map(() => catalogId)) as number[]
          ).map(Number);
        }),
      deleteResource: (id: string, dryRun = false) =>
        this.run('delete resource', () =>
          this.db.transaction(() => {
            const verb = dryRun ? 'SELECT count(*) FROM' : 'DELETE FROM';
            const n = (table: string, column: string): number => {
              const s = this.stmt(`${verb} "${table}" WHERE ${column} = ?`);
              return dryRun ? Number(s.pluck().get(id)) : s.run(id).changes;
            };
            return {
              [RESOURCE_IMAGE.table]: n(RESOURCE_IMAGE.table, 'resource_id'),
              [RESOURCE.table]: n(RESOURCE.table, 'id'),
            };
          })(),
        ),
      deleteVersion: (catalogId: string, version: number) =>
        this.run('delete version', () =>
          this.db.transaction(() => {
            const removed: Record<string, number> = {};
            for (const table of VERSIONED_TABLES) {
              removed[table] = this.stmt(`DELETE FROM "${table}" WHERE catalog_id = ? AND version = ?`).run(
                catalogId,
                version,
              ).changes;
            }
            return removed;
          })(),
        ),
      saveReport: (row: ReportRow) => this.saveAll(REPORT, [row]),
      getReport: (catalogId: string, version: number) =>
        this.one(REPORT, `${reportSelect} WHERE catalog_id = ? AND version = ?`, catalogId, version),
      listReports: (catalogId: string) =>
        this.many(REPORT, `${reportSelect} WHERE catalog_id = ? ORDER BY version`, catalogId),
    };
  }
}

function catalogConflict(err: unknown, catalog: Catalog): unknown {
  const code = isSqliteError(err) ? err.code : '';
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const byName = err instanceof Error && err.message.includes('crawler_catalog.name');
    return new CrawlerError(
      'CONFLICT',
      byName ? `a catalog named "${catalog.name}" already exists` : `a catalog with id ${catalog.id} already exists`,
      { cause: err, fix: byName ? 'choose another name or update the existing catalog' : 'use update() to change it' },
    );
  }
  return err;
}
