import type { HostReadiness, Reservation } from '../fetch/politeness.js';
import type { LeasedEntry } from './frontier.js';

/** A url a worker took from its host's back queue, with the slot of the host promised to it. */
export interface TakenEntry {
  entry: LeasedEntry;
  reservation: Reservation | undefined;
}

/** Options of {@link BackQueues}. */
export interface BackQueuesOptions {
  /** The frontier's next url (front queues and selector), undefined when none waits now. */
  poll(): Promise<LeasedEntry | undefined>;
  /** The hosts' politeness; absent: every host is always ready and one url is read at a time (the plain poll). */
  hosts?: HostReadiness | undefined;
  /** Urls held in the back queues at most (polled from the frontier, leased, not yet taken). */
  readAhead: number;
  /** Longest sleep while no host is ready, so urls the frontier gets meanwhile are seen. @default 100 */
  maxSleepMs?: number | undefined;
}

interface Slot {
  host: string;
  /** When the host may start its next request (ms since the epoch). */
  at: number;
  /** Order of the host's arrival: ties go to the host whose urls came first from the selector. */
  seq: number;
}

/**
 * Seed 003's back queues: one FIFO queue per host of urls polled from the front queues, and a heap of the hosts by
 * the time their next request may start (their token bucket, their pause, their slots: HostPoliteness.readyIn). A
 * free worker takes the host at the top of the heap once its time has come; a host whose slots are all held or
 * promised leaves the heap until one comes free (`onFree`), so nothing is polled in a loop: a worker with no host
 * ready sleeps until the heap's earliest time, a free slot, or `maxSleepMs` (urls the frontier got meanwhile).
 *
 * Urls in the back queues are leased from the frontier: a crash or a stop leaves them in flight, and the next run
 * recovers them to the frontier unfetched, so resume still refetches only what was being fetched.
 */
export class BackQueues {
  readonly #o: BackQueuesOptions;
  readonly #readAhead: number;
  readonly #queues = new Map<string, LeasedEntry[]>();
  readonly #heap: Slot[] = [];
  /** Hosts out of the heap until one of their slots comes free, with their arrival order. */
  readonly #parked = new Map<string, number>();
  #buffered = 0;
  #seq = 0;
  #filling: Promise<void> | undefined;
  #sleepers: Array<() => void> = [];
  readonly #stopListening: (() => void) | undefined;

  /**
   * The back queues of a run over its politeness: read ahead `readAhead` urls (4 per worker), so the hosts of many
   * front-queue urls are in view. A politeness without readiness (a replacement without it) gives the plain poll.
   */
  static over(p: Partial<HostReadiness>, poll: () => Promise<LeasedEntry | undefined>, readAhead: number): BackQueues {
    const hosts =
      p.readyIn && p.reserve && p.unreserve && p.onFree
        ? {
            readyIn: p.readyIn.bind(p),
            reserve: p.reserve.bind(p),
            unreserve: p.unreserve.bind(p),
            onFree: p.onFree.bind(p),
          }
        : undefined;
    return new BackQueues({ poll, hosts, readAhead });
  }

  constructor(options: BackQueuesOptions) {
    this.#o = options;
    this.#readAhead = options.hosts ? Math.max(1, options.readAhead) : 1;
    this.#stopListening = options.hosts?.onFree((host) => {
      const seq = this.#parked.get(host);
      if (seq === undefined) return;
      this.#parked.delete(host);
      this.#push({ host, at: 0, seq });
      this.#wake();
    });
  }

  /** Urls polled and waiting in the back queues (leased, not yet handed to a worker). */
  get buffered(): number {
    return this.#buffered;
  }

  /** Hosts with urls waiting in the back queues. */
  get hosts(): number {
    return this.#queues.size;
  }

  /**
   * The next url whose host's time has come, with the host's slot promised to it; waits (without polling in a
   * loop) while urls wait but no host is ready. Undefined when the frontier and the back queues are empty now.
   * Give the result to {@link done} once the url is handled.
   */
  async take(): Promise<TakenEntry | undefined> {
    for (let round = 0; round < 1_000_000; round++) {
      await this.#fill();
      const now = Date.now();
      const taken = this.#pick(now);
      if (taken) return taken;
      if (this.#buffered === 0) return undefined;
      const next = this.#heap[0]?.at ?? Number.POSITIVE_INFINITY;
      await this.#sleep(Math.max(1, Math.min(next - now, this.#o.maxSleepMs ?? 100)));
    }
    return undefined;
  }

  /** The url is handled: a slot promised to it and not used is given back. */
  done(taken: TakenEntry | undefined): void {
    if (taken?.reservation) this.#o.hosts?.unreserve(taken.reservation);
  }

  /** Stop listening to the hosts' free slots and wake every sleeper. */
  close(): void {
    this.#stopListening?.();
    this.#wake();
  }

  #pick(now: number): TakenEntry | undefined {
    const hosts = this.#o.hosts;
    while (this.#heap.length > 0 && this.#heap[0]!.at <= now) {
      const slot = this.#pop()!;
      const queue = this.#queues.get(slot.host);
      if (!queue || queue.length === 0) {
        this.#queues.delete(slot.host);
        continue;
      }
      const wait = hosts ? hosts.readyIn(slot.host) : 0;
      if (wait === Number.POSITIVE_INFINITY) {
        this.#parked.set(slot.host, slot.seq);
        continue;
      }
      if (wait > 0) {
        this.#push({ host: slot.host, at: now + wait, seq: slot.seq });
        continue;
      }
      const entry = queue.shift()!;
      this.#buffered--;
      if (queue.length > 0) this.#push({ host: slot.host, at: now, seq: slot.seq });
      else this.#queues.delete(slot.host);
      return { entry, reservation: hosts?.reserve(slot.host) };
    }
    return undefined;
  }

  /** Poll the frontier until the back queues hold `readAhead` urls or it has none now; one fill at a time. */
  #fill(): Promise<void> {
    if (this.#buffered >= this.#readAhead) return Promise.resolve();
    this.#filling ??= (async () => {
      try {
        while (this.#buffered < this.#readAhead) {
          const entry = await this.#o.poll();
          if (!entry) break;
          this.#add(entry);
        }
      } finally {
        this.#filling = undefined;
      }
    })();
    return this.#filling;
  }

  #add(entry: LeasedEntry): void {
    let host: string;
    try {
      host = new URL(entry.url).host;
    } catch {
      host = '';
    }
    this.#buffered++;
    const queue = this.#queues.get(host);
    if (queue) {
      queue.push(entry);
      return;
    }
    this.#queues.set(host, [entry]);
    this.#push({ host, at: 0, seq: ++this.#seq });
    this.#wake();
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.#sleepers.push(done);
    });
  }

  #wake(): void {
    const sleepers = this.#sleepers;
    this.#sleepers = [];
    for (const wake of sleepers) wake();
  }

  #before(a: Slot, b: Slot): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  #push(slot: Slot): void {
    const h = this.#heap;
    h.push(slot);
    for (let i = h.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!this.#before(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  #pop(): Slot | undefined {
    const h = this.#heap;
    const top = h[0];
    const last = h.pop();
    if (h.length === 0 || !last) return top;
    h[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.#before(h[l]!, h[m]!)) m = l;
      if (r < h.length && this.#before(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
    return top;
  }
}
