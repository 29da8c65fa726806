import type {
  BlobStore,
  ExistingUrlPathFilter,
  Greenfinger,
  Logger,
  RecordDatabase,
  VectorStoreFamily,
} from '@greenfinger/core';
import type { Redis } from 'ioredis';
import type { ClusterKeys } from '../plumbing/keys.js';
import type { RunInfo } from '../run/run-info.js';
import { blobReplicaConsumer, isPerNodeBlobStore, replicatedBlobs } from './blob-replica.js';
import { channelPlanOf, type ReplicaChannel } from './channel-plan.js';
import { replicatedUrlFilter, urlFilterReplicaConsumer } from './dedup-replica.js';
import { type FrameConsumer, FrameSender } from './multicast-frames.js';
import { recordReplicaConsumer, replicatedRecords } from './record-replica.js';
import { indexReplicaConsumer } from './search-replica.js';
import { isPerNodeVectorFamily, replicatedVectors, vectorReplicaConsumer } from './vector-replica.js';

type Channel = 'record' | 'blob' | 'vectors' | 'dedup';

export interface RunReplicasOptions {
  name: string;
  keys: ClusterKeys;
  redis: Redis;
  redisUrl: string;
  gf: () => Greenfinger;
  /** The run this member takes part in now for a catalog, if any. */
  runOf: (catalogId: string) => RunInfo | undefined;
  /** A replay's sender for files and vectors it rebuilds (replay-member.ts), when no run writes the version. */
  replaySender?: (channel: 'blob' | 'vectors', catalogId: string, version: number) => FrameSender | undefined;
  log: Logger;
}

/**
 * The replicated channels of a member's runs (seed 000: `record`, `blob`, `search`, `frontier-dedup` — multicast excluding self,
 * buffered, only when the store behind them is per node): the wrappers that send what a run writes to the member's
 * own stores (its SQLite, its local files, its embedded vectors), the senders per catalog of a run in progress, and
 * the receiving halves per run, which apply the others' frames to the member's own stores (not the wrappers: what
 * arrives is not sent again) until the run completes.
 */
