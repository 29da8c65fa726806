import { join } from 'node:path';
import type { RobotsProvider, RunLimits, UrlPathAcceptor } from '../acceptors/acceptor.js';
import { createAcceptorChain } from '../acceptors/acceptor-chain.js';
import { deletedUrls, refuseDeleted } from '../acceptors/deleted-urls.js';
import { HttpRobotsProvider } from '../acceptors/robots.js';
import { discoverSitemapUrls } from '../acceptors/sitemap.js';
import { PageRemoval } from '../admin/page-removal.js';
import type { ExtractedContent } from '../content/content-extractor.js';
import { contentExtractorRegistry, isBuiltInContentExtractor } from '../content/content-extractors.js';
import { ExtractPool } from '../content/extract-pool.js';
import { ChangeRecorder } from '../engine/change-recorder.js';
import { type CrawlCoordinator, LocalCrawlCoordinator } from '../engine/crawl-coordinator.js';
import type { CrawlEngineDeps, Politeness } from '../engine/crawl-engine.js';
import { InflightStore } from '../engine/inflight-store.js';
import { knownUrlPolicy } from '../engine/stages/known-url.js';
import { hasRenderStats, type RenderMemoryStats } from '../fetch/adaptive-extractor.js';
import { decodeBody } from '../fetch/charset.js';
import type { Extractor } from '../fetch/extractor.js';
import { FileExtractor } from '../fetch/file-extractor.js';
import { observedExtractor } from '../fetch/observed-extractor.js';
import {
  type HostPaceControl,
  HostPoliteness,
  type HostRate,
  type HostReadiness,
  type PaceObserver,
  type Pacer,
} from '../fetch/politeness.js';
import { textOf } from '../fetch/text-body.js';
import { timedExtractor } from '../fetch/timed-extractor.js';
import { withRetry } from '../fetch/with-retry.js';
import type { CrawlFrontier } from '../frontier/frontier.js';
import { LevelFrontier } from '../frontier/level-frontier.js';
import type { SearchIndex } from '../index/search-index.js';
import type { Catalog, CrawlAction } from '../model.js';
import { CompositeOutputChannel } from '../outputs/composite-output-channel.js';
import { FileOutputChannel } from '../outputs/file-output-channel.js';
import { IndexOutputChannel } from '../outputs/index-output-channel.js';
import type { OutputChannel } from '../outputs/output-channel.js';
import { PictureEmbedder, type PictureVectorSink } from '../outputs/picture-embedder.js';
import { allPictures, type PictureImageEmbedder } from '../outputs/picture-image-embedder.js';
import { VectorOutputChannel } from '../outputs/vector-output-channel.js';
import { fetchTimings } from '../runs/fetch-timings.js';
import type { BlobStore } from '../storage/blob-store.js';
import { filePathOf, isFileUrl } from '../url/file-url.js';
import { normalizeUrl } from '../url/normalize.js';
import { chunkText } from '../vector/chunking.js';
import type { VectorStore } from '../vector/vector-store.js';
import type { ComponentFactory } from './component-factory.js';
import { type AcceptorCheck, type RunContext, resolvePart } from './components.js';
import { assembleDocuments } from './document-assembly.js';
import { pictureImageEmbedder } from './image-assembly.js';
import { extractorRegistry, fetcherRegistry } from './registries.js';
import { describeFailure, SiteWatch, StorageWatch } from './run-watch.js';

/** The fetchers of one run: pages without following redirects, pictures and robots.txt/sitemaps following them. */
export interface RunFetchers {
  /** Pages: a 3xx is returned as it is (its target is dispatched as a url of its own); retried when retryable. */
  page: Extractor;
  /** Pictures, following redirects; retried when retryable. */
  image: Extractor;
  /** robots.txt and sitemaps follow redirects (an http → https move must not read as "no robots.txt"). */
  text: (url: string) => Promise<{ status: number; text: string }>;
  /** What the render memory did this run (the adaptive extractor); undefined for another extractor. */
  renderStats(): RenderMemoryStats | undefined;
  close(): Promise<void>;
}

