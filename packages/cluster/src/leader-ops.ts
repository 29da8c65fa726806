import { randomBytes } from 'node:crypto';
import {
  type AdminWriter,
  type Catalog,
  CrawlerError,
  type CrawlVerb,
  type Greenfinger,
  type Logger,
  reportStamp,
} from '@greenfinger/core/internal';
import type { Redis } from 'ioredis';
import { ADMIN_OPS } from './admin/admin-ops.js';
import { CATALOG_ROWS_OP, catalogRows } from './admin/catalog-catch-up.js';
import { pruneDeletion, prunedBy } from './channels/deletion-announcer.js';
import type { Deletion } from './channels/deletion-log.js';
import type { LeaderHandler } from './membership/leader-gateway.js';
import type { LeaderLease } from './membership/leader-lease.js';
import type { Membership } from './membership/membership.js';
import type { ControlChannel } from './plumbing/control-channel.js';
import type { ClusterKeys } from './plumbing/keys.js';
import { activeReplay } from './replay/replay-protocol.js';
import { type ClusterReplayRequest, startReplay } from './replay/replay-scatter.js';
import type { ClusterCrawlRequest, PolitenessScope, RunInfo, RunStarted } from './run/run-info.js';
import { discardResumable, RESUME_TTL_SECONDS, type ResumableRun, resumableRun, takeOver } from './run/run-resume.js';
import {
  clearCurrent,
  currentRun,
  expireRun,
  FINISHED_RUN_TTL_SECONDS,
  RUN_TTL_SECONDS,
} from './run/run-supervisor.js';
import { seenBuckets } from './run/url-seen.js';

/** What the leader's operations need of the member that leads. */
export interface LeaderOpsDeps {
  name: string;
  keys: ClusterKeys;
  redis: Redis;
  redisUrl: string;
  control: ControlChannel;
  lease: LeaderLease;
  membership: Membership;
  gf: () => Greenfinger;
  /** The member's own writer (its own database and registries). */
  localWriter: () => AdminWriter;
  /** Its writer as leader: each deletion announced to every member. */
  leaderWriter: () => AdminWriter;
  announce: (deletion: Deletion) => Promise<string>;
  politeness: () => PolitenessScope;
  log: Logger;
}

/**
 * What the leader channel serves while this member leads: opening and ending a run (one per cluster), a replay
 * scattered over the members, the catalog rows for a joining member, and every administrative write of the gateway,
 * publish fenced by the lease.
 */
export class LeaderOps {
  readonly #d: LeaderOpsDeps;

  constructor(deps: LeaderOpsDeps) {
    this.#d = deps;
  }

