import { type CounterSnapshot, CrawlerError, type CrawlProgress, type Logger } from '@greenfinger/core';
import type { Redis } from 'ioredis';
import { byNode } from './budgets/shared-counters.js';
import { LeaderGateway } from './membership/leader-gateway.js';
import { LeaderLease } from './membership/leader-lease.js';
import { Membership } from './membership/membership.js';
import { ClusterKeys } from './plumbing/keys.js';
import { closeRedis, connectRedis } from './plumbing/redis-connection.js';
import { parseObject } from './plumbing/wire.js';
import { type ReplayWaitOptions, replayOnCluster } from './replay/replay-client.js';
import type { ClusterReplayReport } from './replay/replay-protocol.js';
import type { ClusterReplayRequest } from './replay/replay-scatter.js';
import type { ClusterRunReport } from './run/cluster-report.js';
import { type ClusterSchedules, readSchedules } from './run/leader-schedules.js';
import { CHECK, runState } from './run/routing-scripts.js';
import type { ClusterCrawlRequest, RunStarted } from './run/run-info.js';
import { resumableRuns } from './run/run-resume.js';
import { currentRun } from './run/run-supervisor.js';

/** One member as `status --cluster` shows it. */
export interface MemberStatus {
  name: string;
  leader: boolean;
  pid: number;
  host: string;
  startedAt: string;
  dataRoot?: string;
  /** Its part of the run in progress: pages saved and handled, pages being handled, stream entries held. */
  run?: { saved: number; handled: number; active: number; held: number };
}

/** What `status --cluster NAME --json` prints. */
export interface ClusterStatus {
  cluster: string;
  leader: { name: string; token: number; ttlMs: number } | null;
  members: MemberStatus[];
  /** Names still listed whose heartbeat is gone (dead, not yet cleared). */
  dead: string[];
  run: {
    runId: string;
    catalogId: string;
    catalog: string;
    version: number;
    action: string;
    startedAt: string;
    ending: string | null;
    /** Σ dispatched and Σ handled over the members (the exact routing counters), and entries in the streams. */
    dispatched: number;
    handled: number;
    streamed: number;
    members: string[];
  } | null;
  /** The catalogs' schedules as the leader last saw them (its last and next run each); null when none lately. */
  schedules: ClusterSchedules | null;
  /** Stopped runs with urls left, kept for `resume --cluster` (run-resume.ts). */
  stopped: Array<{
    runId: string;
    catalogId: string;
    catalog: string;
    version: number;
    action: string;
    reason: string;
    endedAt: string;
    left: number;
  }>;
}

const SUMMED: Array<keyof CounterSnapshot> = [
  'dispatched',
  'handled',
  'saved',
  'images',
  'indexed',
  'vectored',
  'alreadySeen',
  'filtered',
  'unreachable',
  'duplicateContent',
  'failures',
  'abandoned',
  'unmodified',
  'redirected',
  'charsetFallbacks',
];

/**
 * A process that is not a member (the one-line CLI with `--cluster`): it reads the cluster's state from Redis and
 * sends what must be done by the leader through the leader channel.
 */
export class ClusterClient {
  readonly keys: ClusterKeys;
  readonly #redis: Redis;
  readonly #gateway: LeaderGateway;
  readonly #membership: Membership;
  readonly #lease: LeaderLease;

  private constructor(redis: Redis, keys: ClusterKeys, redisUrl: string, log: Logger) {
    this.keys = keys;
    this.#redis = redis;
    this.#gateway = new LeaderGateway(redis, keys, { redisUrl, from: `client-${process.pid}`, log });
    this.#membership = new Membership(redis, keys, { name: `client-${process.pid}`, log });
    this.#lease = new LeaderLease(redis, keys, { name: '-', instance: '-', log });
  }

