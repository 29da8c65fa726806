import type { Logger } from 'pino';
import type { ComponentFactory } from '../compose/component-factory.js';
import { assertImageModel } from '../compose/image-assembly.js';
import { resolveCatalogSettings } from '../config.js';
import type { CrawlEngine } from '../engine/crawl-engine.js';
import { reportOf } from '../error-table.js';
import { CrawlerError } from '../errors.js';
import { uuidv7 } from '../ids.js';
import type { Catalog, RunReport } from '../model.js';
import type { CrawlRunner } from '../runs/crawl-runner.js';
import type { CatalogRef, CatalogService } from './catalog-service.js';
import type { CrawlProgress, CrawlService, CrawlVerb } from './crawl-service.js';
import type { Job, JobAction, JobEvent, JobStart, SeedsAdded } from './job.js';
import { finalCounters } from './job-counters.js';
import { JobListeners } from './job-listeners.js';
import { scopedSeeds } from './job-seeds.js';
import type { ReplayLayer, ReplayReport, ReplayService } from './replay-service.js';

export type { Job, JobAction, JobEvent, JobStart, JobState, SeedsAdded } from './job.js';

export interface JobServiceOptions {
  factory: ComponentFactory;
  catalogs: () => Promise<CatalogService>;
  crawler: CrawlService;
  /** What runs a crawl verb of a job. @default `crawler` */
  runner?: CrawlRunner;
  replay: ReplayService;
  /** How often a running job reports progress. @default 1000 */
  progressIntervalMs?: number;
  /** Ended jobs kept for `get` and `list`, newest first. @default 200 */
  keepEnded?: number;
}

const ACTIONS: readonly JobAction[] = ['crawl', 'update', 'merge', 'rebuild', 'resume', 'replay'];
/** Urls one addSeeds call takes. */
const MAX_SEEDS_PER_CALL = 1000;
/** Start references one catalog keeps for its next runs. */
const MAX_STORED_SEEDS = 10_000;
/** How long a replay job may take to hold its catalog before start() answers anyway. */
const REPLAY_SLOT_WAIT_MS = 10_000;

interface Run {
  job: Job;
  abort: AbortController;
  /** Settles (never rejects) once the job ended, or failed to start. */
  ended: Promise<void>;
  markEnded: () => void;
}

type Ending<T> = { report: T } | { err: unknown };

/**
 * Runs in the background of a long-lived process (the REST API server, the prompt), one per catalog, each with a job
 * id: start, watch (progress about once a second, then one `end`), stop gracefully, add start references and change
 * the depth limit of a running crawl. Crawl verbs run through the CrawlService, replays through the ReplayService;
 * the run registry keeps a catalog to one run across processes.
 */
export class JobService {
  readonly #f: ComponentFactory;
  readonly #catalogs: () => Promise<CatalogService>;
  readonly #crawler: CrawlService;
  readonly #runner: CrawlRunner;
  readonly #replay: ReplayService;
  readonly #log: Logger;
  readonly #interval: number;
  readonly #keep: number;
  /** Jobs not ended, by catalog id (one per catalog). */
  readonly #live = new Map<string, Run>();
  /** Ended jobs, oldest first, at most `keepEnded`. */
  readonly #ended: Job[] = [];
  /** The newest crawl-verb job of each catalog, kept past `keepEnded` (metrics read its counters). */
  readonly #lastCrawl = new Map<string, Job>();
  readonly #listeners: JobListeners;
  #closing = false;

  constructor(options: JobServiceOptions) {
    this.#f = options.factory;
    this.#catalogs = options.catalogs;
    this.#crawler = options.crawler;
    this.#runner = options.runner ?? options.crawler;
    this.#replay = options.replay;
    this.#log = options.factory.log.child({ component: 'jobs' });
    this.#listeners = new JobListeners(this.#log);
    this.#interval = options.progressIntervalMs ?? 1000;
    this.#keep = options.keepEnded ?? 200;
  }

