import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError, CrawlerError } from '../errors.js';
import {
  type AnnFile,
  type AnnIndex,
  annFileSignature,
  annStem,
  createAnnIndex,
  exactNearest,
  listAnnFiles,
  loadAnnFileSync,
  removeAnnFile,
  removeAnnFiles,
  saveAnnFile,
  viewAnnFile,
} from './ann-files.js';
import type { TextPointPayload, VectorHit, VectorPoint, VectorQuery, VectorStore } from './vector-store.js';

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
const SCHEMA_VERSION = 2;
const NAME_RE = /^[a-z0-9_-]+$/;
/** Older rows the writer adds to an index per upsert, besides the upsert's own points. */
const ANN_CATCH_UP = 512;
/** Changes between two saves of an index: an eighth of its size, at least 1,000, at most 50,000. */
const ANN_SAVE_MIN = 1_000;
const ANN_SAVE_MAX = 50_000;
/** Rows past the watermark a search scans exactly; with more, the version is searched by brute force. */
const ANN_DELTA_MAX = 60_000;
/** How often a search looks for newer index files. */
const ANN_RELIST_MS = 1_000;
/** Batches at least this big are added to an index with every core. */
const ANN_PARALLEL_ADD = 64;

interface Statements {
  findRowid: Database.Statement;
  lastRowid: Database.Statement;
  putLastRowid: Database.Statement;
  insertPoint: Database.Statement;
  deletePoint: Database.Statement;
  insertVec: Database.Statement;
  deleteVec: Database.Statement;
  insertEmbedding: Database.Statement;
  backfillEmbedding: Database.Statement;
  deleteEmbedding: Database.Statement;
  knn: Database.Statement;
  payloads: Database.Statement;
  versionRowids: Database.Statement;
  resourceRowids: Database.Statement;
  deletePointRowid: Database.Statement;
  deleteVersionEmbeddings: Database.Statement;
  deleteVersionPoints: Database.Statement;
  countVersion: Database.Statement;
  countUpToRowid: Database.Statement;
  afterRowid: Database.Statement;
  countAfterRowid: Database.Statement;
  vectorsOf: Database.Statement;
  vecVector: Database.Statement;
}

type Row = { rowid: number; distance: number };
type StoredVector = { rowid: number; vector: Buffer | null };

/** An index and its watermark: it holds the version's rows with rowid ≤ w (and none above). */
interface AnnSource {
  index: AnnIndex;
  w: number;
}

/** The writer's in-memory index of one version; `changes` counts adds and removes since the last save. */
interface WriterAnn extends AnnSource {
  changes: number;
}

/** What the writer knows of one version it wrote to: its size and its index, once it has one. */
interface Partition {
  count: number;
  ann: WriterAnn | undefined;
}

/** What `optimize` did: rows of the version, rows in its index, rows added now, wall ms. */
export interface VectorOptimizeStats {
  points: number;
  indexed: number;
  added: number;
  ms: number;
}

/** Rows added per round of optimize(): large enough for usearch's threads, small enough to bound memory. */
const ANN_OPTIMIZE_BATCH = 10_000;

/** What `annStatus` reports: the index a search of one version uses now. */
export interface AnnStatus {
  /** `memory`: this store writes the version and keeps its index in RAM; `file`: a memory-mapped index file. */
  source: 'memory' | 'file';
  /** The index holds the version's rows with rowid ≤ watermark; the rows after it are scanned exactly. */
  watermark: number;
  /** Points in the index. */
  size: number;
  /** Rows written after the watermark (counted up to 60,001; past 60,000 the version is searched by brute force). */
  pending: number;
}

/** A reader's memory-mapped view of an index file. */
interface ViewedAnn extends AnnSource {
  name: string;
}

/**
 * A reader's copy of the rows past an index's watermark (i8, each row scaled to ±127), appended to as rows
 * arrive. `full` when more than ANN_DELTA_MAX rows are waiting; `dead` are rows found deleted.
 */
