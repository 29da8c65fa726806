import { createRequire } from 'node:module';
import type pg from 'pg';
import type { AlertStore } from '../alerts/alert-store.js';
import { pgAlertStore } from '../alerts/pg-alert-store.js';
import { ConfigError, CrawlerError } from '../errors.js';
import type { Catalog, ImageRow, ReportRow, ResourceImageRow, ResourceRow } from '../model.js';
import { type MigrateOptions, type MigrateResult, migratePostgres } from './migrate.js';
import type { PgAccess } from './pg-access.js';
import { pgUrlLedger } from './pg-url-ledger.js';
import { pgUserStore } from './pg-user-store.js';
import {
  CATALOG,
  type ColumnKind,
  catalogMissing,
  columnList,
  IMAGE,
  IMAGE_WITH_REF,
  lastPerKey,
  REPORT,
  RESOURCE,
  RESOURCE_IMAGE,
  RESOURCE_TABLES,
  rowFromDb,
  rowToDb,
  sortedByKey,
  type TableSpec,
  updateSet,
  VERSIONED_TABLES,
} from './record-columns.js';
import type { CatalogStore, RecordDatabase, ResourceRecordStore, UrlLedgerStore, UserStore } from './record-store.js';

export type { PgAccess } from './pg-access.js';

export interface PgRecordDatabaseOptions extends MigrateOptions {
  /** `postgres://user:password@host:5432/database`. */
  connectionString: string;
  /** Connections in the pool. @default 10 */
  maxConnections?: number;
  /** Rows per INSERT statement inside one batch's transaction. @default 2000 */
  chunkRows?: number;
  /** Apply pending migrations on open. @default true */
  migrate?: boolean;
  /** Called when an idle pooled connection fails (the pool replaces it). */
  onPoolError?: (err: Error) => void;
}

type Row = Record<string, unknown>;

const DEFAULT_BATCH = 500;
const ARRAY_TYPE: Record<ColumnKind, string> = {
  text: 'text[]',
  json: 'text[]',
  int: 'int4[]',
  float: 'float8[]',
  time: 'timestamptz[]',
  bool: 'bool[]',
};
const CONFIG_CODES = new Set(['28P01', '28000', '3D000', '42501']);
/** deadlock_detected and serialization_failure: the transaction lost a race and may simply run again. */
const RETRY_CODES = new Set(['40P01', '40001']);
const TRANSACTION_TRIES = 5;

/** The connection string with its password hidden, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*):[^@/]*@/, '$1:***@');
}

function pgCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/**
 * RecordDatabase on PostgreSQL through a `pg` pool. Batches are upserted with `INSERT … SELECT FROM unnest(…)
 * ON CONFLICT … DO UPDATE`, one transaction per batch.
 */
export class PgRecordDatabase implements RecordDatabase {
  readonly kind = 'postgresql' as const;
  readonly catalogs: CatalogStore;
  readonly resources: ResourceRecordStore;
  readonly ledger: UrlLedgerStore;
  readonly users: UserStore;
  readonly alerts: AlertStore;
  private readonly pool: pg.Pool;
  private readonly options: PgRecordDatabaseOptions;
  private closed = false;

  private constructor(pool: pg.Pool, options: PgRecordDatabaseOptions) {
    this.pool = pool;
    this.options = options;
    this.catalogs = this.catalogStore();
    this.resources = this.resourceStore();
    const access: PgAccess = {
      query: (operation, sql, params) => this.query(operation, sql, params),
      transaction: (operation, fn) => this.transaction(operation, fn),
    };
    this.ledger = pgUrlLedger(access);
    this.users = pgUserStore(access);
    this.alerts = pgAlertStore(access);
  }

  /**
   * Connect and apply pending migrations.
   * @throws ConfigError when the server refuses the credentials or the database does not exist;
   * CrawlerError `STORAGE` when the server cannot be reached.
   */
  static async open(options: PgRecordDatabaseOptions): Promise<PgRecordDatabase> {
    // The driver is loaded here, not at import: an embedded (SQLite) setup never loads it.
    const { Pool } = createRequire(import.meta.url)('pg') as typeof pg;
    const pool = new Pool({
      connectionString: options.connectionString,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: 10_000,
    });
    pool.on('error', (err) => options.onPoolError?.(err));
    const store = new PgRecordDatabase(pool, options);
    try {
      if (options.migrate !== false) await store.migrate();
      else await pool.query('SELECT 1');
      return store;
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw store.translate(err, 'open');
    }
  }

