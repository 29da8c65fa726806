import type { Logger } from 'pino';
import type { Candidate, RobotsProvider, Verdict } from '../acceptors/acceptor.js';
import type { Settings } from '../config.js';
import type { ExtractedContent } from '../content/content-extractor.js';
import type { ContentDedupFilter, ExistingUrlPathFilter } from '../dedup/url-filter.js';
import { errorMessage, FetchError } from '../errors.js';
import type { Extractor, FetchOptions, FetchResult } from '../fetch/extractor.js';
import type { CrawlFrontier, FrontierEntry, LeasedEntry } from '../frontier/frontier.js';
import { ids, sha256Hex, urlHash } from '../ids.js';
import { keys } from '../layout.js';
import type { Catalog, CrawlAction, ImageRow, OutputLayer, ResourceImageRow, ResourceRow } from '../model.js';
import { Outcome } from '../outcomes.js';
import type { CompositeOutputChannel } from '../outputs/composite-output-channel.js';
import type { PageImage } from '../outputs/output-channel.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { ResourceRecordStore } from '../storage/record-store.js';
import { type CounterSnapshot, Counters } from './counters.js';
import type { CrawlCoordinator } from './crawl-coordinator.js';
import { imageExtension, probeImageSize } from './image-probe.js';
import type { InflightStore } from './inflight-store.js';

/** Per-host politeness: a slot to one host, released when the request is done. */
export interface Politeness {
  acquire(host: string): Promise<() => void>;
}

export type EndReason =
  | 'frontier-drained'
  | 'max-pages'
  | 'duration'
  | 'interrupted'
  | 'consecutive-failures'
  | 'error';

/** Normal ends publish; an external stop, a run of failures or an error does not. */
export const PUBLISHING_ENDS: ReadonlySet<EndReason> = new Set(['frontier-drained', 'max-pages', 'duration']);

/**
 * What a run does with urls already known in this version:
 * - `crawl`/`update`: not fetched again; their stored html is read to follow its links, so only new urls are fetched;
 * - `merge`: pages held are fetched again with a conditional GET and rewritten (same id) only when changed.
 */
export type KnownUrlPolicy = 'follow-stored' | 'revisit';

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
  blobs: BlobStore;
  inflight: InflightStore;
  robots?: RobotsProvider | undefined;
  /** Urls a sitemap lists for the start url (already fetched and parsed). */
  sitemapUrls?: (() => Promise<string[]>) | undefined;
  log: Logger;
  /** Start urls to seed; by default the catalog's start url. Skipped when the frontier holds entries. */
  seeds?: string[] | undefined;
  /** @default 'follow-stored' */
  known?: KnownUrlPolicy | undefined;
  /** Continue the interrupted run: keep "queued during this run" and its counters. */
  resume?: boolean | undefined;
  /** Told of every page rewritten in place (merge), before its new version is written. */
  onReplace?: ((resource: ResourceRow) => Promise<void>) | undefined;
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
  /** Wall milliseconds spent per stage, summed over concurrent pages. */
  stages: Record<string, number>;
  error?: string;
}

/** Links a page offers: the accepted ones go to the frontier at commit; refused ones are counted there. */
interface Offer {
  accepted: FrontierEntry[];
  refused: Array<{ url: string; outcome: Outcome; acceptor: string; reason: string }>;
}

/** Everything a handled url changes, committed together so a crash keeps all of it or none. */
interface Completion {
  lease?: LeasedEntry;
  hash?: string;
  outcome?: Outcome;
  detail?: string;
  why?: string;
  offer?: Offer;
  resource?: ResourceRow;
  images?: ImageRow[];
  links?: ResourceImageRow[];
  newImages?: number;
}

const COMMIT_BATCH = 64;
const COMMIT_INTERVAL_MS = 200;
const STAGES = ['fetch', 'extract', 'dedup', 'images', 'output', 'commit'] as const;

/**
 * The life of one page, for one catalog version: frontier.poll → ExistingUrlPathFilter → Extractor →
 * ContentExtractor → ContentDedupFilter → CompositeOutputChannel (file → index → vector) → new links to the
 * coordinator. Acceptors run when a link is offered, so the frontier holds only urls worth fetching. A page's
 * effects — its outcome, its counters, the links it offers, its lease — are committed in one frontier batch:
 * every url dispatched is handled exactly once, under a named outcome, even across a crash.
 */