interface Delta {
  w: number;
  hi: number;
  n: number;
  full: boolean;
  rowids: Float64Array;
  data: Int8Array;
  dead: Set<number>;
}

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
  readonly #annDir: string;
  readonly #annMin: number;
  /** Writer side: versions this store wrote to. */
  readonly #parts = new Map<string, Partition>();
  /** Reader side: the index file in use per version, files being opened, files found damaged. */
  readonly #views = new Map<string, ViewedAnn>();
  readonly #opening = new Map<string, Promise<ViewedAnn | undefined>>();
  readonly #badFiles = new Map<string, string>();
  readonly #deltas = new Map<string, Delta>();
  #listing: { at: number; files: Map<string, AnnFile[]> } | undefined;
  readonly #scratch: Float32Array;
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
    this.#annMin = annMin;
    this.collection = options.collection;
    this.dims = options.dims;
    this.#scratch = new Float32Array(options.dims);
    const dir = join(options.root, `${options.collection}_${options.dims}`);
    this.file = join(dir, 'vectors.db');
    this.#annDir = join(dir, 'ann');
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
    this.#maintain(added, removed);
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
      const ann = this.#annMin > 0 ? await this.#annFor(cv) : undefined;
      this.#check();
      const found = ann ? this.#annSearch(cv, ann, vector, k) : undefined;
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
    this.#parts.delete(cv);
    this.#views.delete(cv);
    this.#deltas.delete(cv);
    this.#listing = undefined;
    removeAnnFiles(this.#annDir, annStem(cv));
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
    if (rows.length > 0)
      this.#maintain(
        new Map(),
        rows.map((rowid) => ({ rowid, cv })),
      );
    return rows.length;
  }

  async countVersion(catalogId: string, version: number): Promise<number> {
    this.#check();
    return (this.#stmts.countVersion.get(`${catalogId}:${version}`) as { n: number }).n;
  }

  /** The approximate index a search of this version would use now, or undefined when it is searched exactly. */
  /**
   * Bring one version's approximate index fully up to date and save it (a crawl calls this when it publishes the
   * version, so its first searches need no catch-up). Versions under `annMinPoints` have none: a no-op.
   */
  async optimize(catalogId: string, version: number): Promise<VectorOptimizeStats> {
    this.#check();
    const started = performance.now();
    const cv = `${catalogId}:${version}`;
    const part = this.#parts.get(cv) ?? this.#openPartition(cv);
    if (this.#annMin === 0 || part.count < this.#annMin) {
      return { points: part.count, indexed: 0, added: 0, ms: Math.round(performance.now() - started) };
    }
    part.ann ??= { index: createAnnIndex(this.dims), w: 0, changes: 0 };
    const ann = part.ann;
    let added = 0;
    try {
      // Bounded: every round adds rows past the watermark, and there are at most `count` of them.
      for (let round = 0; round <= part.count / ANN_OPTIMIZE_BATCH + 1; round++) {
        const before = ann.changes;
        this.#catchUp(cv, ann, ANN_OPTIMIZE_BATCH);
        if (ann.changes === before) break;
        added += ann.changes - before;
      }
      if (ann.changes > 0) this.#save(cv, ann);
    } catch (err) {
      this.#parts.delete(cv);
      throw this.#annError(cv, err);
    }
    return { points: part.count, indexed: ann.index.size(), added, ms: Math.round(performance.now() - started) };
  }

  async annStatus(catalogId: string, version: number): Promise<AnnStatus | undefined> {
    this.#check();
    const cv = `${catalogId}:${version}`;
    const ann = this.#annMin > 0 ? await this.#annFor(cv) : undefined;
    this.#check();
    if (!ann) return undefined;
    return {
      source: this.#parts.get(cv)?.ann === ann ? 'memory' : 'file',
      watermark: ann.w,
      size: ann.index.size(),
      pending: (this.#stmts.countAfterRowid.get(cv, ann.w, ANN_DELTA_MAX + 1) as { n: number }).n,
    };
  }

  /** Saves the indexes changed since their last save (without finishing a catch-up), then closes. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    let failure: CrawlerError | undefined;
    for (const [cv, part] of this.#parts) {
      if (!part.ann || part.ann.changes === 0) continue;
      try {
        this.#save(cv, part.ann);
      } catch (err) {
        failure ??= this.#annError(cv, err);
      }
    }
    this.#parts.clear();
    this.#views.clear();
    this.#deltas.clear();
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

  // ── writer side ─────────────────────────────────────────────────────────────────────────────────────────────

  /**
   * Keeps the in-memory index of every version touched by a write equal to "its rows with rowid ≤ w": removes the
   * deleted rows, then adds rows past w in rowid order, at most the call's own points plus ANN_CATCH_UP older ones.
   */
  #maintain(added: Map<string, number>, removed: Array<{ rowid: number; cv: string }>): void {
    if (this.#annMin === 0) return;
    const touched = new Map<string, { added: number; removed: number[] }>();
    for (const [cv, n] of added) touched.set(cv, { added: n, removed: [] });
    for (const r of removed) {
      const t = touched.get(r.cv) ?? { added: 0, removed: [] };
      t.removed.push(r.rowid);
      touched.set(r.cv, t);
    }
    let failure: CrawlerError | undefined;
    for (const [cv, t] of touched) {
      try {
        let part = this.#parts.get(cv);
        if (part) part.count += t.added - t.removed.length;
        else part = this.#openPartition(cv);
        if (!part.ann && part.count >= this.#annMin) {
          part.ann = { index: createAnnIndex(this.dims), w: 0, changes: 0 };
        }
        const ann = part.ann;
        if (!ann) continue;
        const gone = t.removed.filter((rowid) => rowid <= ann.w);
        if (gone.length > 0) {
          ann.index.remove(BigUint64Array.from(gone, (r) => BigInt(r)));
          ann.changes += gone.length;
        }
        this.#catchUp(cv, ann, t.added + ANN_CATCH_UP);
      } catch (err) {
        // The in-memory index may be half-changed: drop it; the next write starts again from the newest file.
        this.#parts.delete(cv);
        failure ??= this.#annError(cv, err);
        continue;
      }
      const ann = this.#parts.get(cv)?.ann;
      if (!ann || ann.changes < Math.min(ANN_SAVE_MAX, Math.max(ANN_SAVE_MIN, ann.index.size() >> 3))) continue;
      try {
        this.#save(cv, ann);
      } catch (err) {
        // Keep the index (it is right, only not on disk) and try again after as many changes again.
        ann.changes = 0;
        failure ??= this.#annError(cv, err);
      }
    }
    if (failure) throw failure;
  }

  /** First write to a version in this store: its count, and the newest index file if one is usable. */
  #openPartition(cv: string): Partition {
    const part: Partition = { count: (this.#stmts.countVersion.get(cv) as { n: number }).n, ann: undefined };
    for (const f of listAnnFiles(this.#annDir).get(annStem(cv)) ?? []) {
      const index = loadAnnFileSync(join(this.#annDir, f.name), this.dims, f.w);
      if (index && this.#fits(cv, index, f.w)) {
        part.ann = { index, w: f.w, changes: 0 };
        break;
      }
      // Damaged or stale: the writer owns the files, so it removes it and rebuilds from the rows.
      removeAnnFile(this.#annDir, f.name);
    }
    this.#parts.set(cv, part);
    this.#views.delete(cv);
    return part;
  }

  /**
   * Whether a file still matches the rows: it must hold every row ≤ w (rowids only grow, so none can be missing
   * unless the file is wrong), and rows deleted by another store since it was saved must not be more than an
   * eighth of it, or they would crowd the live rows out of the candidates.
   */
  #fits(cv: string, index: AnnIndex, w: number): boolean {
    const live = (this.#stmts.countUpToRowid.get(cv, w) as { n: number }).n;
    const size = index.size();
    return size >= live && size - live <= (live >> 3) + 16;
  }

  /** Adds up to `budget` rows past the watermark, in rowid order, and moves the watermark. */
  #catchUp(cv: string, ann: WriterAnn, budget: number): void {
    const rows = this.#stmts.afterRowid.all(cv, ann.w, budget) as StoredVector[];
    if (rows.length === 0) return;
    const width = this.dims * 4;
    const keys = new BigUint64Array(rows.length);
    const matrix = new Float32Array(rows.length * this.dims);
    const bytes = new Uint8Array(matrix.buffer);
    const backfill: StoredVector[] = [];
    rows.forEach((r, i) => {
      let v = r.vector;
      if (v === null) {
        v = this.#vecVector(r.rowid);
        backfill.push({ rowid: r.rowid, vector: v });
      }
      if (v.length !== width) throw new Error(`row ${r.rowid} holds ${v.length} bytes, not ${width}`);
      keys[i] = BigInt(r.rowid);
      bytes.set(v, i * width);
    });
    if (backfill.length > 0) {
      this.#db.transaction(() => {
        for (const b of backfill) this.#stmts.backfillEmbedding.run(BigInt(b.rowid), b.vector);
      })();
    }
    ann.index.add(keys, matrix, rows.length >= ANN_PARALLEL_ADD ? 0 : 1);
    ann.w = rows[rows.length - 1]!.rowid;
    ann.changes += rows.length;
  }

  #save(cv: string, ann: WriterAnn): void {
    saveAnnFile(ann.index, this.#annDir, annStem(cv), ann.w, this.dims);
    ann.changes = 0;
    this.#listing = undefined;
  }

  /** A row written by an older version of this store has no copy in `embeddings` yet (~50 µs to read from vec0). */
  #vecVector(rowid: number): Buffer {
    const v = this.#stmts.vecVector.get(BigInt(rowid)) as Buffer | undefined;
    if (!v) throw new Error(`row ${rowid} has no vector`);
    return v;
  }

  #annError(cv: string, err: unknown): CrawlerError {
    return new CrawlerError(
      'STORAGE',
      `cannot keep the approximate index of ${cv} in ${this.collection}_${this.dims}: ${(err as Error).message}`,
      {
        cause: err,
        fix: `the vectors are stored and search stays correct; check free disk space and memory — the index is rebuilt from the vectors, and deleting ${this.#annDir} is always safe`,
      },
    );
  }

  // ── reader side ─────────────────────────────────────────────────────────────────────────────────────────────

  /** The index to search a version with: this store's own, else the newest readable file, else none. */
  async #annFor(cv: string): Promise<AnnSource | undefined> {
    const own = this.#parts.get(cv)?.ann;
    if (own) return own;
    const now = Date.now();
    if (!this.#listing || now - this.#listing.at > ANN_RELIST_MS) {
      this.#listing = { at: now, files: listAnnFiles(this.#annDir) };
    }
    const files = this.#listing.files.get(annStem(cv));
    const viewed = this.#views.get(cv);
    if (!files) {
      this.#views.delete(cv);
      return undefined;
    }
    for (const f of files) {
      if (viewed?.name === f.name) return viewed;
      const bad = this.#badFiles.get(f.name);
      if (bad !== undefined && bad === annFileSignature(this.#annDir, f.name)) continue;
      const opened = await this.#view(cv, f);
      if (!opened) continue;
      const current = this.#views.get(cv);
      if (!current || current.w < opened.w) this.#views.set(cv, opened);
      return this.#parts.get(cv)?.ann ?? this.#views.get(cv);
    }
    return viewed;
  }

  /** Opens (checks, then memory-maps) one file; concurrent searches share the work. */
  #view(cv: string, f: AnnFile): Promise<ViewedAnn | undefined> {
    let opening = this.#opening.get(f.name);
    if (!opening) {
      const signature = annFileSignature(this.#annDir, f.name);
      opening = viewAnnFile(join(this.#annDir, f.name), this.dims, f.w)
        .then(
          (index) => {
            if (index && !this.#closed && this.#fits(cv, index, f.w)) return { index, w: f.w, name: f.name };
            this.#badFiles.set(f.name, signature);
            return undefined;
          },
          () => {
            this.#listing = undefined; // gone meanwhile: a newer file replaced it
            return undefined;
          },
        )
        .finally(() => this.#opening.delete(f.name));
      this.#opening.set(f.name, opening);
    }
    return opening;
  }

  /**
   * Candidates from the index (k·2 + 16) and from an exact scan of the rows past its watermark, each scored
   * exactly from its stored vector. Undefined when too many rows are past the watermark (brute force is cheaper).
   */
  #annSearch(cv: string, ann: AnnSource, q: Float32Array, k: number): Row[] | undefined {
    const delta = this.#delta(cv, ann.w);
    if (!delta) return undefined;
    const want = k * 2 + 16;
    const candidates = new Set<number>();
    const size = ann.index.size();
    if (size > 0) for (const key of ann.index.search(q, Math.min(want, size), 1).keys) candidates.add(Number(key));
    const fromDelta: number[] = [];
    if (delta.n > 0) {
      const q8 = new Int8Array(this.dims);
      quantize(q, q8, 0);
      const count = Math.min(delta.n, want + delta.dead.size);
      for (const pos of exactNearest(delta.data.subarray(0, delta.n * this.dims), q8, this.dims, count)) {
        const rowid = delta.rowids[Number(pos)]!;
        if (delta.dead.has(rowid)) continue;
        candidates.add(rowid);
        fromDelta.push(rowid);
      }
    }
    if (candidates.size === 0) return [];
    const qNorm = Math.sqrt(dot(q, q));
    const bytes = new Uint8Array(this.#scratch.buffer);
    const rows: Row[] = [];
    const live = new Set<number>();
    // Rowids are never reused, so a key is this version's row or a deleted one. Rows from before schema 2 have
    // no copy in `embeddings` yet and are read from vec0; deleted rows are in neither.
    const stored = new Map<number, Buffer>();
    for (const r of this.#stmts.vectorsOf.all(JSON.stringify([...candidates])) as StoredVector[]) {
      if (r.vector) stored.set(r.rowid, r.vector);
    }
    for (const rowid of candidates) {
      const v = stored.get(rowid) ?? (this.#stmts.vecVector.get(BigInt(rowid)) as Buffer | undefined);
      if (v?.length !== bytes.length) continue;
      bytes.set(v);
      const vNorm = Math.sqrt(dot(this.#scratch, this.#scratch));
      const cos = qNorm > 0 && vNorm > 0 ? dot(q, this.#scratch) / (qNorm * vNorm) : 0;
      rows.push({ rowid, distance: 1 - cos });
      live.add(rowid);
    }
    for (const rowid of fromDelta) if (!live.has(rowid)) delta.dead.add(rowid);
    rows.sort((a, b) => a.distance - b.distance || a.rowid - b.rowid);
    return rows.slice(0, k);
  }

  /** The rows past watermark `w`, kept between searches and topped up with the rows written since. */
  #delta(cv: string, w: number): Delta | undefined {
    const dims = this.dims;
    let d = this.#deltas.get(cv);
    if (!d || w < d.w) {
      d = { w, hi: w, n: 0, full: false, rowids: new Float64Array(0), data: new Int8Array(0), dead: new Set() };
      this.#deltas.set(cv, d);
    } else if (w > d.w) {
      let cut = 0;
      for (let hi = d.n; cut < hi; ) {
        const mid = (cut + hi) >> 1;
        if (d.rowids[mid]! <= w) cut = mid + 1;
        else hi = mid;
      }
      d.rowids.copyWithin(0, cut, d.n);
      d.data.copyWithin(0, cut * dims, d.n * dims);
      d.n -= cut;
      for (const r of d.dead) if (r <= w) d.dead.delete(r);
      d.w = w;
      d.hi = Math.max(d.hi, w);
      d.full = false;
    }
    if (d.full) return undefined;
    const room = ANN_DELTA_MAX - d.n;
    const waiting = (this.#stmts.countAfterRowid.get(cv, d.hi, room + 1) as { n: number }).n;
    if (waiting > room) {
      d.full = true;
      return undefined;
    }
    if (waiting === 0) return d;
    const rows = this.#stmts.afterRowid.all(cv, d.hi, waiting) as StoredVector[];
    if (d.n + rows.length > d.rowids.length) {
      const capacity = Math.min(ANN_DELTA_MAX, Math.max(d.n + rows.length, d.rowids.length * 2, 256));
      const rowids = new Float64Array(capacity);
      rowids.set(d.rowids.subarray(0, d.n));
      const data = new Int8Array(capacity * dims);
      data.set(d.data.subarray(0, d.n * dims));
      d.rowids = rowids;
      d.data = data;
    }
    const bytes = new Uint8Array(this.#scratch.buffer);
    for (const r of rows) {
      const v = r.vector ?? this.#vecVector(r.rowid);
      if (v.length !== bytes.length) continue;
      bytes.set(v);
      quantize(this.#scratch, d.data, d.n * dims);
      d.rowids[d.n] = r.rowid;
      d.n += 1;
      d.hi = r.rowid;
    }
    return d;
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Writes `v` scaled so its largest component is ±127 (cosine does not change with scale). */
function quantize(v: Float32Array, out: Int8Array, at: number): void {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]!));
  const scale = max > 0 ? 127 / max : 0;
  for (let i = 0; i < v.length; i++) out[at + i] = Math.round(v[i]! * scale);
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
    const schema = Number(meta.get('schema'));
    if (schema !== 1 && schema !== SCHEMA_VERSION) {
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
    // Schema 1 → 2: a plain copy of each vector (read by rowid in µs; vec0 takes ~50 µs) and rowids that never
    // come back after a delete. Rows written before have no copy yet: the index writer adds it when it reaches
    // them, and reads fall back to vec0 until then.
    if (schema === 1) {
      db.transaction(() => {
        db.exec(`CREATE TABLE IF NOT EXISTS embeddings (rowid INTEGER PRIMARY KEY, vector BLOB NOT NULL)`);
        db.prepare(`INSERT OR REPLACE INTO meta(key, value) VALUES ('schema', ?)`).run(String(SCHEMA_VERSION));
        db.prepare(
          `INSERT OR REPLACE INTO meta(key, value) VALUES ('last_rowid', (SELECT coalesce(max(rowid), 0) FROM points))`,
        ).run();
      }).immediate();
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
      CREATE TABLE embeddings (rowid INTEGER PRIMARY KEY, vector BLOB NOT NULL);
    `);
    const put = db.prepare(`INSERT INTO meta(key, value) VALUES (?, ?)`);
    put.run('schema', String(SCHEMA_VERSION));
    put.run('dims', String(dims));
    put.run('last_rowid', '0');
  })();
}

function prepare(db: Database.Database): Statements {
  return {
    findRowid: db.prepare(`SELECT rowid, catalog_version AS cv FROM points WHERE id = ?`),
    lastRowid: db.prepare(`
      SELECT max(
        coalesce((SELECT max(rowid) FROM points), 0),
        coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'last_rowid'), 0)
      ) AS n`),
    putLastRowid: db.prepare(`INSERT OR REPLACE INTO meta(key, value) VALUES ('last_rowid', ?)`),
    insertPoint: db.prepare(`
      INSERT INTO points (rowid, id, catalog_version, catalog_id, version, resource_id, payload)
      VALUES (@rowid, @id, @catalogVersion, @catalogId, @version, @resourceId, @payload)`),
    deletePoint: db.prepare(`DELETE FROM points WHERE id = ?`),
    insertVec: db.prepare(`INSERT INTO vec (rowid, catalog_version, embedding) VALUES (?, ?, ?)`),
    deleteVec: db.prepare(`DELETE FROM vec WHERE rowid = ?`),
    insertEmbedding: db.prepare(`INSERT INTO embeddings (rowid, vector) VALUES (?, ?)`),
    backfillEmbedding: db.prepare(`INSERT OR IGNORE INTO embeddings (rowid, vector) VALUES (?, ?)`),
    deleteEmbedding: db.prepare(`DELETE FROM embeddings WHERE rowid = ?`),
    knn: db.prepare(`
      SELECT rowid, distance FROM vec
      WHERE embedding MATCH ? AND k = ? AND catalog_version = ?
      ORDER BY distance`),
    payloads: db.prepare(`SELECT rowid, id, payload FROM points WHERE rowid IN (SELECT value FROM json_each(?))`),
    versionRowids: db.prepare(`SELECT rowid FROM points WHERE catalog_version = ?`),
    resourceRowids: db.prepare(`SELECT rowid FROM points WHERE catalog_version = ? AND resource_id = ?`),
    deletePointRowid: db.prepare(`DELETE FROM points WHERE rowid = ?`),
    deleteVersionEmbeddings: db.prepare(
      `DELETE FROM embeddings WHERE rowid IN (SELECT rowid FROM points WHERE catalog_version = ?)`,
    ),
    deleteVersionPoints: db.prepare(`DELETE FROM points WHERE catalog_version = ?`),
    countVersion: db.prepare(`SELECT count(*) AS n FROM points WHERE catalog_version = ?`),
    countUpToRowid: db.prepare(`SELECT count(*) AS n FROM points WHERE catalog_version = ? AND rowid <= ?`),
    afterRowid: db.prepare(`
      SELECT p.rowid AS rowid, e.vector AS vector FROM points p LEFT JOIN embeddings e ON e.rowid = p.rowid
      WHERE p.catalog_version = ? AND p.rowid > ? ORDER BY p.rowid LIMIT ?`),
    countAfterRowid: db.prepare(`
      SELECT count(*) AS n FROM (SELECT 1 FROM points WHERE catalog_version = ? AND rowid > ? LIMIT ?)`),
    vectorsOf: db.prepare(`SELECT rowid, vector FROM embeddings WHERE rowid IN (SELECT value FROM json_each(?))`),
    vecVector: db.prepare(`SELECT embedding FROM vec WHERE rowid = ?`).pluck(),
  };
}
