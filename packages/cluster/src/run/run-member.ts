import type { Greenfinger, Logger } from '@greenfinger/core';
import type { Redis } from 'ioredis';
import { SharedCounters } from '../budgets/shared-counters.js';
import type { ClusterKeys } from '../plumbing/keys.js';
import { closeRedis, connectRedis } from '../plumbing/redis-connection.js';
import { ClusterCrawlCoordinator } from './cluster-crawl-coordinator.js';
import type { MemberPart } from './cluster-report.js';
import { redisFeedShare } from './feed-share.js';
import { JOIN } from './routing-scripts.js';
import type { RunInfo } from './run-info.js';
import { RunRing } from './run-ring.js';

/** What a member takes part in a run with. */
export interface MemberContext {
  name: string;
  keys: ClusterKeys;
  redis: Redis;
  redisUrl: string;
  gf: Greenfinger;
  log: Logger;
  /** Worker threads of this member's part (`--threads`); default the catalog's. */
  threads?: number | undefined;
  /** Be told when this member's heartbeat lapsed (Membership.onLapse); returns the way to stop being told. */
  onLapse?: ((handler: () => void) => () => void) | undefined;
}

/**
 * This member's part of a run: make sure its database holds the catalog row the run was announced with, join the
 * run (its stream, its start token), route through a ClusterCrawlCoordinator, crawl the run's version with the
 * member's own Greenfinger, publish its progress every 500 ms, and post its part (its report) when its engine ends.
 * Returns undefined when the run had already ended.
 */
export async function takePart(
  ctx: MemberContext,
  info: RunInfo,
  hooks: { beforeCrawl?: () => void } = {},
): Promise<MemberPart | undefined> {
  const log = ctx.log.child({ component: 'run-member', runId: info.runId });
  const run = ctx.keys.run(info.runId);
  const catalogId = info.catalog.id;
  await ensureCatalog(ctx.gf, info, log);
  const joined = await JOIN.run(ctx.redis, [run.members, run.counters, run.ending, run.stream(ctx.name)], [ctx.name]);
  if (Number(joined) !== 1) {
    log.info('the run had ended before this member joined it');
    return undefined;
  }
  const ring = new RunRing(ctx.redis, ctx.keys, run, { self: ctx.name, log });
  await ring.start();
  const reader = await connectRedis(ctx.redisUrl, { role: 'crawl-stream', log });
  const progress = new SharedCounters(ctx.redis, run.progress, ctx.name, { log });
  let coordinator: ClusterCrawlCoordinator | undefined;
  let changes: MemberPart['changes'];
  const publishProgress = () => {
    const engine = ctx.gf.crawler.running().find((r) => r.catalogId === catalogId)?.engine;
    if (!engine) return;
    progress.set(
      'p',
      JSON.stringify({ counters: engine.counters.snapshot(), active: engine.active, held: coordinator?.held ?? 0 }),
    );
  };
  // Taken for dead meanwhile: what was re-homed is not fetched here too (cluster-crawl-coordinator.ts, revalidate).
  // Checked again 1.5 s later: the leader may still have been re-homing (it looks every 500 ms).
  const revalidate = () =>
    coordinator?.revalidate().catch((err: unknown) => log.warn({ err }, 'held urls not checked after the lapse'));
  const stopWatching = ctx.onLapse?.(() => {
    void revalidate();
    setTimeout(() => void revalidate(), 1500).unref();
  });
  const timer = setInterval(publishProgress, 500);
  timer.unref();
  progress.start();
  log.info({ catalog: info.catalog.name, version: info.version, action: info.action }, 'taking part in the run');
  try {
    hooks.beforeCrawl?.();
    const report = await ctx.gf.crawler.crawl({
      id: catalogId,
      action: info.action,
      version: info.version,
      threads: ctx.threads,
      // Its part of the change set goes to the leader with its part: the run's whole set is recorded once.
      // The catalog's change feeds are read once, by the member that started the run, and judged by on every member.
      feedShare: redisFeedShare(ctx.redis, run, { me: ctx.name, reader: info.from }, feedWaitMs(info)),
      publishedChanges: async (p) => {
        changes = { ...p.changes, ...(p.comparedWith !== undefined ? { comparedWith: p.comparedWith } : {}) };
      },
      coordinator: (frontier) => {
        coordinator = new ClusterCrawlCoordinator(frontier, {
          redis: ctx.redis,
          reader,
          run,
          node: ctx.name,
          ring,
          catalogId,
          version: info.version,
          buckets: info.buckets,
          threads: ctx.threads ?? info.catalog.settings.threads,
          log,
        });
        return coordinator;
      },
    });
    return {
      report,
      received: coordinator?.received ?? 0,
      duplicates: coordinator?.duplicates ?? 0,
      forwarded: coordinator?.forwarded ?? 0,
      revoked: coordinator?.revoked ?? 0,
      ...(changes ? { changes } : {}),
    };
  } catch (err) {
    log.error({ err }, 'this member’s part of the run failed');
    return { error: err instanceof Error ? err.message : String(err) };
  } finally {
    stopWatching?.();
    clearInterval(timer);
    publishProgress();
    await progress.stop();
    await coordinator?.close();
    ring.stop();
    await closeRedis(reader);
    // A part that ends while the run goes on (an error here, a stop of this member's own) leaves the run: the others
    // route around it and the leader re-homes what is left in its stream, as for a member that died.
    if (!(await ctx.redis.exists(run.ending))) {
      await ctx.redis.sadd(run.left, ctx.name);
      log.warn('this member’s part ended before the run did; it left the run and its urls are re-homed');
    }
  }
}

/**
 * The catalog row the run was announced with, stored in this member's database when it has never seen it (a
 * per-node database; a shared one already holds it). Seed 000: a member that never heard of a catalog cannot open
 * its half of the crawl, and nothing says so.
 */
async function ensureCatalog(gf: Greenfinger, info: RunInfo, log: Logger): Promise<void> {
  const db = await gf.database();
  if (await db.catalogs.get(info.catalog.id)) return;
  try {
    await db.catalogs.create(info.catalog);
    log.info({ catalogId: info.catalog.id }, 'catalog row taken from the run’s announcement');
  } catch (err) {
    // Somebody else wrote it meanwhile (seed 000: treat a failed insert as another writer's, and read back).
    if (!(await db.catalogs.get(info.catalog.id))) throw err;
  }
}

/** Post this member's part of the run, for the leader to merge. */
export async function postPart(
  redis: Redis,
  keys: ClusterKeys,
  runId: string,
  node: string,
  part: MemberPart,
): Promise<void> {
  await redis.hset(keys.run(runId).reports, node, JSON.stringify(part));
}

/** How long a member waits for the run's change feeds: each feed's own time bound (60 s), and 30 s more. */
function feedWaitMs(info: RunInfo): number {
  return (info.catalog.settings.changeFeeds ?? []).length * 60_000 + 30_000;
}
