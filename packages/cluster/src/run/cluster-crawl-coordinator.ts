import type {
  CrawlCoordinator,
  CrawlFrontier,
  DispatchCommit,
  FrontierEntry,
  LeasedEntry,
  Logger,
} from '@greenfinger/core';
import type { Redis } from 'ioredis';
import type { RunKeys } from '../plumbing/keys.js';
import { decodeTask, encodeTask, parseObject } from '../plumbing/wire.js';
import { CrawlStreams, type StreamEntry } from './crawl-stream.js';
import { HashRing } from './hash-ring.js';
import { CHECK, DISPATCH, MOVE, type RunState, runState } from './routing-scripts.js';
import type { RunRing } from './run-ring.js';
import { seenMember } from './url-seen.js';

/** An entry is forwarded to its new owner at most this often (two members' rings can disagree for a moment). */
const MAX_HOPS = 2;

/** What a member's coordinator of one run works with. */
export interface ClusterCoordinatorOptions {
  /** Commands. */
  redis: Redis;
  /** Blocking stream reads (a connection of its own). */
  reader: Redis;
  run: RunKeys;
  /** This member's name (its stream, its consumer name, its counters). */
  node: string;
  ring: RunRing;
  catalogId: string;
  version: number;
  /** Buckets of the run's seen set (the run's STARTED message says how many). */
  buckets: number;
  log: Logger;
  /** This member's worker threads in the run (`--threads`, else the catalog's). @default 16 */
  threads?: number;
  /**
   * Stream entries held at most: read ahead into the local frontier, being fetched, or waiting for the commit that
   * acknowledges them. Of them only the threads' leases can have been fetched (RevocableFrontier). @default 2 × threads
   */
  window?: number;
  /** The completion state is read from Redis at most this often. @default 100 */
  checkEveryMs?: number;
}

/**
 * The cluster's CrawlCoordinator (seed 000, "Distribution"): every url goes to its owner by consistent hash of
 * `catalogId|version|url` over the run's live members, through the owner's Redis stream — its own urls too, so the
 * stream's pending entries are exactly the urls a member accepted and has not finished, and nothing is lost with a
 * member that dies (another member re-homes its stream). A consumer loop reads the member's stream into its local
 * frontier, up to a window of twice the member's threads; an entry is acknowledged and deleted in the commit that
 * records its page, which frees its place in the window. The frontier hands out at most `threads` entries not yet
 * acknowledged, so a member that dies leaves at most that many pages fetched and not recorded: the pages fetched
 * twice (the rest of its window was never fetched, and is fetched once by the members it is re-homed to).
 *
 * A url is sent once per run: the run's seen set (Redis intsets of 63-bit url hashes) is checked in the same script
 * that appends to the owner's stream, so a link found by three members is streamed once, even while members join or
 * leave and the ring moves. The frontier's own "queued during this run" settles whatever still arrives twice.
 *
 * Finished = Σ dispatched = Σ handled over every member, and every stream empty, read atomically from Redis
 * (routing-scripts.ts); the first member to see it writes the ending once.
 */
export class ClusterCrawlCoordinator implements CrawlCoordinator {
  readonly #frontier: CrawlFrontier;
  readonly #o: ClusterCoordinatorOptions;
  readonly #streams: CrawlStreams;
  readonly #own: string;
  readonly #log: Logger;
  readonly #window: number;
  readonly #checkEveryMs: number;
  /** Stream entries in the local frontier or being handled: url → stream id. */
  readonly #held = new Map<string, string>();
  #seeded = false;
  #ended: string | undefined;
  #closed = false;
  #consumer: Promise<void> | undefined;
  #lastCheck = 0;
  #lastState: RunState | undefined;
  #checking: Promise<RunState> | undefined;
  /** Wakes the consumer loop waiting for room in the window. */
  #roomFreed: (() => void) | undefined;
  /** Entries read from the stream (for the report). */
  received = 0;
  /** Entries that arrived for a url already queued here during the run, settled without a fetch. */
  duplicates = 0;
  /** Entries forwarded to the member the ring gives them now. */
  forwarded = 0;
  /** Entries found re-homed after this member's heartbeat lapsed, taken out of its frontier. */
  revoked = 0;

  constructor(frontier: CrawlFrontier, options: ClusterCoordinatorOptions) {
    this.#frontier = frontier;
    this.#o = options;
    this.#streams = new CrawlStreams(options.redis);
    this.#own = options.run.stream(options.node);
    this.#log = options.log.child({ component: 'cluster-coordinator', node: options.node });
    this.#window = Math.max(1, options.window ?? 2 * (options.threads ?? 16));
    this.#checkEveryMs = options.checkEveryMs ?? 100;
  }

