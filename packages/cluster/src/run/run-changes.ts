import type { ChangedUrl, ChangeLogEntry, Greenfinger, Logger } from '@greenfinger/core/internal';
import type { Redis } from 'ioredis';
import type { ClusterKeys } from '../plumbing/keys.js';
import { parseObject } from '../plumbing/wire.js';
import type { MemberPart } from './cluster-report.js';
import type { RunInfo } from './run-info.js';

/**
 * A member's part of a run's change set, as it posts it with its part (CrawlRequest.publishedChanges); a rebuild's
 * set says which version it was compared with.
 */
export type PartChanges = NonNullable<MemberPart['changes']>;

/**
 * The run's change set from its members' parts: each url is handled by one member, so the parts add up; a url named
 * by two (a rebuild compares whole versions, on a shared database every member finds the same) is counted once. An
 * url added or changed by one part and removed by another is removed. Each list sorted by url.
 */
export function mergeChanges(parts: readonly PartChanges[]): PartChanges {
  const removed = new Set<string>();
  for (const p of parts) for (const u of p.removed) removed.add(u);
  const added = new Set<string>();
  const changed = new Map<string, ChangedUrl>();
  for (const p of parts) {
    for (const u of p.added) if (!removed.has(u)) added.add(u);
    for (const c of p.changed) if (!removed.has(c.url) && !added.has(c.url)) changed.set(c.url, c);
  }
  for (const u of added) changed.delete(u);
  const compared = parts.find((p) => p.comparedWith !== undefined)?.comparedWith;
  return {
    added: [...added].sort(),
    changed: [...changed.values()].sort((x, y) => (x.url < y.url ? -1 : x.url > y.url ? 1 : 0)),
    removed: [...removed].sort(),
    ...(compared !== undefined ? { comparedWith: compared } : {}),
  };
}

/** The run's change log entry (once it published), the parts' sets merged; undefined when no part published one. */
export function runChangeEntry(
  info: RunInfo,
  parts: Record<string, MemberPart>,
  at: string,
): ChangeLogEntry | undefined {
  const sets = Object.values(parts)
    .map((p) => p.changes)
    .filter((c): c is PartChanges => c !== undefined);
  if (sets.length === 0) return undefined;
  return { catalogId: info.catalog.id, version: info.version, action: info.action, at, ...mergeChanges(sets) };
}

export interface RunChangesContext {
  keys: ClusterKeys;
  redis: Redis;
  gf: Greenfinger;
  log: Logger;
}

/**
 * On the leader that completes a published run, once: the run's change set written to its change log (one entry for
 * the run, not one per member), kept in Redis for the members with a file store of their own, and told to its
 * publications — the catalog's webhooks get one signed POST of the whole set, its saved searches are matched once.
 */
export async function announceRunChanges(
  ctx: RunChangesContext,
  info: Pick<RunInfo, 'catalog' | 'version' | 'action'>,
  runId: string,
  entry: ChangeLogEntry,
  expirySeconds: number,
): Promise<void> {
  try {
    await ctx.gf.changes.record(entry);
  } catch (err) {
    ctx.log.warn({ err, runId }, 'the run’s change set was not written to the change log');
  }
  await ctx.redis
    .set(ctx.keys.run(runId).changes, JSON.stringify(entry), 'EX', expirySeconds)
    .catch((err: unknown) => ctx.log.warn({ err, runId }, 'the run’s change set was not kept for the members'));
  const catalog =
    (await (await ctx.gf.database()).catalogs.get(info.catalog.id).catch(() => undefined)) ?? info.catalog;
  ctx.gf.factory.publications.notify({
    catalog,
    version: info.version,
    action: info.action,
    runId,
    publishedAt: entry.at,
    changes: { added: entry.added, changed: entry.changed, removed: entry.removed },
    ...(entry.comparedWith !== undefined ? { comparedWith: entry.comparedWith } : {}),
  });
}

/**
 * On a member whose file store is its own (per-node files), when a run completed: the run's change log entry the
 * leader kept in Redis, written to this member's change log too (a shared store already holds the leader's).
 */
export async function followRunChanges(ctx: RunChangesContext, runId: string): Promise<boolean> {
  const entry = parseObject((await ctx.redis.get(ctx.keys.run(runId).changes)) ?? '') as ChangeLogEntry | undefined;
  if (!entry || typeof entry.catalogId !== 'string') return false;
  const catalog = await (await ctx.gf.database()).catalogs.get(entry.catalogId);
  if (!catalog) return false;
  // Already here (the blob channel brought the leader's file): not twice.
  const log = await ctx.gf.changes.log(catalog);
  if (log.some((e) => e.version === entry.version && e.at === entry.at && e.action === entry.action)) return false;
  await ctx.gf.changes.record(entry);
  return true;
}

/** What a leader keeps of a run's change set until it is recorded (`changes:owed`). */
interface OwedChanges {
  info: Pick<RunInfo, 'catalog' | 'version' | 'action'>;
  entry: ChangeLogEntry;
}

/**
 * A run's change set as it is owed (the `changes:owed` field the completion writes with `completed`, in one script)
 * until {@link settleRunChanges} records it: a leader that dies between completing the run and recording it leaves
 * it to the next leader.
 */
export function oweRunChanges(info: RunInfo, entry: ChangeLogEntry): string {
  const owed: OwedChanges = { info: { catalog: info.catalog, version: info.version, action: info.action }, entry };
  return JSON.stringify(owed);
}

/** The run's change set recorded and told (once more, when the leader that completed it did so and died before this). */
export async function settleRunChanges(
  ctx: RunChangesContext,
  runId: string,
  info: Pick<RunInfo, 'catalog' | 'version' | 'action'>,
  entry: ChangeLogEntry,
  expirySeconds: number,
): Promise<void> {
  await announceRunChanges(ctx, info, runId, entry, expirySeconds);
  await ctx.redis.hdel(ctx.keys.changesOwed, runId);
}

/**
 * On the leader, each pass of its watch: the change sets of runs that completed but whose leader did not record them
 * (it died in between) are recorded now, by this leader; an owed set of a run that never completed stays for the
 * leader that completes it, and one whose run's keys are gone is dropped. At least once: a leader that lost the lease
 * while recording may have done it too.
 */
export async function recordOwedChanges(ctx: RunChangesContext, expirySeconds: number): Promise<number> {
  if ((await ctx.redis.hlen(ctx.keys.changesOwed)) === 0) return 0;
  let recorded = 0;
  for (const [runId, text] of Object.entries(await ctx.redis.hgetall(ctx.keys.changesOwed))) {
    const owed = parseObject(text) as OwedChanges | undefined;
    const run = ctx.keys.run(runId);
    if (!owed?.entry || !owed.info) {
      await ctx.redis.hdel(ctx.keys.changesOwed, runId);
      continue;
    }
    if (await ctx.redis.exists(run.completed)) {
      ctx.log.info({ runId }, 'a completed run’s change set was not recorded by its leader: recording it');
      await settleRunChanges(ctx, runId, owed.info, owed.entry, expirySeconds);
      recorded++;
    } else if ((await ctx.redis.exists(run.members)) === 0) await ctx.redis.hdel(ctx.keys.changesOwed, runId);
  }
  return recorded;
}
