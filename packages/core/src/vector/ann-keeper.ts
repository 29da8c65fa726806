import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { CrawlerError } from '../errors.js';
import { ANN_DELTA_MAX, AnnDeltas, dot, quantize } from './ann-delta.js';
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
import type { Statements, StoredVector } from './vec-schema.js';

/** Older rows the writer adds to an index per upsert, besides the upsert's own points. */
const ANN_CATCH_UP = 512;
/** Changes between two saves of an index: an eighth of its size, at least 1,000, at most 50,000. */
const ANN_SAVE_MIN = 1_000;
const ANN_SAVE_MAX = 50_000;
/** How often a search looks for newer index files. */
const ANN_RELIST_MS = 1_000;
/** Batches at least this big are added to an index with every core. */
const ANN_PARALLEL_ADD = 64;
/** Rows added per round of optimize(): large enough for usearch's threads, small enough to bound memory. */
const ANN_OPTIMIZE_BATCH = 10_000;

export type Row = { rowid: number; distance: number };

/** An index and its watermark: it holds the version's rows with rowid ≤ w (and none above). */
export interface AnnSource {
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
 * The approximate indexes (usearch HNSW) of one collection, one per catalog version of at least `annMin` points, in
 * `ann/<catalogId>_<version>.<watermark>.usearch` (ann-files.ts). The writer side keeps an index in RAM for each
 * version this store writes, equal to "the version's rows with rowid ≤ watermark", and saves it now and then; the
 * reader side memory-maps the newest good file of a version and scans the rows past its watermark exactly. SQLite
 * stays the truth: the files are a cache that can be deleted at any time.
 */
export class AnnKeeper {
  /** Whether versions get an index at all (annMin > 0). */
  readonly enabled: boolean;
  readonly #db: Database.Database;
  readonly #stmts: Statements;
  readonly #dims: number;
  readonly #annDir: string;
  readonly #annMin: number;
  /** `<collection>_<dims>`, for messages. */
  readonly #label: string;
  /** Writer side: versions this store wrote to. */
  readonly #parts = new Map<string, Partition>();
  /** Reader side: the index file in use per version, files being opened, files found damaged. */
  readonly #views = new Map<string, ViewedAnn>();
  readonly #opening = new Map<string, Promise<ViewedAnn | undefined>>();
  readonly #badFiles = new Map<string, string>();
  readonly #deltas: AnnDeltas;
  #listing: { at: number; files: Map<string, AnnFile[]> } | undefined;
  readonly #scratch: Float32Array;
  #closed = false;

  constructor(o: {
    db: Database.Database;
    stmts: Statements;
    dims: number;
    annDir: string;
    annMin: number;
    label: string;
  }) {
    this.#db = o.db;
    this.#stmts = o.stmts;
    this.#dims = o.dims;
    this.#annDir = o.annDir;
    this.#annMin = o.annMin;
    this.#label = o.label;
    this.enabled = o.annMin > 0;
    this.#scratch = new Float32Array(o.dims);
    this.#deltas = new AnnDeltas(o.stmts, o.dims);
  }

  /** The directory of the index files. */
  get dir(): string {
    return this.#annDir;
  }

  /** A version's rows are gone: its index, views and files go too. */
  forget(cv: string): void {
    this.#parts.delete(cv);
    this.#views.delete(cv);
    this.#deltas.delete(cv);
    this.#listing = undefined;
    removeAnnFiles(this.#annDir, annStem(cv));
  }

  /**
   * Bring one version's approximate index fully up to date and save it (a crawl calls this when it publishes the
   * version, so its first searches need no catch-up). Versions under `annMinPoints` have none: a no-op.
   */
  optimize(cv: string): VectorOptimizeStats {
    const started = performance.now();
    const part = this.#parts.get(cv) ?? this.#openPartition(cv);
    if (this.#annMin === 0 || part.count < this.#annMin) {
      return { points: part.count, indexed: 0, added: 0, ms: Math.round(performance.now() - started) };
    }
    part.ann ??= { index: createAnnIndex(this.#dims), w: 0, changes: 0 };
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

  /** The index a search of version `cv` would use now (see SqliteVecStore.annStatus); undefined: searched exactly. */
  async status(cv: string): Promise<AnnStatus | undefined> {
    const ann = this.enabled ? await this.sourceFor(cv) : undefined;
    if (!ann || this.#closed) return undefined;
    return {
      source: this.#parts.get(cv)?.ann === ann ? 'memory' : 'file',
      watermark: ann.w,
      size: ann.index.size(),
      pending: (this.#stmts.countAfterRowid.get(cv, ann.w, ANN_DELTA_MAX + 1) as { n: number }).n,
    };
  }

  /** Saves the indexes changed since their last save (without finishing a catch-up) and lets go of them all. */
  close(): CrawlerError | undefined {
    if (this.#closed) return undefined;
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
    return failure;
  }

  // ── writer side ─────────────────────────────────────────────────────────────────────────────────────────────

  /**
   * Keeps the in-memory index of every version touched by a write equal to "its rows with rowid ≤ w": removes the
   * deleted rows, then adds rows past w in rowid order, at most the call's own points plus ANN_CATCH_UP older ones.
   */
  maintain(added: Map<string, number>, removed: Array<{ rowid: number; cv: string }>): void {
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
          part.ann = { index: createAnnIndex(this.#dims), w: 0, changes: 0 };
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
      const index = loadAnnFileSync(join(this.#annDir, f.name), this.#dims, f.w);
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
    const width = this.#dims * 4;
    const keys = new BigUint64Array(rows.length);
    const matrix = new Float32Array(rows.length * this.#dims);
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
    saveAnnFile(ann.index, this.#annDir, annStem(cv), ann.w, this.#dims);
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
      `cannot keep the approximate index of ${cv} in ${this.#label}: ${(err as Error).message}`,
      {
        cause: err,
        fix: `the vectors are stored and search stays correct; check free disk space and memory — the index is rebuilt from the vectors, and deleting ${this.#annDir} is always safe`,
      },
    );
  }

  // ── reader side ─────────────────────────────────────────────────────────────────────────────────────────────

  /** The index to search a version with: this store's own, else the newest readable file, else none. */
  async sourceFor(cv: string): Promise<AnnSource | undefined> {
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
      opening = viewAnnFile(join(this.#annDir, f.name), this.#dims, f.w)
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
  search(cv: string, ann: AnnSource, q: Float32Array, k: number): Row[] | undefined {
    const delta = this.#deltas.get(cv, ann.w);
    if (!delta) return undefined;
    const want = k * 2 + 16;
    const candidates = new Set<number>();
    const size = ann.index.size();
    if (size > 0) for (const key of ann.index.search(q, Math.min(want, size), 1).keys) candidates.add(Number(key));
    const fromDelta: number[] = [];
    if (delta.n > 0) {
      const q8 = new Int8Array(this.#dims);
      quantize(q, q8, 0);
      const count = Math.min(delta.n, want + delta.dead.size);
      for (const pos of exactNearest(delta.data.subarray(0, delta.n * this.#dims), q8, this.#dims, count)) {
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
}
