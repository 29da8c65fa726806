import type { Logger } from 'pino';
import { CrawlerError } from '../errors.js';
import type { Catalog, RunReport } from '../model.js';
import { nextRunAt, parseSchedule, type Schedule } from '../settings/schedule.js';
import type { RecordDatabase } from '../storage/record-store.js';
import type { CatalogService } from './catalog-service.js';
import type { ChangeService } from './change-service.js';
import type { Job, JobService } from './job-service.js';

/** A catalog with a schedule, as `watch`, `status`, the API and the page show it. */
export interface ScheduledCatalog {
  catalogId: string;
  catalog: string;
  /** The schedule as stored (`every 6h`, `0 *\/6 * * *`). */
  schedule: string;
  /** When its last run ended (ISO), if it ever ran. */
  lastRunAt: string | null;
  /** When the schedule next starts a run (ISO); null when the cron expression never matches. */
  nextRunAt: string | null;
  /** A run of it is going on in this process now. */
  running: boolean;
  /** What its latest publishing run changed, in numbers (asked with `changes`; null when none recorded one). */
  lastChanges?: { at: string; version: number; added: number; changed: number; removed: number } | null;
}

/** One run a schedule started, once it ended. */
export interface ScheduledRun {
  catalogId: string;
  catalog: string;
  /** `crawl` (never ran), `resume` (its last run was stopped or killed), else `merge`. */
  action: Job['action'];
  job: Job;
}

export interface ScheduleServiceOptions {
  catalogs: () => Promise<CatalogService>;
  database: () => Promise<RecordDatabase>;
  jobs: JobService;
  /** The change log, for each catalog's last change counts. */
  changes?: Pick<ChangeService, 'log'>;
  log: Logger;
  /** The clock (tests). @default Date.now */
  now?: () => number;
}

/** How long `watch` sleeps at most between two looks at the catalogs (a schedule changed meanwhile is seen). */
const LOOK_EVERY_MS = 60_000;

/**
 * Runs catalogs on their schedules (issue 27, `--schedule`): a due catalog's run is a `merge` (new urls and every held
 * page revisited with a conditional GET), a `resume` when its last run was stopped or killed (nothing lost, nothing
 * fetched twice), a `crawl` when it never ran. Runs go through the JobService, one at a time, so a server shows them
 * as jobs. A run's end is the schedule's clock: `every 6h` is six hours after the last run ended.
 */
export class ScheduleService {
  readonly #catalogs: () => Promise<CatalogService>;
  readonly #database: () => Promise<RecordDatabase>;
  readonly #jobs: JobService;
  readonly #changes: Pick<ChangeService, 'log'> | undefined;
  readonly #log: Logger;
  readonly #now: () => number;
  /** When a run this service started ended, by catalog id: the clock even if a store kept no report of it. */
  readonly #endedHere = new Map<string, number>();

