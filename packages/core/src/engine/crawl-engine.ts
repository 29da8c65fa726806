import type { Logger } from 'pino';
import type { Candidate, RobotsProvider, Verdict } from '../acceptors/acceptor.js';
import type { Settings } from '../config.js';
import type { ExtractedContent } from '../content/content-extractor.js';
import type { ContentDedupFilter, ExistingUrlPathFilter } from '../dedup/url-filter.js';
import { errorMessage, FetchError } from '../errors.js';
import type { Extractor, FetchResult } from '../fetch/extractor.js';
import type { CrawlFrontier, FrontierEntry, LeasedEntry } from '../frontier/frontier.js';
import { ids, sha256Hex, urlHash } from '../ids.js';
import { keys } from '../layout.js';
import type { Catalog, CrawlAction, ImageRow, ResourceImageRow, ResourceRow } from '../model.js';
import { Outcome } from '../outcomes.js';
import type { CompositeOutputChannel } from '../outputs/composite-output-channel.js';
import type { PageImage } from '../outputs/output-channel.js';
import type { ResourceRecordStore } from '../storage/record-store.js';
import { type CounterSnapshot, Counters } from './counters.js';
import type { CrawlCoordinator } from './crawl-coordinator.js';
import { imageExtension, probeImageSize } from './image-probe.js';

/** Per-host politeness: a slot to one host, released when the request is done. */
export interface Politeness {
  acquire(host: string): Promise<() => void>;
  setCrawlDelay?(host: string, ms: number): void;
}

export type EndReason =
  | 'frontier-drained'
  | 'max-pages'
  | 'duration'
  | 'interrupted'
  | 'consecutive-failures'
  | 'error';

/** Normal ends publish; an external stop or a run of failures does not. */
export const PUBLISHING_ENDS: ReadonlySet<EndReason> = new Set(['frontier-drained', 'max-pages', 'duration']);

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
  extract: (html: string, url: string) => Promise<ExtractedContent>;
  normalize: (raw: string, base?: string) => string | undefined;
  outputs: CompositeOutputChannel;
  records: ResourceRecordStore;
  robots?: RobotsProvider | undefined;
  /** Urls a sitemap lists for the start url (already fetched and parsed). */
  sitemapUrls?: (() => Promise<string[]>) | undefined;
  log: Logger;
  /** Counters to continue from (resume). */
  baseCounters?: Partial<CounterSnapshot> | undefined;
  /** Start urls to seed; by default the catalog's start url. Skipped when the frontier recovered entries. */
  seeds?: string[] | undefined;
  /** A refresh (merge) revisits known pages with conditional GET instead of dropping them as known. */
  refresh?: boolean | undefined;
}

export interface CrawlResult {
  reason: EndReason;
  published: boolean;
  fullyCrawled: boolean;
  counters: CounterSnapshot;
  outstanding: number;
  recovered: number;
  startedAt: Date;
  endedAt: Date;
  error?: string;
}

interface Completion {
  lease: LeasedEntry;
  hash: string;
  resource?: ResourceRow;
  images?: ImageRow[];
  links?: ResourceImageRow[];
}

const COMMIT_BATCH = 64;
const COMMIT_INTERVAL_MS = 200;

/**
 * The life of one page, for one catalog version: frontier.poll → ExistingUrlPathFilter → Extractor →
 * ContentExtractor → ContentDedupFilter → CompositeOutputChannel (file → index → vector) → new links to the
 * coordinator. Acceptors run when a link is offered, so the frontier holds only urls worth fetching; every url
 * dispatched is handled exactly once, under a named outcome.
 */
export class CrawlEngine {
  readonly counters: Counters;
  readonly #d: CrawlEngineDeps;
  readonly #log: Logger;
  #active = 0;
  #stopReason: EndReason | undefined;
  #wake: Array<() => void> = [];
  #pending: Completion[] = [];
  #commitTimer: NodeJS.Timeout | undefined;
  #committing: Promise<void> = Promise.resolve();
  #filteredSeen = new Set<string>();
  #imageByUrl = new Map<string, Promise<ImageRow | undefined>>();
  #imagesStored = new Set<string>();
  #fatal: unknown;
  #recovered = 0;

  constructor(deps: CrawlEngineDeps) {
    this.#d = deps;
    this.#log = deps.log.child({ component: 'engine', catalogId: deps.catalog.id, version: deps.version });
    this.counters = new Counters(Date.now(), deps.baseCounters);
  }

  /** Pages being handled right now. */
  get active(): number {
    return this.#active;
  }

  /** External stop: in-flight pages finish, the frontier is kept, nothing is published. */
  stop(reason: EndReason = 'interrupted'): void {
    if (!this.#stopReason) {
      this.#stopReason = reason;
      this.#log.info({ reason }, 'stopping');
    }
    this.#notify();
  }

