import type { CrawlVerb } from '@greenfinger/core';
import type { Redis } from 'ioredis';
import type { ClusterKeys, RunKeys } from '../plumbing/keys.js';
import { LuaScript } from '../plumbing/lua-script.js';
import { parseObject } from '../plumbing/wire.js';
import type { ClusterRunReport } from './cluster-report.js';

/**
 * How long a stopped run's queue stays in Redis for `resume --cluster`: its members' streams (every url dispatched
 * and not handled, pending or not), its seen set, its page budget and its picture claims.
 */
export const RESUME_TTL_SECONDS = 7 * 24 * 3600;

/**
 * A cluster run that ended with urls left in its streams (a pause, a store error, a limit of failures): what a
 * `resume --cluster` of its catalog continues. Kept under `gf:<cluster>:resumable:<catalogId>`.
 */
export interface ResumableRun {
  runId: string;
  catalogId: string;
  /** The catalog's name when the run stopped. */
  catalog: string;
  version: number;
  /** The verb its members ran (a resumed run runs it again, on the same version). */
  action: CrawlVerb;
  buckets: number;
  /** Its members: their streams hold what is left. */
  members: string[];
  /** Why it ended. */
  reason: string;
  endedAt: string;
  /** Entries left in its streams when it ended. */
  left: number;
}

/** The keys of a run that a resumed run takes over, by name: its members' streams, the seen set, budget, pictures. */
function carried(run: RunKeys, r: Pick<ResumableRun, 'members' | 'buckets'>): string[] {
  const keys = r.members.map((m) => run.stream(m));
  for (let b = 0; b < r.buckets; b++) keys.push(run.seen(b));
  keys.push(run.budget, run.pictures);
  return keys;
}

/**
 * Keep a run that ended with urls left for a resume: the record, and the keys a resume takes over given
 * RESUME_TTL_SECONDS instead of the hour a finished run's keys get. `report` is the run's merged report (the resumed
 * run's report continues its counters).
 */
export async function keepForResume(
  redis: Redis,
  keys: ClusterKeys,
  record: ResumableRun,
  report: ClusterRunReport | undefined,
): Promise<void> {
  const run = keys.run(record.runId);
  const p = redis.pipeline();
  p.set(keys.resumable(record.catalogId), JSON.stringify(record), 'EX', RESUME_TTL_SECONDS);
  if (report) p.set(run.before, JSON.stringify(report), 'EX', RESUME_TTL_SECONDS);
  await p.exec();
  await holdQueue(redis, keys, record);
}

/**
 * Give a stopped run's queue (the keys a resume takes over) RESUME_TTL_SECONDS, the record aside: a key a resume has
 * taken over already is gone, and EXPIRE leaves it so.
 */
export async function holdQueue(redis: Redis, keys: ClusterKeys, record: ResumableRun): Promise<void> {
  const run = keys.run(record.runId);
  const p = redis.pipeline();
  for (const k of [...carried(run, record), run.before]) p.expire(k, RESUME_TTL_SECONDS);
  await p.exec();
}

/** The stopped run of a catalog that `resume --cluster` would continue, if Redis still holds it. */
export async function resumableRun(
  redis: Redis,
  keys: ClusterKeys,
  catalogId: string,
): Promise<ResumableRun | undefined> {
  const o = parseObject((await redis.get(keys.resumable(catalogId))) ?? '');
  if (!o || typeof o.runId !== 'string' || !Array.isArray(o.members)) return undefined;
  return o as unknown as ResumableRun;
}

/**
 * Move a stopped run's queue into a new run, in one script: each member's stream (with its consumer group and the
 * entries delivered and not acknowledged) becomes that member's stream of the new run, counted dispatched and
 * seeded, so Σd = Σh keeps meaning "nothing left"; the seen set, the page budget and the picture claims move with
 * it, so nothing handled before is dispatched, counted or fetched again. The record goes (a run is resumed once).
 * KEYS: record, new counters, new members, (old, new) × n streams, (old, new) × m other keys.
 * ARGV: n, m, member names × n. Returns the entries taken over, or -1 when the record was gone.
 */
const TAKE_OVER = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local n = tonumber(ARGV[1])
local m = tonumber(ARGV[2])
local total = 0
for i = 1, n do
  local old = KEYS[2 + 2 * i]
  local new = KEYS[3 + 2 * i]
  if redis.call('EXISTS', old) == 1 then
    redis.call('RENAME', old, new)
    local len = redis.call('XLEN', new)
    redis.call('SADD', KEYS[3], ARGV[2 + i])
    redis.call('HSET', KEYS[2], ARGV[2 + i] .. '|d', len, ARGV[2 + i] .. '|seeded', 1)
    total = total + len
  end
end
for j = 1, m do
  local old = KEYS[2 + 2 * n + 2 * j]
  local new = KEYS[3 + 2 * n + 2 * j]
  if redis.call('EXISTS', old) == 1 then redis.call('RENAME', old, new) end
end
redis.call('DEL', KEYS[1])
return total`);

/** Take a stopped run's queue over into the run `to` (see TAKE_OVER); -1 when another resume took it first. */
export async function takeOver(redis: Redis, keys: ClusterKeys, from: ResumableRun, to: RunKeys): Promise<number> {
  const old = keys.run(from.runId);
  const others: Array<[string, string]> = [
    [old.budget, to.budget],
    [old.pictures, to.pictures],
    [old.before, to.before],
  ];
  for (let b = 0; b < from.buckets; b++) others.push([old.seen(b), to.seen(b)]);
  const k = [keys.resumable(from.catalogId), to.counters, to.members];
  for (const m of from.members) k.push(old.stream(m), to.stream(m));
  for (const [a, b] of others) k.push(a, b);
  return Number(await TAKE_OVER.run(redis, k, [from.members.length, others.length, ...from.members]));
}

/** A run of the catalog that starts afresh supersedes a stopped one: its record and queue are deleted. */
export async function discardResumable(redis: Redis, keys: ClusterKeys, catalogId: string): Promise<boolean> {
  const record = await resumableRun(redis, keys, catalogId);
  if (!record) return false;
  const run = keys.run(record.runId);
  await redis.del(keys.resumable(catalogId), run.before, ...carried(run, record));
  return true;
}

/** The merged report of the stopped run a resumed run continues (kept under the new run's `before`). */
export async function reportBefore(redis: Redis, run: RunKeys): Promise<ClusterRunReport | undefined> {
  const o = parseObject((await redis.get(run.before)) ?? '');
  return o ? (o as unknown as ClusterRunReport) : undefined;
}

/** Every stopped run the cluster keeps for a resume (one per catalog at most). */
export async function resumableRuns(redis: Redis, keys: ClusterKeys): Promise<ResumableRun[]> {
  const out: ResumableRun[] = [];
  let cursor = '0';
  for (let i = 0; i < 10_000; i++) {
    const [next, found] = await redis.scan(cursor, 'MATCH', keys.resumable('*'), 'COUNT', 500);
    for (const key of found) {
      const o = parseObject((await redis.get(key)) ?? '');
      if (o && typeof o.runId === 'string') out.push(o as unknown as ResumableRun);
    }
    cursor = next;
    if (cursor === '0') break;
  }
  return out.sort((a, b) => (a.endedAt < b.endedAt ? -1 : 1));
}
