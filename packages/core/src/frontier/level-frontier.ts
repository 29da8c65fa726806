import { createHash } from 'node:crypto';
import type { ClassicLevel } from 'classic-level';
import { CrawlerError } from '../errors.js';
import { BiasedSelector, LANES, laneOf, laneRange } from './front-queues.js';
import type { ClearOptions, CrawlFrontier, FrontierCommit, FrontierEntry, LeasedEntry } from './frontier.js';
import { checkFrontier, DONE, META } from './frontier-check.js';
import { checkEntry, decodeEntry, encodeEntry, queuePosition, urlKey } from './frontier-keys.js';
import { LaneReader } from './level-lane.js';
import { GroupCommit, type Op } from './level-writes.js';
import { type LevelStoreLabel, levelError, markCorrupt, openLevel } from './open-level.js';

/** Options of {@link LevelFrontier.open}. */
export interface LevelFrontierOptions {
  /** Entries read ahead per ranged iteration of the queue. @default 512 */
  readAhead?: number;
  /** Milliseconds within which acks and lease moves reach LevelDB. @default 50 */
  flushMs?: number;
  /** Lazy writes (acks, lease moves) held before a write starts at once. @default 2048 */
  maxPending?: number;
  /**
   * Bytes of writes LevelDB holds in memory before it sorts them into a table file. Four times LevelDB's 4 MiB:
   * the `u:` keys arrive in no order, and with small table files each one is merged into the next level again and
   * again (at 1M urls, 536 MB rewritten with 4 MiB against 180 MB with 16 MiB), which costs the puts' time.
   * @default 16 MiB
   */
  writeBufferSize?: number;
}

/** `c:` holds the caller's checkpoint (the run's counters), written atomically with acks by commit(). */
const CHECKPOINT = 'c:';
/** `j:` keys: the run's journal (see FrontierCommit.journal). */
const JOURNAL = 'j:';
const CHUNK = 1024;
/** LevelFrontierOptions.writeBufferSize's default. */
const WRITE_BUFFER = 16 * 1024 * 1024;

/** A lane that may hold entries not read ahead yet. */
const unread = (lane: LaneReader): boolean => !lane.buffered && !lane.empty;

/**
 * The durable frontier of one catalog version, in its own LevelDB directory
 * (`DataLayout.frontierDir(catalogId, version)`).
 *
 * Keys: `f:{priority}{sequence}` the queue (FIFO within a priority), `u:{url}` queued during this run,
 * `i:{priority}{sequence}` polled and not yet acked, `m:` counters. The priority's whole part is the entry's lane
 * (front-queues.ts): lane 0 (start urls, redirect targets) and the front queues, each a contiguous key range with a
 * read-ahead of its own (level-lane.ts); a poll takes from the lane the biased selector picks. Writes are
 * group-committed: puts wait for their batch, lease moves and acks are written within `flushMs`. A crash loses at
 * most those lazy writes, which only means an entry is offered again after {@link recover}.
 */
export class LevelFrontier implements CrawlFrontier {
  readonly dir: string;
  readonly #db: ClassicLevel<string, string>;
  readonly #label: LevelStoreLabel;
  readonly #readAhead: number;
  /** Lazy writes and their group commit. */
  readonly #writes: GroupCommit;

  #seq: number;
  /** Entries in `f:` once every submitted write is applied. */
  #size: number;
  #leases = new Set<string>();
  #putting = new Set<string>();

  /** One read-ahead per lane (front-queues.ts). */
  readonly #lanes: LaneReader[];
  readonly #selector = new BiasedSelector();
  /** Whether a lane holds entries read ahead (the selector's question). */
  readonly #holds = (lane: number): boolean => this.#lanes[lane]?.buffered === true;

  #gate: Promise<void> | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;

