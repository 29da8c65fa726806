import type { Logger } from 'pino';
import type { Candidate, RobotsProvider, RunLimits, Verdict } from '../acceptors/acceptor.js';
import type { Settings } from '../config.js';
import type { ExtractedContent } from '../content/content-extractor.js';
import type { ContentDedupFilter, ExistingUrlPathFilter } from '../dedup/url-filter.js';
import type { Extractor } from '../fetch/extractor.js';
import type { CrawlFrontier } from '../frontier/frontier.js';
import type { Catalog, CrawlAction, ResourceRow } from '../model.js';
import type { CompositeOutputChannel } from '../outputs/composite-output-channel.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { ResourceRecordStore, UrlLedgerStore } from '../storage/record-store.js';
import type { CrawlCoordinator } from './crawl-coordinator.js';
import type { InflightStore } from './inflight-store.js';

/** Per-host politeness: a slot to one host, released when the request is done. */
export interface Politeness {
  acquire(host: string): Promise<() => void>;
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
  /** Fetches pages without following redirects (a 3xx dispatches its target as a url of its own). */
  pageFetcher: Extractor;
  /** Fetches pictures, following redirects. */
  imageFetcher: Extractor;
  politeness: Politeness;
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
  /** Urls a sitemap lists for the start url (already fetched and parsed). */
  sitemapUrls?: (() => Promise<string[]>) | undefined;
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
}
