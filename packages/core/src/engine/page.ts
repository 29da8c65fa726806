import type { Logger } from 'pino';
import type { ExtractedContent } from '../content/content-extractor.js';
import type { FetchResult } from '../fetch/extractor.js';
import type { LeasedEntry } from '../frontier/frontier.js';
import { urlHash } from '../ids.js';
import type { ImageRow, ResourceImageRow, ResourceRow } from '../model.js';
import type { Outcome } from '../outcomes.js';
import type { CompositeOutputChannel } from '../outputs/composite-output-channel.js';
import type { PageImage } from '../outputs/output-channel.js';
import type { MarkdownOrigin } from '../outputs/page-markdown.js';
import type { Counters } from './counters.js';
import type { CrawlEngineDeps, DocumentKind } from './engine-deps.js';
import type { LlmsTxtIndex } from './flow/llms-txt.js';
import type { RecrawlBounds } from './flow/recrawl-interval.js';
import type { RobotsDirectives } from './flow/robots-directives.js';
import type { SitemapResolver } from './flow/sitemap-resolver.js';
import type { InflightStore } from './inflight-store.js';
import type { OwedWrites } from './owed-writes.js';
import type { PageImages } from './page-images.js';
import type { Offer, QueuePipeline } from './queue-pipeline.js';
import type { StageClock } from './stage-clock.js';

// The page, the verdicts and the context of the document pipeline: every stage (stages/*.ts) imports this file and
// lower ones only, never the table that runs it (page-pipeline.ts).

/** A stage ended the url: its outcome, the detail of its report key (`OUTCOME:detail`) and why (its example). */
export interface Done {
  readonly outcome: Outcome;
  readonly detail?: string | undefined;
  readonly why?: string | undefined;
}

/** Go on with the next stage. */
export const NEXT = 'next';
/** The page limit was reached while the url was handled: it is not handled, its lease stays (outstanding). */
export const ABANDON = 'abandon';

/** What a stage decided about the url. */
export type StageVerdict = typeof NEXT | typeof ABANDON | Done;

/** The verdict that ends the url with this outcome. */
export function done(outcome: Outcome, detail?: string, why?: string): Done {
  return { outcome, detail, why };
}

/** Everything a handled url changes, committed together so a crash keeps all of it or none. */
export interface Completion {
  lease?: LeasedEntry;
  hash?: string;
  outcome?: Outcome;
  detail?: string | undefined;
  why?: string | undefined;
  /** The HTTP status of the url's fetch, when a response came. */
  status?: number | undefined;
  /** When the url was fetched (ISO), when a request was made. */
  fetchedAt?: string | undefined;
  /** The url's page changed: saved new or rewritten (output), or removed as gone (status); its ledger row says when. */
  changed?: boolean | undefined;
  /**
   * A revisited page's recrawl interval as the revisit began (milliseconds, its unchanged visits in a row, the
   * catalog's bounds): its ledger row gets the next one (engine/flow/recrawl-interval.ts). Absent when the adaptive
   * interval is off or the url was not revisited.
   */
  recrawl?: { every: number; unchangedVisits: number; bounds: RecrawlBounds } | undefined;
  offer?: Offer | undefined;
  resource?: ResourceRow;
  images?: ImageRow[];
  links?: ResourceImageRow[];
  newImages?: number;
}

/** Saved pages or about to be: the limit is checked against it, so in-flight pages cannot overshoot. */
export interface PageLimit {
  reached(): boolean;
  /** Take a place under the limit (the run's, and a cluster's shared budget); false when there is none left. */
  reserve(): Promise<boolean>;
  /** Give a place back (the page was not saved after all). */
  release(): void;
}

/**
 * What the stages read of the run's parts: a crawl hands its whole `CrawlEngineDeps`; a dry run (`test-url`,
 * dry-run.ts) hands the same readers with writers that record instead of writing.
 */
export type PipelineDeps = Pick<
  CrawlEngineDeps,
  | 'catalog'
  | 'version'
  | 'settings'
  | 'known'
  | 'urlFilter'
  | 'records'
  | 'ledger'
  | 'politeness'
  | 'pageFetcher'
  | 'imageFetcher'
  | 'robots'
  | 'log'
  | 'documentKind'
  | 'documentMaxBytes'
  | 'parseDocument'
  | 'extract'
  | 'contentDedup'
  | 'onReplace'
  | 'onGone'
  | 'changes'
  | 'blobs'
  | 'consumers'
  | 'events'
  | 'now'
  | 'changeFeed'