/**
 * The fetcher the catalog names (or the component replacing it), with the retry and redirect policy of a crawl.
 * A catalog of a folder (a `file:` url) reads files: a FileExtractor bounded by the catalog's folder, whatever
 * fetcher and extractor it names (there is nothing to render).
 */
export function assembleFetchers(
  f: ComponentFactory,
  ctx: RunContext,
  site?: SiteWatch,
  pacer?: Pacer & Partial<PaceObserver>,
): RunFetchers {
  const s = ctx.catalog.settings;
  const files = isFileUrl(ctx.catalog.url);
  const connectionsPerOrigin = Math.max(s.hostConcurrency, 2);
  const dnsCache = files ? undefined : f.dnsCache();
  const createDefault = (): Extractor =>
    files
      ? new FileExtractor({
          maxBodyBytes: ctx.settings.maxBodyBytes,
          root: filePathOf(ctx.catalog.url),
          log: ctx.log.child({ component: 'file-extractor' }),
        })
      : fetcherRegistry.get(s.fetcher)({ ...ctx, connectionsPerOrigin, dnsCache, createDefault });
  const own = f.components.fetcher?.({ ...ctx, connectionsPerOrigin, dnsCache, createDefault }) ?? createDefault();
  const base = site ? site.extractor(own) : own;
  // Pages through the catalog's extractor (http, browser, adaptive), which owns the fetcher: its close closes both.
  const pages = files
    ? base
    : extractorRegistry.get(s.extractor)({ ...ctx, http: base, renderMemory: () => f.renderMemory(), pacer });
  // Every page request (each retry too) is timed into the node's fetch-latency histogram (MetricsService).
  const timings = fetchTimings(f);
  const page = timedExtractor(noRedirects(pages), (seconds) => timings.observe(ctx.catalog.name, seconds));
  // Each attempt's answer adapts its host's pace (a 429 halves it, Retry-After pauses the host, slow answers slow
  // it); a retry waits for the host's pace like a first request.
  const observer = pacer?.observe ? { observe: pacer.observe } : undefined;
  const observed = (e: Extractor) => (observer ? observedExtractor(e, observer) : e);
  const beforeRetry = pacer ? (url: string, signal?: AbortSignal) => pacer.pace(new URL(url).host, signal) : undefined;
  return {
    page: withRetry(observed(page), { retries: s.maxRetries, retryStatuses: [429, 500, 502, 503, 504], beforeRetry }),
    image: withRetry(observed(base), { retries: s.maxRetries, beforeRetry }),
    // Any type is read (a `sitemap.xml.gz` is a binary): gzipped files are inflated (textOf).
    text: async (url) => {
      const r = await base.fetch(url, { binary: true });
      return { status: r.status, text: r.status >= 200 && r.status < 300 ? textOf(r) : '' };
    },
    renderStats: () => (hasRenderStats(pages) ? pages.renderStats() : undefined),
    close: () => pages.close(),
  };
}

/** robots.txt of a run, read through `fetch`; undefined when the catalog ignores robots.txt or is a folder. */
export function assembleRobots(
  f: ComponentFactory,
  ctx: RunContext,
  fetch: (url: string) => Promise<{ status: number; text: string }>,
): HttpRobotsProvider | undefined {
  if (!ctx.catalog.settings.robots || isFileUrl(ctx.catalog.url)) return undefined;
  return new HttpRobotsProvider({ fetch, userAgent: f.settings.userAgent, logger: f.log });
}

/** The url check of a run, and its acceptors in the order they run (unknown when a component replaces the chain). */
export interface UrlCheck {
  check: AcceptorCheck;
  steps: readonly UrlPathAcceptor[] | undefined;
}

/**
 * The UrlPathAcceptor chain of a run: the component's, or the catalog's named acceptors; urls whose page was deleted
 * by hand from the version are refused in front of it.
 */
