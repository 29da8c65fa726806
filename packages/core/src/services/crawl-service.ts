import { join } from 'node:path';
import { createAcceptorChain } from '../acceptors/acceptor-chain.js';
import { HttpRobotsProvider } from '../acceptors/robots.js';
import { discoverSitemapUrls } from '../acceptors/sitemap.js';
import { ExtractPool } from '../content/extract-pool.js';
import { createContentDedup } from '../dedup/content-dedup.js';
import { LevelUrlFilter } from '../dedup/level-url-filter.js';
import type { ContentDedupFilter, ExistingUrlPathFilter } from '../dedup/url-filter.js';
import type { CounterSnapshot } from '../engine/counters.js';
import { type CrawlCoordinator, LocalCrawlCoordinator } from '../engine/crawl-coordinator.js';
import { CrawlEngine, type CrawlResult } from '../engine/crawl-engine.js';
import { InflightStore } from '../engine/inflight-store.js';
import { buildRunReport, reportStamp } from '../engine/run-report.js';
import { CrawlerError } from '../errors.js';
import type { Extractor } from '../fetch/extractor.js';
import { HttpExtractor } from '../fetch/http-extractor.js';
import { HostPoliteness } from '../fetch/politeness.js';
import { withRetry } from '../fetch/with-retry.js';
import type { CrawlFrontier } from '../frontier/frontier.js';
import { LevelFrontier } from '../frontier/level-frontier.js';
import { keys } from '../layout.js';
import type { Catalog, CatalogSettings, CrawlAction, RunReport } from '../model.js';
import { CompositeOutputChannel } from '../outputs/composite-output-channel.js';
import { FileOutputChannel } from '../outputs/file-output-channel.js';
import { IndexOutputChannel } from '../outputs/index-output-channel.js';
import type { OutputChannel } from '../outputs/output-channel.js';
import { VectorOutputChannel } from '../outputs/vector-output-channel.js';
import { LocalBlobStore } from '../storage/local-blob-store.js';
import { OffThreadBlobStore } from '../storage/off-thread-blob-store.js';
import { normalizeUrl } from '../url/normalize.js';
import { chunkText } from '../vector/chunking.js';
import type { CatalogRef } from './catalog-service.js';
import type { Greenfinger } from './greenfinger.js';
import { RunLock } from './run-lock.js';

export type CrawlVerb = Extract<CrawlAction, 'crawl' | 'update' | 'merge' | 'rebuild' | 'resume'>;

export interface CrawlRequest extends CatalogRef {
  /** With `url`: where fetching begins, when the catalog is created. */
  startUrl?: string | undefined;
  /** @default 'crawl' */
  action?: CrawlVerb | undefined;
  /** Settings for this catalog, stored on it (e.g. from CLI flags). */
  settings?: Partial<CatalogSettings> | undefined;
  /** Abort = external stop: in-flight pages finish, nothing is published, the frontier is kept. */
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: CrawlProgress) => void) | undefined;
  /** @default 500 */
  progressIntervalMs?: number | undefined;
  /** Told once the catalog is resolved or created (before fetching starts). */
  onStart?: ((info: { catalog: Catalog; version: number; created: boolean; embedding?: string }) => void) | undefined;
  /** Replace the coordinator (a cluster). Default: the local frontier. */
  coordinator?: ((frontier: CrawlFrontier) => CrawlCoordinator) | undefined;
}

export interface CrawlProgress {
  catalog: string;
  action: CrawlVerb;
  version: number;
  counters: CounterSnapshot;
  queued: number;
  active: number;
  pagesPerSecond: number;
}

/** A run in progress, as `status` reports it. */
export interface RunStatus extends Partial<CrawlProgress> {
  catalogId: string;
  pid: number;
  since: string;
}

/** Runs crawls: resolves the catalog, builds the pipeline from its settings, runs it, reports and publishes. */
export class CrawlService {
  readonly #gf: Greenfinger;
  #urlFilter: Promise<ExistingUrlPathFilter> | undefined;
  #contentDedup: Promise<ContentDedupFilter> | undefined;
  readonly #running = new Map<string, CrawlEngine>();

