import type { CrawlEngine } from '../engine/crawl-engine.js';
import type { CrawlFrontier } from '../frontier/frontier.js';
import type { Catalog } from '../model.js';
import type { CrawlProgress, CrawlRequest, CrawlVerb } from '../runs/crawl-runner.js';
import type { RunHandle } from '../runs/run-registry.js';
import type { WordsFirstPublisher } from './words-first.js';

/** Live counters every `progressIntervalMs`: to the caller, and to the run registry (for `status`). */
export function progressReporter(
  engine: CrawlEngine,
  frontier: CrawlFrontier,
  run: { catalog: Catalog; action: CrawlVerb; version: number },
  handle: RunHandle,
  req: CrawlRequest,
  early: WordsFirstPublisher,
): NodeJS.Timeout {
  let lastSaved = 0;
  let lastAt = Date.now();
  let rate = 0;
  return setInterval(() => {
    void frontier
      .size()
      .then(async (queued) => {
        const snap = engine.counters.snapshot();
        const now = Date.now();
        const inst = ((snap.saved - lastSaved) * 1000) / Math.max(1, now - lastAt);
        rate = rate === 0 ? inst : rate * 0.7 + inst * 0.3;
        lastSaved = snap.saved;
        lastAt = now;
        const p: CrawlProgress = {
          catalog: run.catalog.name,
          action: run.action,
          version: run.version,
          counters: snap,
          queued,
          active: engine.active,
          pagesPerSecond: rate,
        };
        // The 10 busiest hosts.
        const hosts = engine
          .hostRates()
          .sort((a, b) => b.inFlight + b.queued - a.inFlight - a.queued)
          .slice(0, 10);
        if (hosts.length > 0) p.hosts = hosts;
        const embedding = early.progress();
        if (embedding) p.embedding = embedding;
        req.onProgress?.(p);
        await handle.progress({ ...p });
      })
      .catch(() => undefined);
  }, req.progressIntervalMs ?? 500);
}
