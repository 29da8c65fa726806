import { CrawlerError } from '../errors.js';
import { AdaptivePace, type HostAnswer, type HostRate, type PaceObserver, perSecond } from './host-pace.js';

export type { HostAnswer, HostRate, PaceObserver } from './host-pace.js';

/** Options of {@link HostPoliteness}. */
export interface HostPolitenessOptions {
  /** Requests in flight to one host at most. @default 2 */
  maxPerHost?: number | undefined;
  /** Minimum time between two request starts to one host. @default 1000 */
  minIntervalMs?: number | undefined;
  /** Hosts remembered for crawl-delay overrides and adapted paces (oldest forgotten first). @default 10000 */
  maxCrawlDelayHosts?: number | undefined;
  /**
   * Request starts one host may make at once after a quiet spell: the token bucket's size. Its rate is one token per
   * interval, so the default 1 is a minimum interval between two starts. @default 1
   */
  burst?: number | undefined;
  /**
   * Adapt each host's rate to its answers (see {@link AdaptivePace}); off, only the setting (and Retry-After pauses)
   * count. @default true
   */
  adaptive?: boolean | undefined;
  /** A 429 or 503 with a Retry-After (at most MAX_PAUSE_MS) pauses every request to the host. @default true */
  pauses?: boolean | undefined;
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

/** What a run's politeness offers beyond slots and pacing: the hosts' adapted pace (HostPoliteness). */
export interface HostPaceControl extends PaceObserver {
  /** The interval applied to a host now (its setting, or longer when its answers slowed it). */
  paceFor(host: string): number;
  /** The busy hosts' pace now. */
  rates(): HostRate[];
}

/**
 * A slot of a host promised to a url a worker took from its back queue (frontier/back-queues.ts), before the url's
 * request asks for it: the host's next acquire turns it into a waiter; give it back with `unreserve` when the url
 * made no request.
 */
export interface Reservation {
  readonly host: string;
  consumed: boolean;
}

/** What the back queues ask a host's politeness: when it can start a request, and a slot promised meanwhile. */
export interface HostReadiness {
  /** Milliseconds until `host` could start a request: 0 now, Infinity while its slots are all held or promised. */
  readyIn(host: string): number;
  /** Promise one slot (and one token) of `host` to the url about to be handled. */
  reserve(host: string): Reservation;
  /** Give back a reservation the url did not use; harmless when it did. */
  unreserve(reservation: Reservation): void;
  /** Told when a slot of a host comes free (or a promise is given back); returns the function that stops it. */
  onFree(listener: (host: string) => void): () => void;
}

interface Waiter {
  resolve: (release: Release) => void;
  reject: (err: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

interface HostState {
  inFlight: number;
  /** The token bucket: tokens held at `refilledAt` (at most `burst`; one per interval is added). */
  tokens: number;
  refilledAt: number;
  queue: Waiter[];
  /** Requests inside a slot already held (see {@link Pacer}): served before `queue`, without a slot of their own. */
  paced: Waiter[];
  timer: NodeJS.Timeout | null;
  maxInFlight: number;
  /** Slots promised to urls taken from the back queues, oldest first. */
  reservations: Reservation[];
}

/**
 * Per-host politeness: at most `maxPerHost` requests in flight, and request starts drawn from a token bucket per
 * host — one token per interval (`minIntervalMs`, or the host's robots.txt Crawl-delay when longer, or the pace the
 * host's answers adapted it to: {@link AdaptivePace}), at most `burst` held. A Retry-After pauses every request to
 * the host. Waiters are served FIFO by timers (unref'd, no busy waiting); idle hosts are forgotten, so memory
 * follows the hosts in use. `pace` spaces the requests made inside a slot already held (a rendered page's scripts
 * and data) from the same bucket.
 */
export class HostPoliteness implements Pacer, HostPaceControl, HostReadiness {
  private readonly maxPerHost: number;
  private readonly minIntervalMs: number;
  private readonly maxDelayHosts: number;
  private readonly burst: number;
  private readonly adaptive: boolean;
  private readonly pauses: boolean;
  private readonly hosts = new Map<string, HostState>();
  private readonly crawlDelays = new Map<string, number>();
  /** Hosts whose pace differs from their setting (adapted, or paused). */
  private readonly paces = new Map<string, AdaptivePace>();
  private readonly freeListeners = new Set<(host: string) => void>();
  private maxObserved = 0;
  private closed = false;

  constructor(options: HostPolitenessOptions = {}) {
    this.maxPerHost = options.maxPerHost ?? 2;
    this.minIntervalMs = options.minIntervalMs ?? 1000;
    this.maxDelayHosts = options.maxCrawlDelayHosts ?? 10_000;
    this.burst = options.burst ?? 1;
    this.adaptive = options.adaptive ?? true;
    this.pauses = options.pauses ?? true;
    if (!(this.burst >= 1)) throw new TypeError('HostPoliteness: burst must be >= 1');
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

  /** The interval the settings give a host: the minimum interval, or its Crawl-delay when longer. */
  intervalFor(host: string): number {
    return Math.max(this.minIntervalMs, this.crawlDelays.get(host) ?? 0);
  }

  /** The interval applied to a host now: its setting, or longer when its answers slowed it down. */
  paceFor(host: string): number {
    const setting = this.intervalFor(host);
    return this.paces.get(host)?.effective(setting) ?? setting;
  }

  /** Milliseconds left of the host's pause (a Retry-After); 0 when it is not paused. */
  pausedFor(host: string, now = Date.now()): number {
    return Math.max(0, (this.paces.get(host)?.pausedUntil ?? 0) - now);
  }

  /**
   * Learn from one answer of the host (each attempt): a 429 or 503 halves its rate and its Retry-After pauses it, a
   * slow answer slows it, a run of fast ones earns the rate back (see {@link AdaptivePace}).
   */
  observe(host: string, answer: HostAnswer): void {
    if ((!this.adaptive && !this.pauses) || this.closed) return;
    const setting = this.intervalFor(host);
    let pace = this.paces.get(host);
    if (!pace) {
      pace = new AdaptivePace(setting, this.adaptive);
      this.paces.set(host, pace);
      if (this.paces.size > this.maxDelayHosts) this.paces.delete(this.paces.keys().next().value!);
    }
    pace.observe(answer, setting);
    const s = this.hosts.get(host);
    // A pause or a longer interval reschedules the host's next start.
    if (s?.timer) {
      clearTimeout(s.timer);
      s.timer = null;
    }
    if (s) this.pump(host, s);
    else if (pace.atSetting(setting) && this.paces.get(host) === pace) this.paces.delete(host);
  }

  /**
   * The hosts in use — a request in flight, waiting or promised, or inside their interval — and the paused ones,
   * with their pace now.
   */
  rates(now = Date.now()): HostRate[] {
    const rate = (host: string, s: HostState | undefined): HostRate => ({
      host,
      ratePerSecond: perSecond(this.paceFor(host)),
      settingPerSecond: perSecond(this.intervalFor(host)),
      inFlight: s?.inFlight ?? 0,
      queued: (s?.queue.length ?? 0) + (s?.paced.length ?? 0) + (s?.reservations.length ?? 0),
      pausedForMs: this.pausedFor(host, now),
    });
    // Tracked: a request in flight, waiting or promised, or the bucket not yet full again (a host in use).
    const out = [...this.hosts].map(([host, s]) => rate(host, s));
    for (const host of this.paces.keys()) {
      if (!this.hosts.has(host) && this.pausedFor(host, now) > 0) out.push(rate(host, undefined));
    }
    return out;
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
    const s = this.stateOf(host);
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
      // A url taken from a back queue asks for the slot promised to it.
      if (line === 'queue') {
        const r = s.reservations.shift();
        if (r) r.consumed = true;
      }
      s[line].push(waiter);
      this.pump(host, s);
    });
  }

  readyIn(host: string, now = Date.now()): number {
    const paused = this.pausedFor(host, now);
    const s = this.hosts.get(host);
    if (!s) return paused;
    const promised = s.reservations.length;
    if (s.inFlight + s.queue.length + promised >= this.maxPerHost) return Number.POSITIVE_INFINITY;
    const interval = this.paceFor(host);
    if (interval <= 0) return paused;
    // The tokens the bucket holds now, less the waiters' and the promised urls'.
    const tokens = Math.min(this.burst, s.tokens + (now - s.refilledAt) / interval) - s.queue.length - promised;
    return Math.max(paused, tokens >= 1 ? 0 : Math.ceil((1 - tokens) * interval));
  }

  reserve(host: string): Reservation {
    const s = this.stateOf(host);
    const r: Reservation = { host, consumed: false };
    s.reservations.push(r);
    return r;
  }

  unreserve(reservation: Reservation): void {
    if (reservation.consumed) return;
    reservation.consumed = true;
    const s = this.hosts.get(reservation.host);
    if (!s) return;
    const i = s.reservations.indexOf(reservation);
    if (i >= 0) s.reservations.splice(i, 1);
    this.forgetIfIdle(reservation.host, s);
    this.emitFree(reservation.host);
  }

  onFree(listener: (host: string) => void): () => void {
    this.freeListeners.add(listener);
    return () => this.freeListeners.delete(listener);
  }

  private stateOf(host: string): HostState {
    let s = this.hosts.get(host);
    if (!s) {
      s = {
        inFlight: 0,
        tokens: this.burst,
        refilledAt: Date.now(),
        queue: [],
        paced: [],
        timer: null,
        maxInFlight: 0,
        reservations: [],
      };
      this.hosts.set(host, s);
    }
    return s;
  }

  private emitFree(host: string): void {
    for (const l of this.freeListeners) l(host);
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

  /** When the host's next start may be: a token in its bucket, and its pause over. Refills the bucket to `now`. */
  private readyAt(host: string, s: HostState, now: number): number {
    const interval = this.paceFor(host);
    const paused = this.paces.get(host)?.pausedUntil ?? 0;
    if (interval <= 0) {
      s.tokens = this.burst;
      s.refilledAt = now;
      return Math.max(now, paused);
    }
    s.tokens = Math.min(this.burst, s.tokens + (now - s.refilledAt) / interval);
    s.refilledAt = now;
    return Math.max(s.tokens >= 1 ? now : now + Math.ceil((1 - s.tokens) * interval), paused);
  }

  private pump(host: string, s: HostState): void {
    while (s.paced.length > 0 || (s.queue.length > 0 && s.inFlight < this.maxPerHost)) {
      const now = Date.now();
      const at = this.readyAt(host, s, now);
      if (now < at) {
        if (!s.timer) {
          s.timer = setTimeout(() => {
            s.timer = null;
            this.pump(host, s);
          }, at - now);
          s.timer.unref();
        }
        return;
      }
      s.tokens -= 1;
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
        this.emitFree(host);
      });
    }
    this.forgetIfIdle(host, s);
  }

  private forgetIfIdle(host: string, s: HostState): void {
    if (s.inFlight > 0 || s.queue.length > 0 || s.paced.length > 0 || s.reservations.length > 0) return;
    const now = Date.now();
    this.readyAt(host, s, now);
    const interval = this.paceFor(host);
    // Forgotten once its bucket is full again: a new state starts full.
    const wait = interval > 0 ? Math.ceil((this.burst - s.tokens) * interval) : 0;
    if (wait <= 0) {
      if (this.hosts.get(host) === s) this.hosts.delete(host);
      const pace = this.paces.get(host);
      if (pace?.atSetting(this.intervalFor(host), now)) this.paces.delete(host);
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
    this.paces.clear();
    this.freeListeners.clear();
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
