import { CrawlerError, type ReplayLayer, type ReplayReport } from '@greenfinger/core';
import type { Redis } from 'ioredis';
import type { LeaderGateway } from '../membership/leader-gateway.js';
import type { ClusterKeys } from '../plumbing/keys.js';
import { parseObject } from '../plumbing/wire.js';
import { type ClusterReplayReport, currentReplayKey, ReplayKeys, type ReplayStarted } from './replay-protocol.js';
import type { ClusterReplayRequest } from './replay-scatter.js';

/** Progress of a replay over the cluster: pages settled of all, per layer, and the counts so far. */
export interface ClusterReplayProgress {
  layers: ReplayLayer[];
  done: number;
  total: number;
  counts: ReplayReport['layers'];
  byNode: ClusterReplayReport['byNode'];
}

/** How a caller waits for a cluster replay. */
export interface ReplayWaitOptions {
  onStarted?: (started: ReplayStarted) => void;
  onProgress?: (p: ClusterReplayProgress) => void;
  intervalMs?: number;
  /** @default 6 hours */
  timeoutMs?: number;
}

/**
 * Ask the leader to replay over the cluster and wait for the merged report, with progress every `intervalMs`.
 * @throws CrawlerError CLUSTER when the asker stopped (its heartbeat is gone) or it did not end in `timeoutMs`
 */
export async function replayOnCluster(
  deps: { gateway: LeaderGateway; redis: Redis; keys: ClusterKeys },
  req: ClusterReplayRequest,
  options: ReplayWaitOptions = {},
): Promise<ClusterReplayReport> {
  const started = await deps.gateway.call<ReplayStarted>('replay', [req]);
  options.onStarted?.(started);
  const rk = new ReplayKeys(deps.keys, started.replayId);
  const deadline = Date.now() + (options.timeoutMs ?? 6 * 3600_000);
  let askerGoneSince: number | undefined;
  while (Date.now() < deadline) {
    const done = await deps.redis.get(rk.report);
    if (done) {
      const o = parseObject(done) ?? {};
      if (typeof o.error === 'string') {
        throw new CrawlerError('CLUSTER', `the replay failed on ${started.from}: ${o.error}`, {
          fix: 'see that member’s log; replay is idempotent, so running it again is safe',
        });
      }
      return o as unknown as ClusterReplayReport;
    }
    if (options.onProgress) {
      const p = parseObject((await deps.redis.get(rk.progress)) ?? '') ?? {};
      options.onProgress({
        layers: started.layers,
        done: Number(p.settled ?? 0),
        total: started.pages,
        counts: (p.layers ?? {}) as ReplayReport['layers'],
        byNode: (p.byNode ?? {}) as ClusterReplayReport['byNode'],
      });
    }
    // The asker gathers in memory: if it is gone (and the replay with it), say so rather than wait for ever.
    const alive = await deps.redis.exists(deps.keys.member(started.from), currentReplayKey(deps.keys));
    if (alive < 2) askerGoneSince ??= Date.now();
    else askerGoneSince = undefined;
    if (askerGoneSince !== undefined && Date.now() - askerGoneSince > 5000 && !(await deps.redis.exists(rk.report))) {
      throw new CrawlerError('CLUSTER', `member ${started.from}, which gathered the replay, stopped before it ended`, {
        fix: 'run the same replay again: replay is idempotent, the pages done already are rebuilt the same',
      });
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 500));
  }
  throw new CrawlerError('CLUSTER', `replay ${started.replayId} did not end in time`, {
    fix: 'see `greenfinger status --cluster` and the members’ logs',
  });
}
