import { FetchError } from '../errors.js';
import type { Extractor, FetchOptions, FetchResult } from './extractor.js';

/** Options of {@link withRetry}. */
export interface RetryOptions {
  /** Extra attempts after the first. @default 2 */
  retries?: number | undefined;
  /** First backoff; doubles per attempt, with ±25% jitter. @default 500 */
  baseDelayMs?: number | undefined;
  /** Longest wait, Retry-After included (a longer Retry-After gives up and returns the answer). @default 30000 */
  maxDelayMs?: number | undefined;
  /** HTTP statuses retried like transport errors. @default [429, 503] */
  retryStatuses?: readonly number[] | undefined;
  /**
   * Awaited before each retry, after the backoff: the host's politeness (a retry runs in the slot the first attempt
   * took, so it waits for the host's pace — its pause after a Retry-After, its token — here).
   */
  beforeRetry?: ((url: string, signal: AbortSignal | undefined) => Promise<void>) | undefined;
}

/** Seconds or an HTTP date → milliseconds from now; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(
        new FetchError('fetch cancelled while waiting to retry', {
          reason: 'aborted',
          retryable: false,
          cause: signal.reason,
        }),
      );
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(
        new FetchError('fetch cancelled while waiting to retry', {
          reason: 'aborted',
          retryable: false,
          cause: signal?.reason,
        }),
      );
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Wrap an extractor so retryable FetchErrors and HTTP 429/503 answers are tried again with exponential
 * backoff, honouring Retry-After up to `maxDelayMs`. A refused connection is retried once at most.
 * The last answer (or error) is returned as is once attempts run out.
 */
export function withRetry(extractor: Extractor, options: RetryOptions = {}): Extractor {
  const retries = options.retries ?? 2;
  const base = options.baseDelayMs ?? 500;
  const maxDelay = options.maxDelayMs ?? 30_000;
  const statuses = new Set(options.retryStatuses ?? [429, 503]);
  if (!Number.isInteger(retries) || retries < 0) throw new TypeError('withRetry: retries must be an integer >= 0');
  const backoff = (attempt: number) => Math.min(maxDelay, base * 2 ** attempt * (0.75 + Math.random() * 0.5));

  return {
    name: `${extractor.name}+retry`,
    async fetch(url: string, fetchOptions?: FetchOptions): Promise<FetchResult> {
      const signal = fetchOptions?.signal;
      for (let attempt = 0; ; attempt++) {
        let wait: number;
        try {
          const res = await extractor.fetch(url, fetchOptions);
          if (!statuses.has(res.status) || attempt >= retries) return res;
          const after = parseRetryAfter(res.headers['retry-after']);
          if (after !== null && after > maxDelay) return res;
          wait = after ?? backoff(attempt);
        } catch (err) {
          if (!(err instanceof FetchError) || !err.retryable || attempt >= retries) throw err;
          if (err.reason === 'connection-refused' && attempt >= 1) throw err;
          wait = backoff(attempt);
        }
        await sleep(wait, signal);
        await options.beforeRetry?.(url, signal);
      }
    },
    close: () => extractor.close(),
  };
}
