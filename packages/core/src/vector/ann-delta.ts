import type { Statements, StoredVector } from './vec-schema.js';

/** Rows past the watermark a search scans exactly; with more, the version is searched by brute force. */
export const ANN_DELTA_MAX = 60_000;

/**
 * A reader's copy of the rows past an index's watermark (i8, each row scaled to ±127), appended to as rows
 * arrive. `full` when more than ANN_DELTA_MAX rows are waiting; `dead` are rows found deleted.
 */
export interface Delta {
  w: number;
  hi: number;
  n: number;
  full: boolean;
  rowids: Float64Array;
  data: Int8Array;
  dead: Set<number>;
}

/** A reader's copies of the rows past each version's index watermark, kept between searches (see Delta). */
export class AnnDeltas {
  readonly #deltas = new Map<string, Delta>();
  readonly #stmts: Statements;
  readonly #dims: number;
  readonly #scratch: Float32Array;

  constructor(stmts: Statements, dims: number) {
    this.#stmts = stmts;
    this.#dims = dims;
    this.#scratch = new Float32Array(dims);
  }

  delete(cv: string): void {
    this.#deltas.delete(cv);
  }

  clear(): void {
    this.#deltas.clear();
  }

  /** The rows past watermark `w`, kept between searches and topped up with the rows written since. */
  get(cv: string, w: number): Delta | undefined {
    const dims = this.#dims;
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

  /** A row written by an older version of this store has no copy in `embeddings` yet (~50 µs to read from vec0). */
  #vecVector(rowid: number): Buffer {
    const v = this.#stmts.vecVector.get(BigInt(rowid)) as Buffer | undefined;
    if (!v) throw new Error(`row ${rowid} has no vector`);
    return v;
  }
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Writes `v` scaled so its largest component is ±127 (cosine does not change with scale). */
export function quantize(v: Float32Array, out: Int8Array, at: number): void {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]!));
  const scale = max > 0 ? 127 / max : 0;
  for (let i = 0; i < v.length; i++) out[at + i] = Math.round(v[i]! * scale);
}
