import type { Extractor } from './extractor.js';
import { parseRetryAfter } from './with-retry.js';

/** What one answer of a host tells its pace. */
export interface HostAnswer {
  status: number;
  /** How long the request took, start to the end of its body; absent when it says nothing of the host (rendered). */
  elapsedMs?: number | undefined;
  /** The answer's Retry-After, in milliseconds from now; null or absent when it has none. */
  retryAfterMs?: number | null | undefined;
}

/** Told of every answer of a run (each attempt), to adapt each host's pace (HostPoliteness has it). */
export interface PaceFeedback {
  observe(host: string, answer: HostAnswer): void;
}

/** Options of {@link AdaptivePace}. */
export interface AdaptivePaceOptions {
  /** Answers in a row within the host's usual time that earn back half of a slowdown. @default 5 */
  fastRun?: number | undefined;
  /** The longest interval a slowdown reaches. @default 60000 */
  maxIntervalMs?: number | undefined;
  /**
   * The longest Retry-After that pauses the host; a longer one (a 503 "back tomorrow") pauses nothing, as the retry
   * of the url gives up on it (withRetry's `maxDelayMs`), and only halves the rate. @default 30000
   */
  maxPauseMs?: number | undefined;
  /** Hosts remembered (oldest forgotten first). @default 10000 */
  maxHosts?: number | undefined;
}

interface PaceState {
  /** The interval the answers imposed on top of the setting; 0 = none. */
  interval: number;
  /** Moving average of the answer times (weight 0.3 for the newest). */
  ewma: number;
  /** The lowest average seen once a few answers came: the host's usual time. */
  baseline: number;
  answers: number;
  /** Fast answers in a row since the last change. */
  fast: number;
  /** No request starts before this (Retry-After). */
  pausedUntil: number;
  /** When a 429 or 503 last halved the rate. */
  cutAt: number;
}

/** Answers before the average counts as the host's usual time. */
const WARM_UP = 3;

/**
 * The adaptive part of a host's token bucket (issue 26 item 4). A Retry-After (of a 429 or 503) pauses the host, not
 * only the url. On a host with a rate (an interval or a Crawl-delay; interval 0 has none to change), a 429 or 503
 * halves it (doubles the interval); answers growing slower than the host's usual time
 * (more than twice it, and 50 ms more) lower the rate to one start per average answer time; a run of fast answers
 * halves the slowdown, back to the setting (`--interval`, or robots.txt Crawl-delay) at most.
 */
export class AdaptivePace {
  readonly #fastRun: number;
  readonly #maxInterval: number;
  readonly #maxPause: number;
  readonly #maxHosts: number;
  readonly #hosts = new Map<string, PaceState>();

  constructor(options: AdaptivePaceOptions = {}) {
    this.#fastRun = Math.max(1, options.fastRun ?? 5);
    this.#maxInterval = options.maxIntervalMs ?? 60_000;
    this.#maxPause = options.maxPauseMs ?? 30_000;
    this.#maxHosts = Math.max(1, options.maxHosts ?? 10_000);
  }

  /** Take one answer of `host` into account; `baseMs` is the host's interval from the settings. */
  observe(host: string, answer: HostAnswer, baseMs: number, now = Date.now()): void {
    const s = this.#state(host);
    const limited = answer.status === 429 || answer.status === 503;
    const after = answer.retryAfterMs;
    if (limited && typeof after === 'number' && after > 0 && after <= this.#maxPause) {
      s.pausedUntil = Math.max(s.pausedUntil, now + after);
    }
    // A host with no rate (interval 0, no Crawl-delay) has none to halve or lower: only a Retry-After holds it.
    if (baseMs <= 0) return;
    if (limited) {
      // The answers of one overload (the requests in flight when it began) halve the rate once, not once each.
      const current = Math.max(s.interval, baseMs);
      if (now >= s.cutAt + current) {
        s.interval = Math.min(this.#maxInterval, current * 2);
        s.cutAt = now;
      }
      s.fast = 0;
      return;
    }
    if (answer.elapsedMs === undefined) return;
    const elapsed = Math.max(0, answer.elapsedMs);
    s.answers++;
    s.ewma = s.answers === 1 ? elapsed : s.ewma * 0.7 + elapsed * 0.3;
    if (s.answers >= WARM_UP) s.baseline = Math.min(s.baseline, s.ewma);
    const slowAt = Math.max(2 * s.baseline, s.baseline + 50);
    if (elapsed > slowAt) {
      if (s.answers > WARM_UP && s.ewma > slowAt)
        s.interval = Math.min(this.#maxInterval, Math.max(s.interval, s.ewma));
      s.fast = 0;
      return;
    }
    if (s.interval === 0 || ++s.fast < this.#fastRun) return;
    s.fast = 0;
    // Halved, and back to the setting once that is near.
    s.interval = s.interval / 2 <= baseMs ? 0 : s.interval / 2;
  }

  /** The interval of a host: the setting's, or longer while the answers say so. */
  intervalFor(host: string, baseMs: number): number {
    return Math.max(baseMs, this.#hosts.get(host)?.interval ?? 0);
  }

  /** When the host's pause (Retry-After) ends; 0 when it has none. */
  pausedUntil(host: string): number {
    return this.#hosts.get(host)?.pausedUntil ?? 0;
  }

  #state(host: string): PaceState {
    let s = this.#hosts.get(host);
    if (s) {
      this.#hosts.delete(host);
    } else {
      s = {
        interval: 0,
        ewma: 0,
        baseline: Number.POSITIVE_INFINITY,
        answers: 0,
        fast: 0,
        pausedUntil: 0,
        cutAt: -Infinity,
      };
      if (this.#hosts.size >= this.#maxHosts) this.#hosts.delete(this.#hosts.keys().next().value as string);
    }
    this.#hosts.set(host, s);
    return s;
  }
}

/** An extractor that tells `feedback` of each answer (its status, time and Retry-After), for the host's pace. */
export function observedExtractor(extractor: Extractor, feedback: PaceFeedback): Extractor {
  return {
    name: extractor.name,
    async fetch(url, options) {
      const started = performance.now();
      const res = await extractor.fetch(url, options);
      const host = new URL(url).host;
      feedback.observe(host, {
        status: res.status,
        // A rendered page's time is the browser's, not the host's answer.
        elapsedMs: res.rendering ? undefined : performance.now() - started,
        retryAfterMs: parseRetryAfter(res.headers['retry-after']),
      });
      return res;
    },
    close: () => extractor.close(),
  };
}