  private constructor(
    dir: string,
    db: ClassicLevel<string, string>,
    label: LevelStoreLabel,
    seq: number,
    size: number,
    options: LevelFrontierOptions,
  ) {
    this.dir = dir;
    this.#db = db;
    this.#label = label;
    this.#seq = seq;
    this.#size = size;
    this.#readAhead = Math.max(1, options.readAhead ?? 512);
    this.#writes = new GroupCommit(db, {
      flushMs: Math.max(0, options.flushMs ?? 50),
      maxPending: Math.max(1, options.maxPending ?? 2048),
      meta: () => ({ type: 'put', key: META, value: `${this.#seq},${this.#size}` }),
      error: (err) => levelError(err, this.dir, this.#label, 'writing'),
    });
    this.#lanes = Array.from(
      { length: LANES },
      (_, lane) =>
        new LaneReader(db, {
          range: laneRange(lane),
          readAhead: this.#readAhead,
          flush: () => this.#writes.flush(),
          error: (err) =>
            err instanceof CrawlerError ? err : levelError(err, this.dir, this.#label, 'reading the queue'),
        }),
    );
  }

  /**
   * Open (creating) the frontier at `dir`.
   * @throws CrawlerError CONFLICT when another process holds it, CORRUPT when it cannot be read.
   */
  static async open(dir: string, options: LevelFrontierOptions = {}): Promise<LevelFrontier> {
    const label: LevelStoreLabel = {
      what: 'frontier store',
      corruptFix: `delete ${dir} and crawl this version again (the frontier is working state; saved pages are kept)`,
    };
    const db = await openLevel(dir, label, { writeBufferSize: options.writeBufferSize ?? WRITE_BUFFER });
    try {
      const { seq, size } = await checkFrontier(db, dir, label);
      return new LevelFrontier(dir, db, label, seq, size, options);
    } catch (err) {
      await db.close().catch(() => undefined);
      if (err instanceof CrawlerError && err.code === 'CORRUPT') markCorrupt(dir, err.message);
      throw err instanceof CrawlerError ? err : levelError(err, dir, label, 'reading counters');
    }
  }

  /** commit() of one put, without its arrays: the same checks, writes and wait, on the path one-by-one puts take. */
  async put(entry: FrontierEntry): Promise<boolean> {
    if (this.#gate) await this.#ready();
    else this.#check();
    checkEntry(entry);
    const uk = urlKey(entry.url);
    if (this.#putting.has(uk) || this.#queuedOnDisk(uk)) return false;
    this.#putting.add(uk);
    try {
      const priority = entry.priority ?? 0;
      const pos = queuePosition(priority, this.#seq++);
      const value = encodeEntry(entry);
      this.#writes.push({ type: 'put', key: uk, value: '' });
      this.#writes.push({ type: 'put', key: `f:${pos}`, value });
      this.#lanes[laneOf(priority)]?.note(pos, value);
      this.#size++;
      await this.#writes.flush();
      return true;
    } finally {
      this.#putting.delete(uk);
    }
  }

  async putAll(entries: FrontierEntry[]): Promise<boolean[]> {
    return this.commit({ puts: entries, acks: [] });
  }

  async commit(batch: FrontierCommit): Promise<boolean[]> {
    await this.#ready();
    for (const entry of batch.puts) checkEntry(entry);
    const results: boolean[] = [];
    const ops: Op[] = [];
    const mine: string[] = [];
    try {
      for (const entry of batch.puts) {
        const uk = urlKey(entry.url);
        if (this.#putting.has(uk) || this.#queuedOnDisk(uk)) {
          results.push(false);
          continue;
        }
        this.#putting.add(uk);
        mine.push(uk);
        const pos = queuePosition(entry.priority ?? 0, this.#seq++);
        const value = encodeEntry(entry);
        ops.push({ type: 'put', key: uk, value: '' }, { type: 'put', key: `f:${pos}`, value });
        this.#lanes[laneOf(entry.priority ?? 0)]?.note(pos, value);
        results.push(true);
      }
      this.#size += mine.length;
      for (const lease of batch.acks) {
        if (this.#leases.delete(lease.leaseKey)) ops.push({ type: 'del', key: `i:${lease.leaseKey}` });
        ops.push({ type: 'put', key: urlKey(lease.url), value: DONE });
      }
      for (const [key, value] of batch.journal?.put ?? []) ops.push({ type: 'put', key: `${JOURNAL}${key}`, value });
      for (const key of batch.journal?.del ?? []) ops.push({ type: 'del', key: `${JOURNAL}${key}` });
      if (batch.checkpoint) ops.push({ type: 'put', key: CHECKPOINT, value: batch.checkpoint(results) });
      // Pushed in one go, with no await in between: the write loop takes them into one LevelDB batch.
      for (const op of ops) this.#writes.push(op);
      if (ops.length > 0) await this.#writes.flush();
      return results;
    } finally {
      for (const uk of mine) this.#putting.delete(uk);
    }
  }

  async *journal(prefix: string): AsyncIterable<[string, string]> {
    await this.#ready();
    await this.#writes.flush();
    const gte = `${JOURNAL}${prefix}`;
    for await (const [key, value] of this.#db.iterator({ gte, lt: `${gte}\uffff` })) {
      yield [key.slice(JOURNAL.length), value];
    }
  }

  async checkpoint(): Promise<string | undefined> {
    await this.#ready();
    await this.#writes.flush();
    return this.#db.get(CHECKPOINT);
  }

  async *doneUrlHashes(batch = 4096): AsyncIterable<string[]> {
    await this.#ready();
    await this.#writes.flush();
    let out: string[] = [];
    for await (const [key, value] of this.#db.iterator({ gte: 'u:', lt: 'u;' })) {
      if (value !== DONE) continue;
      out.push(key.startsWith('u:#') ? key.slice(3) : createHash('sha256').update(key.slice(3)).digest('hex'));
      if (out.length >= batch) {
        yield out;
        out = [];
      }
    }
    if (out.length > 0) yield out;
  }

  async reopen(urls: string[]): Promise<number> {
    await this.#ready();
    await this.#writes.flush();
    let reopened = 0;
    try {
      for (const url of urls) {
        const key = urlKey(url);
        if (this.#putting.has(key) || this.#db.getSync(key) !== DONE) continue;
        this.#writes.push({ type: 'del', key });
        reopened++;
      }
    } catch (err) {
      throw levelError(err, this.dir, this.#label, 'reading');
    }
    if (reopened > 0) await this.#writes.flush();
    return reopened;
  }

  async poll(): Promise<LeasedEntry | undefined> {
    await this.#ready();
    let item: { pos: string; value: string } | undefined;
    for (;;) {
      // Every lane that may hold entries is read ahead first, so the selector sees each lane that holds any.
      if (this.#lanes.some(unread)) {
        await Promise.all(this.#lanes.filter(unread).map((l) => l.fill()));
        await this.#ready();
        continue;
      }
      const lane = this.#selector.pick(this.#holds);
      if (lane === undefined) return undefined;
      item = this.#lanes[lane]?.take();
      if (item) break;
    }
    this.#size--;
    this.#leases.add(item.pos);
    this.#writes.lazy({ type: 'del', key: `f:${item.pos}` }, { type: 'put', key: `i:${item.pos}`, value: item.value });
    return { ...decodeEntry(item.value), leaseKey: item.pos };
  }

  async ack(entry: LeasedEntry): Promise<void> {
    this.#check();
    if (this.#leases.delete(entry.leaseKey)) {
      this.#writes.lazy(
        { type: 'del', key: `i:${entry.leaseKey}` },
        { type: 'put', key: urlKey(entry.url), value: DONE },
      );
    }
    if (this.#writes.full) await this.#writes.flush();
  }

  async size(): Promise<number> {
    this.#check();
    return this.#size;
  }

  inFlight(): number {
    return this.#leases.size;
  }

  async recover(options: { keepRun?: boolean } = {}): Promise<number> {
    await this.#ready();
    return this.#exclusive(async () => {
      this.#resetBuffer();
      this.#leases.clear();
      try {
        if (!options.keepRun) await this.#db.clear({ gte: 'u:', lt: 'u;' });
        let recovered = 0;
        let batch: Op[] = [];
        // `m:` is written with every chunk, so the stored size matches `f:` at every point a crash may hit
        // (the consistency check on open compares them).
        let onDisk = this.#size;
        const meta = (): Op => ({ type: 'put', key: META, value: `${this.#seq},${onDisk}` });
        for await (const [key, value] of this.#db.iterator({ gte: 'i:', lt: 'i;' })) {
          const pos = key.slice(2);
          batch.push({ type: 'del', key }, { type: 'put', key: `f:${pos}`, value });
          recovered++;
          onDisk++;
          if (batch.length >= CHUNK) {
            await this.#db.batch([...batch, meta()]);
            batch = [];
          }
        }
        if (batch.length > 0) await this.#db.batch([...batch, meta()]);
        batch = [];
        let size = 0;
        const inChunk = new Set<string>();
        for await (const [key, value] of this.#db.iterator({ gte: 'f:', lt: 'f;' })) {
          if (options.keepRun) {
            size++;
            continue;
          }
          const uk = urlKey(decodeEntry(value).url);
          if (inChunk.has(uk) || this.#db.getSync(uk) !== undefined) {
            batch.push({ type: 'del', key });
            onDisk--;
          } else {
            inChunk.add(uk);
            batch.push({ type: 'put', key: uk, value: '' });
            size++;
          }
          if (batch.length >= CHUNK) {
            await this.#db.batch([...batch, meta()]);
            batch = [];
            inChunk.clear();
          }
        }
        this.#size = size;
        batch.push({ type: 'put', key: META, value: `${this.#seq},${size}` });
        await this.#db.batch(batch);
        return recovered;
      } catch (err) {
        throw levelError(err, this.dir, this.#label, 'recovering');
      }
    });
  }

  async clear(options: ClearOptions = {}): Promise<void> {
    const keep = options.keepJournal ?? [];
    await this.#ready();
    await this.#exclusive(async () => {
      this.#resetBuffer();
      this.#leases.clear();
      this.#seq = 0;
      this.#size = 0;
      try {
        // The counters go first: a store cleared half way by a crash has none, and is counted again on open.
        await this.#db.del(META);
        if (keep.length === 0) await this.#db.clear();
        else await this.#clearAllBut(keep.map((prefix) => `${JOURNAL}${prefix}`));
      } catch (err) {
        throw levelError(err, this.dir, this.#label, 'clearing');
      }
    });
  }

  /** Delete every key except those under the prefixes given, range by range between them. */
  async #clearAllBut(prefixes: string[]): Promise<void> {
    const kept = [...prefixes].sort();
    let from: string | undefined;
    for (const prefix of kept) {
      await this.#db.clear(from === undefined ? { lt: prefix } : { gte: from, lt: prefix });
      from = `${prefix}\uffff`;
    }
    await this.#db.clear(from === undefined ? {} : { gte: from });
  }

  async close(): Promise<void> {
    this.#closing ??= (async () => {
      while (this.#gate) await this.#gate;
      await this.#fills();
      this.#closed = true;
      let failure: unknown;
      try {
        await this.#writes.flush();
      } catch (err) {
        failure = err;
      }
      await this.#db.close();
      if (failure) throw failure;
    })();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #check(): void {
    if (this.#writes.failure) throw this.#writes.failure;
    if (this.#closed || this.#closing) {
      throw new CrawlerError('STORAGE', `frontier store at ${this.dir} is closed`, {
        fix: 'open it again with LevelFrontier.open() before using it',
      });
    }
  }

  async #ready(): Promise<void> {
    this.#check();
    while (this.#gate) await this.#gate;
    this.#check();
  }

  #queuedOnDisk(uk: string): boolean {
    try {
      return this.#db.getSync(uk) !== undefined;
    } catch (err) {
      throw levelError(err, this.dir, this.#label, 'reading');
    }
  }

  /** Run alone: no put or poll starts until fn ends, and every earlier write is applied first. */
  async #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    while (this.#gate) await this.#gate;
    let open!: () => void;
    this.#gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    try {
      await this.#fills();
      await this.#writes.flush();
      return await fn();
    } finally {
      this.#gate = undefined;
      open();
    }
  }

  #resetBuffer(): void {
    for (const lane of this.#lanes) lane.reset();
    this.#selector.reset();
  }

  /** Wait for the lanes' fills running now (their failures are the poll's to report). */
  async #fills(): Promise<void> {
    await Promise.all(this.#lanes.map((l) => l.filling?.catch(() => undefined)));
  }
}
