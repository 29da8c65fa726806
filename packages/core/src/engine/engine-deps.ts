import type { Logger } from 'pino';
import type { Candidate, RobotsProvider, RunLimits, Verdict } from '../acceptors/acceptor.js';
import type { SitemapEntry } from '../acceptors/sitemap.js';
import type { Settings } from '../config.js';
import type { ExtractedContent } from '../content/content-extractor.js';
import type { ContentDedupFilter, ExistingUrlPathFilter } from '../dedup/url-filter.js';
import type { ChangedUrls } from '../feeds/types.js';
import type { Extractor } from '../fetch/extractor.js';
import type { HostRate } from '../fetch/host-pace.js';
import type { HostReadiness } from '../fetch/politeness.js';
import type { CrawlFrontier } from '../frontier/frontier.js';
import type { Prioritizer } from '../frontier/prioritizer.js';
import type { Catalog, CrawlAction, ResourceRow } from '../model.js';
import type { CompositeOutputChannel } from '../outputs/composite-output-channel.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { ResourceRecordStore, UrlLedgerStore } from '../storage/record-store.js';
import type { ChangeRecorder } from './change-recorder.js';
import type { CrawlCoordinator } from './crawl-coordinator.js';
import type { DocumentConsumer } from './flow/consumers.js';
import type { CrawlEvents } from './flow/crawl-events.js';
import type { InflightStore } from './inflight-store.js';
import type { PageBudget } from './page-budget.js';
import type { PictureRegistry } from './picture-registry.js';
import type { CrawlResult, SessionEnd } from './run-result.js';

/** Which document parser reads an answer, and the extension its original bytes are kept under (`.pdf`). */
export interface DocumentKind {
  parser: string;
  extension: string;
}

/** A document read by its parser: the content a page's extraction would give, and what it says about itself. */
export interface ImportedContent extends ExtractedContent {
  metadata: Record<string, string>;
}

/** Per-host politeness: a slot to one host, released when the request is done. */
export interface Politeness extends Partial<HostReadiness> {
  acquire(host: string): Promise<() => void>;
  /** The busy hosts' pace now (HostPoliteness.rates), for `status` and the API's progress. */
  rates?(): HostRate[];
}

/**
 * What a run does with urls already known in this version:
 * - `crawl`/`update`: not fetched again; their stored html is read to follow its links, so only new urls are fetched;
 * - `merge`: pages held are fetched again with a conditional GET and rewritten (same id) only when changed.
 */
export type KnownUrlPolicy = 'follow-stored' | 'revisit';

