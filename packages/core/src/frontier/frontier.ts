import type { UrlPriority } from './prioritizer.js';

/** One atomic write of a run's progress (see {@link CrawlFrontier.commit}). */
export interface FrontierCommit {
  puts: FrontierEntry[];
  acks: LeasedEntry[];
  /** The run's counters after this batch, given which puts enqueued. */
  checkpoint?: ((enqueued: boolean[]) => string) | undefined;
  /** The run's journal: work owed after a crash (e.g. pages not yet indexed), set and cleared with the rest. */
  journal?: { put?: Array<[string, string]>; del?: string[] } | undefined;
}

/** One url waiting on the frontier. */
export interface FrontierEntry {
  url: string;
  depth: number;
  referrer?: string | undefined;
  /** Lower is sooner. @default 0 */
  priority?: number | undefined;
  /** A redirect target: how many redirects led to it (1 = the target of the first 3xx). @default 0 */
  redirects?: number | undefined;
  /** A redirect target: the urls of its chain so far, first one first (a Location back to one of them is a loop). */
  redirectChain?: string[] | undefined;
  /**
   * The link as it was written, when url normalisation changed it (a session id, a fragment, letter case, …): the
   * url ledger keeps it on the url's row (url/found-as.ts). Absent for a url found in its normal form.
   */
  foundAs?: string | undefined;
  /**
   * The prioritizer's score and parts (seed 003) that gave `priority`: written to the url ledger with the url's
   * queued row, never stored on the frontier (a polled entry has none).
   */
  rank?: UrlPriority | undefined;
}

/** A polled entry; ack() it once its outcome is durable. */
export interface LeasedEntry extends FrontierEntry {
  /** Opaque key of the lease. */
  readonly leaseKey: string;
}

/** Options of {@link CrawlFrontier.clear}. */
export interface ClearOptions {
  /** Journal prefixes (`index:`, `vector:`) whose entries are kept. @default none */
  keepJournal?: readonly string[] | undefined;
}

/**
 * The durable frontier of one catalog version (`system/frontier/{catalogId}/v{n}/`).
 * `f:` holds the queue, `u:` "queued during this run", `i:` entries polled but not yet acked.
 */
export interface CrawlFrontier {
  /**
   * Enqueue unless the url was already queued during this run.
   * @returns true when it enqueued (the caller settles its dispatch counter otherwise).
   */
  put(entry: FrontierEntry): Promise<boolean>;
  /** Many at once, in one batch; returns one boolean per entry. */
  putAll(entries: FrontierEntry[]): Promise<boolean[]>;
  /** Next entry, or undefined when the queue is empty right now (in-flight leases may still add more). */
  poll(): Promise<LeasedEntry | undefined>;
  /** The entry's outcome is durable: forget the lease. */
  ack(entry: LeasedEntry): Promise<void>;
  /** Entries queued and not yet polled. */
  size(): Promise<number>;
  /** Entries polled and not yet acked. */
  inFlight(): number;
  /**
   * Start of a run: move unacked `i:` leases back to `f:`. A new run also clears `u:` and rebuilds it from the
   * recovered queue; a resumed run (`keepRun`) keeps `u:`, so urls handled before the stop stay collapsed.
   * @returns how many leases were recovered.
   */
  recover(options?: { keepRun?: boolean }): Promise<number>;
  /**
   * One atomic write: enqueue `puts` (unless queued this run), ack `acks` (their urls are marked done in `u:`)
   * and store `checkpoint(enqueued)` — so a crash keeps all of a page's effects or none of them.
   * @returns one boolean per put: did it enqueue.
   */
  commit(batch: FrontierCommit): Promise<boolean[]>;
  /** Journal entries (written by commit) whose key starts with `prefix`, in key order. */
  journal(prefix: string): AsyncIterable<[key: string, value: string]>;
  /** The checkpoint stored by the last commit, if any. */
  checkpoint(): Promise<string | undefined>;
  /** sha256 url hashes of the urls acked (done) during this run, in batches. */
  doneUrlHashes(batch?: number): AsyncIterable<string[]>;
  /**
   * Forget that these urls were handled (done) during this run, so a later put queues them again (a session's end
   * queues the duplicates of a page it removed once more). A url queued or in flight now is left as it is.
   * @returns how many were reopened.
   */
  reopen(urls: string[]): Promise<number>;
  /**
   * Drop everything (a fresh crawl of this version). `keepJournal` names journal prefixes whose entries stay (the
   * index and vector writes a stopped run still owes, which the next run writes from the files).
   */
  clear(options?: ClearOptions): Promise<void>;
  close(): Promise<void>;
}
