import type { ClassicLevel } from 'classic-level';
import type { CrawlerError } from '../errors.js';

/** One write of a batch. */
export type Op = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** How a {@link GroupCommit} writes. */
export interface GroupCommitOptions {
  /** Milliseconds within which lazy writes reach LevelDB. */
  flushMs: number;
  /** Lazy writes held before a write starts at once. */
  maxPending: number;
  /** The op every batch ends with (the frontier's counters), read when the batch is written. */
  meta: () => Op;
  /** The error a failed write becomes (it fails every later flush too). */
  error: (err: unknown) => CrawlerError;
}

/**
 * The LevelFrontier's group commit: ops wait for the next batch, which is written with the counters in one LevelDB
 * batch; `push` adds ops a caller then waits for with `flush`, `lazy` adds ops written within `flushMs` (at once when
 * `maxPending` are held). After a failed write the store is failed: `failure` is set and every flush rejects with it.
 */
export class GroupCommit {
  /** Set once a write failed. */
  failure: CrawlerError | undefined;
  readonly #db: ClassicLevel<string, string>;
  readonly #o: GroupCommitOptions;
  #pending: Op[] = [];
  #pendingDone: Deferred | undefined;
  #writing: Promise<void> | undefined;
  #lastWrite: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;

  constructor(db: ClassicLevel<string, string>, options: GroupCommitOptions) {
    this.#db = db;
    this.#o = options;
  }

  /** As many lazy writes are held as a write starts at once for. */
  get full(): boolean {
    return this.#pending.length >= this.#o.maxPending;
  }

  /** Add an op to the next batch (the caller flushes). */
  push(op: Op): void {
    this.#pending.push(op);
  }

  /** Queue ops written within flushMs (or at once when many are pending). */
  lazy(...ops: Op[]): void {
    for (const op of ops) this.#pending.push(op);
    if (this.full) {
      this.flush().catch(() => undefined);
    } else if (!this.#timer) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.flush().catch(() => undefined);
      }, this.#o.flushMs);
      this.#timer.unref();
    }
  }

  /** Resolves once every op submitted so far is applied. */
  flush(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.#pending.length === 0) return this.#lastWrite;
    this.#pendingDone ??= deferred();
    const done = this.#pendingDone.promise;
    this.#writing ??= this.#writeLoop();
    return done;
  }

  async #writeLoop(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        if (this.#timer) {
          clearTimeout(this.#timer);
          this.#timer = undefined;
        }
        const ops = this.#pending;
        this.#pending = [];
        const done = this.#pendingDone;
        this.#pendingDone = undefined;
        ops.push(this.#o.meta());
        const write = this.#db.batch(ops);
        this.#lastWrite = write.catch(() => undefined);
        try {
          await write;
          done?.resolve();
        } catch (err) {
          this.failure = this.#o.error(err);
          done?.reject(this.failure);
          const later = this.#pendingDone as Deferred | undefined;
          later?.reject(this.failure);
          this.#pendingDone = undefined;
          this.#pending = [];
          return;
        }
      }
    } finally {
      this.#writing = undefined;
    }
  }
}
