import type { AdminWriter, BlobStore, Greenfinger, Logger, ReplaySession, VectorStoreFamily } from '@greenfinger/core';
import type { Redis } from 'ioredis';
import { blobReplicaConsumer, isPerNodeBlobStore } from '../channels/blob-replica.js';
import { channelPlanOf } from '../channels/channel-plan.js';
import { type FrameConsumer, FrameSender } from '../channels/multicast-frames.js';
import { IndexReplicaChannel, indexReplicaConsumer } from '../channels/search-replica.js';
import { isPerNodeVectorFamily, vectorReplicaConsumer } from '../channels/vector-replica.js';
import type { ClusterKeys } from '../plumbing/keys.js';
import { closeRedis, connectRedis } from '../plumbing/redis-connection.js';
import { CrawlStreams, GROUP } from '../run/crawl-stream.js';
import {
  currentReplayKey,
  decodeReplayInfo,
  decodeTask,
  type ReplayInfo,
  ReplayKeys,
  type SliceAnswer,
} from './replay-protocol.js';

const POLL_MS = 300;
/** A part that never hears the end (its asker died) closes after this long without a slice. */
const IDLE_PART_MS = 10 * 60_000;
/**
 * How long the asker's heartbeat must stay missing before this part takes it for dead. A heartbeat lapses for a
 * moment when the asker's process is starved for more than its 3 s lifetime (it writes it again on waking); a part that
 * stopped at the first miss left the asker gathering answers that never came.
 */
const ASKER_GONE_MS = 10_000;

export interface ReplayMemberOptions {
  name: string;
  keys: ClusterKeys;
  redisUrl: string;
  gf: Greenfinger;
  /** The member's own writer: its search registry (catalogs.json) is its own to write. */
  local: () => AdminWriter;
  /** The member's own blob store and vector family (not the replicating wrappers), when it has them. */
  ownBlobs?: () => BlobStore | undefined;
  ownVectors?: () => VectorStoreFamily | undefined;
  log: Logger;
}

/** A replay part's senders on the blob and vector channels (per-node stores only). */
interface PartSenders {
  catalogId: string;
  version: number;
  blob?: FrameSender;
  vectors?: FrameSender;
}

/**
 * A member's part in a replay scattered over the cluster (replay-scatter.ts asks): it watches `replay:current`, opens a
 * replay session on its own data root (the catalog's run lock held for the whole part), pulls slices from the shared
 * stream and from its own, rebuilds each into its own stores and answers; the index documents it rebuilds go to the
 * others' embedded indexes on the replay's search stream, and theirs come into its own. When the asker says it is over,
 * it optimizes the version once, rewrites its own search registry and says so.
 */
export class ReplayMember {
  readonly #o: ReplayMemberOptions;
  readonly #log: Logger;
  #redis: Redis | undefined;
  #timer: NodeJS.Timeout | undefined;
  #part: Promise<void> | undefined;
  #partId: string | undefined;
  readonly #done = new Set<string>();
  #senders: PartSenders | undefined;
  #stopped = false;

  constructor(options: ReplayMemberOptions) {
    this.#o = options;
    this.#log = options.log.child({ component: 'replay-member', node: options.name });
  }