/** Everything the engine works with; the composition (services) builds it. */
export interface CrawlEngineDeps {
  catalog: Catalog;
  version: number;
  action: CrawlAction;
  settings: Readonly<Settings>;
  frontier: CrawlFrontier;
  coordinator: CrawlCoordinator;
  urlFilter: ExistingUrlPathFilter;
  contentDedup: ContentDedupFilter;
  acceptors: { check(candidate: Candidate): Verdict | Promise<Verdict> };
  /**
   * Scores each url offered to the frontier (seed 003's prioritizer, frontier/prioritizer.ts); absent: the default,
   * weighed by the catalog's `priorityWeights`.
   */
  prioritizer?: Prioritizer | undefined;
  /** Fetches pages without following redirects (a 3xx dispatches its target as a url of its own). */
  pageFetcher: Extractor;
  /** Fetches pictures, following redirects. */
  imageFetcher: Extractor;
  politeness: Politeness;
  /** Who fetches each picture url when other processes crawl the same run (a cluster); absent: this run alone. */
  pictures?: PictureRegistry | undefined;
  /** The page limit shared with the other processes of the run (a cluster); absent: `maxPages` counted here. */
  pageBudget?: PageBudget | undefined;
  /** Content of a page: html as text, or as bytes decoded with the charset of `contentType` (or sniffed). */
  extract: (html: string | Buffer, url: string, contentType?: string) => Promise<ExtractedContent>;
  normalize: (raw: string, base?: string) => string | undefined;
  outputs: CompositeOutputChannel;
  records: ResourceRecordStore;
  /**
   * Every url's fate in this version (crawler_url): written by the committer with the records of each batch. Without
   * it nothing is recorded.
   */
  ledger?: UrlLedgerStore | undefined;
  blobs: BlobStore;
  inflight: InflightStore;
  robots?: RobotsProvider | undefined;
  /**
   * The sitemaps of the site a url belongs to (robots.txt `Sitemap:` lines, else /sitemap.xml; indexes followed),
   * read on first contact with each host when the catalog's `sitemap` is on. Without it no sitemap is read.
   */
  sitemaps?: ((siteUrl: string) => Promise<SitemapEntry[]>) | undefined;
  /**
   * Documents (PDF, Word, text): which parser reads an answer, and the extension its original bytes are kept under;
   * undefined = not a document. Absent when documents are off (catalog `documents`, GF_DOCUMENTS).
   */
  documentKind?: ((contentType: string, url: string) => DocumentKind | undefined) | undefined;
  /** Read a document (the importer): on a worker, under the size and time caps; throws DocumentError. */
  parseDocument?: ((bytes: Buffer, url: string, contentType: string) => Promise<ImportedContent>) | undefined;
  /** The body cap of a document (bytes). */
  documentMaxBytes?: number | undefined;
  /** The node's crawl events: every outcome, DOCUMENT_PREIMPORTED and DOCUMENT_POSTIMPORTED. */
  events?: CrawlEvents | undefined;
  /** Pre- and post-import consumers, in order. */
  consumers?: readonly DocumentConsumer[] | undefined;
  log: Logger;
  /** Start urls to seed; by default the catalog's start url. Skipped when the frontier holds entries. */
  seeds?: string[] | undefined;
  /** The limits the acceptors read as the run goes (the same object): `CrawlEngine.setDepthLimit` changes them. */
  limits?: RunLimits | undefined;
  /** @default 'follow-stored' */
  known?: KnownUrlPolicy | undefined;
  /** Continue the interrupted run: keep "queued during this run" and its counters. */
  resume?: boolean | undefined;
  /** Told of every page rewritten in place (merge), before its new version is written. */
  onReplace?: ((resource: ResourceRow) => Promise<void>) | undefined;
  /**
   * Told of every page the version holds that answered 404 or 410 when revisited (merge, orphans `process`), before
   * its REJECTED_NOTFOUND is committed: the composition point removes it from every layer (services/page-removal.ts).
   */
  onGone?: ((resource: ResourceRow) => Promise<void>) | undefined;
  /** Told of every page saved (added or changed) and removed by the run: its change set (change-recorder.ts). */
  changes?: ChangeRecorder | undefined;
  /**
   * A merge of a catalog with change feeds (feeds/change-feeds.ts): what they named changed or deleted since the last
   * run. The recrawlable resolver fetches a held page only when named, or due by its recrawl schedule; absent: every
   * held page is judged as on an ordinary merge.
   */
  changeFeed?: ChangedUrls | undefined;
  /** The time the recrawlable resolver judges by (epoch ms; tests move it). @default Date.now */
  now?: (() => number) | undefined;
  /**
   * The session's end (services/orphans.ts): told when the frontier drained with nothing in flight and no stop asked
   * — never after an early stop. It may queue urls again, which this run then handles (see SessionEnd).
   */
  sessionEnd?: ((end: SessionEnd) => Promise<void>) | undefined;
  /**
   * Told once the fetch has ended normally (an end in PUBLISHING_ENDS: the frontier drained, or a page or time limit),
   * every page's file and index entry durable and committed, and before the run waits for the vectors still being
   * written — never after a stop or a failure. `interim` is the run's result so far. The composition point publishes
   * words search here (services/crawl-service.ts); the run waits for it, then for the vectors. A throw ends the run
   * as an error.
   */
  onFetched?: ((interim: CrawlResult) => Promise<void>) | undefined;
}