export function assembleUrlCheck(
  f: ComponentFactory,
  ctx: RunContext,
  parts: { robots: RobotsProvider | undefined; limits: RunLimits; deleted: ReadonlySet<string> },
): UrlCheck {
  const { catalog, version } = ctx;
  const { robots, limits, deleted } = parts;
  const own = f.components.acceptors?.({ ...ctx, robots, limits });
  if (own) return { check: refuseDeleted(own, deleted, version), steps: undefined };
  const names = catalog.settings.acceptors;
  const chain = createAcceptorChain({ catalog, robots, limits }, names.length > 0 ? names : undefined, {
    logger: f.log,
  });
  const steps = [...(deleted.size > 0 ? [deletedUrls(deleted, version)] : []), ...chain.acceptors];
  return { check: refuseDeleted(chain, deleted, version), steps };
}

/** The content extraction worker pool of a run; `inline` extracts on the calling thread (replay). */
export function openExtractPool(f: ComponentFactory, options: { inline?: boolean } = {}): ExtractPool {
  return new ExtractPool({ workers: options.inline ? 0 : f.settings.workers });
}

/** Content extraction as the catalog names it: built-in extractors on the worker pool, others on this thread. */
export function assembleExtract(
  f: ComponentFactory,
  catalog: Catalog,
  pool: ExtractPool,
): (html: string | Buffer, url: string, contentType?: string) => Promise<ExtractedContent> {
  const name = catalog.settings.contentExtractor;
  const own =
    f.components.contentExtractor ??
    (isBuiltInContentExtractor(name) ? undefined : contentExtractorRegistry.get(name)());
  const markdown = catalog.settings.markdownFiles;
  if (!own) return (html, url, contentType) => pool.extract(html, url, name, { contentType, markdown });
  return async (html, url, contentType) =>
    own.extract(typeof html === 'string' ? html : decodeBody(html, contentType).text, url);
}

/** Everything one crawl run is built from, and the order it is closed in. */
export interface CrawlParts {
  frontier: CrawlFrontier;
  deps: CrawlEngineDeps;
  outputs: CompositeOutputChannel;
  /** The index the run writes through (when the catalog has the index layer). */
  indexWriter: SearchIndex | undefined;
  vectors: VectorStore | undefined;
  vectorChannel: VectorOutputChannel | undefined;
  /** Which embedding model writes the vectors, for the start line. */
  embedding: string | undefined;
  /** Stop fetching and close the working state (fetchers, in-flight records, frontier); the outputs stay open. */
  closeWork(drained: boolean): Promise<void>;
  /** Close the writers living on the extraction worker's thread, then the pool. */
  closeWriters(): Promise<void>;
  /** What the site answered during the run (robots.txt and every fetch), to decide whether it earned a publish. */
  site: SiteWatch;
  /** The first write a store refused; the run stops at once when one does. */
  storage: StorageWatch;
  /** Removes the pages the site no longer has (gone when revisited, orphans deleted), and counts them. */
  removal: PageRemoval;
  /** The run's change set (added, changed, removed urls), fed by the output stage and the page removal. */
  changes: ChangeRecorder;
  /** What the render memory did this run (the adaptive extractor); undefined for another extractor. */
  renderStats(): RenderMemoryStats | undefined;
  /** One request of any type, its body as text (robots.txt, sitemaps, change feeds): no politeness of its own. */
  fetchText(url: string): Promise<{ status: number; text: string }>;
  /** A site's sitemap urls read ahead of the engine, which then takes that read (undefined: a folder). */
  peekSitemaps: CrawlEngineDeps['sitemaps'];
}

export interface CrawlAssemblyRequest {
  catalog: Catalog;
  version: number;
  action: CrawlAction;
  frontier: CrawlFrontier;
  coordinator?: ((frontier: CrawlFrontier) => CrawlCoordinator) | undefined;
}

/** Open the frontier of a catalog version: the component's, or LevelDB under system/frontier. */
export async function openFrontier(f: ComponentFactory, ctx: RunContext): Promise<CrawlFrontier> {
  if (f.components.frontier) return f.components.frontier(ctx);
  return LevelFrontier.open(f.layout.frontierDir(ctx.catalog.id, ctx.version));
}

