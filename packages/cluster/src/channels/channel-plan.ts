import { clusterSharing, type StoreFamily, type StoreSharing } from '@greenfinger/core';

/** The replicated channels of a run (seed 000), by their short names. */
export type ReplicaChannel = 'search' | 'record' | 'blob' | 'vectors' | 'dedup';

/** Which store family each channel carries; `dedup` (the url filter, LevelDB under system/) is always per node. */
const FAMILY_OF: Record<Exclude<ReplicaChannel, 'dedup'>, StoreFamily> = {
  search: 'index',
  record: 'records',
  blob: 'files',
  vectors: 'vectors',
};

/**
 * The channels a member starts for a run or a replay, decided from the configuration alone (seed 000: "the record,
 * rocksdb, blob and search channels only carry anything when the store behind them is per node"): a channel whose
 * family is shared (PostgreSQL, Elasticsearch, Qdrant, an S3 bucket) is not started; the index and vector channels
 * only for a catalog writing that output; the url-dedup channel always.
 */
export function runChannelPlan(
  sharing: Record<StoreFamily, StoreSharing>,
  outputs: readonly string[],
): Set<ReplicaChannel> {
  const plan = new Set<ReplicaChannel>(['dedup']);
  for (const [channel, family] of Object.entries(FAMILY_OF) as Array<[ReplicaChannel, StoreFamily]>) {
    if (sharing[family] !== 'replicated') continue;
    if (channel === 'search' && !outputs.includes('index')) continue;
    if (channel === 'vectors' && !outputs.includes('vector')) continue;
    plan.add(channel);
  }
  return plan;
}

/** runChannelPlan over a node's settings. */
export function channelPlanOf(
  settings: Parameters<typeof clusterSharing>[0],
  outputs: readonly string[],
): Set<ReplicaChannel> {
  return runChannelPlan(clusterSharing(settings), outputs);
}