  constructor(options: ScheduleServiceOptions) {
    this.#catalogs = options.catalogs;
    this.#database = options.database;
    this.#jobs = options.jobs;
    this.#changes = options.changes;
    this.#log = options.log;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The catalogs with a schedule (all, or those named), soonest first; with `changes`, each with what its latest
   * publishing run changed (read from the change log: for a status, not for the watch loop).
   */
  async list(names?: readonly string[], options: { changes?: boolean } = {}): Promise<ScheduledCatalog[]> {
    const now = this.#now();
    const out: ScheduledCatalog[] = [];
    for (const catalog of await this.#scheduled(names)) {
      const last = await this.#lastRunAt(catalog);
      const next = nextRunAt(scheduleOf(catalog), last, now);
      out.push({
        catalogId: catalog.id,
        catalog: catalog.name,
        schedule: catalog.settings.schedule,
        lastRunAt: last === undefined ? null : new Date(last).toISOString(),
        nextRunAt: Number.isFinite(next) ? new Date(next).toISOString() : null,
        running: this.#jobs.running(catalog.id) !== undefined,
        ...(options.changes && this.#changes ? { lastChanges: await this.#lastChanges(catalog) } : {}),
      });
    }
    return out.sort((a, b) => (a.nextRunAt ?? '~').localeCompare(b.nextRunAt ?? '~'));
  }

  /**
   * Run every catalog that is due now (of those named), one after the other, each to its end; a catalog running
   * already is left to its run. Resolves with the runs started; stops starting new ones once `signal` aborts.
   */
  async runDue(
    options: { names?: readonly string[]; signal?: AbortSignal; onStart?: (job: Job) => void } = {},
  ): Promise<ScheduledRun[]> {
    const runs: ScheduledRun[] = [];
    for (const s of await this.list(options.names)) {
      if (options.signal?.aborted) break;
      if (s.running || s.nextRunAt === null || Date.parse(s.nextRunAt) > this.#now()) continue;
      const job = await this.#start(s, options.signal);
      if (!job) continue;
      options.onStart?.(job);
      const ended = await this.#ended(job);
      this.#endedHere.set(s.catalogId, Date.parse(ended.endedAt ?? new Date(this.#now()).toISOString()));
      runs.push({ catalogId: s.catalogId, catalog: s.catalog, action: job.action, job: ended });
    }
    return runs;
  }

  /**
   * Run the schedules until `signal` aborts: what is due runs, then it sleeps until the next is due (looking again at
   * least every minute). `once`: run what is due now and return.
   */
  async watch(options: {
    names?: readonly string[];
    signal: AbortSignal;
    once?: boolean;
    onStart?: (job: Job) => void;
    onRun?: (run: ScheduledRun) => void;
    onIdle?: (next: ScheduledCatalog | undefined) => void;
  }): Promise<ScheduledRun[]> {
    const all: ScheduledRun[] = [];
    while (!options.signal.aborted) {
      const runs = await this.runDue({ ...options, onStart: options.onStart });
      for (const r of runs) options.onRun?.(r);
      all.push(...runs);
      if (options.once || options.signal.aborted) break;
      const next = (await this.list(options.names)).find((s) => !s.running && s.nextRunAt !== null);
      options.onIdle?.(next);
      const wait = next ? Math.max(0, Date.parse(next.nextRunAt as string) - this.#now()) : LOOK_EVERY_MS;
      await sleep(Math.min(wait, LOOK_EVERY_MS), options.signal);
    }
    return all;
  }

  async #scheduled(names?: readonly string[]): Promise<Catalog[]> {
    const catalogs = await (await this.#catalogs()).list();
    if (names && names.length > 0) {
      const unknown = names.filter((n) => !catalogs.some((c) => c.name === n));
      if (unknown.length > 0) {
        throw new CrawlerError('NOT_FOUND', `no catalog named ${unknown.map((n) => `"${n}"`).join(', ')}`, {
          fix: 'run `greenfinger catalogs` to list them',
        });
      }
      const unscheduled = catalogs.filter((c) => names.includes(c.name) && !c.settings.schedule);
      if (unscheduled.length > 0) {
        throw new CrawlerError('BAD_INPUT', `"${unscheduled[0]?.name}" has no schedule`, {
          fix: `give it one: greenfinger catalog update ${unscheduled[0]?.name} --schedule "every 6h"`,
        });
      }
    }
    return catalogs.filter((c) => c.settings.schedule && (!names?.length || names.includes(c.name)));
  }

  async #lastChanges(catalog: Catalog): Promise<ScheduledCatalog['lastChanges']> {
    const last = (await this.#changes?.log(catalog))?.at(-1);
    if (!last) return null;
    const { at, version, added, changed, removed } = last;
    return { at, version, added: added.length, changed: changed.length, removed: removed.length };
  }

  /** When the catalog's last run ended: the newest report of any of its versions. */
  async #lastRunAt(catalog: Catalog): Promise<number | undefined> {
    const reports = await (await this.#database()).resources.listReports(catalog.id);
    let last = this.#endedHere.get(catalog.id);
    for (const r of reports) {
      const at = Date.parse((r.report as RunReport).endedAt ?? r.createdAt);
      if (Number.isFinite(at) && (last === undefined || at > last)) last = at;
    }
    return last;
  }

  /** Start the due catalog's run: resume what a stopped or killed run left, else merge (crawl when it never ran). */
  async #start(s: ScheduledCatalog, signal?: AbortSignal): Promise<Job | undefined> {
    if (signal?.aborted) return undefined;
    const attempts: Job['action'][] = s.lastRunAt === null ? ['resume', 'crawl'] : ['resume', 'merge'];
    for (const action of attempts) {
      try {
        const job = await this.#jobs.start({ id: s.catalogId, action });
        this.#log.info({ catalogId: s.catalogId, action, jobId: job.jobId }, 'scheduled run started');
        if (signal) {
          const stop = () => void this.#jobs.stop({ jobId: job.jobId }).catch(() => undefined);
          signal.addEventListener('abort', stop, { once: true });
          void this.#ended(job).then(() => signal.removeEventListener('abort', stop));
        }
        return job;
      } catch (err) {
        const nothingLeft = err instanceof CrawlerError && err.code === 'NOT_FOUND' && action === 'resume';
        if (nothingLeft) continue;
        if (err instanceof CrawlerError && err.code === 'CONFLICT') {
          this.#log.info({ catalogId: s.catalogId, err: err.message }, 'scheduled run skipped: the catalog is busy');
          return undefined;
        }
        throw err;
      }
    }
    return undefined;
  }

  #ended(job: Job): Promise<Job> {
    return new Promise<Job>((resolve) => {
      const stop = this.#jobs.subscribe({ jobId: job.jobId }, (e) => {
        if (e.type !== 'end') return;
        stop();
        resolve(e.job);
      });
      // It may have ended before the subscription.
      const now = this.#jobs.get(job.jobId);
      if (now?.endedAt) {
        stop();
        resolve(now);
      }
    });
  }
}

function scheduleOf(catalog: Catalog): Schedule {
  return parseSchedule(catalog.settings.schedule, 'schedule');
}

/** Resolves after `ms`, or at once when the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