export class RunReplicas {
  readonly #o: RunReplicasOptions;
  readonly #senders: Record<Channel, Map<string, FrameSender>> = {
    record: new Map(),
    blob: new Map(),
    vectors: new Map(),
    dedup: new Map(),
  };
  /** The receiving halves, per run: they run until the run completes (others may still send). */
  readonly #consumers = new Map<string, FrameConsumer[]>();
  /** The channels each run's start began (channel-plan.ts), by run id. */
  readonly #started = new Map<string, ReplicaChannel[]>();
  #ownRecords: RecordDatabase | undefined;
  #ownBlobs: BlobStore | undefined;
  #ownVectors: VectorStoreFamily | undefined;
  #ownUrlFilter: ExistingUrlPathFilter | undefined;

  constructor(options: RunReplicasOptions) {
    this.#o = options;
  }

  /** The member's own stores (what replays write to, and what arrives is applied to). */
  get ownBlobs(): BlobStore | undefined {
    return this.#ownBlobs;
  }
  get ownVectors(): VectorStoreFamily | undefined {
    return this.#ownVectors;
  }

  /** The record channel's sending half around the member's database (a shared PostgreSQL is returned as it is). */
  records(db: RecordDatabase): RecordDatabase {
    this.#ownRecords = db;
    return replicatedRecords(db, (catalogId) => this.#senders.record.get(catalogId));
  }

  /** The blob channel's sending half around the member's file store (only the local family replicates). */
  blobs(store: BlobStore): BlobStore {
    this.#ownBlobs = store;
    return replicatedBlobs(
      store,
      (catalogId, version) =>
        this.#senderOf('blob', catalogId, version) ?? this.#o.replaySender?.('blob', catalogId, version),
    );
  }

  /** The vectors channel's sending half around the member's vector family (only sqlite-vec replicates). */
  vectors(family: VectorStoreFamily): VectorStoreFamily {
    this.#ownVectors = family;
    return replicatedVectors(
      family,
      (catalogId, version) =>
        this.#senderOf('vectors', catalogId, version) ?? this.#o.replaySender?.('vectors', catalogId, version),
    );
  }

  /** The frontier-dedup channel's sending half around the member's url filter (per node: system/dedup/url). */
  urlFilter(filter: ExistingUrlPathFilter): ExistingUrlPathFilter {
    this.#ownUrlFilter = filter;
    return replicatedUrlFilter(filter, (catalogId, version) => this.#senderOf('dedup', catalogId, version));
  }

  /**
   * Start a run's channels before the member crawls (so its groups exist from the start): the index (when the
   * catalog writes one), and — when the stores are per node — records, files and vectors, sending halves included.
   */
  async start(info: RunInfo): Promise<void> {
    const o = this.#o;
    const gf = o.gf();
    const run = o.keys.run(info.runId);
    const common = { redisUrl: o.redisUrl, node: o.name, log: o.log };
    const consumers: FrameConsumer[] = [];
    const started: ReplicaChannel[] = [];
    const send = (channel: Channel, key: string) =>
      this.#senders[channel].set(info.catalog.id, new FrameSender(o.redis, key, o.name, o.log));
    // Seed 000's replicated-or-shared, from the configuration: a shared store's channel carries nothing.
    const plan = channelPlanOf(gf.settings, info.catalog.settings.outputs);
    if (plan.has('search')) {
      consumers.push(indexReplicaConsumer({ ...common, key: run.search, index: gf.index() }));
      started.push('search');
    }
    const own = this.#ownRecords;
    if (plan.has('record') && (await gf.database()).kind === 'sqlite' && own) {
      send('record', run.record);
      consumers.push(recordReplicaConsumer({ ...common, key: run.record, db: own }));
      started.push('record');
    }
    const blobs = plan.has('blob') ? this.#ownBlobs : undefined;
    if (blobs && isPerNodeBlobStore(blobs)) {
      send('blob', run.blob);
      consumers.push(blobReplicaConsumer({ ...common, key: run.blob, store: blobs }));
      started.push('blob');
    }
    if (plan.has('vectors')) gf.vectorFamily(); // opened lazily: its wrapper records the family itself
    const family = plan.has('vectors') ? this.#ownVectors : undefined;
    if (family && isPerNodeVectorFamily(family)) {
      send('vectors', run.vectors);
      consumers.push(vectorReplicaConsumer({ ...common, key: run.vectors, family }));
      started.push('vectors');
    }
    // Opened lazily: its wrapper records the filter itself. One another process holds fails the run itself, not this.
    await gf.factory.urlFilter().catch((err: unknown) => o.log.warn({ err }, 'the url filter did not open'));
    const filter = this.#ownUrlFilter;
    if (filter) {
      send('dedup', run.dedup);
      consumers.push(urlFilterReplicaConsumer({ ...common, key: run.dedup, filter }));
      started.push('dedup');
    }
    for (const c of consumers) await c.start();
    this.#consumers.set(info.runId, consumers);
    this.#started.set(info.runId, started);
  }

  /** The channels a run's start began (none once it stopped). */
  startedChannels(runId: string): ReplicaChannel[] {
    return [...(this.#started.get(runId) ?? [])];
  }

  /** Everything this member wrote for a catalog is in Redis (before it says its part is over). */
  async flush(catalogId: string): Promise<void> {
    for (const senders of Object.values(this.#senders)) await senders.get(catalogId)?.flush();
  }

  /** The member's part of a catalog's run is over: nothing more is sent for it. */
  endPart(catalogId: string): void {
    for (const senders of Object.values(this.#senders)) senders.delete(catalogId);
  }

  /** The run completed: stop applying the others' frames. */
  async stopRun(runId: string): Promise<void> {
    for (const c of this.#consumers.get(runId) ?? []) await c.stop();
    this.#consumers.delete(runId);
    this.#started.delete(runId);
  }

  async close(): Promise<void> {
    for (const runId of [...this.#consumers.keys()]) await this.stopRun(runId);
  }

  /** A channel's sender for a catalog version a cluster run writes now. */
  #senderOf(channel: Channel, catalogId: string, version: number): FrameSender | undefined {
    const run = this.#o.runOf(catalogId);
    return run && run.version === version ? this.#senders[channel].get(catalogId) : undefined;
  }
}
