import type { ClassicLevel } from 'classic-level';

/** One queued entry read ahead. */
export interface Buffered {
  /** The queue position (the key without `f:`), also the lease key. */
  pos: string;
  value: string;
}

/** How a {@link LaneReader} reads. */
export interface LaneReaderOptions {
  /** The lane's `f:` key range (front-queues.ts `laneRange`). */
  range: { gte: string; lt: string };
  /** Entries read ahead per ranged iteration. */
  readAhead: number;
  /** Resolves once every write submitted so far is applied (a read must see them). */
  flush: () => Promise<void>;
  /** The error a failed read becomes. */
  error: (err: unknown) => Error;
}

/**
 * The read-ahead of one lane of the LevelDB frontier (one front queue, or the lane of urls that go first): a sorted
 * buffer of the lane's next entries, filled by ranged iterations from the last position read (`tail`). A position
 * put at or before the tail goes straight into the buffer (`note`); one put while a fill runs is checked against what
 * the fill read. `empty` says the last fill found nothing past the tail and nothing was put since: the lane is not
 * read again until a put lands in it.
 */
export class LaneReader {
  readonly #db: ClassicLevel<string, string>;
  readonly #o: LaneReaderOptions;
  #buffer: Buffered[] = [];
  #head = 0;
  /** The last queue position read into the buffer; later positions are only on disk. */
  #tail: string | undefined;
  #filling: Promise<number> | undefined;
  /** Positions put while a fill runs, so a fill never misses one its iterator did not see. */
  #fillSeen: Map<string, string> | undefined;
  /** Nothing past the tail on disk, as far as this reader knows. */
  empty = false;

  constructor(db: ClassicLevel<string, string>, options: LaneReaderOptions) {
    this.#db = db;
    this.#o = options;
  }

  /** Entries read ahead and not taken. */
  get buffered(): boolean {
    return this.#head < this.#buffer.length;
  }

  /** The fill running now, if any. */
  get filling(): Promise<number> | undefined {
    return this.#filling;
  }

  /** The next entry read ahead (the caller checked `buffered`). */
  take(): Buffered | undefined {
    if (this.#head >= this.#buffer.length) return undefined;
    const item = this.#buffer[this.#head] as Buffered;
    this.#buffer[this.#head] = undefined as unknown as Buffered;
    this.#head++;
    return item;
  }

  /** A new queue position of this lane: read ahead now when at or before the tail; the lane is no longer empty. */
  note(pos: string, value: string): void {
    this.empty = false;
    if (this.#fillSeen) this.#fillSeen.set(pos, value);
    else if (this.#tail !== undefined && pos <= this.#tail) this.#insertSorted({ pos, value });
  }

  /** Forget what was read (the queue on disk changed under it: recover, clear). */
  reset(): void {
    this.#buffer = [];
    this.#head = 0;
    this.#tail = undefined;
    this.empty = false;
  }

  /** Read the next entries past the tail; one fill at a time. @returns how many rows it read */
  fill(): Promise<number> {
    this.#filling ??= this.#readChunk().finally(() => {
      this.#filling = undefined;
    });
    return this.#filling;
  }

  #insertSorted(item: Buffered): void {
    let lo = this.#head;
    let hi = this.#buffer.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#buffer[mid] as Buffered).pos < item.pos) lo = mid + 1;
      else hi = mid;
    }
    this.#buffer.splice(lo, 0, item);
  }

  async #readChunk(): Promise<number> {
    const oldTail = this.#tail;
    this.#fillSeen = new Map();
    let rows: [string, string][];
    try {
      await this.#o.flush();
      const { gte, lt } = this.#o.range;
      const it = this.#db.iterator(oldTail === undefined ? { gte, lt } : { gt: `f:${oldTail}`, lt });
      try {
        rows = await it.nextv(this.#o.readAhead);
      } finally {
        await it.close();
      }
    } catch (err) {
      this.#fillSeen = undefined;
      throw this.#o.error(err);
    }
    const seen = this.#fillSeen;
    this.#fillSeen = undefined;
    if (this.#head > 0) {
      this.#buffer = this.#buffer.slice(this.#head);
      this.#head = 0;
    }
    const last = rows.at(-1);
    const newTail = last ? last[0].slice(2) : oldTail;
    const read = new Set<string>();
    for (const [key, value] of rows) {
      const pos = key.slice(2);
      read.add(pos);
      this.#buffer.push({ pos, value });
    }
    this.#tail = newTail;
    let beyond = 0;
    for (const [pos, value] of seen) {
      if (read.has(pos)) continue;
      const beforeOld = oldTail !== undefined && pos <= oldTail;
      const withinNew = newTail !== undefined && pos <= newTail;
      if (beforeOld || withinNew) this.#insertSorted({ pos, value });
      else beyond++;
    }
    // Put during the read past what it reached: on disk, read by the next fill.
    this.empty = rows.length === 0 && beyond === 0;
    return rows.length;
  }
}