  async start(): Promise<void> {
    this.#redis = await connectRedis(this.#o.redisUrl, { role: `replay-${this.#o.name}`, log: this.#log });
    this.#schedule();
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#poll().finally(() => this.#schedule()), POLL_MS);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    const redis = this.#redis;
    if (!redis || this.#part) return;
    try {
      const info = decodeReplayInfo(await redis.get(currentReplayKey(this.#o.keys)));
      if (!info || this.#done.has(info.replayId)) return;
      this.#partId = info.replayId;
      this.#part = this.#take(redis, info).finally(() => {
        this.#done.add(info.replayId);
        this.#part = undefined;
        this.#partId = undefined;
      });
    } catch (err) {
      this.#log.warn({ err: (err as Error).message }, 'replay state not read; trying again');
    }
  }

  /** The replay this member takes part in now, if any. */
  get replaying(): string | undefined {
    return this.#partId;
  }

  /**
   * The blob or vector channel's sender of the replay part in progress, for a catalog version it rebuilds: the files
   * it fetches again and the vectors it rebuilds go to the others' stores (ClusterNode's replicating wrappers ask).
   */
  sender(channel: 'blob' | 'vectors', catalogId: string, version: number): FrameSender | undefined {
    const s = this.#senders;
    return s && s.catalogId === catalogId && s.version === version ? s[channel] : undefined;
  }

  async #take(redis: Redis, info: ReplayInfo): Promise<void> {
    const { name, gf } = this.#o;
    const rk = new ReplayKeys(this.#o.keys, info.replayId);
    const log = this.#log.child({ replayId: info.replayId });
    // The channels of a replay follow the same plan as a run's: a shared store's carries nothing (channel-plan.ts).
    const plan = channelPlanOf(gf.settings, info.layers);
    const indexed = plan.has('search');
    let session: ReplaySession;
    const consumers: FrameConsumer[] = [];
    const stopConsumers = async () => {
      for (const c of consumers.splice(0)) await c.stop();
    };
    try {
      // What the others rebuild comes into this member's stores from the start of its part: index documents, and with
      // per-node stores the files fetched again and the vectors.
      const { redisUrl } = this.#o;
      if (indexed) {
        consumers.push(indexReplicaConsumer({ redisUrl, key: rk.search, node: name, index: gf.index(), log }));
      }
      const senders: PartSenders = { catalogId: info.catalogId, version: info.version };
      const blobs = this.#o.ownBlobs?.();
      if (info.layers.includes('file') && plan.has('blob') && blobs && isPerNodeBlobStore(blobs)) {
        senders.blob = new FrameSender(redis, rk.blob, name, log);
        consumers.push(blobReplicaConsumer({ redisUrl, key: rk.blob, node: name, store: blobs, log }));
      }
      if (info.layers.includes('vector')) gf.vectorFamily(); // opened lazily: its wrapper records the family itself
      const family = this.#o.ownVectors?.();
      if (plan.has('vectors') && family && isPerNodeVectorFamily(family)) {
        senders.vectors = new FrameSender(redis, rk.vectors, name, log);
        consumers.push(vectorReplicaConsumer({ redisUrl, key: rk.vectors, node: name, family, log }));
      }
      for (const c of consumers) await c.start();
      this.#senders = senders;
      session = await gf.replay.open(
        { id: info.catalogId },
        {
          version: info.version,
          layers: info.layers,
          indexChannels: indexed ? [new IndexReplicaChannel(redis, rk.search, name, log)] : [],
        },
      );
    } catch (err) {
      log.warn({ err }, 'could not take part in the replay');
      this.#senders = undefined;
      await stopConsumers();
      await redis.hset(rk.ready, name, JSON.stringify({ error: (err as Error).message }));
      return;
    }
    const reader = await connectRedis(this.#o.redisUrl, { role: `replay-slices-${name}`, log });
    const streams = new CrawlStreams(redis);
    let ending: 'end' | 'gone' | 'idle' = 'idle';
    try {
      await streams.create(rk.slices);
      await streams.create(rk.to(name));
      await redis.hset(rk.ready, name, JSON.stringify({ ok: true }));
      log.info({ catalog: info.catalog, version: info.version, layers: info.layers }, 'taking part in the replay');
      let lastSlice = Date.now();
      let askerMissingSince: number | undefined;
      while (!this.#stopped && Date.now() - lastSlice < IDLE_PART_MS) {
        if (await redis.exists(rk.end)) {
          ending = 'end';
          break;
        }
        // The replay cleared, or its asker gone for good (it died: nobody gathers any more): this part is over.
        const current = decodeReplayInfo(await redis.get(currentReplayKey(this.#o.keys)));
        if (current?.replayId !== info.replayId) {
          ending = 'gone';
          break;
        }
        if (await redis.exists(this.#o.keys.member(info.from))) askerMissingSince = undefined;
        else {
          askerMissingSince ??= Date.now();
          if (Date.now() - askerMissingSince >= ASKER_GONE_MS) {
            ending = 'gone';
            break;
          }
        }
        // Its own slices first (the pages the others did not hold), then the shared ones.
        const entries = [...(await streams.read(rk.to(name), name, 1, 0)).map((e) => ({ ...e, key: rk.to(name) }))];
        if (entries.length === 0) {
          entries.push(...(await streams.read(rk.slices, name, 1, 500, reader)).map((e) => ({ ...e, key: rk.slices })));
        }
        for (const entry of entries) {
          lastSlice = Date.now();
          const task = decodeTask(entry.message);
          if (!task) {
            await streams.ack(entry.key, [entry.id]);
            continue;
          }
          let answer: SliceAnswer;
          try {
            const r = await session.run({ resourceIds: task.ids, missing: task.missing });
            // What the slice sent to the others is in Redis before the asker hears it is done.
            await this.#senders?.blob?.flush();
            await this.#senders?.vectors?.flush();
            answer = {
              task: task.id,
              node: name,
              pages: r.pages,
              layers: r.layers,
              requests: r.requests,
              absent: r.absent,
              elapsedMs: r.elapsedMs,
            };
          } catch (err) {
            log.warn({ err, task: task.id }, 'a replay slice failed here; the asker does it again');
            answer = { task: task.id, node: name, error: (err as Error).message };
          }
          await redis.rpush(rk.answers, JSON.stringify(answer));
          await redis.xack(entry.key, GROUP, entry.id);
        }
      }
      if (ending !== 'end') {
        log.warn({ ending }, 'the replay ended without its asker saying so; this part stops');
        return;
      }
      // Every slice is settled and every member applied the others' documents: optimize once, write the registry.
      await stopConsumers();
      const report = await session.finish({ republish: false });
      const republished =
        info.from === name
          ? false
          : await this.#o
              .local()
              .restorePublished(info.catalogId, info.version)
              .catch((err: unknown) => {
                log.warn({ err }, 'the search registry was not rewritten');
                return false;
              });
      await redis.hset(rk.ended, name, JSON.stringify({ path: report.path, republished }));
    } catch (err) {
      log.error({ err }, 'the replay part failed');
      await redis.hset(rk.ended, name, JSON.stringify({ error: (err as Error).message })).catch(() => undefined);
    } finally {
      this.#senders = undefined;
      await stopConsumers();
      await session.close().catch((err: unknown) => log.warn({ err }, 'replay session not closed'));
      await closeRedis(reader);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#part?.catch(() => undefined);
    if (this.#redis) await closeRedis(this.#redis);
    this.#redis = undefined;
  }
}