  constructor(gf: Greenfinger) {
    this.#gf = gf;
  }

  /** Catalogs crawling in this process now. */
  running(): Array<{ catalogId: string; engine: CrawlEngine }> {
    return [...this.#running].map(([catalogId, engine]) => ({ catalogId, engine }));
  }

  #filters(): Promise<[ExistingUrlPathFilter, ContentDedupFilter]> {
    const { layout, settings } = this.#gf;
    if (!this.#urlFilter) this.#urlFilter = LevelUrlFilter.open(layout.urlDedupDir);
    if (!this.#contentDedup) {
      this.#contentDedup = createContentDedup(settings.contentDedup, layout.contentDedupDir, {
        maxDistance: settings.simhashDistance,
      });
    }
    const urlFilter = this.#urlFilter;
    const contentDedup = this.#contentDedup;
    return Promise.all([urlFilter, contentDedup]);
  }

  /** Find the catalog the request names, creating it from `url` when none has it. */
  async #resolve(req: CrawlRequest): Promise<{ catalog: Catalog; created: boolean }> {
    const catalogs = await this.#gf.catalogs();
    if (req.id) return { catalog: await this.#applySettings(await catalogs.get({ id: req.id }), req), created: false };
    if (req.name) {
      const byName = await catalogs.find({ name: req.name });
      if (byName) {
        if (req.url && normalizeUrl(req.url) !== byName.url) {
          throw new CrawlerError('CONFLICT', `catalog "${req.name}" has url ${byName.url}, not ${req.url}`, {
            fix: 'drop --url to crawl it, or choose another --name for a new catalog',
          });
        }
        return { catalog: await this.#applySettings(byName, req), created: false };
      }
      if (!req.url) return { catalog: await catalogs.get({ name: req.name }), created: false };
    }
    if (!req.url)
      throw new CrawlerError('BAD_INPUT', 'no catalog named', {
        fix: 'give --url <site> (creates it) or --id / --name of an existing catalog',
      });
    if (!req.name) {
      const byUrl = await catalogs.find({ url: req.url });
      if (byUrl) {
        if (req.startUrl && normalizeUrl(req.startUrl) !== byUrl.startUrl) {
          return {
            catalog: await catalogs.update(byUrl.id, { startUrl: req.startUrl, settings: req.settings }),
            created: false,
          };
        }
        return { catalog: await this.#applySettings(byUrl, req), created: false };
      }
    }
    const catalog = await catalogs.create({
      url: req.url,
      startUrl: req.startUrl,
      name: req.name,
      settings: req.settings,
    });
    return { catalog, created: true };
  }

  async #applySettings(catalog: Catalog, req: CrawlRequest): Promise<Catalog> {
    if (!req.settings || Object.values(req.settings).every((v) => v === undefined)) return catalog;
    return (await this.#gf.catalogs()).update(catalog.id, { settings: req.settings });
  }

  /**
   * Run a crawl verb on a catalog (see docs/verbs.md):
   * - `crawl`: the current version from the start url (a new `url` creates the catalog); pages already held
   *   are not fetched again, their stored links are followed;
   * - `update`: the same walk, named for what it does on a crawled version: only urls not seen before are fetched;
   * - `merge`: update plus the pages held, revisited with conditional GET; only changed pages are rewritten;
   * - `rebuild`: a new version, written in full while the published one keeps serving;
   * - `resume`: what is left on the frontier after a stop or a crash, as the interrupted run would have.
   */
  async crawl(req: CrawlRequest): Promise<RunReport> {
    const gf = this.#gf;
    const action: CrawlVerb = req.action ?? 'crawl';
    const { catalog: resolved, created } = action === 'crawl' ? await this.#resolve(req) : await this.#existing(req);
    const catalogs = await gf.catalogs();
    const lock = await RunLock.acquire(gf.layout.system, resolved.id);
    let catalog = resolved;
    try {
      if (catalog.runningState !== 'none') {
        gf.log.warn(
          { catalogId: catalog.id, state: catalog.runningState },
          'resetting the state a stopped process left behind',
        );
      }
      const version = action === 'rebuild' ? catalog.indexVersion + 1 : catalog.indexVersion;
      catalog = { ...catalog, indexVersion: version, runningState: action };
      await catalogs.save(catalog);
      return await this.#run(catalog, version, action, req, created, lock);
    } finally {
      const latest = (await catalogs.find({ id: catalog.id })) ?? catalog;
      await catalogs.save({ ...latest, runningState: 'none' });
      await lock.release();
    }
  }

  /** A verb other than crawl needs a catalog that exists; settings given are stored on it. */
  async #existing(req: CrawlRequest): Promise<{ catalog: Catalog; created: false }> {
    const catalogs = await this.#gf.catalogs();
    const catalog = await catalogs.get({ id: req.id, name: req.name, url: req.id || req.name ? undefined : req.url });
    return { catalog: await this.#applySettings(catalog, req), created: false };
  }

  /**
   * Ask the process crawling a catalog to stop gracefully (in-flight pages finish, the frontier is kept,
   * nothing is published), and wait until it has.
   */
  async pause(ref: CatalogRef, options: { timeoutMs?: number } = {}): Promise<{ catalog: Catalog; pid: number }> {
    const catalog = await (await this.#gf.catalogs()).get(ref);
    const holder = await RunLock.holder(this.#gf.layout.system, catalog.id);
    if (!holder) {
      throw new CrawlerError('NOT_FOUND', `nothing is running for catalog "${catalog.name}"`, {
        fix: 'see `greenfinger status`; an interrupted crawl is continued with resume',
      });
    }
    const running = this.#running.get(catalog.id);
    if (running && holder.pid === process.pid) running.stop('interrupted');
    else process.kill(holder.pid, 'SIGTERM');
    const deadline = Date.now() + (options.timeoutMs ?? 120_000);
    while (Date.now() < deadline && (await RunLock.holder(this.#gf.layout.system, catalog.id))) {
      await new Promise((r) => setTimeout(r, 100));
    }
    if (await RunLock.holder(this.#gf.layout.system, catalog.id)) {
      throw new CrawlerError(
        'CONFLICT',
        `process ${holder.pid} did not stop within ${(options.timeoutMs ?? 120_000) / 1000} s`,
        {
          fix: 'it may be finishing slow pages; run status, or stop it with kill',
        },
      );
    }
    return { catalog, pid: holder.pid };
  }

  /**
   * What runs now on this data store: every live run lock with the progress its process last wrote. A lock or a
   * "running" catalog left by a killed process is reset here.
   */
  async status(): Promise<RunStatus[]> {
    const gf = this.#gf;
    const out: RunStatus[] = [];
    const live = new Set<string>();
    for (const lock of await RunLock.list(gf.layout.system)) {
      if (!lock.alive) continue;
      live.add(lock.catalogId);
      out.push({ catalogId: lock.catalogId, pid: lock.pid, since: lock.since, ...(lock.progress ?? {}) } as RunStatus);
    }
    const catalogs = await gf.catalogs();
    for (const c of await catalogs.list()) {
      if (c.runningState !== 'none' && !live.has(c.id)) await catalogs.save({ ...c, runningState: 'none' });
    }
    return out;
  }

  async #run(
    catalog: Catalog,
    version: number,
    action: CrawlVerb,
    req: CrawlRequest,
    created: boolean,
    lock: RunLock,
  ): Promise<RunReport> {
    const gf = this.#gf;
    const { settings, layout, log } = gf;
    const s = catalog.settings;
    const db = await gf.database();
    const [urlFilter, contentDedup] = await this.#filters();
    const frontier = await LevelFrontier.open(layout.frontierDir(catalog.id, version));
    if (action === 'resume') {
      const leases = await frontier.recover({ keepRun: true });
      if (leases === 0 && (await frontier.size()) === 0) {
        await frontier.close();
        const last = await db.resources.getReport(catalog.id, version);
        throw new CrawlerError(
          'NOT_FOUND',
          `nothing to resume: version ${version} of "${catalog.name}" has an empty frontier${last ? ` (its last run, ${last.action}, ended: ${last.report.ending.reason})` : ''}`,
          {
            fix: 'crawl or update it instead',
          },
        );
      }
    }
    // One keep-alive pool per run: pages (redirects not followed), pictures, robots.txt and sitemaps share it.
    const http = new HttpExtractor({ settings, connectionsPerOrigin: Math.max(s.hostConcurrency, 2) });
    const pageFetcher = withRetry(noRedirects(http), {
      retries: s.maxRetries,
      retryStatuses: [429, 500, 502, 503, 504],
    });
    const imageFetcher = withRetry(http, { retries: s.maxRetries });
    /** robots.txt and sitemaps follow redirects (an http → https move must not read as "no robots.txt"). */
    const robotsFetch = async (url: string) => {
      const r = await http.fetch(url);
      return { status: r.status, text: r.text ?? r.body.toString('utf8') };
    };
    const robots = s.robots
      ? new HttpRobotsProvider({ fetch: robotsFetch, userAgent: settings.userAgent, logger: log })
      : undefined;
    const politeness = new HostPoliteness({ maxPerHost: s.hostConcurrency, minIntervalMs: s.intervalMs });
    const pool = new ExtractPool({ workers: settings.workers });

    // Pages and pictures are written on the extraction worker's thread, with synchronous system calls: from the
    // event loop each file costs three or four hand-offs to the libuv pool. A configured blob store is used as it is.
    const lent = pool.lendThread();
    const fileBlobs =
      lent && gf.blobs instanceof LocalBlobStore ? new OffThreadBlobStore(gf.blobs, { thread: lent }) : gf.blobs;
    const channels: OutputChannel[] = [new FileOutputChannel(fileBlobs)];
    let vectorChannel: VectorOutputChannel | undefined;
    let embeddingNote: string | undefined;
    // The embedded full-text index is written off the event loop, on the extraction worker's thread when there is
    // one (one V8 isolate fewer: ~25 MB) and on its own otherwise; a configured index is written as it is.
    const reader = gf.index();
    const writer = s.outputs.includes('index') ? gf.indexWriter(lent) : reader;
    if (s.outputs.includes('index')) channels.push(new IndexOutputChannel(writer));
    if (s.outputs.includes('vector')) {
      const client = await gf.embedding();
      embeddingNote = client.describe();
      vectorChannel = new VectorOutputChannel(client, await gf.vectors(), {
        // Fetching never waits for the embedder: pages past the in-memory queue are embedded from their files.
        loadText: (page) => gf.blobs.getText(page.resource.textPath),
        chunk: (text) =>
          chunkText(text, {
            chunkSize: settings.chunkSize,
            overlap: settings.chunkOverlap,
            maxChunks: settings.maxChunks,
          }),
      });
      channels.push(vectorChannel);
    }
    const outputs = new CompositeOutputChannel(channels, log);
    const vectors = vectorChannel ? await gf.vectors() : undefined;
    const inflight = new InflightStore(join(layout.system, 'inflight', catalog.id, `v${version}`));
    const engine = new CrawlEngine({
      catalog,
      version,
      action,
      settings,
      frontier,
      coordinator: req.coordinator?.(frontier) ?? new LocalCrawlCoordinator(frontier),
      urlFilter,
      contentDedup,
      acceptors: createAcceptorChain({ catalog, robots }, undefined, { logger: log }),
      pageFetcher,
      imageFetcher,
      politeness: {
        acquire: async (host) => {
          if (robots) {
            const delay = await robots.crawlDelayMs(`http://${host}/`).catch(() => undefined);
            if (delay !== undefined) politeness.setCrawlDelay(host, delay);
          }
          return politeness.acquire(host);
        },
      },
      extract: (html, url, contentType) => pool.extract(html, url, 'html', { contentType }),
      normalize: (raw, base) => normalizeUrl(raw, base),
      outputs,
      records: db.resources,
      blobs: gf.blobs,
      inflight,
      robots,
      sitemapUrls: async () =>
        (await discoverSitemapUrls({ siteUrl: catalog.startUrl, fetch: robotsFetch, robots, logger: log })).urls.map(
          (e) => e.loc,
        ),
      log,
      known: action === 'merge' ? 'revisit' : 'follow-stored',
      resume: action === 'resume',
      onReplace: vectors
        ? async (previous) => void (await vectors.deleteResource(previous.catalogId, previous.version, previous.id))
        : undefined,
    });
    this.#running.set(catalog.id, engine);
    req.onStart?.({ catalog, version, created, ...(embeddingNote ? { embedding: embeddingNote } : {}) });
    await this.#writeSettings(catalog, version, undefined);

    const onAbort = () => engine.stop('interrupted');
    req.signal?.addEventListener('abort', onAbort, { once: true });
    if (req.signal?.aborted) onAbort();
    let lastSaved = 0;
    let lastAt = Date.now();
    let rate = 0;
    const progress = setInterval(() => {
      void frontier
        .size()
        .then(async (queued) => {
          const snap = engine.counters.snapshot();
          const now = Date.now();
          const inst = ((snap.saved - lastSaved) * 1000) / Math.max(1, now - lastAt);
          rate = rate === 0 ? inst : rate * 0.7 + inst * 0.3;
          lastSaved = snap.saved;
          lastAt = now;
          const p: CrawlProgress = {
            catalog: catalog.name,
            action,
            version,
            counters: snap,
            queued,
            active: engine.active,
            pagesPerSecond: rate,
          };
          req.onProgress?.(p);
          await lock.writeProgress(p);
        })
        .catch(() => undefined);
    }, req.progressIntervalMs ?? 500);

    let result: CrawlResult;
    try {
      result = await engine.run();
    } catch (err) {
      // The index and blob writers may live on the pool's thread: they close first (their writes already sent
      // still land).
      if (writer !== reader) await writer.close().catch(() => undefined);
      if (fileBlobs !== gf.blobs) await fileBlobs.close().catch(() => undefined);
      await pool.close();
      throw err;
    } finally {
      clearInterval(progress);
      req.signal?.removeEventListener('abort', onAbort);
      this.#running.delete(catalog.id);
      await http.close();
      await inflight.close(frontier.inFlight() === 0 && (await frontier.size()) === 0);
      await frontier.close();
    }

    const cost = vectorChannel?.cost();
    const client = vectorChannel ? await gf.embedding() : undefined;
    const report = buildRunReport({
      node: settings.node,
      catalog,
      version,
      action,
      refresh: action === 'merge',
      result,
      outputs: outputs.stats(),
      ...(client && cost
        ? {
            embedding: {
              provider: client.provider,
              model: client.model,
              dims: client.dims,
              chunks: cost.chunks,
              msPerPage: result.counters.saved > 0 ? Math.round((cost.embedMs / result.counters.saved) * 10) / 10 : 0,
            },
          }
        : {}),
    });
    try {
      let t = performance.now();
      await outputs.close();
      gf.log.debug({ catalogId: catalog.id, version, ms: Math.round(performance.now() - t) }, 'outputs closed');
      t = performance.now();
      // Before the version is published: champion lists of its frequent terms and a merged index, built on the
      // writer's thread. Without them search stays exact, only slower: a failure is reported, not fatal.
      if (result.published && s.outputs.includes('index')) {
        // The versions the prune after publishing will remove leave the index first (none is served, and the one
        // served until then is kept): their deletes would change bm25's statistics, and with them every stored
        // score and the word-pair table, right after they were built.
        const next: Catalog = {
          ...catalog,
          indexVersion: version,
          searchVersion: Math.max(catalog.searchVersion, version),
        };
        for (const old of await gf.versions.pruneTargets(next)) {
          if (old !== catalog.searchVersion) await writer.deleteVersion(catalog.id, old);
        }
        await writer
          .optimize?.(catalog.id, version)
          .then((stats) => {
            gf.log.debug({ catalogId: catalog.id, version, stats }, 'full-text index optimized');
            if (stats.pairsUnavailable) {
              gf.log.warn(
                { catalogId: catalog.id, version, reason: stats.pairsUnavailable },
                'no word-pair table: quoted phrases of this version are read from word positions (slower)',
              );
            }
          })
          .catch((err: unknown) => {
            gf.log.warn({ catalogId: catalog.id, version, err }, 'could not optimize the full-text index');
          });
      }
      // The approximate index of the version's vectors, finished and saved, so its first searches need no
      // catch-up (a no-op under GF_VECTOR_ANN_MIN points). Search is exact meanwhile: a failure is not fatal.
      if (result.published && vectors) {
        await vectors.optimize?.(catalog.id, version).catch((err: unknown) => {
          gf.log.warn({ catalogId: catalog.id, version, err }, 'could not finish the approximate vector index');
        });
      }
      if (writer !== reader) await writer.close();
      gf.log.debug({ catalogId: catalog.id, version, ms: Math.round(performance.now() - t) }, 'version optimized');
    } finally {
      if (fileBlobs !== gf.blobs) await fileBlobs.close().catch(() => undefined);
      await pool.close();
    }
    const stamp = reportStamp(result.endedAt);
    report.path = keys.report(catalog.id, version, stamp, action, settings.node);
    await gf.blobs.put(report.path, `${JSON.stringify(report, null, 2)}\n`);
    await db.resources.saveReport({
      catalogId: catalog.id,
      version,
      action,
      published: result.published,
      report,
      createdAt: report.endedAt,
    });

    const catalogs = await gf.catalogs();
    const latest = (await catalogs.find({ id: catalog.id })) ?? catalog;
    const after: Catalog = result.published
      ? { ...latest, searchVersion: Math.max(latest.searchVersion, version) }
      : latest;
    await catalogs.save(after);
    await this.#writeSettings(after, version, report);
    if (result.published) {
      const versions = await db.resources.versions(catalog.id);
      await gf.published.publish({
        catalogId: catalog.id,
        name: catalog.name,
        url: catalog.url,
        searchVersion: after.searchVersion,
        versions,
      });
      await this.#afterPublish(after);
    }
    return report;
  }

  /** After a version is published: prune the oldest versions beyond maxVersions (never the served one). */
  async #afterPublish(catalog: Catalog): Promise<void> {
    await this.#gf.versions.prune(catalog);
  }

  /** `settings.json` of a version: how it was configured, and how its last run went. */
  async #writeSettings(catalog: Catalog, version: number, report: RunReport | undefined): Promise<void> {
    const doc = {
      catalog: { id: catalog.id, name: catalog.name, url: catalog.url, startUrl: catalog.startUrl },
      version,
      settings: catalog.settings,
      node: this.#gf.settings,
      published: catalog.searchVersion === version,
      lastRun: report
        ? {
            action: report.action,
            endedAt: report.endedAt,
            produced: report.produced,
            urls: report.urls,
            ending: report.ending,
            report: report.path,
          }
        : null,
    };
    await this.#gf.blobs.put(keys.settings(catalog.id, version), `${JSON.stringify(doc, null, 2)}\n`);
  }

  async close(): Promise<void> {
    for (const engine of this.#running.values()) engine.stop('interrupted');
    if (this.#urlFilter) await (await this.#urlFilter).close();
    if (this.#contentDedup) await (await this.#contentDedup).close();
    this.#urlFilter = undefined;
    this.#contentDedup = undefined;
  }
}

/** Pages are fetched without following redirects: a 3xx dispatches its target as a url of its own. */
function noRedirects(extractor: Extractor): Extractor {
  return {
    name: extractor.name,
    fetch: (url, options) => extractor.fetch(url, { ...options, maxRedirects: 0 }),
    close: () => extractor.close(),
  };
}