  /**
   * Start a job. Resolves as soon as the catalog is resolved (created, for `crawl` with a new `url`) and the run
   * holds it; the run continues in the background.
   * @throws CrawlerError CONFLICT when the catalog runs already (here or in another process), CONFIG/BAD_INPUT for a
   *   bad request, NOT_FOUND for an unknown catalog or nothing to resume; anything the run throws before it started
   */
  async start(req: JobStart): Promise<Job> {
    if (this.#closing) {
      throw new CrawlerError('CONFLICT', 'this process is shutting down and starts no new jobs', {
        fix: 'start it again once the process is back',
      });
    }
    const action = req.action ?? 'crawl';
    if (!ACTIONS.includes(action)) {
      throw new CrawlerError('BAD_INPUT', `"${String(action)}" is not a job action`, {
        fix: `use one of ${ACTIONS.join(', ')}`,
      });
    }
    const catalogs = await this.#catalogs();
    // A catalog that exists is checked before any setting given is stored on it.
    const known = await catalogs.find(pickRef(req));
    if (known) await this.#assertFree(known);
    if (action !== 'replay') assertImageModel(this.#f, { ...known?.settings, ...definedOf(req.settings) });
    let catalog: Catalog;
    if (action === 'replay') catalog = await catalogs.get(pickRef(req));
    else if (action === 'crawl') {
      this.#f.probeDataRoot();
      catalog = (await catalogs.resolve(req)).catalog;
    } else catalog = (await catalogs.existing(req)).catalog;
    if (!known) await this.#assertFree(catalog);
    const busy = this.#live.get(catalog.id);
    if (busy) throw conflict(catalog, busy.job);

    let markEnded!: () => void;
    const run: Run = {
      job: {
        jobId: uuidv7(),
        catalogId: catalog.id,
        catalog: catalog.name,
        version: null,
        action,
        state: 'queued',
        counters: null,
        queued: 0,
        active: 0,
        pagesPerSecond: 0,
        report: null,
        error: null,
        startedAt: new Date().toISOString(),
        endedAt: null,
      },
      abort: new AbortController(),
      ended: new Promise<void>((resolve) => {
        markEnded = resolve;
      }),
      markEnded: () => markEnded(),
    };
    this.#live.set(catalog.id, run);
    try {
      if (action === 'replay') await this.#launchReplay(run, catalog, req);
      else await this.#launchCrawl(run, catalog, action, req);
    } catch (err) {
      if (this.#live.get(catalog.id) === run) this.#live.delete(catalog.id);
      run.markEnded();
      throw err;
    }
    this.#log.info({ jobId: run.job.jobId, catalogId: catalog.id, action, version: run.job.version }, 'job started');
    return snapshot(run.job);
  }

  /** A running or recently ended job (the last `keepEnded` ended ones). */
  get(jobId: string): Job | undefined {
    for (const run of this.#live.values()) if (run.job.jobId === jobId) return snapshot(run.job);
    const ended = this.#ended.find((j) => j.jobId === jobId);
    return ended ? snapshot(ended) : undefined;
  }

  /** Running and recently ended jobs, newest first. */
  list(): Job[] {
    const all = [...[...this.#live.values()].map((r) => r.job), ...this.#ended];
    return all.sort((a, b) => (a.jobId < b.jobId ? 1 : a.jobId > b.jobId ? -1 : 0)).map(snapshot);
  }

  /** The job running a catalog in this process. */
  running(catalogId: string): Job | undefined {
    const run = this.#live.get(catalogId);
    return run ? snapshot(run.job) : undefined;
  }

  /** The newest crawl-verb job of each catalog (running or ended), kept however many jobs ended since. */
  latestCrawls(): Job[] {
    const out = new Map(this.#lastCrawl);
    for (const run of this.#live.values()) if (run.job.action !== 'replay') out.set(run.job.catalogId, run.job);
    return [...out.values()].map(snapshot);
  }

  /**
   * Stop a job gracefully: no new fetches start, in-flight pages finish, nothing is published and the frontier is
   * kept (a `resume` job continues). Resolves with the job once it ended (`stopped`, or how it ended by itself).
   * A job already ended is returned as it is.
   * @throws CrawlerError NOT_FOUND when nothing runs, CONFLICT for a replay (it cannot stop half-way)
   */
  async stop(ref: CatalogRef | { jobId: string }): Promise<Job> {
    let run: Run | undefined;
    if (isJobRef(ref)) {
      run = [...this.#live.values()].find((r) => r.job.jobId === ref.jobId);
      if (!run) {
        const ended = this.#ended.find((j) => j.jobId === ref.jobId);
        if (ended) return snapshot(ended);
        throw new CrawlerError('NOT_FOUND', `no job ${ref.jobId}`, { fix: 'list the jobs to see what runs' });
      }
    } else {
      const catalog = await (await this.#catalogs()).get(ref);
      run = this.#live.get(catalog.id);
      if (!run) {
        const holder = await this.#f.runs.holder(catalog.id);
        throw new CrawlerError('NOT_FOUND', `no job runs catalog "${catalog.name}" in this process`, {
          fix: holder
            ? `a ${holder.action} runs it in ${holder.where}: pause it there`
            : 'an interrupted crawl is continued with a resume job',
        });
      }
    }
    if (run.job.action === 'replay') {
      throw new CrawlerError('CONFLICT', `job ${run.job.jobId} is a replay, which cannot stop half-way`, {
        fix: `wait: job ${run.job.jobId} ends by itself`,
      });
    }
    this.#log.info({ jobId: run.job.jobId, catalogId: run.job.catalogId }, 'stopping job');
    run.abort.abort();
    await run.ended;
    return snapshot(run.job);
  }

  /**
   * Be told of jobs' progress (about once a second while a crawl runs) and of their one `end`. Subscribing to a job
   * that already ended is told its end at once. Returns the unsubscribe function.
   */
  subscribe(filter: { jobId?: string; catalogId?: string }, listener: (e: JobEvent) => void): () => void {
    const ended = filter.jobId ? this.#ended.find((j) => j.jobId === filter.jobId) : undefined;
    return this.#listeners.add(filter, listener, ended && snapshot(ended));
  }

  /**
   * More start references for a catalog. Each url is normalised and must sit under the catalog's url (as a start
   * url must). While a crawl of it runs in this process they go to its engine at once (depth 0, queued first, through
   * the acceptors); otherwise they are stored on the catalog (`seedUrls`) and seeded with the start url by its next
   * runs.
   * @throws CrawlerError BAD_INPUT for no urls or too many, NOT_FOUND for an unknown catalog
   */
  async addSeeds(ref: CatalogRef, urls: string[]): Promise<SeedsAdded> {
    if (!Array.isArray(urls) || urls.length === 0) {
      throw new CrawlerError('BAD_INPUT', 'no urls given', { fix: 'give a list of urls under the catalog url' });
    }
    if (urls.length > MAX_SEEDS_PER_CALL) {
      throw new CrawlerError('BAD_INPUT', `${urls.length} urls in one call; at most ${MAX_SEEDS_PER_CALL}`, {
        fix: 'send them in smaller batches',
      });
    }
    const catalogs = await this.#catalogs();
    const catalog = await catalogs.get(ref);
    const { valid, refused } = scopedSeeds(catalog, urls);
    const engine = this.#engine(catalog.id);
    if (engine) {
      const offer = valid.length > 0 ? await engine.addSeeds(valid) : { accepted: [], refused: [] };
      if (offer) {
        const jobId = this.#live.get(catalog.id)?.job.jobId;
        this.#log.info({ catalogId: catalog.id, jobId, accepted: offer.accepted.length }, 'seeds added to the run');
        return {
          to: 'running-job',
          ...(jobId ? { jobId } : {}),
          accepted: offer.accepted,
          refused: [...refused, ...offer.refused],
        };
      }
    }
    const stored = catalog.settings.seedUrls;
    const more = valid.filter((u) => !stored.includes(u) && u !== catalog.startUrl);
    if (stored.length + more.length > MAX_STORED_SEEDS) {
      throw new CrawlerError('BAD_INPUT', `catalog "${catalog.name}" would keep over ${MAX_STORED_SEEDS} seed urls`, {
        fix: 'a start reference is where fetching begins; the crawl finds the rest from the links',
      });
    }
    if (more.length > 0) await catalogs.update(catalog.id, { settings: { seedUrls: [...stored, ...more] } });
    this.#log.info({ catalogId: catalog.id, accepted: valid.length }, 'seeds stored for the next run');
    return { to: 'next-run', accepted: valid, refused };
  }

  /**
   * Store the catalog's link depth limit (`depth`, -1 = unlimited) and apply it at once to the crawl running it in
   * this process: links offered from then on are judged by it.
   * @throws ConfigError `--depth` for a value that is not an integer ≥ -1
   */
  async setDepthLimit(ref: CatalogRef, depthLimit: number): Promise<{ catalog: Catalog; runningJob?: string }> {
    const catalogs = await this.#catalogs();
    const found = await catalogs.get(ref);
    // Checked first, then applied to the run at once, then stored (the store is the slower part).
    const { depth } = resolveCatalogSettings({ ...found.settings, depth: depthLimit });
    const applied = this.#engine(found.id)?.setDepthLimit(depth) === true;
    const catalog = await catalogs.update(found.id, { settings: { depth } });
    const runningJob = applied ? this.#live.get(catalog.id)?.job.jobId : undefined;
    this.#log.info({ catalogId: catalog.id, depth: catalog.settings.depth, runningJob }, 'depth limit set');
    return { catalog, ...(runningJob ? { runningJob } : {}) };
  }

  /** Stop every job gracefully and wait until each ended (nothing is published half-way); start refuses from now. */
  async close(): Promise<void> {
    this.#closing = true;
    const runs = [...this.#live.values()];
    for (const run of runs) if (run.job.action !== 'replay') run.abort.abort();
    if (runs.length > 0) this.#log.info({ jobs: runs.length }, 'stopping jobs');
    await Promise.all(runs.map((r) => r.ended));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** A catalog is free when no job here and no other run (of this process or another) holds it. */
  async #assertFree(catalog: Catalog): Promise<void> {
    const mine = this.#live.get(catalog.id);
    if (mine) throw conflict(catalog, mine.job);
    const holder = await this.#f.runs.holder(catalog.id);
    if (holder) {
      throw new CrawlerError(
        'CONFLICT',
        `catalog "${catalog.name}" is busy: a ${holder.action} runs in ${holder.where}`,
        {
          fix:
            holder.where === 'this process'
              ? 'pause it first, or wait for it to end'
              : `pause it first, or wait: ${holder.where}`,
        },
      );
    }
  }

  #engine(catalogId: string): CrawlEngine | undefined {
    return this.#crawler.running().find((r) => r.catalogId === catalogId)?.engine;
  }

  async #launchCrawl(run: Run, catalog: Catalog, action: CrawlVerb, req: JobStart): Promise<void> {
    let markStarted!: (version: number) => void;
    const started = new Promise<number>((resolve) => {
      markStarted = resolve;
    });
    const ending: Promise<Ending<RunReport>> = this.#runner
      .crawl({
        id: catalog.id,
        action,
        signal: run.abort.signal,
        forcePublish: req.forcePublish,
        progressIntervalMs: this.#interval,
        onStart: (info) => markStarted(info.version),
        onProgress: (p) => this.#progress(run, p),
      })
      .then(
        (report) => ({ report }),
        (err: unknown) => ({ err }),
      );
    const first = await Promise.race([started.then((version) => ({ version })), ending.then((end) => ({ end }))]);
    if ('end' in first && 'err' in first.end) throw first.end.err;
    if ('version' in first) {
      run.job.version = first.version;
      run.job.state = 'running';
    }
    void ending.then((end) => this.#end(run, end));
  }

  async #launchReplay(run: Run, catalog: Catalog, req: JobStart): Promise<void> {
    let lastTold = 0;
    const ending: Promise<Ending<ReplayReport>> = this.#replay
      .replay(
        { id: catalog.id },
        {
          layers: (req.layers ?? []) as ReplayLayer[],
          version: req.version,
          onProgress: (p) => {
            run.job.replay = { ...p };
            const now = Date.now();
            if (now - lastTold < this.#interval) return;
            lastTold = now;
            this.#listeners.emit({ type: 'progress', job: snapshot(run.job) });
          },
        },
      )
      .then(
        (report) => ({ report }),
        (err: unknown) => ({ err }),
      );
    let settled: Ending<ReplayReport> | undefined;
    void ending.then((end) => {
      settled = end;
    });
    // The replay takes its catalog from the run registry after checking the version; wait for that, or its failure.
    const deadline = Date.now() + REPLAY_SLOT_WAIT_MS;
    while (!settled && Date.now() < deadline && !this.#f.runs.local().some((r) => r.catalogId === catalog.id)) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const early = settled as Ending<ReplayReport> | undefined;
    if (early && 'err' in early) throw early.err;
    run.job.state = 'running';
    void ending.then((end) => this.#end(run, end));
  }

  #progress(run: Run, p: CrawlProgress): void {
    const job = run.job;
    if (job.state !== 'running' && job.state !== 'queued') return;
    job.version = p.version;
    job.counters = p.counters;
    job.queued = p.queued;
    job.active = p.active;
    job.pagesPerSecond = p.pagesPerSecond;
    if (p.embedding) job.embedding = p.embedding;
    if (p.hosts) job.hosts = p.hosts;
    else delete job.hosts;
    const outputs = this.#engine(job.catalogId)?.outputStats();
    if (outputs) job.outputs = outputs;
    this.#listeners.emit({ type: 'progress', job: snapshot(job) });
  }

  /** Record how a job ended and tell its subscribers; never throws. */
  #end(run: Run, end: Ending<RunReport | ReplayReport>): void {
    const job = run.job;
    try {
      job.endedAt = new Date().toISOString();
      job.active = 0;
      job.pagesPerSecond = 0;
      delete job.hosts;
      if ('err' in end) {
        const r = reportOf(end.err);
        job.state = 'failed';
        job.error = { code: r.code, message: r.line };
        this.#log.warn({ jobId: job.jobId, catalogId: job.catalogId, err: end.err }, 'job failed');
      } else {
        job.report = end.report;
        if (isRunReport(end.report)) {
          const ending = end.report.ending;
          job.version = end.report.version;
          job.counters = finalCounters(end.report, job.counters);
          job.queued = end.report.urls.outstanding;
          job.outputs = end.report.outputs;
          job.state = ending.reason === 'interrupted' ? 'stopped' : ending.reason === 'error' ? 'failed' : 'done';
          if (job.state === 'failed') {
            job.error = {
              code: ending.withheld?.cause === 'store-failed' ? 'STORAGE' : undefined,
              message: ending.note ?? ending.reason,
            };
          }
        } else {
          job.version = end.report.version;
          job.state = 'done';
        }
        this.#log.info({ jobId: job.jobId, catalogId: job.catalogId, state: job.state }, 'job ended');
      }
    } catch (err) {
      job.state = 'failed';
      job.error ??= { code: undefined, message: reportOf(err).line };
    } finally {
      if (this.#live.get(job.catalogId) === run) this.#live.delete(job.catalogId);
      this.#ended.push(job);
      if (this.#ended.length > this.#keep) this.#ended.splice(0, this.#ended.length - this.#keep);
      if (job.action !== 'replay') this.#lastCrawl.set(job.catalogId, job);
      run.markEnded();
      this.#listeners.emit({ type: 'end', job: snapshot(job) });
    }
  }
}

function isJobRef(ref: CatalogRef | { jobId: string }): ref is { jobId: string } {
  return typeof (ref as { jobId?: unknown }).jobId === 'string';
}

function isRunReport(report: RunReport | ReplayReport): report is RunReport {
  return 'ending' in report;
}

/** The one reference `find` takes: id, else name, else url. */
function pickRef(req: CatalogRef): CatalogRef {
  if (req.id) return { id: req.id };
  if (req.name) return { name: req.name };
  return { url: req.url };
}

function conflict(catalog: Catalog, job: Job): CrawlerError {
  return new CrawlerError('CONFLICT', `catalog "${catalog.name}" is busy: a ${job.action} runs in this process`, {
    fix: `pause it first, or wait: job ${job.jobId}`,
  });
}

function snapshot(job: Job): Job {
  return { ...job };
}

/** The settings given, without the ones given as undefined (they keep what the catalog has). */
function definedOf<T extends object>(o: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}
