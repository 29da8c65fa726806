import type { Logger } from 'pino';
import type { ExtractedContent } from '../content/content-extractor.js';
import { errorMessage, FetchError, StageError } from '../errors.js';
import { isPageType, looksBinary } from '../fetch/content-type.js';
import type { FetchResult } from '../fetch/extractor.js';
import type { LeasedEntry } from '../frontier/frontier.js';
import { ids, sha256Hex, urlHash } from '../ids.js';
import { keys } from '../layout.js';
import type { ResourceRow } from '../model.js';
import { Outcome } from '../outcomes.js';
import type { PageImage } from '../outputs/output-channel.js';
import { isFolderUrl } from '../url/file-url.js';
import type { Completion } from './committer.js';
import type { Counters } from './counters.js';
import type { CrawlEngineDeps, DocumentKind } from './engine-deps.js';
import type { RobotsDirectives } from './flow/robots-directives.js';
import type { SitemapResolver } from './flow/sitemap-resolver.js';
import type { OwedWrites } from './owed-writes.js';
import type { PageImages } from './page-images.js';
import { politeFetch } from './polite-fetch.js';
import type { Offer, OfferedLink, QueuePipeline } from './queue-pipeline.js';
import type { StageClock } from './stage-clock.js';
import { canonicalInPage } from './stages/canonical.js';
import { childPaths } from './stages/child-paths.js';
import { postImportConsumers, preImportConsumers } from './stages/consumers.js';
import { documentFilters } from './stages/document-filters.js';
import { importDocument, postImportLinks } from './stages/documents.js';
import { headPass } from './stages/head-pass.js';
import { metadataStages } from './stages/metadata.js';
import { recrawlableResolver } from './stages/recrawl.js';
import { robotsDirectives } from './stages/robots.js';

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

function done(outcome: Outcome, detail?: string, why?: string): Done {
  return { outcome, detail, why };
}

/** Saved pages or about to be: the limit is checked against it, so in-flight pages cannot overshoot. */
export interface PageLimit {
  reached(): boolean;
  /** Take a place under the limit (the run's, and a cluster's shared budget); false when there is none left. */
  reserve(): Promise<boolean>;
  /** Give a place back (the page was not saved after all). */
  release(): void;
}