  handlers(): Record<string, LeaderHandler> {
    const handlers: Record<string, LeaderHandler> = {
      crawl: (req: ClusterCrawlRequest) => this.startRun(req),
      stop: (reason: string) => this.stopRun(reason === 'max-pages' ? 'max-pages' : 'interrupted'),
      replay: (req: ClusterReplayRequest) =>
        startReplay(
          {
            name: this.#d.name,
            keys: this.#d.keys,
            redis: this.#d.redis,
            redisUrl: this.#d.redisUrl,
            gf: this.#d.gf(),
            membership: this.#d.membership,
            log: this.#d.log,
          },
          req,
        ),
      [CATALOG_ROWS_OP]: () => catalogRows(this.#d.gf()),
    };
    for (const op of ADMIN_OPS) {
      handlers[`admin.${op}`] =
        op === 'publish'
          ? (catalogId: string, version: number) => this.publishOnce(catalogId, version)
          : (...args: never[]) => (this.#d.leaderWriter()[op] as (...a: never[]) => Promise<unknown>)(...args);
    }
    return handlers;
  }

  /**
   * On the leader: open a run (one per cluster), announce it, and answer with its id; members take part on STARTED.
   * `resume` continues the catalog's stopped run (run-resume.ts): its queue is taken over, on its version, with its
   * verb; any other verb starts afresh and supersedes a stopped run of the catalog.
   */
  async startRun(req: ClusterCrawlRequest): Promise<RunStarted> {
    const action: CrawlVerb = req.action ?? 'crawl';
    await this.#assertIdle();
    const catalogs = await this.#d.gf().catalogs();
    const { catalog: resolved, created } =
      action === 'crawl' ? await catalogs.resolve(req) : await catalogs.existing(req);
    const stopped = action === 'resume' ? await this.#stoppedRun(resolved) : undefined;
    if (!stopped) await discardResumable(this.#d.redis, this.#d.keys, resolved.id);
    const version = stopped
      ? stopped.version
      : action === 'rebuild'
        ? resolved.indexVersion + 1
        : resolved.indexVersion;
    const catalog = await this.#d.localWriter().setRunningState(resolved.id, action, version);
    const runId = `${reportStamp(new Date())}-${randomBytes(3).toString('hex')}`;
    const info: RunInfo = {
      runId,
      catalog,
      version,
      action: stopped ? stopped.action : action,
      buckets: stopped ? stopped.buckets : seenBuckets(catalog.settings.maxPages),
      startedAt: new Date().toISOString(),
      from: this.#d.name,
      politeness: this.#d.politeness(),
      ...(stopped ? { resumes: stopped.runId } : {}),
    };
    const claimed = await this.#d.redis.set(this.#d.keys.currentRun, JSON.stringify(info), 'EX', RUN_TTL_SECONDS, 'NX');
    if (claimed !== 'OK') {
      throw new CrawlerError('CONFLICT', `cluster "${this.#d.keys.cluster}" started another run meanwhile`, {
        fix: 'see `greenfinger status --cluster`',
      });
    }
    if (stopped) {
      const taken = await takeOver(this.#d.redis, this.#d.keys, stopped, this.#d.keys.run(runId));
      if (taken <= 0) {
        await clearCurrent(this.#d.redis, this.#d.keys, runId);
        await this.#d.localWriter().setRunningState(resolved.id, 'none');
        if (taken < 0) {
          throw new CrawlerError('CONFLICT', `run ${stopped.runId} of "${catalog.name}" was resumed meanwhile`, {
            fix: 'see `greenfinger status --cluster`',
          });
        }
        // Its queue is gone from Redis (deleted by hand, or lost): resuming would publish what the stop left.
        await expireRun(this.#d.redis, this.#d.keys.run(runId).base, FINISHED_RUN_TTL_SECONDS);
        throw new CrawlerError(
          'NOT_FOUND',
          `nothing to resume: the queue of stopped run ${stopped.runId} of "${catalog.name}" is no longer in Redis`,
          { fix: 'crawl or update it instead: pages already held are not fetched again' },
        );
      }
      this.#d.log.info({ runId, resumes: stopped.runId, taken }, 'resuming a stopped run');
    }
    await this.#d.control.publish({ type: 'STARTED', ...info });
    this.#d.log.info({ runId, catalog: catalog.name, version, action }, 'run started');
    return { runId, catalogId: catalog.id, catalog: catalog.name, version, action, created };
  }

  /** One run per cluster, and none while a replay runs. */
  async #assertIdle(): Promise<void> {
    let busy = await currentRun(this.#d.redis, this.#d.keys);
    // Completed a moment ago, and `run:current` not cleared yet (or its leader died in between): idle.
    if (busy && (await this.#d.redis.exists(this.#d.keys.run(busy.runId).completed))) {
      await clearCurrent(this.#d.redis, this.#d.keys, busy.runId);
      busy = undefined;
    }
    if (busy) {
      throw new CrawlerError(
        'CONFLICT',
        `cluster "${this.#d.keys.cluster}" is running ${busy.action} of "${busy.catalog.name}" (run ${busy.runId})`,
        { fix: 'wait for it to complete, or stop it with `greenfinger pause --cluster`' },
      );
    }
    if (await activeReplay(this.#d.redis, this.#d.keys)) {
      throw new CrawlerError('CONFLICT', `cluster "${this.#d.keys.cluster}" is replaying a catalog`, {
        fix: 'wait for the replay to end (replay --cluster prints its report then)',
      });
    }
  }

  /** The stopped run `resume` continues; one line with the fix when Redis holds none for the catalog. */
  async #stoppedRun(catalog: Catalog): Promise<ResumableRun> {
    const stopped = await resumableRun(this.#d.redis, this.#d.keys, catalog.id);
    if (stopped) return stopped;
    const hours = RESUME_TTL_SECONDS / 3600;
    throw new CrawlerError(
      'NOT_FOUND',
      `nothing to resume: cluster "${this.#d.keys.cluster}" holds no stopped run of "${catalog.name}" with urls left ` +
        `(a stopped run's queue is kept ${hours} hours, until another run of the catalog starts)`,
      { fix: 'crawl or update it instead: pages already held are not fetched again' },
    );
  }

  /** On the leader: end the run in progress for everyone (written once, then broadcast). */
  async stopRun(reason: 'interrupted' | 'max-pages'): Promise<{ runId: string } | null> {
    const info = await currentRun(this.#d.redis, this.#d.keys);
    if (!info) return null;
    await this.#d.redis.set(this.#d.keys.run(info.runId).ending, reason, 'NX');
    await this.#d.control.publish({ type: 'STOP', runId: info.runId, from: this.#d.name, reason });
    return { runId: info.runId };
  }

  /**
   * On the leader: publish a version, once per run and under the lease's fencing token (a stale leader is refused,
   * and a version never moves backwards), then tell every member so each writes its own search registry.
   */
  async publishOnce(catalogId: string, version: number): Promise<Catalog> {
    const local = this.#d.localWriter();
    const info = await currentRun(this.#d.redis, this.#d.keys);
    const run = info && info.catalog.id === catalogId && info.version === version ? info : undefined;
    const verdict = await this.#d.lease.fencedPublish(
      this.#d.lease.token,
      catalogId,
      version,
      run ? this.#d.keys.run(run.runId).published : undefined,
    );
    if (verdict === 'stale') {
      throw new CrawlerError('CLUSTER', `member ${this.#d.name} is no longer the leader; not published`, {
        fix: 'the new leader publishes when asked again',
      });
    }
    const row = async () => (await (await this.#d.gf().database()).catalogs.get(catalogId)) as Catalog;
    if (verdict === 'done') return row();
    if (verdict === 'backwards') {
      this.#d.log.warn({ catalogId, version }, 'a newer version is published already; not published backwards');
      return row();
    }
    let after: Catalog;
    let pruned: number[] = [];
    try {
      ({ value: after, pruned } = await prunedBy(this.#d.gf(), catalogId, () => local.publish(catalogId, version)));
    } catch (err) {
      if (run) await this.#d.redis.del(this.#d.keys.run(run.runId).published);
      throw err;
    }
    await this.#d.control.publish({
      type: 'PUBLISHED',
      runId: run?.runId ?? '-',
      from: this.#d.name,
      catalogId,
      version,
      catalog: after,
    });
    // The versions the publish pruned here go from every member's layers too (after PUBLISHED: no member's
    // search registry is left naming one of them).
    if (pruned.length > 0) {
      await this.#d.announce(pruneDeletion(catalogId, pruned)).catch((err: unknown) => {
        this.#d.log.error({ err, catalogId, pruned }, 'the pruned versions were not announced to the members');
      });
    }
    this.#d.log.info({ catalogId, version, pruned }, 'version published');
    return after;
  }
}
