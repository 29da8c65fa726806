import { CrawlerError } from '../errors.js';

/** Options of {@link HostPoliteness}. */
export interface HostPolitenessOptions {
  /** Requests in flight to one host at most. @default 2 */
  maxPerHost?: number | undefined;
  /** Minimum time between two request starts to one host. @default 1000 */
  minIntervalMs?: number | undefined;
  /** Hosts remembered for crawl-delay overrides (oldest forgotten first). @default 10000 */
  maxCrawlDelayHosts?: number | undefined;
}

/** Give back a slot taken with {@link HostPoliteness.acquire}; calling it twice is harmless. */
export type Release = () => void;

/**
 * Spacing for a request made inside a slot already held: a rendered page's own requests (its scripts, its data)
 * while the page holds its host's slot. `pace` waits until the host's interval since the last request start (a
 * page's or a subresource's) has passed, then counts this start; it never waits for a slot, since the slot it runs
 * in is already held — a second slot taken while holding one deadlocks as soon as every slot of the host is held by
 * a page rendering. Rejects if `signal` aborts first.
 */
export interface Pacer {
  pace(host: string, signal?: AbortSignal): Promise<void>;
}

interface Waiter {
  resolve: (release: Release) => void;
  reject: (err: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

interface HostState {
  inFlight: number;
  nextStart: number;
  queue: Waiter[];
  /** Requests inside a slot already held (see {@link Pacer}): served before `queue`, without a slot of their own. */
  paced: Waiter[];
  timer: NodeJS.Timeout | null;
  maxInFlight: number;
}

/**
 * Per-host politeness: at most `maxPerHost` requests in flight and at least `minIntervalMs` (or the host's
 * robots.txt crawl-delay, when longer) between two request starts. Waiters are served FIFO by timers
 * (unref'd, no busy waiting); idle hosts are forgotten, so memory follows the hosts in use. `pace` spaces the
 * requests made inside a slot already held (a rendered page's scripts and data) by the same interval.
 */
export class HostPoliteness implements Pacer {
  private readonly maxPerHost: number;
  private readonly minIntervalMs: number;
  private readonly maxDelayHosts: number;
  private readonly hosts = new Map<string, HostState>();
  private readonly crawlDelays = new Map<string, number>();
  private maxObserved = 0;
  private closed = false;

  constructor(options: HostPolitenessOptions = {}) {
    this.maxPerHost = options.maxPerHost ?? 2;
    this.minIntervalMs = options.minIntervalMs ?? 1000;
    this.maxDelayHosts = options.maxCrawlDelayHosts ?? 10_000;
    if (!Number.isInteger(this.maxPerHost) || this.maxPerHost < 1) {
      throw new TypeError('HostPoliteness: maxPerHost must be an integer >= 1');
    }
    if (!(this.minIntervalMs >= 0)) throw new TypeError('HostPoliteness: minIntervalMs must be >= 0');
  }

  /** Use a longer interval for one host (robots.txt Crawl-delay, in milliseconds); 0 or less removes it. */
  setCrawlDelay(host: string, delayMs: number): void {
    this.crawlDelays.delete(host);
    if (delayMs > 0) {
      this.crawlDelays.set(host, delayMs);
      if (this.crawlDelays.size > this.maxDelayHosts) {
        this.crawlDelays.delete(this.crawlDelays.keys().next().value!);
      }
    }
  }

  /** The interval applied to a host. */
  intervalFor(host: string): number {
    return Math.max(this.minIntervalMs, this.crawlDelays.get(host) ?? 0);
  }

  /** Wait for a slot on `host`; resolves to the function that gives it back. Rejects if `signal` aborts first. */
  acquire(host: string, signal?: AbortSignal): Promise<Release> {
    return this.#wait(host, signal, 'queue');
  }

  /**
   * Wait for the host's interval, for a request made inside a slot already held (see {@link Pacer}); served ahead of
   * the waiters for a slot. Rejects if `signal` aborts first.
   */
  async pace(host: string, signal?: AbortSignal): Promise<void> {
    await this.#wait(host, signal, 'paced');
  }

  #wait(host: string, signal: AbortSignal | undefined, line: 'queue' | 'paced'): Promise<Release> {
    if (this.closed) {
      return Promise.reject(
        new CrawlerError('STAGE', 'politeness: HostPoliteness is closed', {
          fix: 'create a new HostPoliteness for the next run',
        }),
      );
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    let state = this.hosts.get(host);
    if (!state) {
      state = { inFlight: 0, nextStart: 0, queue: [], paced: [], timer: null, maxInFlight: 0 };
      this.hosts.set(host, state);
    }
    const s = state;
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined };
      if (signal) {
        waiter.onAbort = () => {
          const i = s[line].indexOf(waiter);
          if (i >= 0) s[line].splice(i, 1);
          reject(signal.reason);
          this.pump(host, s);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      s[line].push(waiter);
      this.pump(host, s);
    });
  }

  /** Hosts currently tracked (in flight, queued, or inside their interval). */
  get trackedHosts(): number {
    return this.hosts.size;
  }

  /** Most requests ever in flight at once to any single host. */
  get maxInFlightObserved(): number {
    return this.maxObserved;
  }

  /** Live numbers for one host. */
  stats(host: string): { inFlight: number; queued: number; maxInFlight: number } {
    const s = this.hosts.get(host);
    return {
      inFlight: s?.inFlight ?? 0,
      queued: (s?.queue.length ?? 0) + (s?.paced.length ?? 0),
      maxInFlight: s?.maxInFlight ?? 0,
    };
  }

  private pump(host: string, s: HostState): void {
    while (s.paced.length > 0 || (s.queue.length > 0 && s.inFlight < this.maxPerHost)) {
      const now = Date.now();
      if (now < s.nextStart) {
        if (!s.timer) {
          s.timer = setTimeout(() => {
            s.timer = null;
            this.pump(host, s);
          }, s.nextStart - now);
          s.timer.unref();
        }
        return;
      }
      s.nextStart = now + this.intervalFor(host);
      const paced = s.paced.shift();
      if (paced) {
        // Inside a slot already held: no slot of its own, nothing to give back.
        if (paced.onAbort) paced.signal?.removeEventListener('abort', paced.onAbort);
        paced.resolve(() => undefined);
        continue;
      }
      const w = s.queue.shift()!;
      if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
      s.inFlight++;
      if (s.inFlight > s.maxInFlight) s.maxInFlight = s.inFlight;
      if (s.inFlight > this.maxObserved) this.maxObserved = s.inFlight;
      let released = false;
      w.resolve(() => {
        if (released) return;
        released = true;
        s.inFlight--;
        this.pump(host, s);
      });
    }
    this.forgetIfIdle(host, s);
  }

  private forgetIfIdle(host: string, s: HostState): void {
    if (s.inFlight > 0 || s.queue.length > 0 || s.paced.length > 0) return;
    const wait = s.nextStart - Date.now();
    if (wait <= 0) {
      if (this.hosts.get(host) === s) this.hosts.delete(host);
      return;
    }
    if (!s.timer) {
      s.timer = setTimeout(() => {
        s.timer = null;
        this.pump(host, s);
      }, wait);
      s.timer.unref();
    }
  }

  /** Reject every waiter and stop all timers. */
  close(): void {
    this.closed = true;
    for (const s of this.hosts.values()) {
      if (s.timer) clearTimeout(s.timer);
      for (const w of [...s.queue.splice(0), ...s.paced.splice(0)]) {
        if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
        w.reject(
          new CrawlerError('STAGE', 'politeness: HostPoliteness closed while waiting for a slot', {
            fix: 'the run is stopping; nothing to do',
          }),
        );
      }
    }
    this.hosts.clear();
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
