import type { Logger } from '@greenfinger/core';
import type { Redis } from 'ioredis';
import type { RunKeys } from '../plumbing/keys.js';
import { decodeTask } from '../plumbing/wire.js';
import { CrawlStreams, type StreamEntry } from './crawl-stream.js';
import { HashRing } from './hash-ring.js';
import { MOVE, SETTLE_TOKEN } from './routing-scripts.js';
import { RING_POINTS } from './run-ring.js';

/** What one re-homing pass did. */
export interface RehomeResult {
  /** Entries moved to their new owners. */
  moved: number;
  /** Of them, entries the dead member had taken and not acknowledged (its in-flight urls). */
  claimed: number;
  /** The dead member's start token was settled (it died before committing its seeds). */
  tokenSettled: boolean;
}

const BATCH = 200;
const MAX_BATCHES = 10_000;

/**
 * Re-home a dead member's stream (seed 000: "the urls it had accepted but not finished are re-homed"): its pending
 * entries (delivered to it, not acknowledged: in its frontier or being fetched when it died) are claimed with
 * XAUTOCLAIM, the entries never delivered are read through the group, and each one is moved to the owner the ring of
 * live members gives it now — deleted from the dead stream and appended to the new owner's in one script, so two
 * members re-homing at once move each entry once. Counters stay as they are: the entry was counted dispatched when
 * first sent, and counts handled when its new owner commits it. Safe to run again: later entries (sent by a member
 * whose ring had not dropped the dead one yet) are moved by the next pass.
 */
export async function rehome(options: {
  redis: Redis;
  run: RunKeys;
  dead: string;
  /** Live members of the run (the dead one is left out if listed). */
  live: readonly string[];
  catalogId: string;
  version: number;
  /** The consumer name the claims are made under. */
  claimant: string;
  log: Logger;
}): Promise<RehomeResult> {
  const { redis, run, dead, catalogId, version, log } = options;
  const live = options.live.filter((n) => n !== dead);
  const result: RehomeResult = { moved: 0, claimed: 0, tokenSettled: false };
  if (live.length === 0) return result;
  const ring = new HashRing(live, RING_POINTS);
  const streams = new CrawlStreams(redis);
  const key = run.stream(dead);
  // A stream recreated by a late XADD has no group: give it one, so its entries can be read.
  await streams.create(key);
  const move = async (entries: StreamEntry[]) => {
    const targets: string[] = [];
    const args: string[] = [];
    for (const e of entries) {
      const task = decodeTask(e.message);
      const owner = ring.owner(HashRing.crawlKey(catalogId, version, task?.url ?? e.id));
      targets.push(run.stream(owner));
      args.push(e.id, e.message);
    }
    return Number(await MOVE.run(redis, [key, ...targets], args));
  };
  for (let i = 0; i < MAX_BATCHES; i++) {
    const claimed = await streams.claim(key, options.claimant, BATCH, 0);
    const batch = claimed.length > 0 ? claimed : await streams.read(key, options.claimant, BATCH);
    if (batch.length === 0) break;
    const moved = await move(batch);
    result.moved += moved;
    if (claimed.length > 0) result.claimed += moved;
  }
  result.tokenSettled = Number(await SETTLE_TOKEN.run(redis, [run.counters], [dead])) === 1;
  if (result.moved > 0 || result.tokenSettled) {
    log.warn({ dead, moved: result.moved, inFlight: result.claimed, to: live }, 'a dead member’s urls were re-homed');
  }
  return result;
}