> & {
  readonly inflight: Pick<InflightStore, 'has' | 'load' | 'save'>;
  readonly outputs: Pick<CompositeOutputChannel, 'write' | 'deferredLayers'>;
};

/** What the stages work with. */
export interface PipelineContext {
  readonly deps: PipelineDeps;
  readonly log: Logger;
  readonly counters: Counters;
  readonly clock: StageClock;
  readonly queue: QueuePipeline;
  /** Sitemap resolution per host, and what the sitemaps say of each url (the recrawlable resolver reads it). */
  readonly sitemaps: Pick<SitemapResolver, 'hint'>;
  /** Each host's /llms.txt, read once per run: the Markdown twins its site offers. */
  readonly llmsTxt: Pick<LlmsTxtIndex, 'forHost'>;
  readonly images: Pick<PageImages, 'forPage' | 'forget'>;
  readonly owed: Pick<OwedWrites, 'expect' | 'forget'>;
  readonly limit: PageLimit;
}

/** The site's own Markdown of a page (stages/site-markdown.ts): the text, its url and how it was found. */
export interface SiteMarkdown extends MarkdownOrigin {
  text: string;
}

/** One url on its way through the document pipeline: what the stages found so far. */
export class PageInProgress {
  readonly entry: LeasedEntry;
  readonly hash: string;
  /** What the url changes; committed together with its outcome. */
  readonly completion: Completion;
  /** The row this version holds for the url (revisit), if any. */
  previous: ResourceRow | undefined;
  resourceId = '';
  textHash = '';
  /** A revisited page whose article changed: a short diff of its text against the text the version held. */
  textDiff: string | undefined;
  /** The site's own Markdown of the page, when it offers one and it answered (stages/site-markdown.ts). */
  siteMarkdown: SiteMarkdown | undefined;
  /** The content dedup recorded this page's text under its id (undone if the page fails). */
  textRecorded = false;
  /** The page holds a place under the page limit (given back if it fails). */
  reserved = false;
  /** Its deferred layer writes are owed (forgotten if it fails). */
  owesWrites = false;
  images: PageImage[] = [];
  /** The answer of the metadata pass (HEAD), when the catalog's `headPass` is on and the site answered it. */
  head: FetchResult | undefined;
  /** The metadata stages (filters, canonical Link header, checksum) ran: on the HEAD, or else on the GET. */
  metadataJudged = false;
  /** Not an html page: a document, read by this parser (set by the markup check). */
  document: DocumentKind | undefined;
  /** The page's robots directives: `X-Robots-Tag` and `<meta name=robots>` together. */
  robots: RobotsDirectives = { noindex: false, nofollow: false };
  /** The document filters ran (on an html page's content, or on a document once imported). */
  contentJudged = false;
  /** A document's own metadata (author, pages, …), once imported. */
  metadata: Record<string, string> = {};
  /** The resource row, built before the post-import consumers see it. */
  resource: ResourceRow | undefined;
  /**
   * The page asks not to be followed by its `X-Robots-Tag` header (not in its stored html): said in the ledger row's
   * reason, so a later run that reads its stored links instead of fetching it follows none.
   */
  headerNofollow = false;
  #result: FetchResult | undefined;
  #content: ExtractedContent | undefined;

  constructor(entry: LeasedEntry) {
    this.entry = entry;
    this.hash = urlHash(entry.url);
    this.completion = { lease: entry, hash: this.hash };
  }

  get result(): FetchResult {
    if (!this.#result) throw new Error(`no answer for ${this.entry.url}: a stage runs before fetch`);
    return this.#result;
  }

  set result(result: FetchResult) {
    this.#result = result;
  }

  get content(): ExtractedContent {
    if (!this.#content) throw new Error(`no content for ${this.entry.url}: a stage runs before extract`);
    return this.#content;
  }

  set content(content: ExtractedContent) {
    this.#content = content;
  }

  get fetched(): boolean {
    return this.#result !== undefined;
  }

  get extracted(): boolean {
    return this.#content !== undefined;
  }
}

/** What one stage does with a url: go on, end it (an outcome), or abandon it. */
export type StageRun = (page: PageInProgress, ctx: PipelineContext) => Promise<StageVerdict>;

/** One stage of the document pipeline. Its name is the detail of REJECTED_ERROR when it throws. */
export interface Stage {
  readonly name: string;
  readonly run: StageRun;
}

/** The ledger's note of a page whose header asks not to follow its links (see PageInProgress.headerNofollow). */
export const HEADER_NOFOLLOW = 'X-Robots-Tag: nofollow';
