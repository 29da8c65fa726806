import type { PublishedRun } from '../compose/publications.js';
import type { CounterSnapshot } from '../engine/counters.js';
import type { CrawlCoordinator } from '../engine/crawl-coordinator.js';
import type { FeedShare } from '../feeds/change-feeds.js';
import type { HostRate } from '../fetch/host-pace.js';
import type { CrawlFrontier } from '../frontier/frontier.js';
import type { Catalog, CatalogRef, CatalogSettings, CrawlAction, RunReport } from '../model.js';

/**
 * What runs a crawl verb for the JobService (a job of the REST API server or the prompt): this process's CrawlService
 * by default; a cluster member gives one that sends the verb to its leader and follows the cluster's run
 * (`GreenfingerComponents.crawlRunner`). Abort on `req.signal` stops the run; `onStart` and `onProgress` are told as a
 * local run tells them.
 */
export interface CrawlRunner {
  crawl(req: CrawlRequest): Promise<RunReport>;
}

export type CrawlVerb = Extract<CrawlAction, 'crawl' | 'update' | 'merge' | 'rebuild' | 'resume'>;

export interface CrawlRequest extends CatalogRef {
  /** With `url`: where fetching begins, when the catalog is created. */
  startUrl?: string | undefined;
  /** @default 'crawl' */
  action?: CrawlVerb | undefined;
  /** Settings for this catalog, stored on it (e.g. from CLI flags). */
  settings?: Partial<CatalogSettings> | undefined;
  /** Abort = external stop: in-flight pages finish, nothing is published, the frontier is kept. */
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: CrawlProgress) => void) | undefined;
  /** @default 500 */
  progressIntervalMs?: number | undefined;
  /** Told once the catalog is resolved or created (before fetching starts). */
  onStart?: ((info: { catalog: Catalog; version: number; created: boolean; embedding?: string }) => void) | undefined;
  /** Replace the coordinator for this run (a cluster). Default: the component's, else the local frontier. */
  coordinator?: ((frontier: CrawlFrontier) => CrawlCoordinator) | undefined;
  /** Publish even a version with far fewer pages than the one serving (the catalog's `minPublishRatio`). */
  forcePublish?: boolean | undefined;
  /** The version to write instead of the one the action picks (a cluster's members write the one its leader opened). */
  version?: number | undefined;
  /** Worker threads of this run only, instead of the catalog's (a cluster node's `--threads`); not stored. */
  threads?: number | undefined;
  /**
   * Where the change set of this run goes once it published, instead of this process's change log and publications
   * (alerts): a cluster's member hands its part to the leader, which records and announces the run's whole set once.
   */
  publishedChanges?: ((run: PublishedRun) => Promise<void>) | undefined;
  /** A cluster's run of a catalog with change feeds: one member reads them, the others judge by its set. */
  feedShare?: FeedShare | undefined;
}

export interface CrawlProgress {
  catalog: string;
  action: CrawlVerb;
  version: number;
  counters: CounterSnapshot;
  queued: number;
  active: number;
  pagesPerSecond: number;
  /**
   * The busy hosts' pace (at most 10, busiest first): request starts per second allowed now and by the settings
   * (null: unlimited), requests in flight and waiting, and the pause left after a Retry-After. Absent when none.
   */
  hosts?: HostRate[] | undefined;
  /** The vector layer's progress and rate: pages with a vector, complete, chunks/s (absent without vectors). */
  embedding?: EmbeddingProgress | undefined;
}

/** The embedding progress of a run, as the progress line and `status` show it (`CrawlProgress.embedding`). */
export interface EmbeddingProgress {
  /** `fetching` while pages are still fetched; `vectors` once the fetch ended and the run writes the vectors left. */
  phase: 'fetching' | 'vectors';
  /** Pages this run gave the vector layer. */
  pages: number;
  /** Of them, pages with a vector (meaning search finds them). */
  embedded: number;
  /** Of them, pages with all their vectors. */
  complete: number;
  /** Chunks embedded by this run. */
  chunks: number;
  /** Chunks embedded per second, lately. */
  chunksPerSecond: number;
}