/** Build every part of one crawl run from the factory, the catalog's names and the components given. */
export async function assembleCrawl(f: ComponentFactory, req: CrawlAssemblyRequest): Promise<CrawlParts> {
  const { catalog, version, action, frontier } = req;
  const ctx: RunContext = { settings: f.settings, layout: f.layout, log: f.log, catalog, version, action };
  const s = catalog.settings;
  const files = isFileUrl(catalog.url);
  const [db, urlFilter, contentDedup] = await Promise.all([
    f.database(),
    f.urlFilter(),
    f.contentDedup(s.contentDedup),
  ]);
  const site = new SiteWatch();
  const storage = new StorageWatch();
  // One object the acceptors read at each check, so a running job's depth limit can change (JobService).
  const limits: RunLimits = { depth: s.depth };
  // A rendered page's own requests are spaced by the run's politeness, built below (it reads robots.txt first).
  let politeness: (Politeness & Partial<Pacer & HostPaceControl>) | undefined;
  const pacer: Pacer & PaceObserver = {
    pace: async (host, signal) => politeness?.pace?.(host, signal),
    observe: (host, answer) => politeness?.observe?.(host, answer),
  };
  const fetchers = assembleFetchers(f, ctx, site, pacer);
  const robotsFetch = async (url: string) => {
    try {
      const r = await fetchers.text(url);
      site.robotsAnswered(url, { status: r.status });
      return r;
    } catch (err) {
      site.robotsAnswered(url, { failure: describeFailure(err) });
      throw err;
    }
  };
  const robots = assembleRobots(f, ctx, robotsFetch);
  const pool = openExtractPool(f);
  // Pages, pictures and index entries are written on the extraction worker's thread when the families can.
  const lent = pool.lendThread();
  const fileBlobs = f.blobs.openWriter?.({ thread: lent }) ?? f.blobs;
  const indexWriter = s.outputs.includes('index') ? f.indexWriter(lent) : undefined;
  const { channels, vectorChannel, vectors, embedding } = await assembleChannels(f, ctx, fileBlobs, indexWriter);
  const outputs = new CompositeOutputChannel(
    channels.map((c) => storage.channel(c)),
    f.log,
  );
  const deleted = new Set(await db.ledger.deletedUrlHashes(catalog.id, version));
  const documents = assembleDocuments(f, catalog);
  politeness = assemblePoliteness(f, ctx, robots);
  const inflight = new InflightStore(join(f.layout.system, 'inflight', catalog.id, `v${version}`));
  const sitemaps = files
    ? undefined
    : readAhead(
        async (siteUrl) => (await discoverSitemapUrls({ siteUrl, fetch: fetchers.text, robots, logger: f.log })).urls,
      );
  const changes = new ChangeRecorder();
  // The change set is journaled (write-ahead): a resumed run starts from the whole set of the run it continues.
  await changes.openJournal(frontier, action === 'resume');
  const removal = new PageRemoval({ stores: f, catalog, version, urlFilter, contentDedup, changes });
  const deps: CrawlEngineDeps = {
    catalog,
    version,
    action,
    settings: f.settings,
    frontier,
    coordinator:
      req.coordinator?.(frontier) ?? f.components.coordinator?.(frontier, ctx) ?? new LocalCrawlCoordinator(frontier),
    urlFilter,
    contentDedup,
    // Pages deleted by hand from this version (LedgerService.deleteUrl) are not queued again.
    acceptors: assembleUrlCheck(f, ctx, { robots, limits, deleted }).check,
    // Absent: the queue pipeline weighs the catalog's priorityWeights (frontier/prioritizer.ts).
    prioritizer: f.components.prioritizer ? resolvePart(f.components.prioritizer, ctx) : undefined,
    limits,
    // The start url, then the catalog's other start references (JobService.addSeeds stores them there).
    seeds: [catalog.startUrl, ...s.seedUrls],
    pageFetcher: fetchers.page,
    imageFetcher: fetchers.image,
    politeness,
    pictures: f.components.pictureRegistry?.(ctx),
    pageBudget: f.components.pageBudget?.(ctx),
    extract: assembleExtract(f, catalog, pool),
    normalize: files ? (raw, base) => normalizeUrl(raw, base, { file: true }) : (raw, base) => normalizeUrl(raw, base),
    outputs,
    records: db.resources,
    ledger: db.ledger,
    blobs: f.blobs,
    inflight,
    robots,
    // A folder has no sitemap. A site's read that the default change feed made first is the engine's (no second).
    sitemaps: sitemaps?.take,
    log: f.log,
    ...documents.deps,
    events: f.events,
    consumers: f.components.consumers,
    known: await knownUrlPolicy(frontier, action),
    resume: action === 'resume',
    onReplace: vectors
      ? async (previous) => void (await vectors.deleteResource(previous.catalogId, previous.version, previous.id))
      : undefined,
    // A held page that answers 404/410 when revisited leaves every layer, as an orphan deleted at the session's end.
    onGone: (previous) => removal.remove(previous, 'gone'),
    changes,
    now: f.components.recrawlClock,
  };
  return {
    frontier,
    deps,
    outputs,
    indexWriter,
    vectors,
    vectorChannel,
    embedding,
    site,
    storage,
    removal,
    changes,
    renderStats: () => fetchers.renderStats(),
    fetchText: fetchers.text,
    peekSitemaps: sitemaps?.peek,
    closeWork: async (drained) => {
      await fetchers.close();
      await inflight.close(drained);
      await frontier.close();
    },
    closeWriters: async () => {
      if (indexWriter && indexWriter !== f.index()) await indexWriter.close().catch(() => undefined);
      if (fileBlobs !== f.blobs) await fileBlobs.close().catch(() => undefined);
      await pool.close();
      await documents.close();
    },
  };
}

