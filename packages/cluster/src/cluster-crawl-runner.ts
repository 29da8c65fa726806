import {
  type Catalog,
  CrawlerError,
  type CrawlRequest,
  type CrawlRunner,
  type Logger,
  type RunReport,
} from '@greenfinger/core';
import { ClusterClient } from './cluster-client.js';
import type { RunStarted } from './run/run-info.js';

export interface ClusterCrawlRunnerOptions {
  cluster: string;
  redisUrl: string;
  log: Logger;
  /** The catalog row as this member holds it (what `onStart` is told); `started` is the leader's answer. */
  row(catalogId: string, started: RunStarted): Promise<Catalog>;
  /** The member is leaving the cluster: a job stopped now lets go of the run instead of stopping it. */
  leaving(): boolean;
}

/**
 * The crawl verbs of a member's jobs (the REST API of `serve --cluster`, the prompt of `shell --cluster`) as cluster
 * runs: the verb goes to the leader as `crawl --cluster` sends it, and the job follows the run — the members' counters
 * added up as its progress, the merged report as its end. Stopping the job stops the run on every member, as
 * `pause --cluster` does; while the member leaves (SIGTERM) the job lets go instead and the run goes on.
 */
export class ClusterCrawlRunner implements CrawlRunner {
  readonly #o: ClusterCrawlRunnerOptions;

  constructor(options: ClusterCrawlRunnerOptions) {
    this.#o = options;
  }

  async crawl(req: CrawlRequest): Promise<RunReport> {
    if (req.forcePublish) {
      throw new CrawlerError('BAD_INPUT', 'forcePublish is not available on a cluster run yet', {
        fix: 'start it without forcePublish; to publish a smaller version store minPublishRatio 0 on the catalog',
      });
    }
    const log = this.#o.log.child({ component: 'cluster-crawl-runner' });
    const client = await ClusterClient.open({ cluster: this.#o.cluster, redisUrl: this.#o.redisUrl, log });
    const stop = new AbortController();
    let letGo: (err: Error) => void = () => undefined;
    const leaves = new Promise<never>((_, reject) => {
      letGo = reject;
    });
    const onAbort = () => {
      if (!this.#o.leaving()) return stop.abort();
      letGo(
        new CrawlerError('CLUSTER', `member left cluster "${this.#o.cluster}"; the run goes on on the others`, {
          fix: `follow it with \`greenfinger status --cluster ${this.#o.cluster}\``,
        }),
      );
    };
    if (req.signal?.aborted) onAbort();
    else req.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const run = client.crawl(
        {
          action: req.action,
          id: req.id,
          name: req.name,
          url: req.url,
          startUrl: req.startUrl,
          settings: req.settings,
        },
        {
          signal: stop.signal,
          intervalMs: req.progressIntervalMs ?? 500,
          onStarted: (s) => {
            log.info({ runId: s.runId, catalog: s.catalog, version: s.version }, 'cluster run started for a job');
            this.#o.row(s.catalogId, s).then(
              (catalog) => req.onStart?.({ catalog, version: s.version, created: s.created }),
              (err: unknown) => log.warn({ err, catalogId: s.catalogId }, 'catalog row not read for the job'),
            );
          },
          onProgress: req.onProgress,
        },
      );
      run.catch(() => undefined);
      return await Promise.race([run, leaves]);
    } finally {
      req.signal?.removeEventListener('abort', onAbort);
      await client.close();
    }
  }
}