export class CrawlEngine {
  readonly counters: Counters;
  readonly #d: CrawlEngineDeps;
  readonly #log: Logger;
  readonly #stages: Record<string, number> = Object.fromEntries(STAGES.map((s) => [s, 0]));
  #active = 0;
  /** Pages saved or about to be: the limit is checked against it, so in-flight pages cannot overshoot. */
  #reserved = 0;
  #stopReason: EndReason | undefined;
  #wake: Array<() => void> = [];
  #pending: Completion[] = [];
  #commitTimer: NodeJS.Timeout | undefined;
  #committing: Promise<void> = Promise.resolve();
  #refusedSeen = new Set<string>();
  /**
   * Urls offered during this run (accepted ones): a cache in front of the frontier's own "queued during this run",
   * so a link that appears on every page (navigation) costs one Set lookup instead of acceptors and a store read.
   */
  #offeredSeen = new Set<string>();
  #imageByUrl = new Map<string, Promise<ImageRow | undefined>>();
  #imagesStored = new Set<string>();
  #fatal: unknown;
  #recovered = 0;
  /** Saved pages whose index or vector write is still owed, by resource id. */
  #owed = new Map<
    string,
    { pending: Set<OutputLayer>; committed: boolean; early: Array<{ layer: OutputLayer; ok: boolean }> }
  >();
  /** Layers that reported a committed page durable since the last commit. */
  #durable: Array<{ layer: OutputLayer; id: string; ok: boolean }> = [];