/** file → index → vector, then the component's extra channels. */
async function assembleChannels(
  f: ComponentFactory,
  ctx: RunContext,
  fileBlobs: BlobStore,
  indexWriter: SearchIndex | undefined,
): Promise<{
  channels: OutputChannel[];
  vectorChannel: VectorOutputChannel | undefined;
  vectors: VectorStore | undefined;
  embedding: string | undefined;
}> {
  const channels: OutputChannel[] = [new FileOutputChannel(fileBlobs)];
  if (indexWriter) channels.push(new IndexOutputChannel(indexWriter));
  let vectorChannel: VectorOutputChannel | undefined;
  let vectors: VectorStore | undefined;
  let embedding: string | undefined;
  if (ctx.catalog.settings.outputs.includes('vector')) {
    const client = await f.embedding();
    vectors = await f.vectors();
    embedding = client.describe();
    // Fetching never waits for the embedder: pages past the in-memory queue are embedded from their files.
    const images = await pictureImageEmbedder(f, ctx.catalog.settings);
    vectorChannel = vectorOutput(f, client, vectors, (page) => f.blobs.getText(page.resource.textPath), images);
    channels.push(vectorChannel);
  }
  channels.push(...(f.components.outputChannels?.(ctx) ?? []));
  return { channels, vectorChannel, vectors, embedding };
}

/**
 * The vector channel with the node's chunking settings (the crawl's and replay's alike); `images`: the image vectors
 * of a `text+image` catalog (image-assembly.ts).
 */
