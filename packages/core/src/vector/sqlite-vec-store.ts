import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError, CrawlerError } from '../errors.js';
import { bytesIn } from '../storage/dir-bytes.js';
import { annStem, listAnnFiles, removeAnnFiles } from './ann-files.js';
import { AnnKeeper, type AnnStatus, type Row, type VectorOptimizeStats } from './ann-keeper.js';
import { migrate, prepare, type Statements, type StoredVector } from './vec-schema.js';
import type {
  TextPointPayload,
  VectorCollectionStats,
  VectorHit,
  VectorPoint,
  VectorQuery,
  VectorStore,
} from './vector-store.js';

export type { AnnStatus, VectorOptimizeStats } from './ann-keeper.js';

export interface SqliteVecStoreOptions {
  /** The `user/vector` directory; the store lives in `<root>/<collection>_<dims>/vectors.db`. */
  root: string;
  /** GF_VECTOR_COLLECTION, e.g. `greenfinger_text`. */
  collection: string;
  /** Vector width; part of the directory name. */
  dims: number;
  /**
   * Points a catalog version needs before this store builds an approximate (HNSW) index for it; smaller
   * versions are searched exactly (brute force costs ~1.5 µs per 512-d vector: 3 ms at 2,000). 0 turns the index
   * off (GF_VECTOR_ANN_MIN).
   * @default 2000
   */
  annMinPoints?: number | undefined;
}

/** sqlite-vec refuses k above this. */
export const MAX_KNN = 4096;
/** GF_VECTOR_ANN_MIN's default. */
export const DEFAULT_ANN_MIN_POINTS = 2_000;
const NAME_RE = /^[a-z0-9_-]+$/;

/**
 * The embedded vector store: sqlite-vec `vec0` (cosine, exact brute-force KNN) inside SQLite, one database per
 * collection and width. The scope `catalogId:version` is the vec0 partition key, so a search scans only the
 * published versions' vectors and the filter never drops hits. Each point's payload sits beside it in a
 * plain table, so a hit explains itself without the database.
 *
 * A version with at least `annMinPoints` points also gets an approximate index (usearch HNSW) in
 * `ann/<catalogId>_<version>.<watermark>.usearch`, kept by the store that writes and read by any store: a search
 * takes its candidates from it plus an exact scan of the rows written after it, then scores every candidate
 * exactly. SQLite stays the truth; the index files are a cache that can be deleted at any time.
 */
