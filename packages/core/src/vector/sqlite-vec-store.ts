import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { CrawlerError } from '../errors.js';
import type { TextPointPayload, VectorHit, VectorPoint, VectorQuery, VectorStore } from './vector-store.js';

export interface SqliteVecStoreOptions {
  /** The `user/vector` directory; the store lives in `<root>/<collection>_<dims>/vectors.db`. */
  root: string;
  /** GF_VECTOR_COLLECTION, e.g. `greenfinger_text`. */
  collection: string;
  /** Vector width; part of the directory name. */
  dims: number;
}

/** sqlite-vec refuses k above this. */
export const MAX_KNN = 4096;
const SCHEMA_VERSION = 1;
const NAME_RE = /^[a-z0-9_-]+$/;

interface Statements {
  findRowid: Database.Statement;
  insertPoint: Database.Statement;
  deletePoint: Database.Statement;
  insertVec: Database.Statement;
  deleteVec: Database.Statement;
  knn: Database.Statement;
  payloads: Database.Statement;
  versionRowids: Database.Statement;
  countVersion: Database.Statement;
}

/**
 * The embedded vector store: sqlite-vec `vec0` (cosine, exact brute-force KNN) inside SQLite, one database per
 * collection and width. The scope `catalogId:version` is the vec0 partition key, so a search scans only the
 * published versions' vectors and the filter never drops hits. Each point's payload sits beside it in a
 * plain table, so a hit explains itself without the database.
 */
export class SqliteVecStore implements VectorStore {
  readonly name = 'sqlite-vec';
  readonly collection: string;
  readonly dims: number;
  readonly file: string;
  readonly #db: Database.Database;
  readonly #stmts: Statements;
  #closed = false;

  constructor(options: SqliteVecStoreOptions) {
    if (!NAME_RE.test(options.collection)) {
      throw new CrawlerError(
        'BAD_INPUT',
        `vector collection name ${JSON.stringify(options.collection)} is not allowed`,
        {
          fix: 'use lowercase letters, digits, - and _ (GF_VECTOR_COLLECTION)',
        },
      );
    }
    if (!Number.isInteger(options.dims) || options.dims < 1 || options.dims > 8192) {
      throw new CrawlerError('BAD_INPUT', `vector width ${options.dims} is not usable`, {
        fix: 'dims comes from the embedding model; use a model with 1..8192 dimensions',
      });
    }
    this.collection = options.collection;
    this.dims = options.dims;
    const dir = join(options.root, `${options.collection}_${options.dims}`);
    this.file = join(dir, 'vectors.db');
    try {
      mkdirSync(dir, { recursive: true });
      this.#db = new Database(this.file);
      sqliteVec.load(this.#db);
      this.#db.pragma('journal_mode = WAL');
      this.#db.pragma('synchronous = NORMAL');
      this.#db.pragma('busy_timeout = 5000');
      migrate(this.#db, options.dims);
    } catch (err) {
      if (err instanceof CrawlerError) throw err;
      throw new CrawlerError('STORAGE', `cannot open the vector store ${this.file}: ${(err as Error).message}`, {
        cause: err,
        fix: 'check the directory is writable; a corrupt store can be rebuilt with replay --layers=vector',
      });
    }
    this.#stmts = prepare(this.#db);
  }

  async upsert(points: VectorPoint[]): Promise<void> {
    this.#check();
    for (const p of points) {
      if (p.vector.length !== this.dims) {
        throw new CrawlerError(
          'BAD_INPUT',
          `point ${p.id} has ${p.vector.length} dimensions but collection ${this.collection}_${this.dims} holds ${this.dims}`,
          { fix: 'the embedding model changed width: vectors go to the collection named after their width' },
        );
      }
    }
    const s = this.#stmts;
    this.#db.transaction(() => {
      for (const p of points) {
        const old = s.findRowid.get(p.id) as { rowid: number | bigint } | undefined;
        if (old !== undefined) {
          s.deleteVec.run(BigInt(old.rowid));
          s.deletePoint.run(p.id);
        }
        const info = s.insertPoint.run({
          id: p.id,
          catalogVersion: `${p.payload.catalogId}:${p.payload.version}`,
          catalogId: p.payload.catalogId,
          version: p.payload.version,
          resourceId: p.payload.resourceId,
          payload: JSON.stringify(p.payload),
        });
        const vector = p.vector instanceof Float32Array ? p.vector : Float32Array.from(p.vector);
        s.insertVec.run(BigInt(info.lastInsertRowid), `${p.payload.catalogId}:${p.payload.version}`, vector);
      }
    })();
  }

