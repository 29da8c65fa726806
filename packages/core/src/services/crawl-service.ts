import { basename } from 'node:path';
import { optimizeVersion } from '../admin/optimize-version.js';
import { pruneTargets } from '../admin/version-eraser.js';
import type { ComponentFactory } from '../compose/component-factory.js';
import type { RunContext } from '../compose/components.js';
import { assertImageModel } from '../compose/image-assembly.js';
import { assembleCrawl, type CrawlParts, openFrontier } from '../compose/run-assembly.js';
import { maskedSettings } from '../config.js';
import { LocalCrawlCoordinator } from '../engine/crawl-coordinator.js';
import { CrawlEngine, type CrawlResult } from '../engine/crawl-engine.js';
import { buildRunReport, reportStamp } from '../engine/run-report.js';
import { reportOf } from '../error-table.js';
import { CrawlerError } from '../errors.js';
import type { CrawlFrontier } from '../frontier/frontier.js';
import { keys } from '../layout.js';
import type { Catalog, RunReport } from '../model.js';
import type { CrawlProgress, CrawlRequest, CrawlVerb } from '../runs/crawl-runner.js';
import type { RunHandle, RunInfo } from '../runs/run-registry.js';
import type { CatalogRef, CatalogService } from './catalog-service.js';
import { ChangeService } from './change-service.js';
import { progressReporter } from './crawl-progress.js';
import { OrphanStep } from './orphans.js';
import { servedPages, siteWithheld, unrank, withheldPublish } from './publish-decision.js';
import { noteEnding, noteVectorsLeft } from './report-notes.js';
import { noteFeeds, openRunFeeds } from './run-feeds.js';
import { removeUnreached } from './unreached-catalog.js';
import { WordsFirstPublisher } from './words-first.js';

export type { CrawlProgress, CrawlRequest, CrawlVerb } from '../runs/crawl-runner.js';

/** A run in progress, as `status` reports it. */
export interface RunStatus extends Partial<CrawlProgress> {
  catalogId: string;
  pid: number;
  since: string;
  where: string;
}

/** Runs crawls: resolves the catalog, has the composition point build the run, runs it, reports and publishes. */
export class CrawlService {
  readonly #f: ComponentFactory;
  readonly #catalogs: () => Promise<CatalogService>;
  readonly #engines = new Map<string, CrawlEngine>();
  readonly #changes: ChangeService;

  constructor(factory: ComponentFactory, catalogs: () => Promise<CatalogService>) {
    this.#f = factory;
    this.#catalogs = catalogs;
    this.#changes = new ChangeService(factory, catalogs);
  }

