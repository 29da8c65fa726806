import type { Extractor } from './extractor.js';
import type { PaceObserver } from './host-pace.js';
import { parseRetryAfter } from './with-retry.js';

/**
 * Tell `observer` of each answer of `extractor` (each attempt: wrap it inside the retries) — its status, its time
 * and its Retry-After — so the host's pace adapts to it (HostPoliteness.observe). A request that fails without an
 * answer counts as status 0, an aborted one not at all.
 */
export function observedExtractor(extractor: Extractor, observer: PaceObserver): Extractor {
  return {
    name: extractor.name,
    async fetch(url, options) {
      const host = new URL(url).host;
      const started = Date.now();
      try {
        const res = await extractor.fetch(url, options);
        observer.observe(host, {
          status: res.status,
          elapsedMs: Date.now() - started,
          retryAfterMs: parseRetryAfter(res.headers['retry-after']),
        });
        return res;
      } catch (err) {
        if (!options?.signal?.aborted) observer.observe(host, { status: 0, elapsedMs: Date.now() - started });
        throw err;
      }
    },
    close: () => extractor.close(),
  };
}