  static async open(options: { cluster: string; redisUrl: string; log: Logger }): Promise<ClusterClient> {
    const keys = new ClusterKeys(options.cluster);
    const redis = await connectRedis(options.redisUrl, { role: 'client', log: options.log });
    return new ClusterClient(redis, keys, options.redisUrl, options.log);
  }

  async status(): Promise<ClusterStatus> {
    const [live, dead, holder, info, stopped, schedules] = await Promise.all([
      this.#membership.live(),
      this.#membership.dead(),
      this.#lease.holder(),
      currentRun(this.#redis, this.keys),
      resumableRuns(this.#redis, this.keys),
      readSchedules(this.#redis, this.keys),
    ]);
    let run: ClusterStatus['run'] = null;
    const parts = new Map<string, MemberStatus['run']>();
    if (info) {
      const keys = this.keys.run(info.runId);
      const state = runState(
        await CHECK.run(this.#redis, [keys.counters, keys.members, keys.ending], [keys.stream('')]),
      );
      for (const [node, row] of byNode(await this.#redis.hgetall(keys.progress))) {
        const p = parseObject(row.p ?? '') ?? {};
        const c = (p.counters ?? {}) as Partial<CounterSnapshot>;
        parts.set(node, {
          saved: c.saved ?? 0,
          handled: c.handled ?? 0,
          active: Number(p.active ?? 0),
          held: Number(p.held ?? 0),
        });
      }
      run = {
        runId: info.runId,
        catalogId: info.catalog.id,
        catalog: info.catalog.name,
        version: info.version,
        action: info.action,
        startedAt: info.startedAt,
        ending: state.ending ?? null,
        dispatched: state.dispatched,
        handled: state.handled,
        streamed: state.streamed,
        members: (await this.#redis.smembers(keys.members)).sort(),
      };
    }
    return {
      cluster: this.keys.cluster,
      leader: holder ? { name: holder.name, token: holder.token, ttlMs: holder.ttlMs } : null,
      members: live.map((m) => ({
        name: m.name,
        leader: holder?.name === m.name && holder.instance === m.instance,
        pid: m.pid,
        host: m.host,
        startedAt: m.startedAt,
        ...(typeof m.dataRoot === 'string' ? { dataRoot: m.dataRoot } : {}),
        ...(parts.has(m.name) ? { run: parts.get(m.name) } : {}),
      })),
      dead,
      run,
      schedules,
      stopped: stopped.map(({ runId, catalogId, catalog, version, action, reason, endedAt, left }) => ({
        runId,
        catalogId,
        catalog,
        version,
        action,
        reason,
        endedAt,
        left,
      })),
    };
  }

  /**
   * Have the leader start a crawl verb and wait for the cluster to complete it, with progress every `intervalMs`;
   * an abort asks the leader to stop the run (in-flight pages finish, nothing is published) and still waits.
   */
  async crawl(
    req: ClusterCrawlRequest,
    options: {
      onStarted?: (started: RunStarted) => void;
      onProgress?: (p: CrawlProgress) => void;
      signal?: AbortSignal;
      intervalMs?: number;
      /** @default the catalog's duration plus 10 minutes */
      timeoutMs?: number;
    } = {},
  ): Promise<ClusterRunReport> {
    const started = await this.#gateway.call<RunStarted>('crawl', [req]);
    options.onStarted?.(started);
    const keys = this.keys.run(started.runId);
    const info = await currentRun(this.#redis, this.keys);
    const minutes = info?.runId === started.runId ? info.catalog.settings.durationMinutes : 60;
    const deadline = Date.now() + (options.timeoutMs ?? (minutes + 10) * 60_000);
    let stopAsked = false;
    let lastSaved = 0;
    let lastAt = Date.now();
    let rate = 0;
    while (Date.now() < deadline) {
      const done = await this.#redis.get(keys.completed);
      if (done) return completedReport(started.runId, done, this.keys.cluster);
      if (options.signal?.aborted && !stopAsked) {
        stopAsked = true;
        await this.#gateway.call('stop', ['interrupted']).catch(() => undefined);
      }
      if (options.onProgress) {
        const counters = await this.#progress(keys.progress);
        const state = runState(
          await CHECK.run(this.#redis, [keys.counters, keys.members, keys.ending], [keys.stream('')]),
        );
        const now = Date.now();
        const inst = ((counters.saved - lastSaved) * 1000) / Math.max(1, now - lastAt);
        rate = rate === 0 ? inst : rate * 0.7 + inst * 0.3;
        lastSaved = counters.saved;
        lastAt = now;
        options.onProgress({
          catalog: started.catalog,
          action: started.action,
          version: started.version,
          counters,
          queued: state.streamed,
          active: counters.active,
          pagesPerSecond: rate,
        });
      }
      await new Promise((r) => setTimeout(r, options.intervalMs ?? 500));
    }
    throw new CrawlerError('CLUSTER', `run ${started.runId} did not complete in time`, {
      fix: 'see `greenfinger status --cluster` and the members’ logs',
    });
  }

  /** The members' counters added up (`active` = pages being handled over the cluster). */
  async #progress(key: string): Promise<CounterSnapshot & { active: number }> {
    const sum = {
      rejected: {},
      examples: {},
      pictures: { rejected: {}, examples: {} },
      rendered: {},
    } as unknown as Record<string, unknown>;
    let active = 0;
    let elapsed = 0;
    for (const row of byNode(await this.#redis.hgetall(key)).values()) {
      const p = parseObject(row.p ?? '') ?? {};
      const c = (p.counters ?? {}) as Record<string, unknown>;
      for (const k of SUMMED) sum[k] = Number(sum[k] ?? 0) + Number(c[k] ?? 0);
      for (const [k, v] of Object.entries((c.rejected ?? {}) as Record<string, number>)) {
        const r = sum.rejected as Record<string, number>;
        r[k] = (r[k] ?? 0) + v;
      }
      active += Number(p.active ?? 0);
      elapsed = Math.max(elapsed, Number(c.elapsedMs ?? 0));
    }
    return { ...(sum as unknown as CounterSnapshot), consecutiveFailures: 0, elapsedMs: elapsed, active };
  }

  /**
   * Have the leader replay a stored version over the cluster (slices of 200 pages to every member, replay-scatter.ts)
   * and wait for the merged report, with progress every `intervalMs`.
   */
  replay(req: ClusterReplayRequest, options: ReplayWaitOptions = {}): Promise<ClusterReplayReport> {
    return replayOnCluster({ gateway: this.#gateway, redis: this.#redis, keys: this.keys }, req, options);
  }

  /** Ask the leader to stop the run in progress; null when nothing runs. */
  stop(): Promise<{ runId: string } | null> {
    return this.#gateway.call('stop', ['interrupted']);
  }

  async close(): Promise<void> {
    await closeRedis(this.#redis);
  }
}

/**
 * The merged report of a completed run, or — when no member posted one (every part failed) — one line naming the
 * run's end and each member's reason, with the resume that continues it.
 */
function completedReport(runId: string, text: string, cluster: string): ClusterRunReport {
  const body = JSON.parse(text) as Partial<ClusterRunReport> & { missing?: Record<string, string> };
  if (body.produced) return body as ClusterRunReport;
  // By member name: the same run says the same line, whichever member's failure was recorded first.
  const why = Object.entries(body.missing ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([node, reason]) => `${node}: ${reason}`)
    .join('; ');
  throw new CrawlerError(
    'CLUSTER',
    `run ${runId} ended (${body.ending?.reason ?? 'unknown'}) without a report from any member${why ? ` — ${why}` : ''}`,
    {
      fix: `correct the cause, then continue it: greenfinger resume --cluster ${cluster} --id ${body.catalogId ?? '<catalog id>'}`,
    },
  );
}
