import {
  type AdminWriter,
  type ChangeLogEntry,
  type Greenfinger,
  type Logger,
  keys as layoutKeys,
  reportStamp,
} from '@greenfinger/core/internal';
import type { Redis } from 'ioredis';
import { byNode } from '../budgets/shared-counters.js';
import { framesBehind, framesCaughtUp, trimFrames } from '../channels/multicast-frames.js';
import type { Membership } from '../membership/membership.js';
import type { ControlChannel } from '../plumbing/control-channel.js';
import type { ClusterKeys } from '../plumbing/keys.js';
import { LuaScript } from '../plumbing/lua-script.js';
import { parseObject } from '../plumbing/wire.js';
import { type ClusterRunReport, continueReport, type MemberPart, mergeReports } from './cluster-report.js';
import { CrawlStreams } from './crawl-stream.js';
import { rehome } from './rehome.js';
import { CHECK, runState } from './routing-scripts.js';
import { oweRunChanges, recordOwedChanges, runChangeEntry, settleRunChanges } from './run-changes.js';
import { decodeRunInfo, type RunInfo } from './run-info.js';
import { holdQueue, keepForResume, type ResumableRun, reportBefore } from './run-resume.js';

/** How long a run's keys stay after it completed (the CLI reads the merged report from there). */
export const FINISHED_RUN_TTL_SECONDS = 3600;
/** How long completion waits, once every part is posted, for every member to apply the search and record channels. */
export const SEARCH_WAIT_MS = 120_000;
/** A run's keys expire this long after the last time a leader looked at it, so a cluster that dies leaves nothing. */
export const RUN_TTL_SECONDS = 24 * 3600;

/** Delete `run:current` only when it still names this run. */
const CLEAR_CURRENT = new LuaScript(`
local v = redis.call('GET', KEYS[1])
if v and string.find(v, ARGV[1], 1, true) then return redis.call('DEL', KEYS[1]) end
return 0`);

/** The run completed (SET NX), once; then, when it published a change set, that set owed (changes-owed). */
const COMPLETE = new LuaScript(`
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 0 end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[2], ARGV[2], ARGV[3]) end
return 1`);

export interface SupervisorContext {
  name: string;
  keys: ClusterKeys;
  redis: Redis;
  gf: Greenfinger;
  membership: Membership;
  control: ControlChannel;
  /** The leader's own writer (the running state is the run's to clear). */
  local: () => AdminWriter;
  log: Logger;
}

/** Delete `run:current` when it still names this run (idempotent). */
export async function clearCurrent(redis: Redis, keys: ClusterKeys, runId: string): Promise<void> {
  await CLEAR_CURRENT.run(redis, [keys.currentRun], [`"runId":"${runId}"`]);
}

/** The run in progress, as `run:current` holds it. */
export async function currentRun(redis: Redis, keys: ClusterKeys): Promise<RunInfo | undefined> {
  const text = await redis.get(keys.currentRun);
  return text ? decodeRunInfo(text) : undefined;
}

/**
 * The leader's watch over the run in progress, one pass (every 500 ms): re-home the streams of members that died or
 * left the run,
 * end the run at the catalog's page limit counted over every member, and once the run has ended and every live
 * member has posted its part, merge the reports, write the merged report and broadcast COMPLETED — once, whoever
 * leads when it happens. Completion itself is not decided here (every member decides it from the counters), so a
 * leader that dies mid-crawl leaves nothing hanging: the next one carries on from the keys.
 */