  /** Why the run ended, once this member has read it (or wrote it). */
  get ending(): string | undefined {
    return this.#ended;
  }

  /** Stream entries this member holds now (queued locally or being handled). */
  get held(): number {
    return this.#held.size;
  }

  async dispatch(entries: FrontierEntry[], commit: DispatchCommit = { acks: [] }): Promise<boolean[]> {
    const o = this.#o;
    const ids = this.#idsOf(commit.acks);
    const keys: string[] = [o.run.counters];
    const seen: string[] = [];
    const targets: string[] = [];
    const args: Array<string | number> = [o.node, entries.length, ids.length, this.#seeded ? 0 : 1];
    for (const e of entries) {
      const key = HashRing.crawlKey(o.catalogId, o.version, e.url);
      const { bucket, member } = seenMember(key, o.buckets);
      seen.push(o.run.seen(bucket));
      targets.push(o.run.stream(o.ring.owner(key)));
      args.push(member, encodeTask(e));
    }
    keys.push(...seen, ...targets, this.#own);
    args.push(...ids);
    const added = ((await DISPATCH.run(o.redis, keys, args)) as number[]).map((x) => Number(x) === 1);
    this.#seeded = true;
    // Acknowledged in Redis: their places in the window are free for the next read.
    if (ids.length > 0) this.#roomFreed?.();
    const { checkpoint } = commit;
    await this.#frontier.commit({
      ...commit,
      puts: [],
      checkpoint: checkpoint ? () => checkpoint(added) : undefined,
    });
    this.#startConsumer();
    return added;
  }

