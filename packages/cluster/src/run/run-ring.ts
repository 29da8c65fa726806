import type { Logger } from '@greenfinger/core';
import type { Redis } from 'ioredis';
import type { ClusterKeys, RunKeys } from '../plumbing/keys.js';
import { HashRing } from './hash-ring.js';

/**
 * Virtual points per member on a run's ring. The run ends when the member with the most urls does, so its share is
 * what counts: over the handbook's urls three members at 128 points get up to 36% (the slowest ends last), at 2,048
 * about 34% (bench: npm run bench -- cluster). 6,144 points cost a binary search of 13 steps per url.
 */
export const RING_POINTS = 2048;

/**
 * Who owns which url in a run: a consistent hash ring over the run's members that are live (their heartbeat exists)
 * and still in the run (not in its `left` set), refreshed every `refreshMs`. A member that dies drops off at the first refresh after its heartbeat expires, and the
 * urls of its arcs go to their new owners; a member that joins the run takes its share of the urls found from then on.
 */
export class RunRing {
  readonly #redis: Redis;
  readonly #keys: ClusterKeys;
  readonly #run: RunKeys;
  readonly #self: string;
  readonly #refreshMs: number;
  readonly #log: Logger;
  #ring: HashRing;
  #names = '';
  #timer: NodeJS.Timeout | undefined;
  #refreshing: Promise<void> | undefined;

  constructor(
    redis: Redis,
    keys: ClusterKeys,
    run: RunKeys,
    options: { self: string; refreshMs?: number; log: Logger },
  ) {
    this.#redis = redis;
    this.#keys = keys;
    this.#run = run;
    this.#self = options.self;
    this.#refreshMs = options.refreshMs ?? 300;
    this.#log = options.log;
    this.#ring = new HashRing([this.#self], RING_POINTS);
    this.#names = this.#self;
  }

  /** Read the live members now, then keep them fresh. */
  async start(): Promise<void> {
    await this.refresh();
    this.#timer ??= setInterval(() => void this.refresh(), this.#refreshMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The live members of the run, sorted. */
  get members(): string[] {
    return this.#ring.nodes;
  }

  /** The member owning a routing key (HashRing.crawlKey). */
  owner(key: string): string {
    return this.#ring.owner(key);
  }

  /** Read the run's members and their heartbeats again; the ring changes only when the set did. */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#read().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #read(): Promise<void> {
    try {
      const [names, left] = await Promise.all([
        this.#redis.smembers(this.#run.members).then((n) => n.sort()),
        this.#redis.smembers(this.#run.left).then((n) => new Set(n)),
      ]);
      const beats = names.length > 0 ? await this.#redis.mget(...names.map((n) => this.#keys.member(n))) : [];
      const live = names.filter((n, i) => beats[i] !== null && !left.has(n));
      // This member routes to itself until the run lists it (it joins before it dispatches anything).
      if (live.length === 0) live.push(this.#self);
      const joined = live.join(',');
      if (joined === this.#names) return;
      this.#log.info({ members: live, before: this.#names.split(',') }, 'run ring changed');
      this.#names = joined;
      this.#ring = new HashRing(live, RING_POINTS);
    } catch (err) {
      this.#log.warn({ err: (err as Error).message }, 'run members not read; keeping the ring as it was');
    }
  }
}