export class SqliteVecStore implements VectorStore {
  readonly name = 'sqlite-vec';
  readonly collection: string;
  readonly dims: number;
  readonly file: string;
  readonly #db: Database.Database;
  readonly #stmts: Statements;
  readonly #ann: AnnKeeper;
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
    const annMin = options.annMinPoints ?? DEFAULT_ANN_MIN_POINTS;
    if (!Number.isSafeInteger(annMin) || annMin < 0) {
      throw new ConfigError(
        'annMinPoints',
        `${annMin} is not a number of points`,
        'use a whole number ≥ 0: the points a catalog version needs before it gets an approximate index, 0 for none (GF_VECTOR_ANN_MIN, default 2000)',
      );
    }
    this.collection = options.collection;
    this.dims = options.dims;
    const dir = join(options.root, `${options.collection}_${options.dims}`);
    this.file = join(dir, 'vectors.db');
    try {
      mkdirSync(dir, { recursive: true });
      this.#db = new Database(this.file);
      // Loaded here, not at import: a crawl without vectors never loads the extension's package.
      (createRequire(import.meta.url)('sqlite-vec') as typeof import('sqlite-vec')).load(this.#db);
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
    this.#ann = new AnnKeeper({
      db: this.#db,
      stmts: this.#stmts,
      dims: options.dims,
      annDir: join(dir, 'ann'),
      annMin,
      label: `${options.collection}_${options.dims}`,
    });
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
    const added = new Map<string, number>();
    const removed: Array<{ rowid: number; cv: string }> = [];
    this.#db
      .transaction(() => {
        // Rowids only grow (never reused after a delete), so "rowid > watermark" is exactly "written after the index".
        let last = (s.lastRowid.get() as { n: number }).n;
        for (const p of points) {
          const cv = `${p.payload.catalogId}:${p.payload.version}`;
          const old = s.findRowid.get(p.id) as { rowid: number; cv: string } | undefined;
          if (old !== undefined) {
            const r = BigInt(old.rowid);
            s.deleteVec.run(r);
            s.deleteEmbedding.run(r);
            s.deletePoint.run(p.id);
            removed.push(old);
          }
          last += 1;
          const rowid = BigInt(last);
          s.insertPoint.run({
            rowid,
            id: p.id,
            catalogVersion: cv,
            catalogId: p.payload.catalogId,
            version: p.payload.version,
            resourceId: p.payload.resourceId,
            payload: JSON.stringify(p.payload),
          });
          const vector = p.vector instanceof Float32Array ? p.vector : Float32Array.from(p.vector);
          s.insertVec.run(rowid, cv, vector);
          s.insertEmbedding.run(rowid, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
          added.set(cv, (added.get(cv) ?? 0) + 1);
        }
        s.putLastRowid.run(String(last));
      })
      .immediate();
    this.#ann.maintain(added, removed);
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
    const rows: Row[] = [];
    for (const cv of scopes) {
      const ann = this.#ann.enabled ? await this.#ann.sourceFor(cv) : undefined;
      this.#check();
      const found = ann ? this.#ann.search(cv, ann, vector, k) : undefined;
      for (const r of found ?? (this.#stmts.knn.all(vector, k, cv) as Row[])) rows.push(r);
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
    const n = this.#db.transaction(() => {
      const rowids = this.#stmts.versionRowids.all(cv) as Array<{ rowid: number }>;
      for (const r of rowids) this.#stmts.deleteVec.run(BigInt(r.rowid));
      this.#stmts.deleteVersionEmbeddings.run(cv);
      this.#stmts.deleteVersionPoints.run(cv);
      return rowids.length;
    })();
    this.#ann.forget(cv);
    return n;
  }

  async deleteResource(catalogId: string, version: number, resourceId: string): Promise<number> {
    this.#check();
    const cv = `${catalogId}:${version}`;
    const rows = this.#db.transaction(() => {
      const rowids = (this.#stmts.resourceRowids.all(cv, resourceId) as Array<{ rowid: number }>).map((r) => r.rowid);
      for (const rowid of rowids) {
        this.#stmts.deleteVec.run(BigInt(rowid));
        this.#stmts.deleteEmbedding.run(BigInt(rowid));
        this.#stmts.deletePointRowid.run(BigInt(rowid));
      }
      return rowids;
    })();
    this.#ann.maintain(
      new Map(),
      rows.map((rowid) => ({ rowid, cv })),
    );
    return rows.length;
  }

  async countResource(catalogId: string, version: number, resourceId: string): Promise<number> {
    this.#check();
    return this.#stmts.resourceRowids.all(`${catalogId}:${version}`, resourceId).length;
  }

  async pointsOfResource(catalogId: string, version: number, resourceId: string): Promise<VectorPoint[]> {
    this.#check();
    const rowids = (
      this.#stmts.resourceRowids.all(`${catalogId}:${version}`, resourceId) as Array<{ rowid: number }>
    ).map((r) => Number(r.rowid));
    if (rowids.length === 0) return [];
    const list = JSON.stringify(rowids);
    const stored = new Map<number, Buffer>();
    for (const r of this.#stmts.vectorsOf.all(list) as StoredVector[])
      if (r.vector) stored.set(Number(r.rowid), r.vector);
    const points: VectorPoint[] = [];
    for (const p of this.#stmts.payloads.all(list) as Array<{ rowid: number; id: string; payload: string }>) {
      const bytes = stored.get(Number(p.rowid)) ?? (this.#stmts.vecVector.get(BigInt(p.rowid)) as Buffer | undefined);
      if (!bytes) continue;
      const vector = new Float32Array(bytes.byteLength / 4);
      new Uint8Array(vector.buffer).set(bytes);
      points.push({ id: p.id, vector, payload: JSON.parse(p.payload) as TextPointPayload });
    }
    return points.sort((a, b) => a.payload.chunkIndex - b.payload.chunkIndex);
  }

  async countVersion(catalogId: string, version: number): Promise<number> {
    this.#check();
    return (this.#stmts.countVersion.get(`${catalogId}:${version}`) as { n: number }).n;
  }

  /**
   * Bring one version's approximate index fully up to date and save it (a crawl calls this when it publishes the
   * version, so its first searches need no catch-up). Versions under `annMinPoints` have none: a no-op.
   */
  async optimize(catalogId: string, version: number): Promise<VectorOptimizeStats> {
    this.#check();
    return this.#ann.optimize(`${catalogId}:${version}`);
  }

  /** The approximate index a search of this version would use now, or undefined when it is searched exactly. */
  async annStatus(catalogId: string, version: number): Promise<AnnStatus | undefined> {
    this.#check();
    const status = await this.#ann.status(`${catalogId}:${version}`);
    this.#check();
    return status;
  }

  /** Every point of one catalog, in every version, and the catalog's approximate index files. */
  async purge(catalogId: string): Promise<number> {
    this.#check();
    const versions = this.#stmts.catalogVersions.all(`${catalogId}:`, `${catalogId};`) as Array<{ cv: string }>;
    let n = 0;
    for (const { cv } of versions) {
      const cut = cv.lastIndexOf(':');
      n += await this.deleteVersion(cv.slice(0, cut), Number(cv.slice(cut + 1)));
    }
    // Files of versions with no row left (an index is a cache: its rows may have gone another way).
    const lead = `${annStem(`${catalogId}:0`).slice(0, -1)}`;
    for (const stem of listAnnFiles(this.#ann.dir).keys()) {
      if (stem.startsWith(lead) && /^\d+$/.test(stem.slice(lead.length))) removeAnnFiles(this.#ann.dir, stem);
    }
    return n;
  }

  /** Points per catalog version, and the bytes of the collection's files (database, WAL, approximate indexes). */
  async stats(): Promise<VectorCollectionStats> {
    this.#check();
    const versions = (this.#stmts.versionCounts.all() as Array<{ cv: string; n: number }>).map((r) => {
      const cut = r.cv.lastIndexOf(':');
      return { catalogId: r.cv.slice(0, cut), version: Number(r.cv.slice(cut + 1)), points: r.n };
    });
    versions.sort((a, b) => (a.catalogId < b.catalogId ? -1 : a.catalogId > b.catalogId ? 1 : a.version - b.version));
    const dir = join(this.file, '..');
    return {
      collection: this.collection,
      dims: this.dims,
      versions,
      points: versions.reduce((a, v) => a + v.points, 0),
      bytes: bytesIn(dir) + bytesIn(this.#ann.dir),
    };
  }

  /** Saves the indexes changed since their last save (without finishing a catch-up), then closes. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const failure = this.#ann.close();
    this.#db.close();
    if (failure) throw failure;
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