  /** The stream ids of committed leases; forgotten here (a lease not from the stream has none). */
  #idsOf(acks: readonly LeasedEntry[]): string[] {
    const ids: string[] = [];
    for (const lease of acks) {
      const id = this.#held.get(lease.url);
      if (id === undefined) continue;
      this.#held.delete(lease.url);
      ids.push(id);
    }
    return ids;
  }

  async isFinished(local: { active: number }): Promise<boolean> {
    if (this.#ended) return true;
    if (!this.#seeded) return false;
    this.#startConsumer();
    if (local.active > 0 || this.#frontier.inFlight() > 0 || this.#held.size > 0) return false;
    if ((await this.#frontier.size()) > 0) return false;
    const state = await this.state();
    if (state.ending) {
      this.#ended = state.ending;
      return true;
    }
    if (state.dispatched !== state.handled || state.streamed > 0) return false;
    const wrote = await this.#o.redis.set(this.#o.run.ending, 'frontier-drained', 'NX');
    this.#ended =
      wrote === 'OK' ? 'frontier-drained' : ((await this.#o.redis.get(this.#o.run.ending)) ?? 'frontier-drained');
    if (wrote === 'OK') this.#log.info({ dispatched: state.dispatched }, 'the run is drained on every member');
    return true;
  }

  /** The run's completion state, read at most every `checkEveryMs` (callers in between share the last read). */
  state(): Promise<RunState> {
    if (this.#lastState && Date.now() - this.#lastCheck < this.#checkEveryMs) return Promise.resolve(this.#lastState);
    this.#checking ??= CHECK.run(
      this.#o.redis,
      [this.#o.run.counters, this.#o.run.members, this.#o.run.ending],
      [this.#o.run.stream('')],
    )
      .then((r) => {
        this.#lastState = runState(r);
        this.#lastCheck = Date.now();
        return this.#lastState;
      })
      .finally(() => {
        this.#checking = undefined;
      });
    return this.#checking;
  }

  #startConsumer(): void {
    if (this.#consumer || this.#closed) return;
    this.#consumer = this.#consume();
  }

  /** Read the stream into the local frontier, keeping at most `window` entries held; bounded by close(). */
  async #consume(): Promise<void> {
    const o = this.#o;
    // Entries this member took before a restart and never acknowledged come first.
    try {
      await this.#accept(await this.#streams.pendingOf(this.#own, o.node, 10_000));
    } catch (err) {
      this.#log.warn({ err: (err as Error).message }, 'pending entries not read');
    }
    while (!this.#closed && !this.#ended) {
      const room = this.#window - this.#held.size;
      if (room <= 0) {
        await this.#room(200);
        continue;
      }
      try {
        const entries = await this.#streams.read(this.#own, o.node, room, 200, o.reader);
        if (entries.length > 0) await this.#accept(entries);
      } catch (err) {
        if (this.#closed) break;
        this.#log.warn({ err: (err as Error).message }, 'crawl stream not read; trying again');
        await sleep(500);
      }
    }
  }

  /** Until a commit acknowledges some held entries, at most `ms`. */
  #room(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const freed = () => {
        clearTimeout(timer);
        if (this.#roomFreed === freed) this.#roomFreed = undefined;
        resolve();
      };
      const timer = setTimeout(freed, ms);
      this.#roomFreed = freed;
    });
  }

  /**
   * Put entries into the local frontier; a url already held or queued during the run is settled at once. An entry
   * the ring now gives to another member (one that joined after it was sent, or sent by a member whose ring was a
   * moment behind) is forwarded there instead — moved in one script, at most twice — so a member that joins takes its
   * share of the urls already queued, not only of the new ones.
   */
  async #accept(entries: StreamEntry[]): Promise<void> {
    if (entries.length === 0) return;
    this.received += entries.length;
    const settle: string[] = [];
    const tasks: Array<{ id: string; entry: FrontierEntry }> = [];
    const forward: Array<{ id: string; to: string; message: string }> = [];
    for (const e of entries) {
      const entry = decodeTask(e.message);
      const owner = entry ? this.#o.ring.owner(HashRing.crawlKey(this.#o.catalogId, this.#o.version, entry.url)) : '';
      const hops = Number(parseObject(e.message)?.h ?? 0);
      if (!entry) {
        this.#log.warn({ id: e.id, message: e.message.slice(0, 200) }, 'crawl task not understood; dropped');
        settle.push(e.id);
      } else if (owner !== this.#o.node && hops < MAX_HOPS) {
        forward.push({ id: e.id, to: owner, message: encodeTask(entry, hops + 1) });
      } else if (this.#held.has(entry.url)) {
        settle.push(e.id);
      } else {
        this.#held.set(entry.url, e.id);
        tasks.push({ id: e.id, entry });
      }
    }
    const enqueued = tasks.length > 0 ? await this.#frontier.putAll(tasks.map((t) => t.entry)) : [];
    tasks.forEach((t, i) => {
      if (enqueued[i]) return;
      if (this.#held.get(t.entry.url) === t.id) this.#held.delete(t.entry.url);
      settle.push(t.id);
    });
    this.duplicates += settle.length;
    if (settle.length > 0) await this.#settle(settle);
    if (forward.length > 0) {
      const moved = Number(
        await MOVE.run(
          this.#o.redis,
          [this.#own, ...forward.map((f) => this.#o.run.stream(f.to))],
          forward.flatMap((f) => [f.id, f.message]),
        ),
      );
      this.forwarded += moved;
    }
  }

  /** Acknowledge entries that need no fetch: counted handled, so the run's totals still meet. */
  async #settle(ids: string[]): Promise<void> {
    const o = this.#o;
    await DISPATCH.run(o.redis, [o.run.counters, this.#own], [o.node, 0, ids.length, 0, ...ids]);
  }

  /**
   * After this member was taken for dead (its heartbeat lapsed and the leader may have re-homed its stream): the
   * entries it holds that are no longer in its pending list were moved to other members, who fetch them. They are
   * forgotten here and taken out of the local frontier (RevocableFrontier), so they are not fetched twice — except the
   * pages already being fetched. Returns how many were taken out.
   */
  async revalidate(): Promise<number> {
    if (this.#held.size === 0) return 0;
    // Synchronously, before any worker polls again: no entry leaves the frontier until this is answered.
    const release = isRevocable(this.#frontier) ? this.#frontier.hold() : undefined;
    try {
      return await this.#revalidate();
    } finally {
      release?.();
    }
  }

  async #revalidate(): Promise<number> {
    const mine = await this.#streams.pendingIds(this.#own, this.#o.node, this.#held.size + this.#window + 1000);
    const moved: string[] = [];
    for (const [url, id] of this.#held) {
      if (mine.has(id)) continue;
      this.#held.delete(url);
      moved.push(url);
    }
    if (moved.length > 0) {
      if (isRevocable(this.#frontier)) this.#frontier.revoke(moved);
      this.revoked += moved.length;
      this.#log.warn({ moved: moved.length }, 'urls re-homed while this member was taken for dead: not fetched here');
    }
    return moved.length;
  }

  /** Stop reading the stream (entries held stay pending in it, for whoever takes them). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#consumer?.catch(() => undefined);
  }
}

function isRevocable(
  f: CrawlFrontier,
): f is CrawlFrontier & { revoke(urls: Iterable<string>): void; hold(): () => void } {
  return typeof (f as { revoke?: unknown }).revoke === 'function';
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