  get stopping(): boolean {
    return this.#stopReason !== undefined;
  }

  async run(): Promise<CrawlResult> {
    const startedAt = new Date();
    const d = this.#d;
    const s = d.catalog.settings;
    this.#recovered = await d.frontier.recover();
    if (this.#recovered === 0 && (await d.frontier.size()) === 0) await this.#seed();
    else this.#log.info({ recovered: this.#recovered }, 'continuing from the frontier');

    const durationTimer = setTimeout(() => this.stop('duration'), s.durationMinutes * 60_000);
    durationTimer.unref();
    const workers = Array.from({ length: s.threads }, (_, i) => this.#worker(i));
    await Promise.all(workers);
    clearTimeout(durationTimer);
    await this.#commit();
    await d.outputs.flush();
    this.counters.indexed = d.outputs.stats().index?.written ?? 0;
    this.counters.vectored = d.outputs.stats().vector?.written ?? 0;

    const reason: EndReason = this.#fatal ? 'error' : (this.#stopReason ?? 'frontier-drained');
    const outstanding = (await d.frontier.size()) + d.frontier.inFlight();
    return {
      reason,
      published: PUBLISHING_ENDS.has(reason),
      fullyCrawled: reason === 'frontier-drained' && outstanding === 0,
      counters: this.counters.snapshot(),
      outstanding,
      recovered: this.#recovered,
      startedAt,
      endedAt: new Date(),
      ...(this.#fatal ? { error: errorMessage(this.#fatal) } : {}),
    };
  }

  async #seed(): Promise<void> {
    const d = this.#d;
    const seeds = d.seeds ?? [d.catalog.startUrl];
    await this.offer(seeds, 0, undefined, -1);
    if (d.catalog.settings.sitemap && d.sitemapUrls) {
      try {
        const urls = await d.sitemapUrls();
        if (urls.length > 0) this.#log.info({ urls: urls.length }, 'sitemap urls offered');
        await this.offer(urls, 1, undefined, 1);
      } catch (err) {
        this.#log.warn({ err }, 'sitemap could not be read; crawling from the start url only');
      }
    }
  }

  /**
   * Offer urls found at `depth - 1` (the queue pipeline): normalise, collapse repeats within the run, run the
   * acceptors, dispatch the accepted ones. A url refused by an acceptor is dispatched and handled at once.
   */
  async offer(rawUrls: string[], depth: number, referrer: string | undefined, priority = 0): Promise<void> {
    const d = this.#d;
    const unique = new Set<string>();
    for (const raw of rawUrls) {
      const url = d.normalize(raw, referrer);
      if (url) unique.add(url);
    }
    const accepted: FrontierEntry[] = [];
    for (const url of unique) {
      if (this.#filteredSeen.has(url)) continue;
      const verdict = await d.acceptors.check({ url, depth, referrer });
      if (verdict.accept) {
        accepted.push({ url, depth, referrer, priority: priority < 0 ? 0 : priority + Math.min(depth, 100) });
      } else {
        if (this.#filteredSeen.size < 1_000_000) this.#filteredSeen.add(url);
        this.counters.dispatched++;
        this.counters.handle(verdict.outcome as Outcome, verdict.acceptor, `${url}: ${verdict.reason}`);
      }
    }
    if (accepted.length === 0) return;
    const enqueued = await d.coordinator.dispatch(accepted);
    for (const e of enqueued) if (e) this.counters.dispatched++;
    this.#notify();
  }

  #notify(): void {
    const waiters = this.#wake;
    this.#wake = [];
    for (const w of waiters) w();
  }

  #idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.#wake.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  async #worker(n: number): Promise<void> {
    const d = this.#d;
    const deadline = Date.now() + d.catalog.settings.durationMinutes * 60_000 + 60_000;
    while (!this.#stopReason && Date.now() < deadline) {
      if (this.counters.saved >= d.catalog.settings.maxPages) {
        this.stop('max-pages');
        break;
      }
      const entry = await d.frontier.poll();
      if (!entry) {
        if (await d.coordinator.isFinished({ active: this.#active })) {
          this.#notify();
          break;
        }
        await this.#idle(n === 0 ? 50 : 200);
        continue;
      }
      this.#active++;
      try {
        await this.#handle(entry);
      } catch (err) {
        this.#fatal ??= err;
        this.#log.error({ err, url: entry.url }, 'unexpected failure; stopping');
        this.stop('error');
      } finally {
        this.#active--;
        this.#notify();
      }
      if (this.counters.consecutiveFailures >= d.catalog.settings.maxConsecutiveFailures) {
        this.stop('consecutive-failures');
      }
    }
  }

  #done(c: Completion, outcome: Outcome, detail?: string, why?: string): void {
    this.counters.handle(outcome, detail, `${c.lease.url}${why ? `: ${why}` : ''}`);
    this.#pending.push(c);
    if (this.#pending.length >= COMMIT_BATCH) void this.#commit();
    else if (!this.#commitTimer) {
      this.#commitTimer = setTimeout(() => void this.#commit(), COMMIT_INTERVAL_MS);
    }
  }

  /** Rows first, then mark the urls known, then ack the leases: a crash between steps redoes, never loses. */
  #commit(): Promise<void> {
    if (this.#commitTimer) {
      clearTimeout(this.#commitTimer);
      this.#commitTimer = undefined;
    }
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 0) return this.#committing;
    const d = this.#d;
    this.#committing = this.#committing.then(async () => {
      try {
        const resources = batch.flatMap((c) => (c.resource ? [c.resource] : []));
        const images = batch.flatMap((c) => c.images ?? []);
        const links = batch.flatMap((c) => c.links ?? []);
        if (resources.length > 0) await d.records.saveResources(resources);
        if (images.length > 0) await d.records.saveImages(images);
        if (links.length > 0) await d.records.saveResourceImages(links);
        await d.urlFilter.markAll(
          d.catalog.id,
          d.version,
          batch.map((c) => c.hash),
        );
        for (const c of batch) await d.frontier.ack(c.lease);
      } catch (err) {
        this.#fatal ??= err;
        this.#log.error({ err }, 'cannot record crawled pages; stopping');
        this.stop('error');
      }
    });
    return this.#committing;
  }

  async #handle(entry: LeasedEntry): Promise<void> {
    const d = this.#d;
    const hash = urlHash(entry.url);
    const completion: Completion = { lease: entry, hash };
    if (this.counters.saved >= d.catalog.settings.maxPages) {
      this.counters.abandon();
      return; // the lease stays: the url is still outstanding for a later run
    }
    const known = await d.urlFilter.has(d.catalog.id, d.version, hash);
    let previous: ResourceRow | undefined;
    if (known) {
      if (!d.refresh) return this.#done(completion, Outcome.REJECTED_KNOWN);
      previous = await d.records.findResourceByUrlHash(d.catalog.id, d.version, hash);
    }

    let result: FetchResult;
    try {
      result = await this.#fetch(d.pageFetcher, entry.url, {
        etag: previous?.etag,
        lastModified: previous?.lastModified,
      });
    } catch (err) {
      const outcome =
        err instanceof FetchError && /too large/i.test(err.message)
          ? Outcome.REJECTED_TOO_LARGE
          : Outcome.REJECTED_UNREACHABLE;
      this.#log.debug({ url: entry.url, err: errorMessage(err) }, 'fetch failed');
      return this.#done(completion, outcome, undefined, errorMessage(err));
    }

    if (result.status >= 300 && result.status < 400 && result.status !== 304) {
      const location = result.headers.location;
      if (location) await this.offer([location], entry.depth, entry.url, -1);
      return this.#done(
        completion,
        Outcome.REJECTED_REDIRECT,
        undefined,
        `HTTP ${result.status} to ${location ?? '(no Location)'}`,
      );
    }
    if (result.status === 304) return this.#done(completion, Outcome.REJECTED_UNMODIFIED);
    if (result.status === 404 || result.status === 410) {
      return this.#done(completion, Outcome.REJECTED_NOTFOUND, undefined, `HTTP ${result.status}`);
    }
    if (result.status >= 400)
      return this.#done(completion, Outcome.REJECTED_BAD_STATUS, String(result.status), `HTTP ${result.status}`);
    if (!isMarkup(result.contentType) || result.text === undefined) {
      return this.#done(completion, Outcome.REJECTED_NOT_MARKUP, result.contentType.split(';')[0] || 'unknown');
    }

    const content = await d.extract(result.text, entry.url);
    if (!content.robots.nofollow) {
      await this.offer(
        content.links.map((l) => l.url),
        entry.depth + 1,
        entry.url,
      );
    }
    if (content.robots.noindex) return this.#done(completion, Outcome.REJECTED_ROBOTS_META_NOINDEX);

    const resourceId = ids.resource(d.catalog.id, d.version, hash);
    const textHash = sha256Hex(content.text);
    if (previous && previous.contentHash === textHash) return this.#done(completion, Outcome.REJECTED_UNMODIFIED);
    const holder = await d.contentDedup.checkAndRecord(d.catalog.id, d.version, content.text, resourceId);
    if (holder !== undefined && holder !== resourceId) {
      return this.#done(completion, Outcome.REJECTED_DUPLICATE, undefined, `same content as resource ${holder}`);
    }

    if (this.counters.saved >= d.catalog.settings.maxPages) {
      this.counters.abandon();
      return;
    }
    const images = d.catalog.settings.images ? await this.#images(content, entry.url) : [];
    const now = new Date().toISOString();
    const resource: ResourceRow = {
      id: resourceId,
      catalogId: d.catalog.id,
      version: d.version,
      url: entry.url,
      urlHash: hash,
      title: content.title || entry.url,
      contentType: result.contentType,
      charset: result.charset,
      status: result.status,
      depth: entry.depth,
      contentHash: textHash,
      etag: result.etag,
      lastModified: result.lastModified,
      htmlPath: keys.pageHtml(d.catalog.id, d.version, resourceId),
      textPath: keys.pageText(d.catalog.id, d.version, resourceId),
      htmlBytes: result.body.length,
      textChars: content.text.length,
      linkDensity: content.linkDensity,
      fetchedAt: now,
    };
    try {
      await d.outputs.write({
        catalog: d.catalog,
        version: d.version,
        resource,
        html: result.body,
        text: content.text,
        images,
      });
    } catch (err) {
      this.#log.warn({ err, url: entry.url }, 'page not saved');
      return this.#done(completion, Outcome.REJECTED_ERROR, 'file');
    }
    completion.resource = resource;
    completion.images = images.filter((i) => i.bytes).map((i) => i.row);
    completion.links = images.map((i) => ({
      id: ids.resourceImage(d.catalog.id, d.version, resourceId, i.row.id),
      catalogId: d.catalog.id,
      version: d.version,
      resourceId,
      imageId: i.row.id,
      alt: i.alt,
      surroundingText: i.surroundingText,
    }));
    this.#done(completion, Outcome.SAVED);
  }

  async #fetch(
    fetcher: Extractor,
    url: string,
    options: { etag?: string | null | undefined; lastModified?: string | null | undefined; binary?: boolean },
  ): Promise<FetchResult> {
    const host = new URL(url).host;
    const release = await this.#d.politeness.acquire(host);
    try {
      return await fetcher.fetch(url, options);
    } finally {
      release();
    }
  }

  /** Pictures of one page: fetched once per run, stored once per version by content hash. */
  async #images(content: ExtractedContent, pageUrl: string): Promise<PageImage[]> {
    const d = this.#d;
    const min = d.settings.imageMinSize;
    const out: PageImage[] = [];
    const seenOnPage = new Set<string>();
    for (const ref of content.images.slice(0, d.settings.imagesPerPage)) {
      if (ref.width !== undefined && ref.height !== undefined && (ref.width < min || ref.height < min)) continue;
      const url = d.normalize(ref.url, pageUrl);
      if (!url) continue;
      let known = this.#imageByUrl.get(url);
      let fresh: PageImage | undefined;
      if (known === undefined) {
        // Pages handled at the same time share one fetch of a picture they both show.
        const fetching = this.#fetchImage(url, ref.alt, ref.surroundingText);
        known = fetching.then((img) => img?.row);
        if (this.#imageByUrl.size < 200_000) this.#imageByUrl.set(url, known);
        fresh = await fetching;
      }
      const row = await known;
      if (row === undefined || seenOnPage.has(row.id)) continue;
      seenOnPage.add(row.id);
      out.push(fresh ?? { row, alt: ref.alt, surroundingText: ref.surroundingText });
    }
    return out;
  }

  async #fetchImage(url: string, alt: string, surroundingText: string): Promise<PageImage | undefined> {
    const d = this.#d;
    let result: FetchResult;
    try {
      result = await this.#fetch(d.imageFetcher, url, { binary: true });
    } catch (err) {
      this.#log.debug({ url, err: errorMessage(err) }, 'image fetch failed');
      return undefined;
    }
    if (result.status !== 200 || result.body.length === 0 || result.body.length > d.settings.imageMaxBytes)
      return undefined;
    const type = result.contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    const probe = probeImageSize(result.body);
    if (!type.startsWith('image/') && !probe) return undefined;
    const min = d.settings.imageMinSize;
    if (probe && (probe.width < min || probe.height < min)) return undefined;
    const contentHash = sha256Hex(result.body);
    const id = ids.image(d.catalog.id, d.version, contentHash);
    const row: ImageRow = {
      id,
      catalogId: d.catalog.id,
      version: d.version,
      url,
      contentHash,
      contentType: type || `image/${probe?.ext ?? 'unknown'}`,
      path: keys.image(d.catalog.id, d.version, id, imageExtension(type, url, probe?.ext)),
      bytes: result.body.length,
      width: probe?.width ?? null,
      height: probe?.height ?? null,
      createdAt: new Date().toISOString(),
    };
    if (this.#imagesStored.has(id)) return { row, alt, surroundingText };
    this.#imagesStored.add(id);
    this.counters.images++;
    return { row, alt, surroundingText, bytes: result.body };
  }
}

function isMarkup(contentType: string): boolean {
  const t = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return t === 'text/html' || t === 'application/xhtml+xml' || t === '';
}
