import {
  type BlobStore,
  contentDedupRegistry,
  createRecordDatabase,
  type ExistingUrlPathFilter,
  type GreenfingerComponents,
  LevelFrontier,
  type Logger,
  type NodeContext,
  OWED_JOURNAL_PREFIXES,
  type PolitenessContext,
  type RunContext,
  type VectorStoreFamily,
} from '@greenfinger/core/internal';
import type { Redis } from 'ioredis';
import { type AdminRouting, ClusterAdminWriter } from './admin/cluster-admin-writer.js';
import { ClusterContentDedup } from './budgets/cluster-content-dedup.js';
import { ClusterPoliteness } from './budgets/cluster-politeness.js';
import { RedisPageBudget } from './budgets/redis-page-budget.js';
import { RedisPictureRegistry } from './budgets/redis-picture-registry.js';
import { RedisRenderMemory } from './budgets/redis-render-memory.js';
import { channelPlanOf } from './channels/channel-plan.js';
import type { RunReplicas } from './channels/run-replicas.js';
import { IndexReplicaChannel } from './channels/search-replica.js';
import { ClusterCrawlRunner } from './cluster-crawl-runner.js';
import type { ClusterKeys } from './plumbing/keys.js';
import { RevocableFrontier } from './run/revocable-frontier.js';
import type { RunInfo } from './run/run-info.js';

/** What a member's components are built from (cluster-node.ts supplies them). */
export interface MemberComponentsDeps {
  name: string;
  keys: ClusterKeys;
  redis: Redis;
  redisUrl: string;
  log: Logger;
  /** Where each administrative write goes (the leader, or this member when it leads). */
  routing: AdminRouting;
  replicas: RunReplicas;
  /** The run this member takes part in now for a catalog, if any. */
  runOf: (catalogId: string) => RunInfo | undefined;
  /** Whether this member is leaving the cluster (its jobs let go). */
  leaving: () => boolean;
  /** Whether a run of this catalog version starts its frontier afresh now (asked once per run). */
  takeFresh: (catalogId: string, version: number) => boolean;
  /** Tell the lapse watchers at once when this member's heartbeat lapsed (Membership.checkLapse). */
  checkLapse?: () => void;
}

/**
 * The components a cluster member's Greenfinger is opened with: every seam core offers for a cluster, each wired to
 * Redis — the admin writer through the leader, crawl jobs run on the cluster, the render memory, exact content dedup,
 * the replicated channels (records, files, vectors, url dedup, index), pictures fetched once, the page budget and the
 * per-host budget over the members, and the run's frontier started from the streams.
 */
export function memberComponents(d: MemberComponentsDeps): GreenfingerComponents {
  const { redis, keys, name, log } = d;
  /** The run of the version a run context writes, when a cluster run writes it. */
  const runOf = (ctx: RunContext): RunInfo | undefined => {
    const run = d.runOf(ctx.catalog.id);
    return run && run.version === ctx.version ? run : undefined;
  };
  return {
    adminWriter: () => new ClusterAdminWriter(d.routing),
    // The crawl verbs of this process's jobs (serve --cluster, shell --cluster) run on the cluster, through the leader.
    crawlRunner: () =>
      new ClusterCrawlRunner({
        cluster: keys.cluster,
        redisUrl: d.redisUrl,
        log,
        row: d.routing.row,
        leaving: d.leaving,
      }),
    // What the adaptive extractor learns per host and pattern, shared by the members (issue 17).
    renderMemory: () => new RedisRenderMemory(redis, keys, { log }),
    contentDedup: async (ctx: NodeContext) =>
      new ClusterContentDedup(await contentDedupRegistry.get(ctx.settings.contentDedup)(ctx), redis, keys),
    // The record channel: with a database of its own, the rows of a run go to the others' (record-replica.ts).
    recordDatabase: async (ctx: NodeContext) =>
      d.replicas.records(
        await createRecordDatabase({ databaseUrl: ctx.settings.databaseUrl, sqliteFile: ctx.layout.sqliteFile }),
      ),
    // The blob and vector channels: with stores of its own, a run's files and points go to the others'.
    wrapBlobStore: (store: BlobStore) => d.replicas.blobs(store),
    wrapVectorStores: (family: VectorStoreFamily) => d.replicas.vectors(family),
    // The frontier-dedup channel: the urls a run marks known reach every member's url filter (dedup-replica.ts).
    wrapUrlFilter: (filter: ExistingUrlPathFilter) => d.replicas.urlFilter(filter),
    // The search channel: pages this member saves go to the others' embedded indexes (search-replica.ts).
    outputChannels: (ctx: RunContext) => {
      const run = runOf(ctx);
      // a shared index (Elasticsearch) is written by each member itself: the channel carries nothing (channel-plan.ts)
      if (!run || !channelPlanOf(ctx.settings, ctx.catalog.settings.outputs).has('search')) return [];
      return [new IndexReplicaChannel(redis, keys.run(run.runId).search, name, log)];
    },
    // Pictures fetched once across the run: one member fetches, the others link its row (redis-picture-registry.ts).
    pictureRegistry: (ctx: RunContext) => {
      const run = runOf(ctx);
      return run && new RedisPictureRegistry(redis, keys.run(run.runId).pictures, name, log);
    },
    // maxPages over the members together: one count a place is taken from before a page is saved.
    pageBudget: (ctx: RunContext) => {
      const run = runOf(ctx);
      return run && new RedisPageBudget(redis, keys.run(run.runId), ctx.catalog.settings.maxPages, log);
    },
    // GF_CLUSTER_POLITENESS=cluster: the catalog's per-host budget holds for the members together (cluster-politeness.ts).
    politeness: (ctx: PolitenessContext & RunContext) => {
      const local = ctx.createDefault();
      if (runOf(ctx)?.politeness !== 'cluster') return local;
      const s = ctx.catalog.settings;
      return new ClusterPoliteness({
        local,
        redis,
        prefix: keys.polite,
        member: name,
        maxPerHost: s.hostConcurrency,
        intervalMs: s.intervalMs,
        burst: s.burst,
        crawlDelayMs: (host) => ctx.crawlDelayMs(host),
        log,
      });
    },
    frontier: async (ctx: RunContext) => {
      const frontier = await LevelFrontier.open(ctx.layout.frontierDir(ctx.catalog.id, ctx.version));
      // A cluster run starts from the streams; the index and vector writes a stopped run of this version still owes
      // stay, and this run's engine writes them from the files.
      if (d.takeFresh(ctx.catalog.id, ctx.version)) await frontier.clear({ keepJournal: OWED_JOURNAL_PREFIXES });
      // At most the run's threads handed out unacknowledged (the pages a member's death leaves fetched twice), and
      // urls re-homed while this member was taken for dead taken out of it (cluster-crawl-coordinator.ts).
      return new RevocableFrontier(frontier, { leases: ctx.catalog.settings.threads, checkLapse: d.checkLapse });
    },
  };
}