  /** Catalogs crawling in this process now, with their engines (live counters). */
  running(): Array<{ catalogId: string; engine: CrawlEngine }> {
    return [...this.#engines].map(([catalogId, engine]) => ({ catalogId, engine }));
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
    const f = this.#f;
    const action: CrawlVerb = req.action ?? 'crawl';
    // contentMode text+image without the image model: refused in one line before anything is written.
    assertImageModel(f, req.settings);
    // Before any store opens: a data root that is read-only, full or a file fails here, in one line.
    f.probeDataRoot();
    const catalogs = await this.#catalogs();
    const { catalog: resolved, created } =
      action === 'crawl' ? await catalogs.resolve(req) : await catalogs.existing(req);
    assertImageModel(f, resolved.settings);
    let stop: (() => void) | undefined;
    let report: RunReport | undefined;
    const handle = await f.runs.acquire(resolved.id, action, () => stop?.());
    try {
      if (resolved.runningState !== 'none') {
        f.log.warn(
          { catalogId: resolved.id, state: resolved.runningState },
          'resetting the state a stopped process left behind',
        );
      }
      const version = req.version ?? (action === 'rebuild' ? resolved.indexVersion + 1 : resolved.indexVersion);
      const running = await f.writer.setRunningState(resolved.id, action, version);
      const catalog = req.threads ? { ...running, settings: { ...running.settings, threads: req.threads } } : running;
      report = await this.#run({
        catalog,
        version,
        action,
        req,
        created,
        handle,
        onEngine: (e) => (stop = () => e.stop('interrupted')),
      });
    } finally {
      await f.writer.setRunningState(resolved.id, 'none').catch((err: unknown) => {
        f.log.warn({ err, catalogId: resolved.id }, 'could not reset the running state');
      });
      await handle.release();
    }
    if (created) await removeUnreached(f, catalogs, resolved, report);
    return report;
  }

  /**
   * Ask the run of a catalog to stop gracefully (in-flight pages finish, the frontier is kept, nothing is published),
   * and wait until it has.
   */
  async pause(ref: CatalogRef, options: { timeoutMs?: number } = {}): Promise<{ catalog: Catalog; pid: number }> {
    const catalog = await (await this.#catalogs()).get(ref);
    const holder = await this.#f.runs.stop(catalog.id, options);
    return { catalog, pid: holder.pid };
  }

  /** What runs now on this data store, with live counters. A "running" catalog left by a killed process is reset. */
  async status(): Promise<RunStatus[]> {
    const runs = await this.#f.runs.list();
    const live = new Set(runs.map((r) => r.catalogId));
    for (const c of await (await this.#catalogs()).list()) {
      if (c.runningState !== 'none' && !live.has(c.id)) await this.#f.writer.setRunningState(c.id, 'none');
    }
    return runs.map(runStatus);
  }

  async #run(run: {
    catalog: Catalog;
    version: number;
    action: CrawlVerb;
    req: CrawlRequest;
    created: boolean;
    handle: RunHandle;
    onEngine: (engine: CrawlEngine) => void;
  }): Promise<RunReport> {
    const f = this.#f;
    const { catalog, version, action, req } = run;
    const ctx: RunContext = { settings: f.settings, layout: f.layout, log: f.log, catalog, version, action };
    await this.#verifyStores(catalog);
    const served = await servedPages(f, catalog);
    const frontier = await openFrontier(f, ctx);
    if (action === 'resume') await this.#assertResumable(frontier, catalog, version);
    let parts: CrawlParts;
    try {
      parts = await assembleCrawl(f, { catalog, version, action, frontier, coordinator: req.coordinator });
    } catch (err) {
      await frontier.close().catch(() => undefined);
      throw err;
    }
    const orphans = await this.#orphanStep(parts, catalog, version, action, req, () => engine);
    const feeds = await openRunFeeds(f, parts, { catalog, version, action, req });
    parts.deps.sessionEnd = (end) => orphans.atSessionEnd(end);
    const early = new WordsFirstPublisher({
      factory: f,
      parts,
      catalog,
      version,
      action,
      served,
      force: req.forcePublish === true,
      log: f.log.child({ component: 'words-first', catalogId: catalog.id, version }),
    });
    parts.deps.onFetched = (interim) => early.fetched(interim);
    const engine = new CrawlEngine(parts.deps);
    parts.storage.onFailure((err) => {
      f.log.error({ err }, 'a store refused a write; stopping');
      engine.stop('error');
    });
    run.onEngine(engine);
    this.#engines.set(catalog.id, engine);
    req.onStart?.({
      catalog,
      version,
      created: run.created,
      ...(parts.embedding ? { embedding: parts.embedding } : {}),
    });
    await this.#writeSettings(catalog, version, undefined);

    const onAbort = () => engine.stop('interrupted');
    req.signal?.addEventListener('abort', onAbort, { once: true });
    if (req.signal?.aborted) onAbort();
    const progress = progressReporter(engine, frontier, { catalog, action, version }, run.handle, req, early);
    let result: CrawlResult;
    try {
      result = await engine.run();
    } catch (err) {
      await parts.closeWriters();
      throw err;
    } finally {
      clearInterval(progress);
      // No vector is written after the engine ends: the registry's counts stop here.
      await early.settle();
      req.signal?.removeEventListener('abort', onAbort);
      this.#engines.delete(catalog.id);
      await parts.closeWork(frontier.inFlight() === 0 && (await frontier.size()) === 0);
    }
    await feeds?.settle(result.fullyCrawled ? { reason: result.reason } : { reason: 'outstanding' });
    const withheld = await withheldPublish(
      f,
      parts,
      catalog,
      version,
      action,
      result,
      served,
      req.forcePublish === true,
    );
    if (withheld) {
      result.published = false;
      if (withheld.cause !== 'too-few-pages' && withheld.cause !== 'nothing-saved') result.fullyCrawled = false;
    }
    const report = await this.#report(parts, catalog, version, action, result);
    noteEnding(report, { catalog, version, orphaned: orphans.report(result), withheld });
    noteFeeds(report, feeds);
    try {
      await parts.outputs.close();
      if (result.published) await this.#optimize(parts, catalog, version, early.wordsPublished);
    } finally {
      await parts.closeWriters();
    }
    if (withheld?.cause === 'too-few-pages' && version !== catalog.searchVersion) {
      await unrank(f, catalog, version, report);
    }
    await early.ending(result.published);
    report.searchable = early.times(result.startedAt);
    const state = early.state();
    if (report.embedding && state) {
      report.embedding = {
        ...report.embedding,
        pages: state.pages,
        embedded: state.embedded,
        complete: state.complete,
      };
    }
    if (early.wordsPublished && !result.published && state) noteVectorsLeft(report, version, state);
    // A rebuild is compared with the version served before it, while that one is surely kept (before the publish).
    const rebuilt = action === 'rebuild' && catalog.searchVersion >= 0 && catalog.searchVersion !== version;
    const compared =
      result.published && rebuilt ? await this.#between(catalog, catalog.searchVersion, version) : undefined;
    const changes = result.published ? (compared ?? parts.changes.changeSet()) : undefined;
    if (changes) {
      report.changes = {
        added: changes.added.length,
        changed: changes.changed.length,
        removed: changes.removed.length,
      };
    }
    const recorded = await this.#record(catalog, version, action, result, report);
    if (changes && recorded.path !== undefined) {
      const comparedWith = compared ? catalog.searchVersion : undefined;
      const runId = basename(recorded.path, '.json');
      const run = { catalog, version, action, runId, publishedAt: report.endedAt, changes, comparedWith };
      if (req.publishedChanges) {
        await req
          .publishedChanges(run)
          .catch((err: unknown) => f.log.warn({ err }, 'the change set was not handed on'));
        return recorded;
      }
      await this.#changes
        .record({
          catalogId: catalog.id,
          version,
          action,
          at: report.endedAt,
          ...changes,
          ...(comparedWith !== undefined ? { comparedWith } : {}),
        })
        .catch((err: unknown) => f.log.warn({ err, catalogId: catalog.id, version }, 'the change log was not written'));
      f.publications.notify(run);
    }
    return recorded;
  }

  /** A rebuild's change set; undefined (the run's own set is recorded) when the comparison fails. */
  async #between(catalog: Catalog, from: number, to: number) {
    try {
      return await this.#changes.between(catalog, from, to);
    } catch (err) {
      this.#f.log.warn({ err, catalogId: catalog.id, from, to }, 'the versions could not be compared');
      return undefined;
    }
  }

  /**
   * The orphan step of a run (services/orphans.ts), told at the session's end. It holds back — judging nothing — when
   * a store refused a write, when the site did not answer well enough to tell what it no longer has, and on a
   * distributed run (this node's frontier knows only the urls it handled).
   */
  async #orphanStep(
    parts: CrawlParts,
    catalog: Catalog,
    version: number,
    action: CrawlVerb,
    req: CrawlRequest,
    engine: () => CrawlEngine,
  ): Promise<OrphanStep> {
    const f = this.#f;
    const { deps } = parts;
    return new OrphanStep({
      catalog,
      version,
      action,
      frontier: parts.frontier,
      records: deps.records,
      ledger: (await f.database()).ledger,
      urlFilter: deps.urlFilter,
      removal: parts.removal,
      log: f.log.child({ component: 'orphans', catalogId: catalog.id, version }),
      force: req.forcePublish === true,
      holdBack: async () => {
        if (!(deps.coordinator instanceof LocalCrawlCoordinator)) {
          return 'a distributed run: each node knows only the urls it handled';
        }
        const failure = parts.storage.failure;
        if (failure !== undefined) return `a store refused a write: ${reportOf(failure).line}`;
        const site = siteWithheld(parts, catalog, engine().counters.saved);
        return site ? `the site did not answer well enough to tell what it no longer has: ${site.line}` : undefined;
      },
    });
  }

  /**
   * The index and vector stores a run writes pass their family's own check before the run opens them, so a damaged
   * copy is named, with its fix, instead of being written on (the LevelDB stores are checked as they open).
   */
  async #verifyStores(catalog: Catalog): Promise<void> {
    const outputs = catalog.settings.outputs;
    if (outputs.includes('index')) await this.#f.index().verify?.(catalog.id);
    if (outputs.includes('vector')) await this.#f.vectorFamily().verify?.(catalog.id);
  }

  /**
   * Resume needs something left on the frontier: urls, or index and vector writes owed (a run stopped or killed while
   * its vectors were written: resume writes them from the files and fetches nothing).
   */
  async #assertResumable(frontier: CrawlFrontier, catalog: Catalog, version: number): Promise<void> {
    const leases = await frontier.recover({ keepRun: true });
    if (leases > 0 || (await frontier.size()) > 0) return;
    for (const layer of ['vector', 'index']) {
      for await (const _owed of frontier.journal(`${layer}:`)) return;
    }
    await frontier.close();
    const last = await (await this.#f.database()).resources.getReport(catalog.id, version);
    throw new CrawlerError(
      'NOT_FOUND',
      `nothing to resume: version ${version} of "${catalog.name}" has an empty frontier${last ? ` (its last run, ${last.action}, ended: ${last.report.ending.reason})` : ''}`,
      { fix: 'crawl or update it instead' },
    );
  }

  async #report(
    parts: CrawlParts,
    catalog: Catalog,
    version: number,
    action: CrawlVerb,
    result: CrawlResult,
  ): Promise<RunReport> {
    const cost = parts.vectorChannel?.cost();
    const client = parts.vectorChannel ? await this.#f.embedding() : undefined;
    const report = buildRunReport({
      node: this.#f.settings.node,
      catalog,
      version,
      action,
      refresh: action === 'merge',
      result,
      outputs: parts.outputs.stats(),
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
    const memory = parts.renderStats();
    if (memory && Object.values(memory).some((n) => n > 0)) {
      report.rendered = { ...(report.rendered ?? { pages: 0, reasons: {} }), memory };
    }
    if (result.published && result.counters.saved === 0 && (action === 'update' || action === 'merge')) {
      report.ending.note = `nothing changed since v${version}`;
    }
    return report;
  }

  /**
   * Before the version is published: the versions the prune after publishing removes leave the index first (their
   * deletes would change bm25's statistics, and with them every stored score, right after they were built), then
   * the index and the vectors are optimized. Search is exact without them: a failure is logged, not fatal.
   */
  async #optimize(parts: CrawlParts, catalog: Catalog, version: number, wordsPublished: boolean): Promise<void> {
    const next: Catalog = {
      ...catalog,
      indexVersion: version,
      searchVersion: Math.max(catalog.searchVersion, version),
    };
    // Words published when the fetch ended had the index optimized then (WordsFirstPublisher); it is done again only
    // when versions leave it now (the one meaning search kept reading, pruned once this version is complete).
    const leaving = (await pruneTargets(this.#f, next, { keepMeaning: !wordsPublished })).filter(
      (v) => v !== catalog.searchVersion || wordsPublished,
    );
    const index = wordsPublished && leaving.length === 0 ? undefined : parts.indexWriter;
    await optimizeVersion(this.#f.log, catalog.id, version, { index, vectors: parts.vectors, leaving });
  }

  /** The report file and row, then (when it earned it) the publish, then settings.json. */
  async #record(
    catalog: Catalog,
    version: number,
    action: CrawlVerb,
    result: CrawlResult,
    report: RunReport,
  ): Promise<RunReport> {
    const f = this.#f;
    report.path = keys.report(catalog.id, version, reportStamp(result.endedAt), action, f.settings.node);
    const db = await f.database();
    try {
      await f.blobs.put(report.path, `${JSON.stringify(report, null, 2)}\n`);
      await db.resources.saveReport({
        catalogId: catalog.id,
        version,
        action,
        published: result.published,
        report,
        createdAt: report.endedAt,
      });
    } catch (err) {
      // A run stopped by a store that refused a write cannot be expected to write its report there: it still ends
      // with its own line (the first refusal), not this one.
      if (report.ending.withheld?.cause !== 'store-failed') throw err;
      f.log.warn({ err }, 'the report could not be stored');
      delete report.path;
      return report;
    }
    const after = result.published
      ? await f.writer.publish(catalog.id, version)
      : ((await db.catalogs.get(catalog.id)) ?? catalog);
    await this.#writeSettings(after, version, report);
    return report;
  }

  /** `settings.json` of a version: how it was configured, and how its last run went. */
  async #writeSettings(catalog: Catalog, version: number, report: RunReport | undefined): Promise<void> {
    const doc = {
      catalog: { id: catalog.id, name: catalog.name, url: catalog.url, startUrl: catalog.startUrl },
      version,
      settings: catalog.settings,
      node: maskedSettings(this.#f.settings),
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
    await this.#f.blobs.put(keys.settings(catalog.id, version), `${JSON.stringify(doc, null, 2)}\n`);
  }

  /** Stop the runs of this process (in-flight pages finish, nothing is published). */
  async close(): Promise<void> {
    for (const engine of this.#engines.values()) engine.stop('interrupted');
  }
}

function runStatus(r: RunInfo): RunStatus {
  const progress = r.progress as Partial<CrawlProgress> | undefined;
  return {
    ...progress,
    action: progress?.action ?? (r.action as CrawlVerb),
    catalogId: r.catalogId,
    pid: r.pid,
    since: r.since,
    where: r.where,
  };
}