  async migrate(): Promise<MigrateResult> {
    return migratePostgres(this.pool, { schemaDir: this.options.schemaDir });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private translate(err: unknown, operation: string): CrawlerError {
    if (err instanceof CrawlerError) return err;
    const where = redactUrl(this.options.connectionString);
    const message = err instanceof Error ? err.message : String(err);
    const code = pgCode(err);
    if (CONFIG_CODES.has(code)) {
      return new ConfigError(
        'DATABASE_URL',
        `PostgreSQL at ${where} refused the connection: ${message}`,
        'check the user, password and database name in DATABASE_URL (the database must exist)',
        err,
      );
    }
    if (code === '23505') {
      return new CrawlerError('CONFLICT', `${operation}: ${message}`, {
        cause: err,
        fix: 'ids are deterministic, so a duplicate key means two different rows claim one identity; check the caller',
      });
    }
    if (code === '' || /^E[A-Z]+$/.test(code) || code.startsWith('08') || code === '57P01' || code === '57P03') {
      return new CrawlerError('STORAGE', `cannot use PostgreSQL at ${where} (${operation}): ${message}`, {
        cause: err,
        fix: 'start PostgreSQL or correct DATABASE_URL',
      });
    }
    return new CrawlerError('STORAGE', `PostgreSQL ${operation} failed: ${message}`, { cause: err });
  }

  private async query(operation: string, sql: string, params: unknown[] = []): Promise<pg.QueryResult<Row>> {
    try {
      return await this.pool.query<Row>(sql, params);
    } catch (err) {
      throw this.translate(err, operation);
    }
  }

  /**
   * Run `fn` in one transaction. A deadlock or serialization failure (two members upserting overlapping rows at
   * once) rolls back and runs `fn` again, up to {@link TRANSACTION_TRIES} times with a short random pause, before it
   * is reported; `fn` must therefore only write (it is rebuilt from its arguments each time).
   */
  private async transaction<T>(operation: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transactionOnce(operation, fn);
      } catch (err) {
        const cause = err instanceof CrawlerError ? err.cause : err;
        if (attempt >= TRANSACTION_TRIES || !RETRY_CODES.has(pgCode(cause))) throw err;
        await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40 * attempt));
      }
    }
  }

  private async transactionOnce<T>(operation: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw this.translate(err, operation);
    }
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.translate(err, operation);
    } finally {
      client.release();
    }
  }

  private async saveAll<R>(spec: TableSpec<R>, rows: readonly R[]): Promise<void> {
    if (rows.length === 0) return;
    // In key order: members upserting overlapping rows then lock them in one order and cannot deadlock.
    const unique = sortedByKey(spec, lastPerKey(spec, rows));
    const casts = spec.columns.map((c, i) => `$${i + 1}::${ARRAY_TYPE[c.kind]}`).join(', ');
    const sql =
      `INSERT INTO "${spec.table}" (${columnList(spec)}) SELECT * FROM unnest(${casts}) ` +
      `ON CONFLICT (${spec.conflict.map((c) => `"${c}"`).join(', ')}) DO UPDATE SET ${updateSet(spec)}`;
    const chunk = Math.max(1, this.options.chunkRows ?? 2000);
    await this.transaction(`save ${spec.table}`, async (client) => {
      for (let start = 0; start < unique.length; start += chunk) {
        const columns: unknown[][] = spec.columns.map(() => []);
        for (const row of unique.slice(start, start + chunk)) {
          rowToDb(spec, row, false).forEach((value, i) => {
            (columns[i] as unknown[]).push(value);
          });
        }
        await client.query(sql, columns);
      }
    });
  }

  private async one<R>(spec: TableSpec<R>, sql: string, params: unknown[]): Promise<R | undefined> {
    const record = (await this.query(`read ${spec.table}`, sql, params)).rows[0];
    return record ? rowFromDb(spec, record) : undefined;
  }

  private async many<R>(spec: TableSpec<R>, sql: string, params: unknown[]): Promise<R[]> {
    return (await this.query(`read ${spec.table}`, sql, params)).rows.map((record) => rowFromDb(spec, record));
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
      'WHERE catalog_id = $1 AND version = $2 AND id > $3 ORDER BY id LIMIT $4';
    let after = '';
    for (;;) {
      const rows = await this.many(spec, sql, [catalogId, version, after, size]);
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < size) return;
      after = (rows.at(-1) as R).id;
    }
  }

  private catalogConflict(err: unknown, catalog: Catalog): unknown {
    if (pgCode(err) !== '23505') return err;
    const byName = (err as { constraint?: string }).constraint === 'crawler_catalog_name_key';
    return new CrawlerError(
      'CONFLICT',
      byName ? `a catalog named "${catalog.name}" already exists` : `a catalog with id ${catalog.id} already exists`,
      { cause: err, fix: byName ? 'choose another name or update the existing catalog' : 'use update() to change it' },
    );
  }

  private catalogStore(): CatalogStore {
    const select = `SELECT ${columnList(CATALOG)} FROM crawler_catalog`;
    const insert = `INSERT INTO crawler_catalog (${columnList(CATALOG)}) VALUES (${CATALOG.columns.map((_, i) => `$${i + 1}`).join(', ')})`;
    const others = CATALOG.columns.filter((c) => c.column !== 'id');
    const update = `UPDATE crawler_catalog SET ${others.map((c, i) => `"${c.column}" = $${i + 2}`).join(', ')} WHERE id = $1`;
    return {
      create: async (catalog: Catalog) => {
        try {
          await this.pool.query(insert, rowToDb(CATALOG, catalog, false));
        } catch (err) {
          throw this.translate(this.catalogConflict(err, catalog), 'create catalog');
        }
      },
      update: async (catalog: Catalog) => {
        let changed: number;
        try {
          changed = (await this.pool.query(update, rowToDb(CATALOG, catalog, false))).rowCount ?? 0;
        } catch (err) {
          throw this.translate(this.catalogConflict(err, catalog), 'update catalog');
        }
        if (changed === 0) throw catalogMissing(catalog.id);
      },
      get: (id: string) => this.one(CATALOG, `${select} WHERE id = $1`, [id]),
      findByName: (name: string) => this.one(CATALOG, `${select} WHERE name = $1`, [name]),
      findByUrl: (url: string) => this.many(CATALOG, `${select} WHERE url = $1 ORDER BY created_at, id`, [url]),
      list: () => this.many(CATALOG, `${select} ORDER BY name`, []),
      delete: (id: string) =>
        this.transaction('delete catalog', async (client) => {
          for (const table of VERSIONED_TABLES)
            await client.query(`DELETE FROM "${table}" WHERE catalog_id = $1`, [id]);
          return ((await client.query('DELETE FROM crawler_catalog WHERE id = $1', [id])).rowCount ?? 0) > 0;
        }),
    };
  }

  private resourceStore(): ResourceRecordStore {
    const resourceSelect = `SELECT ${columnList(RESOURCE)} FROM crawler_resource`;
    const reportSelect = `SELECT ${columnList(REPORT)} FROM crawler_report`;
    return {
      saveResources: (rows: ResourceRow[]) => this.saveAll(RESOURCE, rows),
      saveImages: (rows: ImageRow[]) => this.saveAll(IMAGE, rows),
      saveResourceImages: (rows: ResourceImageRow[]) => this.saveAll(RESOURCE_IMAGE, rows),
      getResource: (id: string) => this.one(RESOURCE, `${resourceSelect} WHERE id = $1`, [id]),
      findResourceByUrlHash: (catalogId: string, version: number, urlHash: string) =>
        this.one(RESOURCE, `${resourceSelect} WHERE catalog_id = $1 AND version = $2 AND url_hash = $3`, [
          catalogId,
          version,
          urlHash,
        ]),
      iterateResources: (catalogId: string, version: number, batch = DEFAULT_BATCH) =>
        this.pages(RESOURCE, catalogId, version, batch),
      iterateImages: (catalogId: string, version: number, batch = DEFAULT_BATCH) =>
        this.pages(IMAGE, catalogId, version, batch),
      listResourceIds: async (catalogId: string, version: number) =>
        (
          await this.query(
            'read crawler_resource',
            'SELECT id FROM crawler_resource WHERE catalog_id = $1 AND version = $2 ORDER BY id',
            [catalogId, version],
          )
        ).rows.map((r) => String(r.id).trim()),
      resourcesByIds: async (catalogId: string, version: number, ids: readonly string[]) =>
        ids.length === 0
          ? []
          : this.many(
              RESOURCE,
              `${resourceSelect} WHERE catalog_id = $1 AND version = $2 AND id = ANY($3::text[]) ORDER BY id`,
              [catalogId, version, [...ids]],
            ),
      newestResources: (catalogId: string, version: number, limit: number, after?: { fetchedAt: string; id: string }) =>
        this.many(
          RESOURCE,
          `${resourceSelect} WHERE catalog_id = $1 AND version = $2 AND ($3::timestamptz IS NULL OR fetched_at < $3 OR (fetched_at = $3 AND id > $4)) ORDER BY fetched_at DESC, id LIMIT $5`,
          [catalogId, version, after?.fetchedAt ?? null, after?.id ?? null, limit],
        ),
      imagesOfResource: (resourceId: string) =>
        this.many(
          IMAGE_WITH_REF,
          `SELECT ${columnList(IMAGE, 'i.')}, ri.alt, ri.surrounding_text FROM crawler_resource_image ri ` +
            'JOIN crawler_image i ON i.id = ri.image_id WHERE ri.resource_id = $1 ORDER BY ri.id',
          [resourceId],
        ),
      count: async (catalogId: string, version: number) => {
        const n = (table: string): string =>
          `(SELECT count(*) FROM "${table}" WHERE catalog_id = $1 AND version = $2)::int`;
        const sql =
          `SELECT ${n(RESOURCE.table)} AS resources, ${n(IMAGE.table)} AS images, ` +
          `${n(RESOURCE_IMAGE.table)} AS resource_images, ${n(REPORT.table)} AS reports`;
        const row = (await this.query('count', sql, [catalogId, version])).rows[0] ?? {};
        return {
          resources: Number(row.resources),
          images: Number(row.images),
          resourceImages: Number(row.resource_images),
          reports: Number(row.reports),
        };
      },
      versions: async (catalogId: string) => {
        const sql = RESOURCE_TABLES.map((t) => `SELECT version FROM "${t}" WHERE catalog_id = $1`).join(' UNION ');
        const result = await this.query('versions', `${sql} ORDER BY version`, [catalogId]);
        return result.rows.map((r) => Number(r.version));
      },
      deleteResource: (id: string, dryRun = false) =>
        this.transaction('delete resource', async (client) => {
          const n = async (table: string, column: string): Promise<number> => {
            if (dryRun) {
              const r = await client.query(`SELECT count(*)::int AS n FROM "${table}" WHERE ${column} = $1`, [id]);
              return Number(r.rows[0]?.n ?? 0);
            }
            return (await client.query(`DELETE FROM "${table}" WHERE ${column} = $1`, [id])).rowCount ?? 0;
          };
          return {
            [RESOURCE_IMAGE.table]: await n(RESOURCE_IMAGE.table, 'resource_id'),
            [RESOURCE.table]: await n(RESOURCE.table, 'id'),
          };
        }),
      deleteVersion: (catalogId: string, version: number) =>
        this.transaction('delete version', async (client) => {
          const removed: Record<string, number> = {};
          for (const table of VERSIONED_TABLES) {
            const result = await client.query(`DELETE FROM "${table}" WHERE catalog_id = $1 AND version = $2`, [
              catalogId,
              version,
            ]);
            removed[table] = result.rowCount ?? 0;
          }
          return removed;
        }),
      saveReport: (row: ReportRow) => this.saveAll(REPORT, [row]),
      getReport: (catalogId: string, version: number) =>
        this.one(REPORT, `${reportSelect} WHERE catalog_id = $1 AND version = $2`, [catalogId, version]),
      listReports: (catalogId: string) =>
        this.many(REPORT, `${reportSelect} WHERE catalog_id = $1 ORDER BY version`, [catalogId]),
    };
  }
}
