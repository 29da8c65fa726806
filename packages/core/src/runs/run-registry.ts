import { CrawlerError } from '../errors.js';
import type { CrawlAction } from '../model.js';
import { RunLock } from './run-lock.js';

/** One run of a catalog (crawl, replay, delete) as the registry knows it. */
export interface RunInfo {
  catalogId: string;
  action: CrawlAction;
  /** Where it runs: `this process`, or `process {pid}` on this host. */
  where: string;
  pid: number;
  since: string;
  /** The latest progress the run reported (live counters). */
  progress?: Record<string, unknown> | undefined;
}

/** A run's hold on its catalog: report progress while it runs, release it when it ends. */
export interface RunHandle {
  readonly catalogId: string;
  progress(progress: Record<string, unknown>): Promise<void>;
  release(): Promise<void>;
}

/**
 * The run registry: what is running, pause and stop, live counters. One run per catalog at a time. The local
 * registry knows the runs of this process and, through run locks under `system/locks`, those of other processes on
 * this host; a cluster's registry answers for every node.
 */
export interface RunRegistry {
  /**
   * Take the catalog for one run; `stop` is how the registry asks it to end gracefully.
   * @throws CrawlerError CONFLICT when another run holds the catalog
   */
  acquire(catalogId: string, action: CrawlAction, stop?: () => void): Promise<RunHandle>;
  /** Who runs the catalog now; undefined when nobody does. */
  holder(catalogId: string): Promise<RunInfo | undefined>;
  /** Every live run, with the progress each last reported. */
  list(): Promise<RunInfo[]>;
  /** Runs of this process. */
  local(): RunInfo[];
  /**
   * Ask the run of a catalog to stop gracefully (in-flight pages finish, nothing is published) and wait until it has.
   * @throws CrawlerError NOT_FOUND when nothing runs it, CONFLICT when it did not stop within `timeoutMs`
   */
  stop(catalogId: string, options?: { timeoutMs?: number }): Promise<RunInfo>;
}

interface LocalRun {
  info: RunInfo;
  stop: (() => void) | undefined;
}

/** This process's runs, and other processes' on this host through their run locks. */
export class LocalRunRegistry implements RunRegistry {
  readonly #system: string;
  readonly #runs = new Map<string, LocalRun>();

  /** @param systemDir the data store's `system/` directory */
  constructor(systemDir: string) {
    this.#system = systemDir;
  }

  async acquire(catalogId: string, action: CrawlAction, stop?: () => void): Promise<RunHandle> {
    const mine = this.#runs.get(catalogId);
    if (mine) {
      throw new CrawlerError('CONFLICT', `catalog ${catalogId} is busy: a ${mine.info.action} runs in this process`, {
        fix: 'wait for it to finish, or stop it first (pause)',
      });
    }
    const lock = await RunLock.acquire(this.#system, catalogId);
    const info: RunInfo = {
      catalogId,
      action,
      where: 'this process',
      pid: process.pid,
      since: new Date().toISOString(),
    };
    this.#runs.set(catalogId, { info, stop });
    return {
      catalogId,
      progress: async (progress) => {
        info.progress = progress;
        await lock.writeProgress({ action, ...progress });
      },
      release: async () => {
        this.#runs.delete(catalogId);
        await lock.release();
      },
    };
  }

  async holder(catalogId: string): Promise<RunInfo | undefined> {
    const mine = this.#runs.get(catalogId);
    if (mine) return mine.info;
    const other = await RunLock.holder(this.#system, catalogId);
    if (!other || other.pid === process.pid) return undefined;
    return { catalogId, action: 'crawl', where: `process ${other.pid}`, pid: other.pid, since: other.since };
  }

  async list(): Promise<RunInfo[]> {
    const out = this.local();
    for (const lock of await RunLock.list(this.#system)) {
      if (!lock.alive || this.#runs.has(lock.catalogId) || lock.pid === process.pid) continue;
      const progress = lock.progress as { action?: CrawlAction } | undefined;
      out.push({
        catalogId: lock.catalogId,
        action: progress?.action ?? 'crawl',
        where: `process ${lock.pid}`,
        pid: lock.pid,
        since: lock.since,
        ...(progress ? { progress } : {}),
      });
    }
    return out;
  }

  local(): RunInfo[] {
    return [...this.#runs.values()].map((r) => r.info);
  }

  async stop(catalogId: string, options: { timeoutMs?: number } = {}): Promise<RunInfo> {
    const holder = await this.holder(catalogId);
    if (!holder) {
      throw new CrawlerError('NOT_FOUND', `nothing runs catalog ${catalogId}`, {
        fix: 'see what runs with `greenfinger status`; an interrupted crawl is continued with resume',
      });
    }
    const mine = this.#runs.get(catalogId);
    if (mine?.stop) mine.stop();
    else if (!mine) process.kill(holder.pid, 'SIGTERM');
    const timeoutMs = options.timeoutMs ?? 120_000;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && (await this.holder(catalogId))) await new Promise((r) => setTimeout(r, 100));
    if (await this.holder(catalogId)) {
      throw new CrawlerError('CONFLICT', `${holder.where} did not stop within ${timeoutMs / 1000} s`, {
        fix: 'it may be finishing slow pages; run status, or stop it with kill',
      });
    }
    return holder;
  }
}