export async function supervise(ctx: SupervisorContext): Promise<void> {
  // What a leader that died between completing a run and recording its change set left owed.
  await recordOwedChanges(ctx, FINISHED_RUN_TTL_SECONDS);
  const info = await currentRun(ctx.redis, ctx.keys);
  if (!info) return;
  const run = ctx.keys.run(info.runId);
  const [members, liveInfo, announcedEnding, left] = await Promise.all([
    ctx.redis.smembers(run.members),
    ctx.membership.live(),
    ctx.redis.get(run.ending),
    ctx.redis.smembers(run.left).then((n) => new Set(n)),
  ]);
  const live = new Set(liveInfo.map((m) => m.name));
  const liveMembers = members.filter((m) => live.has(m) && !left.has(m)).sort();
  const streams = new CrawlStreams(ctx.redis);
  for (const dead of members.filter((m) => !live.has(m) || left.has(m))) {
    const key = run.stream(dead);
    if ((await streams.length(key)) === 0 && (await ctx.redis.hexists(run.counters, `${dead}|seeded`))) continue;
    const r = await rehome({
      redis: ctx.redis,
      run,
      dead,
      live: liveMembers,
      catalogId: info.catalog.id,
      version: info.version,
      claimant: ctx.name,
      log: ctx.log,
    });
    if (r.moved > 0) {
      await ctx.redis.hincrby(run.rehomed, `${dead}|moved`, r.moved);
      await ctx.redis.hincrby(run.rehomed, `${dead}|claimed`, r.claimed);
    }
  }
  for (const key of run.replicated) await trimFrames(ctx.redis, key, liveMembers).catch(() => undefined);
  const ending = announcedEnding ?? (await endWithoutMembers(ctx, info.runId, { members, live, liveMembers, left }));
  if (!ending) {
    const saved = [...byNode(await ctx.redis.hgetall(run.progress)).values()].reduce((sum, row) => {
      const p = parseObject(row.p ?? '');
      return sum + Number((p?.counters as { saved?: number } | undefined)?.saved ?? 0);
    }, 0);
    if (saved >= info.catalog.settings.maxPages && (await ctx.redis.set(run.ending, 'max-pages', 'NX')) === 'OK') {
      ctx.log.info({ saved, maxPages: info.catalog.settings.maxPages }, 'the page limit is reached over the cluster');
      await ctx.control.publish({ type: 'STOP', runId: info.runId, from: ctx.name, reason: 'max-pages' });
    }
    await keepAlive(ctx, info.runId);
    return;
  }
  const posted = await ctx.redis.hgetall(run.reports);
  if (liveMembers.some((m) => posted[m] === undefined)) return;
  // Every member has applied the others' frames (the search, record, blob and vector channels) — or two minutes passed
  // since the last part was posted, and the run completes anyway, saying so.
  await ctx.redis.set(run.postedAt, String(Date.now()), 'NX');
  let caughtUp = true;
  for (const key of run.replicated) caughtUp = caughtUp && (await framesCaughtUp(ctx.redis, key, liveMembers));
  const since = Date.now() - Number((await ctx.redis.get(run.postedAt)) ?? Date.now());
  if (!caughtUp && since < SEARCH_WAIT_MS) return;
  if (!caughtUp) {
    const behind: Record<string, unknown> = {};
    for (const key of run.replicated) {
      const b = await framesBehind(ctx.redis, key, liveMembers);
      if (b.length > 0) behind[key.slice(run.base.length)] = b;
    }
    ctx.log.warn({ waitedMs: since, behind }, 'not every member applied the replicated channels; completing anyway');
  }
  const tookPart = byNode(await ctx.redis.hgetall(run.progress));
  for (const m of members) {
    if (posted[m] !== undefined) continue;
    const error =
      info.resumes && !tookPart.has(m)
        ? `took no part: its queue from the stopped run ${info.resumes} went to the others`
        : 'left the cluster without a report (its heartbeat expired)';
    posted[m] = JSON.stringify({ error });
  }
  await complete(ctx, info, ending, posted);
}

/** How long a run must have no member left in it before it ends (a heartbeat can lapse for a moment). */
const NO_MEMBERS_MS = 5000;
/** Since when each run has had no live member that has not left it. */
const memberless = new Map<string, number>();

/**
 * A run that nobody can work on any more — every member died or left it (each one's part failed, say its database
 * refused the pages), and every live node that never joined has already posted that it could not — would wait for
 * ever: after {@link NO_MEMBERS_MS} it ends as `error`, unpublished, what its streams hold kept for
 * `resume --cluster`. The ending, when this pass set it.
 */