  async search(query: VectorQuery): Promise<VectorHit[]> {
    this.#check();
    if (query.vector.length !== this.dims) {
      throw new CrawlerError(
        'BAD_INPUT',
        `the query vector has ${query.vector.length} dimensions, collection ${this.collection}_${this.dims} holds ${this.dims}`,
        { fix: 'embed the query with the model that wrote this collection' },
      );
    }
    const offset = Math.max(0, Math.trunc(query.offset ?? 0));
    const limit = Math.max(0, Math.trunc(query.limit));
    const k = Math.min(offset + limit, MAX_KNN);
    if (k === 0 || query.scopes.length === 0) return [];
    const scopes = [...new Set(query.scopes.map((s) => `${s.catalogId}:${s.version}`))];
    const vector = query.vector instanceof Float32Array ? query.vector : Float32Array.from(query.vector);
    const rows: Array<{ rowid: number; distance: number }> = [];
    for (const cv of scopes) {
      for (const r of this.#stmts.knn.all(vector, k, cv) as Array<{ rowid: number; distance: number }>) rows.push(r);
    }
    rows.sort((a, b) => a.distance - b.distance || a.rowid - b.rowid);
    const page = rows.slice(offset, offset + limit);
    if (page.length === 0) return [];
    const byRowid = new Map<number, { id: string; payload: string }>();
    const found = this.#stmts.payloads.all(JSON.stringify(page.map((r) => r.rowid))) as Array<{
      rowid: number;
      id: string;
      payload: string;
    }>;
    for (const f of found) byRowid.set(f.rowid, f);
    const hits: VectorHit[] = [];
    for (const r of page) {
      const p = byRowid.get(r.rowid);
      if (p) hits.push({ id: p.id, score: 1 - r.distance, payload: JSON.parse(p.payload) as TextPointPayload });
    }
    return hits;
  }

  async deleteVersion(catalogId: string, version: number): Promise<number> {
    this.#check();
    const cv = `${catalogId}:${version}`;
    return this.#db.transaction(() => {
      const rowids = this.#stmts.versionRowids.all(cv) as Array<{ rowid: number }>;
      for (const r of rowids) this.#stmts.deleteVec.run(BigInt(r.rowid));
      this.#db.prepare(`DELETE FROM points WHERE catalog_version = ?`).run(cv);
      return rowids.length;
    })();
  }

  async deleteResource(catalogId: string, version: number, resourceId: string): Promise<number> {
    this.#check();
    return this.#db.transaction(() => {
      const rows = this.#db
        .prepare(`SELECT rowid FROM points WHERE catalog_version = ? AND resource_id = ?`)
        .all(`${catalogId}:${version}`, resourceId) as Array<{ rowid: number }>;
      for (const r of rows) {
        this.#stmts.deleteVec.run(BigInt(r.rowid));
        this.#db.prepare(`DELETE FROM points WHERE rowid = ?`).run(r.rowid);
      }
      return rows.length;
    })();
  }

  async countVersion(catalogId: string, version: number): Promise<number> {
    this.#check();
    return (this.#stmts.countVersion.get(`${catalogId}:${version}`) as { n: number }).n;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #check(): void {
    if (this.#closed) {
      throw new CrawlerError('STORAGE', `the vector store ${this.collection}_${this.dims} is closed`, {
        fix: 'open a new SqliteVecStore',
      });
    }
  }
}

function migrate(db: Database.Database, dims: number): void {
  db.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  const meta = new Map(
    (db.prepare(`SELECT key, value FROM meta`).all() as Array<{ key: string; value: string }>).map((r) => [
      r.key,
      r.value,
    ]),
  );
  if (meta.has('schema')) {
    if (Number(meta.get('schema')) !== SCHEMA_VERSION) {
      throw new CrawlerError(
        'CORRUPT',
        `vector store schema ${meta.get('schema')}, this build reads ${SCHEMA_VERSION}`,
        {
          fix: 'rebuild the vectors with replay --layers=vector',
        },
      );
    }
    if (Number(meta.get('dims')) !== dims) {
      throw new CrawlerError('CORRUPT', `the vector store holds ${meta.get('dims')}-d vectors, not ${dims}-d`, {
        fix: 'the directory name must match the width; rebuild with replay --layers=vector',
      });
    }
    return;
  }
  db.transaction(() => {
    db.exec(`
      CREATE TABLE points (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        catalog_version TEXT NOT NULL,
        catalog_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        resource_id TEXT NOT NULL,
        payload TEXT NOT NULL
      );
      CREATE INDEX points_catalog_version ON points(catalog_version);
      CREATE VIRTUAL TABLE vec USING vec0(
        catalog_version TEXT PARTITION KEY,
        embedding float[${dims}] distance_metric=cosine
      );
    `);
    const put = db.prepare(`INSERT INTO meta(key, value) VALUES (?, ?)`);
    put.run('schema', String(SCHEMA_VERSION));
    put.run('dims', String(dims));
  })();
}

function prepare(db: Database.Database): Statements {
  return {
    findRowid: db.prepare(`SELECT rowid FROM points WHERE id = ?`),
    insertPoint: db.prepare(`
      INSERT INTO points (id, catalog_version, catalog_id, version, resource_id, payload)
      VALUES (@id, @catalogVersion, @catalogId, @version, @resourceId, @payload)`),
    deletePoint: db.prepare(`DELETE FROM points WHERE id = ?`),
    insertVec: db.prepare(`INSERT INTO vec (rowid, catalog_version, embedding) VALUES (?, ?, ?)`),
    deleteVec: db.prepare(`DELETE FROM vec WHERE rowid = ?`),
    knn: db.prepare(`
      SELECT rowid, distance FROM vec
      WHERE embedding MATCH ? AND k = ? AND catalog_version = ?
      ORDER BY distance`),
    payloads: db.prepare(`SELECT rowid, id, payload FROM points WHERE rowid IN (SELECT value FROM json_each(?))`),
    versionRowids: db.prepare(`SELECT rowid FROM points WHERE catalog_version = ?`),
    countVersion: db.prepare(`SELECT count(*) AS n FROM points WHERE catalog_version = ?`),
  };
}
