/** One answer of a host, as the pace learns from it (each attempt, retries included). */
export interface HostAnswer {
  /** The HTTP status; 0 when the request failed without one (a timeout, a reset). */
  status: number;
  /** From the request's start to its answer (or failure). */
  elapsedMs: number;
  /** The answer's Retry-After in milliseconds, when it had one. */
  retryAfterMs?: number | null | undefined;
}

/** Told of each answer of a host: the politeness adapts the host's pace to it. */
export interface PaceObserver {
  observe(host: string, answer: HostAnswer): void;
}

/** A busy host's pace now, for `status` and the API's progress. */
export interface HostRate {
  host: string;
  /** Request starts per second allowed now; null when unlimited (interval 0 and nothing slowed it). */
  ratePerSecond: number | null;
  /** The rate the settings give (the interval, or robots.txt's Crawl-delay when longer); null when unlimited. */
  settingPerSecond: number | null;
  inFlight: number;
  /** Requests waiting for the host (a slot or a token), and urls the back queues promised a slot. */
  queued: number;
  /** Milliseconds left of a pause the host asked for (Retry-After); 0 when not paused. */
  pausedForMs: number;
}

/**
 * The longest Retry-After that pauses the host: the longest wait the url's own retry honours (with-retry.ts). A site
 * asking for more (`Retry-After: 86400`) has that url given up at once and the host is not paused: its other urls go
 * on at the halved rate.
 */
export const MAX_PAUSE_MS = 30_000;
/** The slowest pace adaptation can reach: one request a minute. */
export const MAX_ADAPTED_INTERVAL_MS = 60_000;
/** A 429 or 503 on a host that had no interval spaces its requests by at least this. */
const FIRST_BACKOFF_MS = 100;
/** Fast answers in a row that earn back a step of rate. */
const FAST_RUN = 5;
/** One step of slowing down (interval × STEP) or speeding up (interval ÷ STEP). */
const STEP = 1.25;
/** An answer is slow when it took more than SLOW_FACTOR × the host's usual time plus SLOW_SLACK_MS. */
const SLOW_FACTOR = 2;
const SLOW_SLACK_MS = 20;
/** Weight of the newest answer time in the host's moving average. */
const EWMA_ALPHA = 0.3;
/** An interval adapted down below this, on a host whose setting is 0, is back to 0. */
const SNAP_MS = 5;

/**
 * The adaptive pace of one host (issue 26 item 4): the interval between request starts it adds on top of the
 * setting. A 429 or 503 halves the rate (the interval doubles, to at least 100 ms); a Retry-After of at most 30 s
 * pauses the host (every request to it) for that long (a longer one gives the url up and pauses nothing); an answer more than twice the host's usual time (plus
 * 20 ms) slows it by a step (the interval × 1.25, at least 50 ms, at most the average answer time: no slower than
 * one request per answer time while the answers stay that slow); each run of 5 fast answers earns a step back
 * (÷ 1.25) until the setting is reached again. The usual time is the lowest moving average (α 0.3) of the host's
 * answer times seen so far.
 */
export class AdaptivePace {
  /** The adapted interval; never below the setting. */
  intervalMs: number;
  pausedUntil = 0;
  #avg = -1;
  #usual = Number.POSITIVE_INFINITY;
  #fastRun = 0;
  readonly #adapts: boolean;

  /** `adapts` false: only a Retry-After's pause is kept, the rate stays the setting's. */
  constructor(settingMs: number, adapts = true) {
    this.intervalMs = settingMs;
    this.#adapts = adapts;
  }

  /** Learn from one answer; `settingMs` is the host's interval from the settings now. */
  observe(answer: HostAnswer, settingMs: number, now = Date.now()): void {
    const elapsed = Math.max(0, answer.elapsedMs);
    this.#avg = this.#avg < 0 ? elapsed : this.#avg * (1 - EWMA_ALPHA) + elapsed * EWMA_ALPHA;
    const overloaded = answer.status === 429 || answer.status === 503;
    if (overloaded) {
      this.#fastRun = 0;
      if (this.#adapts) this.#set(Math.max(this.intervalMs * 2, FIRST_BACKOFF_MS), settingMs);
      const after = answer.retryAfterMs;
      if (after !== null && after !== undefined && after > 0 && after <= MAX_PAUSE_MS) {
        this.pausedUntil = Math.max(this.pausedUntil, now + after);
      }
      return;
    }
    if (!this.#adapts) return;
    // The usual time follows the average down only: a server that slows does not make slowness usual.
    if (answer.status > 0 && answer.status < 500) this.#usual = Math.min(this.#usual, this.#avg);
    const slow = answer.status === 0 || elapsed > this.#usual * SLOW_FACTOR + SLOW_SLACK_MS;
    if (slow) {
      this.#fastRun = 0;
      // Slower by a step, up to one request per answer time (no further while the answers stay this slow).
      const step = Math.min(Math.max(this.intervalMs * STEP, 50), this.#avg);
      this.#set(Math.max(this.intervalMs, step), settingMs);
      return;
    }
    if (++this.#fastRun < FAST_RUN) return;
    this.#fastRun = 0;
    const down = this.intervalMs / STEP;
    this.#set(settingMs === 0 && down < SNAP_MS ? 0 : down, settingMs);
  }

  /** The interval to apply now: the adapted one, never below the setting. */
  effective(settingMs: number): number {
    if (this.intervalMs < settingMs) this.intervalMs = settingMs;
    return this.intervalMs;
  }

  /** Nothing adapted: the host can be forgotten once idle. */
  atSetting(settingMs: number, now = Date.now()): boolean {
    return this.intervalMs <= settingMs && this.pausedUntil <= now;
  }

  #set(intervalMs: number, settingMs: number): void {
    this.intervalMs = Math.max(settingMs, Math.min(MAX_ADAPTED_INTERVAL_MS, intervalMs));
  }
}

/** Request starts per second of an interval; null for 0 (unlimited). */
export function perSecond(intervalMs: number): number | null {
  return intervalMs > 0 ? Math.round((1000 / intervalMs) * 100) / 100 : null;
}
