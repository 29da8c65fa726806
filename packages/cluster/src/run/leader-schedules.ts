import type { Greenfinger, Logger, ScheduledCatalog } from '@greenfinger/core/internal';
import type { Redis } from 'ioredis';
import type { ClusterKeys } from '../plumbing/keys.js';
import { parseObject } from '../plumbing/wire.js';
import { currentRun } from './run-supervisor.js';

/** What the leader last saw of the catalogs' schedules, as `status --cluster` shows it (the `schedules` key). */
export interface ClusterSchedules {
  /** The member that leads and runs them. */
  leader: string;
  /** When it looked (ISO). */
  at: string;
  catalogs: ScheduledCatalog[];
}

/** How often the leader looks at the schedules at most (a schedule set meanwhile is seen within this). */
const LOOK_EVERY_MS = 2000;
/** How often a member that does not lead asks whether it leads now. */
const LEAD_POLL_MS = 250;
/** How long the leader's view of the schedules stays in Redis unrenewed (a dead leader's view goes with it). */
const VIEW_TTL_MS = 10_000;
/** How long `stop` waits for the loop (a run it follows is let go, which ends its job at once). */
const STOP_WAIT_MS = 5000;

export interface LeaderSchedulesDeps {
  name: string;
  keys: ClusterKeys;
  redis: Redis;
  gf: () => Greenfinger;
  isLeader: () => boolean;
  /** Told each scheduled run this leader started (the `node` command prints a line). */
  onStart?: ((run: { catalog: string; action: string; jobId: string }) => void) | undefined;
  log: Logger;
}

/**
 * The catalogs' schedules (`--schedule`, docs/freshness.md) on a cluster: every member runs this loop, only the
 * leader acts. While it leads it starts each due catalog's run through its jobs — a member's crawl runner sends the
 * verb to the leader, so a scheduled run is a cluster run over every member, exactly as `crawl --cluster` starts one
 * — and writes what it sees of the schedules to Redis for `status --cluster`. A run in progress on the cluster
 * (`run:current`, whoever started it) is left to its run: a new leader that takes over mid-run starts nothing until
 * it completed, and the leader's own one-run-per-cluster claim (SET NX of `run:current`) refuses a second start
 * anyway. A run's end is the schedule's clock, read from the reports (the merged report the completing leader
 * writes), so the hand-over needs no state of its own.
 */
export class LeaderSchedules {
  readonly #d: LeaderSchedulesDeps;
  readonly #stop = new AbortController();
  #loop: Promise<void> | undefined;

  constructor(deps: LeaderSchedulesDeps) {
    this.#d = deps;
  }

  /** Start the loop (once). */
  start(): void {
    this.#loop ??= this.#run().catch((err: unknown) => this.#d.log.error({ err }, 'the schedules stopped'));
  }

  /**
   * Stop starting runs. A scheduled run this member follows is let go when it leaves (the cluster's crawl runner),
   * not stopped: the run goes on on the others. Resolves once the loop has returned.
   */
  async stop(): Promise<void> {
    this.#stop.abort();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, STOP_WAIT_MS);
    });
    await Promise.race([this.#loop, bound]);
    clearTimeout(timer);
  }

  async #run(): Promise<void> {
    const signal = this.#stop.signal;
    let leading = false;
    while (!signal.aborted) {
      if (!this.#d.isLeader()) {
        if (leading) this.#d.log.info('no longer leading: the schedules are the new leader’s');
        leading = false;
        await sleep(LEAD_POLL_MS, signal);
        continue;
      }
      if (!leading) this.#d.log.info('leading: the catalogs’ schedules run here');
      leading = true;
      try {
        await this.#look(signal);
      } catch (err) {
        if (signal.aborted) break;
        this.#d.log.warn({ err }, 'the schedules were not looked at; trying again');
        await sleep(LOOK_EVERY_MS, signal);
      }
    }
  }

  /** One look while leading: publish the view, start what is due (to its end), else sleep until the next is due. */
  async #look(signal: AbortSignal): Promise<void> {
    const schedules = this.#d.gf().schedules;
    const list = await schedules.list(undefined, { changes: true });
    await this.#publish(list);
    const busy = await currentRun(this.#d.redis, this.#d.keys);
    const now = Date.now();
    const due = busy ? undefined : list.find((s) => !s.running && s.nextRunAt && Date.parse(s.nextRunAt) <= now);
    if (due && this.#d.isLeader() && !signal.aborted) {
      const runs = await schedules.runDue({
        names: [due.catalog],
        signal,
        onStart: (job) => {
          this.#d.log.info({ catalog: due.catalog, action: job.action, jobId: job.jobId }, 'scheduled cluster run');
          this.#d.onStart?.({ catalog: due.catalog, action: job.action, jobId: job.jobId });
        },
      });
      for (const r of runs) {
        this.#d.log.info({ catalog: r.catalog, action: r.action, state: r.job.state }, 'scheduled cluster run ended');
      }
      return;
    }
    const next = list.find((s) => !s.running && s.nextRunAt !== null);
    const wait = busy || !next ? LOOK_EVERY_MS : Date.parse(next.nextRunAt as string) - Date.now();
    // Awake at least every LEAD_POLL_MS: a lost lease or a stop is seen at once.
    const until = Date.now() + Math.max(0, Math.min(wait, LOOK_EVERY_MS));
    while (!signal.aborted && this.#d.isLeader() && Date.now() < until) {
      await sleep(Math.min(LEAD_POLL_MS, until - Date.now()), signal);
    }
  }

  async #publish(catalogs: ScheduledCatalog[]): Promise<void> {
    const view: ClusterSchedules = { leader: this.#d.name, at: new Date().toISOString(), catalogs };
    await this.#d.redis.set(this.#d.keys.schedules, JSON.stringify(view), 'PX', VIEW_TTL_MS);
  }
}

/** The leader's last view of the schedules, or null when no leader wrote one lately. */
export async function readSchedules(redis: Redis, keys: ClusterKeys): Promise<ClusterSchedules | null> {
  const v = parseObject((await redis.get(keys.schedules)) ?? '');
  if (!v || typeof v.leader !== 'string' || !Array.isArray(v.catalogs)) return null;
  return { leader: v.leader, at: String(v.at ?? ''), catalogs: v.catalogs as ScheduledCatalog[] };
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
    const timer = setTimeout(done, Math.max(0, ms));
    signal.addEventListener('abort', done, { once: true });
  });
}
