import type { CatalogSettings } from '../config.js';
import type { CounterSnapshot } from '../engine/counters.js';
import type { HostRate } from '../fetch/host-pace.js';
import type { RunReport } from '../model.js';
import type { ChannelStats } from '../outputs/composite-output-channel.js';
import type { CatalogRef } from './catalog-service.js';
import type { ReplayProgress, ReplayReport } from './replay-service.js';
import type { EmbeddingProgress } from './words-first.js';

export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'stopped';
export type JobAction = 'crawl' | 'update' | 'merge' | 'rebuild' | 'resume' | 'replay';

/** One run in the background of this process, as a server or the prompt shows it. */
export interface Job {
  /** UUID v7 (time ordered). */
  jobId: string;
  catalogId: string;
  /** The catalog's name. */
  catalog: string;
  /** The version the run writes, known once it started. */
  version: number | null;
  action: JobAction;
  /**
   * `queued` until the run holds its catalog; `done` when it ran to its end (even without publishing: the report
   * says why), `stopped` when stopped from outside (nothing published, the frontier kept: resume continues),
   * `failed` when it threw or a store stopped it.
   */
  state: JobState;
  /** Live counters of a crawl (about once a second), the final ones once it ended; null for a replay. */
  counters: CounterSnapshot | null;
  /** Urls waiting on the frontier (at the end: outstanding). */
  queued: number;
  /** Pages being handled now. */
  active: number;
  pagesPerSecond: number;
  /** Once ended: a crawl verb's run report, or a replay's report. */
  report: RunReport | ReplayReport | null;
  /** When failed: the one line core reports the error with (`reportOf`), and its code. */
  error: { code: string | undefined; message: string } | null;
  startedAt: string;
  endedAt: string | null;
  /** A crawl's vector layer, live: pages with a vector, pages complete, chunks/s (absent without vectors). */
  embedding?: EmbeddingProgress;
  /** A crawl's busy hosts and their pace now (CrawlProgress.hosts); absent when none. */
  hosts?: HostRate[];
  /** Per output channel of a crawl: pages written and failures (live, then the report's). */
  outputs?: Record<string, ChannelStats>;
  /** A replay's latest progress. */
  replay?: ReplayProgress;
}

/** What to run: a crawl verb (default `crawl`, which creates the catalog from `url`) or a replay. */
export interface JobStart extends CatalogRef {
  /** @default 'crawl' */
  action?: JobAction;
  /** With `url`, when `crawl` creates the catalog: where fetching begins. */
  startUrl?: string;
  /** Settings stored on the catalog before the run (crawl verbs). */
  settings?: Partial<CatalogSettings>;
  /** Publish even a version with far fewer pages than the one serving. */
  forcePublish?: boolean;
  /** Replay: the layers to rebuild (file, index, vector). */
  layers?: string[];
  /** Replay: the version to rebuild. @default the served one, else the one being written */
  version?: number;
}

export type JobEvent = { type: 'progress'; job: Job } | { type: 'end'; job: Job };

/** Where start references offered with `addSeeds` went. */
export interface SeedsAdded {
  /** `running-job`: to the engine of the run now; `next-run`: stored on the catalog (`seedUrls`). */
  to: 'running-job' | 'next-run';
  jobId?: string;
  accepted: string[];
  refused: Array<{ url: string; reason: string }>;
}