async function endWithoutMembers(
  ctx: SupervisorContext,
  runId: string,
  who: {
    members: readonly string[];
    live: ReadonlySet<string>;
    liveMembers: readonly string[];
    left: ReadonlySet<string>;
  },
): Promise<string | undefined> {
  const run = ctx.keys.run(runId);
  const working = async () => {
    if (who.liveMembers.length > 0) return true;
    const posted = new Set(await ctx.redis.hkeys(run.reports));
    // A live node that has not joined yet, nor said it could not, may still join (a run has just started).
    return [...who.live].some((n) => !who.members.includes(n) && !posted.has(n) && !who.left.has(n));
  };
  if (await working()) {
    memberless.delete(runId);
    return undefined;
  }
  const since = memberless.get(runId) ?? Date.now();
  memberless.set(runId, since);
  if (Date.now() - since < NO_MEMBERS_MS) return undefined;
  memberless.delete(runId);
  if ((await ctx.redis.set(run.ending, 'error', 'NX')) !== 'OK') return (await ctx.redis.get(run.ending)) ?? undefined;
  ctx.log.error(
    { runId, members: who.members, left: [...who.left] },
    'nobody is left to work on the run (its members died, left it or could not join); it ends unpublished, its queue kept for resume --cluster',
  );
  return 'error';
}

/** When each run's keys were last given their expiry (a scan of the run's keys, so at most once a minute). */
const refreshed = new Map<string, number>();

/** A run in progress keeps its keys (and `run:current`) for RUN_TTL_SECONDS after the last look at it. */
async function keepAlive(ctx: SupervisorContext, runId: string): Promise<void> {
  if (Date.now() - (refreshed.get(runId) ?? 0) < 60_000) return;
  refreshed.set(runId, Date.now());
  await ctx.redis.expire(ctx.keys.currentRun, RUN_TTL_SECONDS);
  await expireRun(ctx.redis, ctx.keys.run(runId).base, RUN_TTL_SECONDS);
}

/**
 * Merge, write, broadcast COMPLETED, clear the run: once (SET NX on the run's `completed` key). A resumed run's report
 * continues the stopped run's; a run that leaves urls in its streams is kept for `resume --cluster` (run-resume.ts).
 */