  constructor(deps: CrawlEngineDeps) {
    this.#d = deps;
    this.#log = deps.log.child({ component: 'engine', catalogId: deps.catalog.id, version: deps.version });
    this.counters = new Counters(Date.now());
    deps.outputs.onDurable((layer, id, ok) => this.#onDurable(layer, id, ok));
  }

  /**
   * A later-writing layer made a page durable. Before the page is committed, the commit counts it directly;
   * after, the next commit clears the page's journal entry and counts it — in the same write as the counters.
   */
  #onDurable(layer: OutputLayer, id: string, ok: boolean): void {
    const owed = this.#owed.get(id);
    if (owed && !owed.committed) owed.early.push({ layer, ok });
    else {
      this.#durable.push({ layer, id, ok });
      if (!this.#commitTimer && this.#pending.length === 0)
        this.#commitTimer = setTimeout(() => void this.#commit(), COMMIT_INTERVAL_MS);
    }
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

  async run(): Promise<CrawlResult> {
    const startedAt = new Date();
    const d = this.#d;
    const s = d.catalog.settings;
    this.#recovered = await d.frontier.recover({ keepRun: d.resume === true });
    await this.#knownImages();
    if (d.resume) await this.#resumeState();
    await this.#repairOwed();
    this.#reserved = this.counters.saved;
    if (!d.resume && (await d.frontier.size()) === 0) await this.#seed();
    else
      this.#log.info({ recovered: this.#recovered, queued: await d.frontier.size() }, 'continuing from the frontier');

    const durationTimer = setTimeout(() => this.stop('duration'), s.durationMinutes * 60_000);
    durationTimer.unref();
    await Promise.all(Array.from({ length: s.threads }, (_, i) => this.#worker(i)));
    clearTimeout(durationTimer);
    await this.#commit();
    await this.#committing;
    await d.outputs.flush();
    await this.#commit();
    await this.#committing;

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
      stages: Object.fromEntries(Object.entries(this.#stages).map(([k, v]) => [k, Math.round(v)])),
      ...(this.#fatal ? { error: errorMessage(this.#fatal) } : {}),
    };
  }

  /** A resumed run continues its counters and re-marks the urls it handled (the mark may not have landed). */
  async #resumeState(): Promise<void> {
    const d = this.#d;
    const saved = await d.frontier.checkpoint();
    if (saved) this.counters.restore(JSON.parse(saved) as Partial<CounterSnapshot>);
    for await (const hashes of d.frontier.doneUrlHashes()) await d.urlFilter.markAll(d.catalog.id, d.version, hashes);
    for await (const [key] of d.frontier.journal('refused:')) {
      if (this.#refusedSeen.size >= 1_000_000) break;
      this.#refusedSeen.add(key.slice('refused:'.length));
    }
  }

  /** Pictures this version already holds: a page showing one again links it without fetching it. */
  async #knownImages(): Promise<void> {
    const d = this.#d;
    for await (const rows of d.records.iterateImages(d.catalog.id, d.version)) {
      for (const row of rows) {
        if (this.#imageByUrl.size >= 200_000) return;
        this.#imageByUrl.set(row.url, Promise.resolve(row));
        this.#imagesStored.add(row.id);
      }
    }
  }

  /** Index and vector writes a killed run still owed (its journal), written again from the files. */
  async #repairOwed(): Promise<void> {
    const d = this.#d;
    const owed = new Map<string, Set<OutputLayer>>();
    for (const layer of d.outputs.deferredLayers) {
      for await (const [key] of d.frontier.journal(`${layer}:`)) {
        const id = key.slice(layer.length + 1);
        owed.set(id, (owed.get(id) ?? new Set()).add(layer));
      }
    }
    for (const [id, layers] of owed) {
      const resource = await d.records.getResource(id);
      const text = resource ? await d.blobs.getText(resource.textPath) : undefined;
      if (!resource || text === undefined) {
        for (const layer of layers) this.#durable.push({ layer, id, ok: false });
        continue;
      }
      const images = (await d.records.imagesOfResource(id)).map(({ alt, surroundingText, ...row }) => ({
        row,
        alt,
        surroundingText,
      }));
      this.#owed.set(id, { pending: new Set(layers), committed: true, early: [] });
      const page = { catalog: d.catalog, version: d.version, resource, text, images };
      for (const layer of layers) await d.outputs.channel(layer)?.write(page);
    }
    if (owed.size > 0)
      this.#log.info({ pages: owed.size }, 'writing index and vector entries the interrupted run owed');
  }

  async #seed(): Promise<void> {
    const d = this.#d;
    const seeds = d.seeds ?? [d.catalog.startUrl];
    const offer = await this.#evaluate(seeds, 0, undefined, -1);
    if (d.catalog.settings.sitemap && d.sitemapUrls) {
      try {
        const urls = await d.sitemapUrls();
        if (urls.length > 0) this.#log.info({ urls: urls.length }, 'sitemap urls offered');
        const more = await this.#evaluate(urls, 1, undefined, 1);
        offer.accepted.push(...more.accepted);
        offer.refused.push(...more.refused);
      } catch (err) {
        this.#log.warn({ err }, 'sitemap could not be read; crawling from the start url only');
      }
    }
    this.#pending.push({ offer });
    await this.#commit();
    await this.#committing;
  }

  /**
   * The queue pipeline for links found at `depth`: normalise (unless the content extractor already did), collapse
   * repeats, run the acceptors.
   */
  async #evaluate(
    rawUrls: string[],
    depth: number,
    referrer: string | undefined,
    priority = 0,
    normalized = false,
  ): Promise<Offer> {
    const d = this.#d;
    const unique = new Set<string>();
    for (const raw of rawUrls) {
      const url = normalized ? raw : d.normalize(raw, referrer);
      if (url && !this.#offeredSeen.has(url) && !this.#refusedSeen.has(url)) unique.add(url);
    }
    const offer: Offer = { accepted: [], refused: [] };
    for (const url of unique) {
      const verdict = await d.acceptors.check({ url, depth, referrer });
      if (verdict.accept) {
        if (this.#offeredSeen.size < 2_000_000) this.#offeredSeen.add(url);
        offer.accepted.push({ url, depth, referrer, priority: priority < 0 ? 0 : priority + Math.min(depth, 100) });
      } else {
        offer.refused.push({
          url,
          outcome: verdict.outcome as Outcome,
          acceptor: verdict.acceptor,
          reason: verdict.reason,
        });
      }
    }
    return offer;
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
      if (this.#reserved >= d.catalog.settings.maxPages) {
        this.stop('max-pages');
        break;
      }
      const entry = await d.frontier.poll();
      if (!entry) {
        if (this.#pending.length === 0 && (await d.coordinator.isFinished({ active: this.#active }))) {
          await this.#committing;
          if ((await d.frontier.size()) === 0 && this.#active === 0 && this.#pending.length === 0) {
            this.#notify();
            break;
          }
        }
        if (this.#pending.length > 0) void this.#commit();
        await this.#idle(n === 0 ? 50 : 200);
        continue;
      }
      this.#active++;
      try {
        const c = await this.#handle(entry);
        if (c) this.#queue(c);
      } catch (err) {
        this.#fatal ??= err;
        this.#log.error({ err, url: entry.url }, 'unexpected failure; stopping');
        this.stop('error');
      } finally {
        this.#active--;
        this.#notify();
      }
      if (this.counters.consecutiveFailures >= d.catalog.settings.maxConsecutiveFailures)
        this.stop('consecutive-failures');
    }
  }

  #queue(c: Completion): void {
    this.#pending.push(c);
    if (this.#pending.length >= COMMIT_BATCH) void this.#commit();
    else if (!this.#commitTimer) this.#commitTimer = setTimeout(() => void this.#commit(), COMMIT_INTERVAL_MS);
  }

  /**
   * The committer: rows first; then one frontier batch holding the offered links, the acks and the counters
   * (the checkpoint a resume continues from); then the urls are marked known and the write-ahead records
   * dropped. A crash between steps redoes a step — ids are deterministic — and never loses one.
   */
  #commit(): Promise<void> {
    if (this.#commitTimer) {
      clearTimeout(this.#commitTimer);
      this.#commitTimer = undefined;
    }
    const batch = this.#pending;
    this.#pending = [];
    const durable = this.#durable;
    this.#durable = [];
    if (batch.length === 0 && durable.length === 0) return this.#committing;
    const d = this.#d;
    this.#committing = this.#committing.then(async () => {
      const started = performance.now();
      try {
        const resources = batch.flatMap((c) => (c.resource ? [c.resource] : []));
        const images = batch.flatMap((c) => c.images ?? []);
        const links = batch.flatMap((c) => c.links ?? []);
        if (resources.length > 0) await d.records.saveResources(resources);
        if (images.length > 0) await d.records.saveImages(images);
        if (links.length > 0) await d.records.saveResourceImages(links);

        const puts: FrontierEntry[] = [];
        const refused: Offer['refused'] = [];
        for (const c of batch) {
          for (const e of c.offer?.accepted ?? []) puts.push(e);
          for (const r of c.offer?.refused ?? []) {
            if (this.#refusedSeen.has(r.url)) continue;
            if (this.#refusedSeen.size < 1_000_000) this.#refusedSeen.add(r.url);
            refused.push(r);
          }
        }
        const journal = { put: [] as Array<[string, string]>, del: [] as string[] };
        // Refused urls are counted once per run; a resumed run reads them back from the journal.
        for (const r of refused) journal.put.push([`refused:${r.url}`, '']);
        const leases = batch.flatMap((c) => (c.lease ? [c.lease] : []));
        const written: Array<{ layer: OutputLayer; ok: boolean }> = [];
        for (const c of batch) {
          const owed = c.resource ? this.#owed.get(c.resource.id) : undefined;
          if (!owed || !c.resource) continue;
          for (const e of owed.early) {
            owed.pending.delete(e.layer);
            written.push(e);
          }
          owed.committed = true;
          for (const layer of owed.pending) journal.put.push([`${layer}:${c.resource.id}`, '']);
          if (owed.pending.size === 0) this.#owed.delete(c.resource.id);
        }
        for (const e of durable) {
          journal.del.push(`${e.layer}:${e.id}`);
          written.push(e);
          const owed = this.#owed.get(e.id);
          owed?.pending.delete(e.layer);
          if (owed && owed.pending.size === 0) this.#owed.delete(e.id);
        }
        await d.coordinator.dispatch(puts, {
          acks: leases,
          journal,
          checkpoint: (enqueued) => {
            for (const w of written) {
              if (!w.ok) continue;
              if (w.layer === 'index') this.counters.indexed++;
              if (w.layer === 'vector') this.counters.vectored++;
            }
            for (const e of enqueued) if (e) this.counters.dispatched++;
            for (const r of refused) {
              this.counters.dispatched++;
              this.counters.handle(r.outcome, r.acceptor, `${r.url}: ${r.reason}`);
            }
            for (const c of batch) {
              if (c.outcome)
                this.counters.handle(c.outcome, c.detail, `${c.lease?.url ?? ''}${c.why ? `: ${c.why}` : ''}`);
              this.counters.images += c.newImages ?? 0;
            }
            return JSON.stringify(this.counters.snapshot());
          },
        });
        const hashes = batch.flatMap((c) => (c.hash && c.lease ? [c.hash] : []));
        if (hashes.length > 0) await d.urlFilter.markAll(d.catalog.id, d.version, hashes);
      } catch (err) {
        this.#fatal ??= err;
        this.#log.error({ err }, 'cannot record crawled pages; stopping');
        this.stop('error');
      } finally {
        this.#stages.commit = (this.#stages.commit ?? 0) + performance.now() - started;
        this.#notify();
      }
    });
    return this.#committing;
  }

  #time<T>(stage: (typeof STAGES)[number], work: Promise<T>): Promise<T> {
    const started = performance.now();
    return work.finally(() => {
      this.#stages[stage] = (this.#stages[stage] ?? 0) + performance.now() - started;
    });
  }

  /** Handle one url; undefined = abandoned (the limit was reached while it waited: its lease stays). */
  async #handle(entry: LeasedEntry): Promise<Completion | undefined> {
    const d = this.#d;
    const hash = urlHash(entry.url);
    const c: Completion = { lease: entry, hash };
    const done = (outcome: Outcome, detail?: string, why?: string): Completion =>
      Object.assign(c, { outcome, detail, why });
    if (this.#reserved >= d.catalog.settings.maxPages) return this.#abandon();

    let previous: ResourceRow | undefined;
    if (await d.urlFilter.has(d.catalog.id, d.version, hash)) {
      previous = await d.records.findResourceByUrlHash(d.catalog.id, d.version, hash);
      if (d.known !== 'revisit' || !previous) {
        if (previous) c.offer = await this.#storedLinks(previous, entry);
        return done(Outcome.REJECTED_KNOWN);
      }
    }

    let result: FetchResult;
    const recorded = await d.inflight.load(hash);
    if (recorded) {
      result = { ...recorded, text: undefined };
    } else {
      try {
        result = await this.#time(
          'fetch',
          this.#fetch(d.pageFetcher, entry.url, {
            etag: previous?.etag,
            lastModified: previous?.lastModified,
            // Bytes go to the extraction worker, which decodes them: no decode and no string copy on this thread.
            decode: false,
          }),
        );
      } catch (err) {
        const outcome =
          err instanceof FetchError && /too large/i.test(err.message)
            ? Outcome.REJECTED_TOO_LARGE
            : Outcome.REJECTED_UNREACHABLE;
        return done(outcome, undefined, errorMessage(err));
      }
      await d.inflight.save(hash, result);
    }

    if (result.status >= 300 && result.status < 400 && result.status !== 304) {
      const location = result.headers.location;
      if (location) c.offer = await this.#evaluate([location], entry.depth, entry.url, -1);
      return done(Outcome.REJECTED_REDIRECT, undefined, `HTTP ${result.status} to ${location ?? '(no Location)'}`);
    }
    if (result.status === 304) {
      if (previous) c.offer = await this.#storedLinks(previous, entry);
      return done(Outcome.REJECTED_UNMODIFIED, undefined, 'HTTP 304');
    }
    if (result.status === 404 || result.status === 410)
      return done(Outcome.REJECTED_NOTFOUND, undefined, `HTTP ${result.status}`);
    if (result.status >= 400) return done(Outcome.REJECTED_BAD_STATUS, String(result.status), `HTTP ${result.status}`);
    if (!isMarkup(result.contentType)) {
      return done(Outcome.REJECTED_NOT_MARKUP, result.contentType.split(';')[0] || 'unknown');
    }

    const content = await this.#time('extract', d.extract(result.body, entry.url, result.contentType));
    if (!content.robots.nofollow) {
      c.offer = await this.#evaluate(
        content.links.map((l) => l.url),
        entry.depth + 1,
        entry.url,
        0,
        true,
      );
    }
    if (content.robots.noindex) return done(Outcome.REJECTED_ROBOTS_META_NOINDEX);

    const resourceId = ids.resource(d.catalog.id, d.version, hash);
    const textHash = sha256Hex(content.text);
    if (previous && previous.contentHash === textHash) return done(Outcome.REJECTED_UNMODIFIED, undefined, 'same text');
    const holder = await this.#time(
      'dedup',
      d.contentDedup.checkAndRecord(d.catalog.id, d.version, content.text, resourceId),
    );
    if (holder !== undefined && holder !== resourceId) {
      return done(Outcome.REJECTED_DUPLICATE, undefined, `same content as resource ${holder}`);
    }

    if (this.#reserved >= d.catalog.settings.maxPages) return this.#abandon();
    this.#reserved++;
    const images = d.catalog.settings.images ? await this.#time('images', this.#images(content, entry.url)) : [];
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
      fetchedAt: new Date().toISOString(),
    };
    this.#owed.set(resourceId, { pending: new Set(d.outputs.deferredLayers), committed: false, early: [] });
    try {
      if (previous && d.onReplace) await d.onReplace(previous);
      await this.#time(
        'output',
        d.outputs.write({
          catalog: d.catalog,
          version: d.version,
          resource,
          html: result.body,
          text: content.text,
          images,
        }),
      );
    } catch (err) {
      this.#owed.delete(resourceId);
      this.#reserved--;
      this.#log.warn({ err, url: entry.url }, 'page not saved');
      return done(Outcome.REJECTED_ERROR, 'file', errorMessage(err));
    }
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
    return done(Outcome.SAVED);
  }

  #abandon(): undefined {
    this.counters.abandon();
    return undefined;
  }

  /** The links of a page this version already holds, read from its stored html: no request. */
  async #storedLinks(previous: ResourceRow, entry: LeasedEntry): Promise<Offer | undefined> {
    const d = this.#d;
    const html = await d.blobs.get(previous.htmlPath);
    if (!html) return undefined;
    const content = await this.#time('extract', d.extract(html, entry.url, previous.contentType));
    if (content.robots.nofollow) return undefined;
    return this.#evaluate(
      content.links.map((l) => l.url),
      entry.depth + 1,
      entry.url,
      0,
      true,
    );
  }

  async #fetch(fetcher: Extractor, url: string, options: FetchOptions): Promise<FetchResult> {
    const release = await this.#d.politeness.acquire(new URL(url).host);
    try {
      return await fetcher.fetch(url, options);
    } finally {
      release();
    }
  }

  /** Pictures of one page, fetched together: once per run, stored once per version by content hash. */
  async #images(content: ExtractedContent, pageUrl: string): Promise<PageImage[]> {
    const d = this.#d;
    const min = d.settings.imageMinSize;
    const wanted = content.images.slice(0, d.settings.imagesPerPage).flatMap((ref) => {
      if (ref.width !== undefined && ref.height !== undefined && (ref.width < min || ref.height < min)) return [];
      const url = d.normalize(ref.url, pageUrl);
      return url ? [{ ref, url }] : [];
    });
    const found = await Promise.all(
      wanted.map(async ({ ref, url }): Promise<PageImage | undefined> => {
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
        return row && (fresh ?? { row, alt: ref.alt, surroundingText: ref.surroundingText });
      }),
    );
    // One picture under two urls is one image; keep the copy that carries the bytes, if this page fetched them.
    const byId = new Map<string, PageImage>();
    for (const img of found) {
      if (img && (!byId.has(img.row.id) || (img.bytes && !byId.get(img.row.id)?.bytes))) byId.set(img.row.id, img);
    }
    return [...byId.values()];
  }

  /** One picture; its answer goes to the write-ahead log like a page's. */
  async #fetchImage(url: string, alt: string, surroundingText: string): Promise<PageImage | undefined> {
    const d = this.#d;
    const hash = urlHash(url);
    let result: Omit<FetchResult, 'text'> | undefined = await d.inflight.load(hash);
    if (!result) {
      try {
        result = await this.#fetch(d.imageFetcher, url, { binary: true });
      } catch (err) {
        this.#log.debug({ url, err: errorMessage(err) }, 'image fetch failed');
        return undefined;
      }
      await d.inflight.save(hash, result);
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
    return { row, alt, surroundingText, bytes: result.body };
  }
}

function isMarkup(contentType: string): boolean {
  const t = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return t === 'text/html' || t === 'application/xhtml+xml' || t === '';
}
