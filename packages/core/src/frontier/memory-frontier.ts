import { createHash } from 'node:crypto';
import { CrawlerError } from '../errors.js';
import { BiasedSelector, LANES, laneOf } from './front-queues.js';
import type { ClearOptions, CrawlFrontier, FrontierCommit, FrontierEntry, LeasedEntry } from './frontier.js';
import { checkEntry, queuePosition } from './frontier-keys.js';

interface Queued {
  pos: string;
  entry: FrontierEntry;
}

/** A binary min-heap on the queue position. */
class PositionHeap {
  #items: Queued[] = [];
  get size(): number {
    return this.#items.length;
  }
  push(item: Queued): void {
    const a = this.#items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((a[parent] as Queued).pos <= item.pos) break;
      a[i] = a[parent] as Queued;
      i = parent;
    }
    a[i] = item;
  }
  pop(): Queued | undefined {
    const a = this.#items;
    const top = a[0];
    const last = a.pop();
    if (top === undefined || last === undefined || a.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const r = l + 1;
      const c = r < a.length && (a[r] as Queued).pos < (a[l] as Queued).pos ? r : l;
      if ((a[c] as Queued).pos >= last.pos) break;
      a[i] = a[c] as Queued;
      i = c;
    }
    a[i] = last;
    return top;
  }
  values(): readonly Queued[] {
    return this.#items;
  }
  clear(): void {
    this.#items = [];
  }
}

/**
 * A frontier held in memory: the same contract as {@link LevelFrontier}, without durability — one heap per lane
 * (front-queues.ts), polled through the same biased selector. For library users who crawl once and for tests.
 */
export class MemoryFrontier implements CrawlFrontier {
  readonly #lanes = Array.from({ length: LANES }, () => new PositionHeap());
  readonly #selector = new BiasedSelector();
  #queued = new Set<string>();
  #leases = new Map<string, FrontierEntry>();
  #seq = 0;
  #closed = false;
  #done = new Set<string>();
  #checkpoint: string | undefined;
  #journal = new Map<string, string>();

  async put(entry: FrontierEntry): Promise<boolean> {
    const [enqueued] = await this.putAll([entry]);
    return enqueued as boolean;
  }

  async putAll(entries: FrontierEntry[]): Promise<boolean[]> {
    this.#check();
    for (const entry of entries) checkEntry(entry);
    return entries.map((entry) => {
      if (this.#queued.has(entry.url)) return false;
      this.#queued.add(entry.url);
      // The prioritizer's parts go to the ledger, not the queue (as on the LevelDB frontier).
      const { rank: _rank, ...kept } = entry;
      this.#push({ pos: queuePosition(entry.priority ?? 0, this.#seq++), entry: kept });
      return true;
    });
  }

  async poll(): Promise<LeasedEntry | undefined> {
    this.#check();
    const lane = this.#selector.pick((l) => (this.#lanes[l] as PositionHeap).size > 0);
    const item = lane === undefined ? undefined : this.#lanes[lane]?.pop();
    if (!item) return undefined;
    this.#leases.set(item.pos, item.entry);
    return { ...item.entry, leaseKey: item.pos };
  }

  async ack(entry: LeasedEntry): Promise<void> {
    this.#check();
    if (this.#leases.delete(entry.leaseKey)) this.#done.add(entry.url);
  }

  async commit(batch: FrontierCommit): Promise<boolean[]> {
    const enqueued = await this.putAll(batch.puts);
    for (const lease of batch.acks) await this.ack(lease);
    for (const [key, value] of batch.journal?.put ?? []) this.#journal.set(key, value);
    for (const key of batch.journal?.del ?? []) this.#journal.delete(key);
    if (batch.checkpoint) this.#checkpoint = batch.checkpoint(enqueued);
    return enqueued;
  }

  async *journal(prefix: string): AsyncIterable<[string, string]> {
    const keys = [...this.#journal.keys()].filter((k) => k.startsWith(prefix)).sort();
    for (const k of keys) yield [k, this.#journal.get(k) as string];
  }

  async checkpoint(): Promise<string | undefined> {
    this.#check();
    return this.#checkpoint;
  }

  async *doneUrlHashes(batch = 4096): AsyncIterable<string[]> {
    const all = [...this.#done].map((url) => createHash('sha256').update(url).digest('hex'));
    for (let i = 0; i < all.length; i += batch) yield all.slice(i, i + batch);
  }

  async reopen(urls: string[]): Promise<number> {
    this.#check();
    let reopened = 0;
    for (const url of urls) {
      if (!this.#done.delete(url)) continue;
      this.#queued.delete(url);
      reopened++;
    }
    return reopened;
  }

  async size(): Promise<number> {
    this.#check();
    let size = 0;
    for (const heap of this.#lanes) size += heap.size;
    return size;
  }

  inFlight(): number {
    return this.#leases.size;
  }

  async recover(options: { keepRun?: boolean } = {}): Promise<number> {
    this.#check();
    const recovered = this.#leases.size;
    for (const [pos, entry] of this.#leases) this.#push({ pos, entry });
    this.#leases.clear();
    this.#selector.reset();
    if (!options.keepRun) {
      this.#queued.clear();
      this.#done.clear();
      for (const heap of this.#lanes) for (const { entry } of heap.values()) this.#queued.add(entry.url);
    }
    return recovered;
  }

  async clear(options: ClearOptions = {}): Promise<void> {
    this.#check();
    const keep = options.keepJournal ?? [];
    for (const heap of this.#lanes) heap.clear();
    this.#selector.reset();
    this.#queued.clear();
    this.#leases.clear();
    this.#done.clear();
    this.#checkpoint = undefined;
    for (const key of [...this.#journal.keys()]) {
      if (!keep.some((prefix) => key.startsWith(prefix))) this.#journal.delete(key);
    }
    this.#seq = 0;
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #push(item: Queued): void {
    this.#lanes[laneOf(item.entry.priority ?? 0)]?.push(item);
  }

  #check(): void {
    if (this.#closed) {
      throw new CrawlerError('STORAGE', 'memory frontier is closed', { fix: 'create a new MemoryFrontier' });
    }
  }
}
