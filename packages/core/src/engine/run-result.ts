import type { CounterSnapshot } from './counters.js';

// What a crawl run ends with, and what its session's end may do: read by the engine's deps, the run report and
// the services, so it sits below the engine (crawl-engine.ts) that produces it.

/** Why the fetch of a run ended. */
export type EndReason =
  | 'frontier-drained'
  | 'max-pages'
  | 'duration'
  | 'interrupted'
  | 'consecutive-failures'
  | 'error';

/** Rounds the session's end may add (CrawlEngineDeps.sessionEnd): orphans to process, then duplicates to fetch again. */
export const SESSION_END_ROUNDS = 2;

/** A url the session's end queues again (see {@link SessionEnd}). */
export interface SessionEndEntry {
  url: string;
  depth: number;
  referrer?: string | undefined;
}

/** What the session's end may do (CrawlEngineDeps.sessionEnd). */
export interface SessionEnd {
  /** 0 the first time; then once after each round that urls queued by the call before made. */
  readonly round: number;
  /** False on the last call: urls queued now would not be handled, so requeue and again queue nothing. */
  readonly canQueue: boolean;
  /** Offer urls (orphans) through the queue pipeline at their depth: acceptors judge them. How many were queued. */
  requeue(entries: ReadonlyArray<SessionEndEntry>): Promise<number>;
  /** Queue urls this session already handled once more (duplicates of a page it removed). How many were queued. */
  again(entries: ReadonlyArray<SessionEndEntry>): Promise<number>;
}

/** Normal ends publish; an external stop, a run of failures or an error does not. */
export const PUBLISHING_ENDS: ReadonlySet<EndReason> = new Set(['frontier-drained', 'max-pages', 'duration']);

/** What a run did: its end, its counters and its timings. */
export interface CrawlResult {
  reason: EndReason;
  published: boolean;
  fullyCrawled: boolean;
  counters: CounterSnapshot;
  outstanding: number;
  recovered: number;
  startedAt: Date;
  endedAt: Date;
  /** Wall milliseconds spent per stage, summed over concurrent pages. */
  stages: Record<string, number>;
  /** Why the run stopped with reason 'error': one line naming the store and the fix. */
  error?: string;
  /**
   * How the fetch ended (the workers and the session's end done, files and index entries flushed), before the vector
   * phase: `reason` differs from it when a stop or a failure came while the vectors were being written.
   */
  fetchEnded?: EndReason;
}

/** What became of start references offered to a running crawl (`CrawlEngine.addSeeds`). */
export interface SeedOffer {
  /** Queued at depth 0, ahead of the links found so far. */
  accepted: string[];
  /** Refused by the acceptors (scope, robots.txt, …), or already queued or handled in this run. */
  refused: Array<{ url: string; reason: string }>;
}

/** A url a worker is handling now (`CrawlEngine.inFlight`). */
export interface InFlightUrl {
  url: string;
  depth: number;
  referrer: string | undefined;
  /** When its worker took it from the frontier (ISO). */
  since: string;
}