/** What the stages work with. */
export interface PipelineContext {
  readonly deps: CrawlEngineDeps;
  readonly log: Logger;
  readonly counters: Counters;
  readonly clock: StageClock;
  readonly queue: QueuePipeline;
  /** Sitemap resolution per host, and what the sitemaps say of each url (the recrawlable resolver reads it). */
  readonly sitemaps: SitemapResolver;
  readonly images: PageImages;
  readonly owed: OwedWrites;
  readonly limit: PageLimit;
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

/** One stage of the document pipeline. */
export type Stage = (page: PageInProgress, ctx: PipelineContext) => Promise<StageVerdict>;

// ── The stages, in the order of "the life of one page" (seed 000) and the document pipeline (seed 002) ──────────

/**
 * Known urls that hold no page but lead on: a redirect (to its target), a noncanonical copy (to its canonical url), a
 * noindex page (to its links). They are fetched again, since nothing stored says where they lead, and what they lead
 * to must be reached by this session too (or it would be an orphan of it).
 */
const LEADS_ON: ReadonlySet<string> = new Set([
  Outcome.REJECTED_REDIRECT,
  Outcome.REJECTED_NONCANONICAL,
  Outcome.REJECTED_ROBOTS_META_NOINDEX,
]);

/**
 * ExistingUrlPathFilter: a url this version already holds is not fetched again; its stored links are followed
 * (`merge` revisits it instead). A known url without a page is REJECTED_KNOWN, unless it leads on (LEADS_ON, folders)
 * or the run is incremental (`merge` asks again).
 */
const knownUrlFilter: Stage = async (page, ctx) => {
  const d = ctx.deps;
  if (!(await d.urlFilter.has(d.catalog.id, d.version, page.hash))) return NEXT;
  page.previous = await d.records.findResourceByUrlHash(d.catalog.id, d.version, page.hash);
  if (d.known === 'revisit' && page.previous) return NEXT;
  // A folder of a file-system source holds no resource: it is listed again, the one way its new files are found.
  if (!page.previous && isFolderUrl(page.entry.url)) return NEXT;
  if (page.previous) page.completion.offer = await storedLinks(page, ctx);
  // An incremental run (merge) asks again for every known url that holds no page: a 404 may have come back.
  else if (d.known === 'revisit' || (await leadsOn(page, d))) return NEXT;
  return done(Outcome.REJECTED_KNOWN);
};

async function leadsOn(page: PageInProgress, d: CrawlEngineDeps): Promise<boolean> {
  const row = await d.ledger?.get(ids.resource(d.catalog.id, d.version, page.hash));
  return row !== undefined && LEADS_ON.has(row.outcome);
}

/**
 * The host's trap budget: a queued url whose shape was blocked after duplicate pages in a row (trap-budget.ts) ends
 * as REJECTED_TRAP:duplicates-in-a-row without a request. The other trap rules refuse urls before they are queued.
 */
const trapBudget: Stage = async (page, { queue }) => {
  const trap = queue.traps.blocked(page.entry.url);
  return trap ? done(Outcome.REJECTED_TRAP, trap.rule, trap.reason) : NEXT;
};

/** Extractor, under the host's politeness slot; the answer goes to the write-ahead log the moment it arrives. */
const fetchPage: Stage = async (page, { deps: d, clock, counters }) => {
  const recorded = await d.inflight.load(page.hash);
  if (recorded) {
    page.result = { ...recorded, text: undefined };
    page.completion.status = recorded.status;
    page.completion.fetchedAt = new Date().toISOString();
    return NEXT;
  }
  let result: FetchResult;
  try {
    result = await clock.time(
      'fetch',
      politeFetch(d.politeness, d.pageFetcher, page.entry.url, {
        etag: page.previous?.etag,
        lastModified: page.previous?.lastModified,
        // Bytes go to the extraction worker, which decodes them: no decode and no string copy on this thread.
        decode: false,
        pagesOnly: true,
        document: documentCap(d),
      }),
    );
  } catch (err) {
    page.completion.fetchedAt = new Date().toISOString();
    return done(fetchFailureOutcome(err), undefined, errorMessage(err));
  }
  page.completion.status = result.status;
  page.completion.fetchedAt = new Date().toISOString();
  if (result.rendering) counters.render(result.rendering.reason);
  await d.inflight.save(page.hash, result);
  page.result = result;
  return NEXT;
};

/** The body cap of the documents the crawl reads; undefined when documents are off. */
function documentCap(d: CrawlEngineDeps): ((contentType: string, url: string) => number | undefined) | undefined {
  const kind = d.documentKind;
  if (!kind) return undefined;
  const cap = d.documentMaxBytes;
  // An html answer (most of them) is not asked about.
  return (contentType, url) => (!isPageType(contentType) && kind(contentType, url) ? cap : undefined);
}

/** A transport failure after retries: over the cap is REJECTED_TOO_LARGE, anything else REJECTED_UNREACHABLE. */
export function fetchFailureOutcome(err: unknown): Outcome {
  return err instanceof FetchError && err.reason === 'too-large'
    ? Outcome.REJECTED_TOO_LARGE
    : Outcome.REJECTED_UNREACHABLE;
}

/**
 * 3xx: its Location is offered as a url of its own, carrying the chain that led to it. A Location back to a url of
 * the chain is REJECTED_REDIRECT_LOOP; a url reached after GF_MAX_REDIRECTS redirects that redirects again is
 * REJECTED_TOO_MANY_REDIRECTS (its target is not offered). 304 unmodified, 404/410 not found, other ≥ 400 bad status.
 */
const statusAndRedirect: Stage = (page, ctx) => judgeStatus(page, page.result, ctx);

/** The status stage's judgement of an answer: the GET's, or the HEAD's of the metadata pass. */
export async function judgeStatus(
  page: PageInProgress,
  answer: FetchResult,
  ctx: PipelineContext,
): Promise<StageVerdict> {
  const { status, headers } = answer;
  const { entry } = page;
  if (status >= 300 && status < 400 && status !== 304) {
    const location = headers.location;
    const target = location ? ctx.queue.canonical(location, entry.url) : undefined;
    if (!target) return done(Outcome.REJECTED_REDIRECT, undefined, `HTTP ${status} to ${location ?? '(no Location)'}`);
    const hops = entry.redirects ?? 0;
    const chain = [...(entry.redirectChain ?? []), entry.url];
    if (chain.includes(target)) {
      return done(
        Outcome.REJECTED_REDIRECT_LOOP,
        undefined,
        `HTTP ${status} back to ${[...chain, target].join(' -> ')}`,
      );
    }
    const max = ctx.deps.settings.maxRedirects;
    if (hops >= max) {
      return done(
        Outcome.REJECTED_TOO_MANY_REDIRECTS,
        undefined,
        `HTTP ${status} to ${target} after ${hops} redirects from ${chain[0]} (GF_MAX_REDIRECTS ${max})`,
      );
    }
    page.completion.offer = await ctx.queue.offer([target], entry.depth, entry.url, -1, true, {
      redirects: hops + 1,
      redirectChain: chain,
    });
    return done(Outcome.REJECTED_REDIRECT, undefined, `HTTP ${status} to ${location}`);
  }
  if (status === 304) {
    if (page.previous) page.completion.offer = await storedLinks(page, ctx);
    return done(Outcome.REJECTED_UNMODIFIED, undefined, 'HTTP 304');
  }
  if (status === 404 || status === 410) {
    if (page.previous && ctx.deps.onGone) await ctx.deps.onGone(page.previous);
    return done(Outcome.REJECTED_NOTFOUND, undefined, `HTTP ${status}`);
  }
  if (status >= 400) return done(Outcome.REJECTED_BAD_STATUS, String(status), `HTTP ${status}`);
  return NEXT;
}

/**
 * Not html (see `isPageType`): REJECTED_NOT_MARKUP, the body abandoned after the headers. A binary served as html
 * (a picture, a PDF, an archive: see `looksBinary`) is not markup either, whatever its header says.
 */
const markupCheck: Stage = async (page, { deps: d }) => {
  const { contentType, body } = page.result;
  if (!isPageType(contentType)) {
    page.document = d.documentKind?.(contentType, page.entry.url);
    if (page.document) return NEXT;
    return done(Outcome.REJECTED_NOT_MARKUP, contentType.split(';')[0] || 'unknown');
  }
  if (looksBinary(body)) {
    // A document served without a type (or as html): its url's extension may still say what it is.
    page.document = d.documentKind?.('application/octet-stream', page.entry.url);
    if (page.document) return NEXT;
    return done(Outcome.REJECTED_NOT_MARKUP, 'binary', `binary bytes served as ${contentType || 'html'}`);
  }
  return NEXT;
};

/** A page the browser rendered that was still a shell when the settle wait ran out: REJECTED_UNRENDERED:<reason>. */
const renderCheck: Stage = async (page) => {
  const r = page.result.rendering;
  if (r?.outcome !== 'unrendered') return NEXT;
  return done(Outcome.REJECTED_UNRENDERED, r.reason, `still a shell after ${r.ms} ms in the browser`);
};

/** ContentExtractor (on a worker thread): title, article text, link density, links, pictures. */
const contentExtraction: Stage = async (page, { deps: d, clock, counters }) => {
  // A document is read by its parser at the import stage.
  if (page.document) return NEXT;
  const { body, contentType } = page.result;
  page.content = await clock.time('extract', d.extract(body, page.entry.url, contentType));
  // Bytes invalid in their charset were decoded as windows-1252 (or utf-8): counted, and the row says so.
  if (page.content.charsetFallback) {
    counters.charsetFallback();
    page.result.charset = page.content.charsetFallback;
  }
  return NEXT;
};

/**
 * Links are offered before anything can reject the page: a noindex page still contributes its links. A nofollow page
 * (`<meta name=robots>` or `X-Robots-Tag`) offers none, and a `rel=nofollow` link is not followed. A document's
 * links come later, from its importer (post-import links).
 */
const linkExtraction: Stage = async (page, { queue }) => {
  if (page.document || page.robots.nofollow) return NEXT;
  const { content, entry } = page;
  addOffer(page, await queue.offer(followed(content.links), entry.depth + 1, entry.url, 0, true));
  return NEXT;
};

/**
 * The links a page's robots directives let the crawl follow: every link but the `rel=nofollow` ones, each with the
 * form it was written in when normalisation changed it.
 */
export function followed(links: ExtractedContent['links']): OfferedLink[] {
  const urls: OfferedLink[] = [];
  for (const l of links) if (!l.nofollow) urls.push(l);
  return urls;
}

/** Add links to what the url offers at commit (a canonical url, the page's links, a document's links). */
export function addOffer(page: PageInProgress, offer: Offer): void {
  const had = page.completion.offer;
  if (!had) page.completion.offer = offer;
  else {
    had.accepted.push(...offer.accepted);
    had.refused.push(...offer.refused);
  }
}

/** noindex (`<meta name="robots">` or `X-Robots-Tag`): REJECTED_ROBOTS_META_NOINDEX. */
const robotsMetaNoindex: Stage = async (page) =>
  page.robots.noindex
    ? done(
        Outcome.REJECTED_ROBOTS_META_NOINDEX,
        undefined,
        // The meta tag is the usual case (no why); the header is said.
        page.extracted && page.content.robots.noindex ? undefined : 'X-Robots-Tag',
      )
    : NEXT;

/** A revisited page whose text has not changed is not written again. */
const unmodifiedCheck: Stage = async (page, { deps: d }) => {
  page.resourceId = ids.resource(d.catalog.id, d.version, page.hash);
  page.textHash = sha256Hex(page.content.text);
  if (page.previous && page.previous.contentHash === page.textHash) {
    return done(Outcome.REJECTED_UNMODIFIED, undefined, 'same text');
  }
  return NEXT;
};

/** ContentDedupFilter (sha256 or simhash): the same text as another page is REJECTED_DUPLICATE. */
const contentDedup: Stage = async (page, { deps: d, clock }) => {
  const holder = await clock.time(
    'dedup',
    d.contentDedup.checkAndRecord(d.catalog.id, d.version, page.content.text, page.resourceId),
  );
  if (holder !== undefined && holder !== page.resourceId) {
    // Its links are not followed: a page that answers under endless urls (session ids) would offer endless more.
    page.completion.offer = undefined;
    return done(Outcome.REJECTED_DUPLICATE, undefined, `same content as resource ${holder}`);
  }
  page.textRecorded = true;
  return NEXT;
};

/** The page will be saved: it takes its place under maxPages now, or is abandoned when there is none. */
const pageLimitReservation: Stage = async (page, { limit }) => {
  if (!(await limit.reserve())) return ABANDON;
  page.reserved = true;
  return NEXT;
};

/** Pictures: fetched once per run, stored once per version by hash. */
const pictures: Stage = async (page, { deps: d, clock, images, counters }) => {
  if (d.catalog.settings.images)
    page.images = await clock.time('images', images.forPage(page.content, page.entry.url, counters));
  return NEXT;
};

/** CompositeOutputChannel: file ─► index ─► vector. The file failing is the page failing; the others are counted. */
const outputChain: Stage = async (page, ctx) => {
  const { deps: d, clock, owed } = ctx;
  const { result, resourceId } = page;
  page.resource ??= resourceRow(page, ctx);
  const resource = page.resource;
  owed.expect(resourceId, d.outputs.deferredLayers);
  page.owesWrites = true;
  if (page.previous && d.onReplace) await d.onReplace(page.previous);
  const { images } = page;
  await clock.time(
    'output',
    d.outputs.write({
      catalog: d.catalog,
      version: d.version,
      resource,
      html: result.body,
      text: page.content.text,
      images,
    }),
  );
  const c = page.completion;
  c.resource = resource;
  c.images = images.filter((i) => i.bytes).map((i) => i.row);
  c.newImages = c.images.length;
  c.links = images.map((i) => ({
    id: ids.resourceImage(d.catalog.id, d.version, resourceId, i.row.id),
    catalogId: d.catalog.id,
    version: d.version,
    resourceId,
    imageId: i.row.id,
    alt: i.alt,
    surroundingText: i.surroundingText,
  }));
  if (page.document) ctx.counters.note(`documents:${page.document.parser}`, page.entry.url);
  return done(Outcome.SAVED);
};

/** The resource row of a page about to be saved; a document keeps its original bytes under its own extension. */
export function resourceRow(page: PageInProgress, { deps: d }: Pick<PipelineContext, 'deps'>): ResourceRow {
  const { entry, result, content, resourceId } = page;
  return {
    id: resourceId,
    catalogId: d.catalog.id,
    version: d.version,
    url: entry.url,
    urlHash: page.hash,
    title: content.title || entry.url,
    contentType: result.contentType,
    charset: result.charset,
    status: result.status,
    depth: entry.depth,
    contentHash: page.textHash,
    etag: result.etag,
    lastModified: result.lastModified,
    htmlPath: page.document
      ? keys.pageOriginal(d.catalog.id, d.version, resourceId, page.document.extension)
      : keys.pageHtml(d.catalog.id, d.version, resourceId),
    textPath: keys.pageText(d.catalog.id, d.version, resourceId),
    htmlBytes: result.body.length,
    textChars: content.text.length,
    linkDensity: content.linkDensity,
    fetchedAt: new Date().toISOString(),
  };
}

/** The document pipeline, in order. A stage's name is the detail of REJECTED_ERROR when it throws. */
export const DOCUMENT_PIPELINE: ReadonlyArray<{ readonly name: string; readonly run: Stage }> = [
  // The document pipeline (seed 002). The stages of stages/*.ts are called through closures: those modules import
  // this one, so their bindings may not be initialised yet when this array is built.
  { name: 'known-url', run: knownUrlFilter },
  { name: 'recrawl', run: (p, c) => recrawlableResolver(p, c) },
  { name: 'trap', run: trapBudget },
  { name: 'head', run: (p, c) => headPass(p, c) },
  { name: 'metadata', run: (p, c) => metadataStages(p, c) },
  { name: 'fetch', run: fetchPage },
  { name: 'status', run: statusAndRedirect },
  { name: 'metadata', run: (p, c) => metadataStages(p, c) },
  { name: 'children', run: (p, c) => childPaths(p, c) },
  { name: 'markup', run: markupCheck },
  { name: 'render', run: renderCheck },
  { name: 'extract', run: contentExtraction },
  { name: 'canonical', run: (p, c) => canonicalInPage(p, c) },
  { name: 'robots', run: (p, c) => robotsDirectives(p, c) },
  { name: 'links', run: linkExtraction },
  { name: 'noindex', run: robotsMetaNoindex },
  { name: 'document-filters', run: (p, c) => documentFilters(p, c) },
  { name: 'pre-import', run: (p, c) => preImportConsumers(p, c) },
  { name: 'import', run: (p, c) => importDocument(p, c) },
  { name: 'document-filters', run: (p, c) => documentFilters(p, c) },
  // The committer pipeline (seed 002), up to the output channels.
  { name: 'unmodified', run: unmodifiedCheck },
  { name: 'dedup', run: contentDedup },
  { name: 'reserve', run: pageLimitReservation },
  { name: 'images', run: pictures },
  { name: 'post-import', run: (p, c) => postImportConsumers(p, c) },
  { name: 'post-import-links', run: (p, c) => postImportLinks(p, c) },
  { name: 'output', run: outputChain },
];

/**
 * Handle one url: run the stages until one decides. Returns what to commit, or undefined when the url is abandoned
 * (the page limit was reached while it waited: its lease stays). A stage that throws — extraction, dedup, pictures,
 * the file layer, a bug — ends this url alone as REJECTED_ERROR, detail the stage, its message as the example.
 */
export async function handlePage(entry: LeasedEntry, ctx: PipelineContext): Promise<Completion | undefined> {
  if (ctx.limit.reached()) {
    ctx.counters.abandon();
    return undefined;
  }
  const page = new PageInProgress(entry);
  for (const stage of DOCUMENT_PIPELINE) {
    let verdict: StageVerdict;
    try {
      verdict = await stage.run(page, ctx);
    } catch (err) {
      await undo(page, ctx);
      // The output chain names the layer that failed (the file layer: StageError 'file').
      const detail = stage.name === 'output' && err instanceof StageError ? err.stage : stage.name;
      ctx.log.warn({ err, url: entry.url, stage: detail }, 'page failed; the crawl goes on');
      return end(page, done(Outcome.REJECTED_ERROR, detail, failureLine(err)));
    }
    if (verdict === ABANDON) {
      ctx.counters.abandon();
      return undefined;
    }
    if (verdict !== NEXT) {
      ctx.queue.traps.handled(entry.url, verdict.outcome);
      return end(page, verdict);
    }
  }
  throw new Error(`no stage decided the outcome of ${entry.url}`);
}

/** The message, and its cause's when it adds something ("file: cannot write …: ENOSPC: no space left …"). */
function failureLine(err: unknown): string {
  const own = errorMessage(err);
  const cause = err instanceof Error && err.cause !== undefined ? errorMessage(err.cause) : '';
  return (cause && !own.includes(cause) ? `${own}: ${cause}` : own).replace(/\s*\n\s*/g, ' ');
}

function end(page: PageInProgress, verdict: Done): Completion {
  const why = page.headerNofollow ? [verdict.why, HEADER_NOFOLLOW].filter(Boolean).join('; ') : verdict.why;
  return Object.assign(page.completion, { outcome: verdict.outcome, detail: verdict.detail, why });
}

/** The ledger's note of a page whose header asks not to follow its links (see PageInProgress.headerNofollow). */
export const HEADER_NOFOLLOW = 'X-Robots-Tag: nofollow';

/** The page held was saved, or last seen, with a header asking not to follow its links. */
async function heldNofollow(page: PageInProgress, d: CrawlEngineDeps): Promise<boolean> {
  if (!d.ledger || !page.previous) return false;
  const row = await d.ledger.get(page.previous.id);
  return row?.reason.includes(HEADER_NOFOLLOW) === true;
}

/** A failed page leaves nothing behind that other pages would trip over. */
async function undo(page: PageInProgress, ctx: PipelineContext): Promise<void> {
  const d = ctx.deps;
  if (page.reserved) ctx.limit.release();
  if (page.owesWrites) ctx.owed.forget(page.resourceId);
  ctx.images.forget(page.images);
  if (page.textRecorded && page.extracted) {
    // Otherwise a later page with the same text would be a "duplicate" of a page that was never saved.
    await d.contentDedup.forget(d.catalog.id, d.version, page.content.text).catch((err: unknown) => {
      ctx.log.warn({ err, url: page.entry.url }, 'content fingerprint of a failed page not forgotten');
    });
  }
}

/**
 * The links of a page this version already holds, read from its stored html (a document's from its stored bytes,
 * by its parser): no request. None when its header asked for nofollow, now or when it was last seen.
 */
export async function storedLinks(
  page: PageInProgress,
  { deps: d, clock, queue }: Pick<PipelineContext, 'deps' | 'clock' | 'queue'>,
): Promise<Offer | undefined> {
  const { previous, entry } = page;
  if (!previous) return undefined;
  if (page.headerNofollow || (await heldNofollow(page, d))) {
    page.headerNofollow = true;
    return undefined;
  }
  const html = await d.blobs.get(previous.htmlPath);
  if (!html) return undefined;
  if (!isPageType(previous.contentType)) {
    const kind = d.documentKind?.(previous.contentType, previous.url);
    if (!kind || !d.parseDocument || !d.catalog.settings.postImportLinks) return undefined;
    const doc = await clock.time('import', d.parseDocument(html, entry.url, previous.contentType));
    return queue.offer(followed(doc.links), entry.depth + 1, entry.url, 0, true);
  }
  const content = await clock.time('extract', d.extract(html, entry.url, previous.contentType));
  if (content.robots.nofollow) return undefined;
  return queue.offer(followed(content.links), entry.depth + 1, entry.url, 0, true);
}