async function complete(ctx: SupervisorContext, info: RunInfo, ending: string, posted: Record<string, string>) {
  const run = ctx.keys.run(info.runId);
  const parts: Record<string, MemberPart> = {};
  for (const [node, text] of Object.entries(posted)) parts[node] = (parseObject(text) ?? {}) as MemberPart;
  let merged = mergeReports({ cluster: ctx.keys.cluster, runId: info.runId, ending, parts });
  let changes: ChangeLogEntry | undefined;
  const state = runState(await CHECK.run(ctx.redis, [run.counters, run.members, run.ending], [run.stream('')]));
  if (merged) {
    const before = info.resumes ? await reportBefore(ctx.redis, run) : undefined;
    if (before) merged = continueReport(before, merged);
    merged.routing = { dispatched: state.dispatched, handled: state.handled, streamed: state.streamed };
    const rehomed = byNode(await ctx.redis.hgetall(run.rehomed));
    if (rehomed.size > 0) {
      merged.rehomed = Object.fromEntries(
        [...rehomed].map(([node, r]) => [node, { moved: Number(r.moved ?? 0), claimed: Number(r.claimed ?? 0) }]),
      );
    }
    // The run's change set over every member (its counts, not the first member's, in the merged report).
    changes = merged.ending.published ? runChangeEntry(info, parts, merged.endedAt) : undefined;
    if (changes) {
      merged.changes = {
        added: changes.added.length,
        changed: changes.changed.length,
        removed: changes.removed.length,
      };
    } else delete merged.changes;
    await writeMerged(ctx, info, merged);
  }
  // No member posted a report (every part failed): what the run was and why each part ended, for the caller.
  const body = JSON.stringify(
    merged ?? {
      runId: info.runId,
      catalogId: info.catalog.id,
      catalog: info.catalog.name,
      version: info.version,
      ending: { reason: ending, published: false },
      missing: Object.fromEntries(Object.entries(parts).map(([n, p]) => [n, p.error ?? 'no report'])),
    },
  );
  // Kept for a resume before the run reads as completed: a caller that sees it completed can resume it at once.
  const stopped = state.streamed > 0 ? await resumeRecord(ctx, info, ending, state.streamed) : undefined;
  if (stopped) await keepForResume(ctx.redis, ctx.keys, stopped, merged ?? undefined);
  // Completed and its change set owed in one step: if this leader dies before recording it, the next one does.
  const owed = changes ? oweRunChanges(info, changes) : undefined;
  const first =
    (await COMPLETE.run(ctx.redis, [run.completed, ctx.keys.changesOwed], [body, info.runId, owed ?? ''])) === 1;
  // Whoever finds it completed clears `run:current` (a leader that died right after completing it left it set).
  await clearCurrent(ctx.redis, ctx.keys, info.runId);
  if (!first) return;
  // Once, by the leader that completed it: one change log entry for the run, its webhooks and saved searches.
  if (changes) await settleRunChanges(ctx, info.runId, info, changes, FINISHED_RUN_TTL_SECONDS);
  await ctx
    .local()
    .setRunningState(info.catalog.id, 'none')
    .catch((err: unknown) => ctx.log.warn({ err }, 'could not reset the running state'));
  await ctx.control.publish({
    type: 'COMPLETED',
    runId: info.runId,
    from: ctx.name,
    catalogId: info.catalog.id,
    version: info.version,
    reason: ending,
    published: merged?.ending.published ?? false,
  });
  await expireRun(ctx.redis, run.base, FINISHED_RUN_TTL_SECONDS);
  if (stopped) {
    // Again after the hour every run key was just given: the queue a resume takes over keeps its days.
    await holdQueue(ctx.redis, ctx.keys, stopped);
    ctx.log.info({ runId: info.runId, left: state.streamed }, 'the run left urls in its streams: kept for a resume');
  }
  ctx.log.info({ runId: info.runId, ending, saved: merged?.produced.saved }, 'the cluster run is complete');
}

/** What `resume --cluster` needs of a run that ended with urls left in its streams. */
async function resumeRecord(
  ctx: SupervisorContext,
  info: RunInfo,
  ending: string,
  left: number,
): Promise<ResumableRun> {
  const members = await ctx.redis.smembers(ctx.keys.run(info.runId).members);
  return {
    runId: info.runId,
    catalogId: info.catalog.id,
    catalog: info.catalog.name,
    version: info.version,
    action: info.action,
    buckets: info.buckets,
    members: members.sort(),
    reason: ending,
    endedAt: new Date().toISOString(),
    left,
  };
}

/** The merged report, in the leader's file store (`reports/{stamp}-{action}-cluster.json`) and as the version's row. */
async function writeMerged(ctx: SupervisorContext, info: RunInfo, merged: ClusterRunReport): Promise<void> {
  const path = layoutKeys.report(
    info.catalog.id,
    info.version,
    reportStamp(new Date(merged.endedAt)),
    info.action,
    'cluster',
  );
  merged.path = path;
  try {
    await ctx.gf.blobs.put(path, `${JSON.stringify(merged, null, 2)}\n`);
    await (await ctx.gf.database()).resources.saveReport({
      catalogId: info.catalog.id,
      version: info.version,
      action: info.action,
      published: merged.ending.published,
      report: merged,
      createdAt: merged.endedAt,
    });
  } catch (err) {
    ctx.log.warn({ err }, 'the merged report could not be stored');
  }
}

/** Give every key of a run an expiry. */
export async function expireRun(redis: Redis, base: string, seconds: number): Promise<number> {
  let cursor = '0';
  let n = 0;
  for (let i = 0; i < 100_000; i++) {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${base}*`, 'COUNT', 500);
    if (found.length > 0) {
      const p = redis.pipeline();
      for (const k of found) p.expire(k, seconds);
      await p.exec();
      n += found.length;
    }
    cursor = next;
    if (cursor === '0') break;
  }
  return n;
}