export function vectorOutput(
  f: ComponentFactory,
  client: Awaited<ReturnType<ComponentFactory['embedding']>>,
  vectors: VectorStore,
  loadText?: ConstructorParameters<typeof VectorOutputChannel>[2]['loadText'],
  images?: PictureImageEmbedder,
): VectorOutputChannel {
  const { chunkSize, chunkOverlap, maxChunks } = f.settings;
  // The pictures' meaning (and images) go beside their records in the index (pictures search fuses them).
  const index = f.index();
  const captions = index.upsertPictureVectors ? new PictureEmbedder(client, index as PictureVectorSink) : undefined;
  const pictures = allPictures([captions, images]);
  return new VectorOutputChannel(client, vectors, {
    ...(loadText ? { loadText } : {}),
    ...(pictures ? { pictures } : {}),
    chunk: (text) => chunkText(text, { chunkSize, overlap: chunkOverlap, maxChunks }),
    // Meaning search early needs the first chunk of every page first; without it, page by page.
    order: f.settings.searchEarly ? 'first-chunk' : 'page',
  });
}

/**
 * Per-host politeness of a run; robots.txt's Crawl-delay lengthens the interval of its host. The default also
 * paces a rendered page's own requests (`pace`) by the same interval, inside the slot the page holds. A replacement
 * (`components.politeness`) may wrap the default (a cluster's shares its hosts' budget between members).
 */
export function assemblePoliteness(
  f: ComponentFactory,
  ctx: RunContext,
  robots?: RobotsProvider,
): Politeness & Partial<Pacer & HostPaceControl> {
  const crawlDelayMs = async (host: string) =>
    robots ? await robots.crawlDelayMs(`http://${host}/`).catch(() => undefined) : undefined;
  const createDefault = () => defaultPoliteness(ctx, crawlDelayMs);
  return f.components.politeness?.({ ...ctx, createDefault, crawlDelayMs }) ?? createDefault();
}

function defaultPoliteness(
  ctx: RunContext,
  crawlDelayMs: (host: string) => Promise<number | undefined>,
): Politeness & Pacer & HostPaceControl & HostReadiness {
  const s = ctx.catalog.settings;
  // A folder's files are local: no interval, no adapted pace, and as many reads at once as the catalog has threads.
  const politeness = isFileUrl(ctx.catalog.url)
    ? new HostPoliteness({
        maxPerHost: Math.max(s.threads, s.hostConcurrency),
        minIntervalMs: 0,
        adaptive: false,
        pauses: false,
      })
    : new HostPoliteness({
        maxPerHost: s.hostConcurrency,
        minIntervalMs: s.intervalMs,
        burst: s.burst,
        adaptive: s.adaptivePace,
      });
  return {
    acquire: async (host) => {
      const delay = await crawlDelayMs(host);
      if (delay !== undefined) politeness.setCrawlDelay(host, delay);
      return politeness.acquire(host);
    },
    // The page's acquire above already read its host's Crawl-delay.
    pace: (host, signal) => politeness.pace(host, signal),
    observe: (host, answer) => politeness.observe(host, answer),
    paceFor: (host) => politeness.paceFor(host),
    rates: (): HostRate[] => politeness.rates(),
    // The back queues' view of the hosts (frontier/back-queues.ts).
    readyIn: (host) => politeness.readyIn(host),
    reserve: (host) => politeness.reserve(host),
    unreserve: (r) => politeness.unreserve(r),
    onFree: (listener) => politeness.onFree(listener),
  };
}

/** Pages are fetched without following redirects: a 3xx dispatches its target as a url of its own. */
function noRedirects(extractor: Extractor): Extractor {
  return {
    name: extractor.name,
    fetch: (url, options) => extractor.fetch(url, { ...options, maxRedirects: 0 }),
    close: () => extractor.close(),
  };
}

/**
 * A read that one caller can make ahead of the other (`peek`): the next `take` of the same key has its answer
 * instead of reading again, and forgets it. Without a peek, `take` reads.
 */
function readAhead<T>(read: (key: string) => Promise<T>): {
  peek(key: string): Promise<T>;
  take(key: string): Promise<T>;
} {
  const ahead = new Map<string, Promise<T>>();
  return {
    peek: (key) => {
      const r = ahead.get(key) ?? read(key);
      ahead.set(key, r);
      return r;
    },
    take: (key) => {
      const r = ahead.get(key);
      ahead.delete(key);
      return r ?? read(key);
    },
  };
}
