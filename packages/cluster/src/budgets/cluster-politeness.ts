import { randomBytes } from 'node:crypto';
import type { HostAnswer, HostPaceControl, HostRate, Logger, Pacer, Politeness, Reservation } from '@greenfinger/core';
import { MAX_PAUSE_MS } from '@greenfinger/core/internal';
import type { Redis } from 'ioredis';
import { LuaScript } from '../plumbing/lua-script.js';

/** A slot left by a member that died frees itself after this; held slots are renewed every third of it. */
export const HOST_SLOT_LEASE_MS = 10_000;
/** Polls of a request waiting for its host: from 10 ms, doubling, at most 100 ms apart. */
const POLL_FIRST_MS = 10;
const POLL_MAX_MS = 100;

/**
 * Take a slot and a token of a host for the whole cluster, atomically, in one script: KEYS[1] the host's holders (a
 * sorted set, score = lease end), KEYS[2] the host's token bucket, KEYS[3] the end of a pause the host asked for.
 * ARGV: holder, slots, interval ms, lease ms, burst. The bucket is kept as one number, its theoretical arrival
 * time (GCRA): a take is allowed when it is at most (burst - 1) intervals ahead of now, and pushes it one interval
 * further (from now when it lies behind): at most `burst` request starts at once, then one per interval, the same
 * as a bucket of `burst` tokens refilled one per interval. Answers 0 (taken), or the ms to wait (no token yet, or
 * the host is paused), or -1 (every slot is held). Redis's clock only: no member clocks are compared.
 */
const ACQUIRE = new LuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return -1 end
local paused = tonumber(redis.call('GET', KEYS[3]) or '0')
if now < paused then return paused - now end
local interval = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[2]) or '0')
if tat < now then tat = now end
local allowed = tat - (tonumber(ARGV[5]) - 1) * interval
if now < allowed then return allowed - now end
local lease = tonumber(ARGV[4])
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
redis.call('PEXPIRE', KEYS[1], lease)
if interval > 0 then redis.call('SET', KEYS[2], tat + interval, 'PX', tat + interval - now + 1000) end
return 0
`);

/**
 * Pause a host for the whole cluster (a Retry-After): KEYS[1] the end of the host's pause, pushed to Redis's now +
 * ARGV[1] ms unless it is later already.
 */
const PAUSE = new LuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ms = tonumber(ARGV[1])
local nxt = tonumber(redis.call('GET', KEYS[1]) or '0')
if now + ms > nxt then redis.call('SET', KEYS[1], now + ms, 'PX', ms + 1000) end
return 1
`);

/** Push the lease end of held slots (one holder per ARGV) that are still there. */
const RENEW = new LuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 2, #ARGV do
  local key = KEYS[i - 1]
  if redis.call('ZSCORE', key, ARGV[i]) then
    redis.call('ZADD', key, 'XX', now + tonumber(ARGV[1]), ARGV[i])
    redis.call('PEXPIRE', key, tonumber(ARGV[1]))
  end
end
return 1
`);

export interface ClusterPolitenessOptions {
  /**
   * This process's own politeness (its FIFO, its pacing of a rendered page's requests, Crawl-delay, the pace its
   * hosts' answers adapted).
   */
  local: Politeness & Partial<Pacer & HostPaceControl>;
  redis: Redis;
  /** Key prefix of the hosts' budgets (`gf:<cluster>:polite:`). */
  prefix: string;
  member: string;
  /** Requests in flight to one host, over every member. */
  maxPerHost: number;
  /** Minimum time between two request starts to one host, over every member (1/rate of its token bucket). */
  intervalMs: number;
  /** Request starts the host's bucket allows at once, over every member (the catalog's `burst`). @default 1 */
  burst?: number | undefined;
  crawlDelayMs: (host: string) => Promise<number | undefined>;
  log: Logger;
  leaseMs?: number;
}

/**
 * Politeness shared by a cluster's members (`GF_CLUSTER_POLITENESS=cluster`): the catalog's per-host budget —
 * `hostConcurrency` requests in flight and a token bucket of rate 1/`intervalMs` (or 1/the host's Crawl-delay) holding
 * `burst` tokens — holds for the cluster as a whole, not per member. A request first takes its slot in this process
 * (its FIFO and its own bucket), then one of the host's slots and a token of its bucket in Redis, in one script on
 * Redis's clock (`gf:<cluster>:polite:<host>`, `…:tat`, `…:pause`); a member that dies holding slots loses them
 * within the lease (10 s; slots held are renewed every third of it). A rendered page's own requests are paced in the slot it holds,
 * by this process's default (Pacer). The interval a member takes a slot with is the longest of the setting, the
 * Crawl-delay and the pace this member's answers from the host adapted; a Retry-After a member gets pauses the host
 * for every member (the host's pause in Redis is pushed past it).
 */
export class ClusterPoliteness implements Politeness, Pacer, HostPaceControl {
  readonly #o: ClusterPolitenessOptions;
  readonly #lease: number;
  readonly #burst: number;
  /** Slots held now: holder → host key. */
  readonly #held = new Map<string, string>();
  #renewal: NodeJS.Timeout | undefined;
  /** Requests that waited for another member's slot or interval (counted once each). */
  waited = 0;

  constructor(options: ClusterPolitenessOptions) {
    this.#o = options;
    this.#lease = options.leaseMs ?? HOST_SLOT_LEASE_MS;
    this.#burst = options.burst ?? 1;
    if (!Number.isInteger(this.#burst) || this.#burst < 1) throw new TypeError('ClusterPoliteness: burst must be >= 1');
  }

  async acquire(host: string): Promise<() => void> {
    const releaseLocal = await this.#o.local.acquire(host);
    try {
      const holder = await this.#take(host);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        releaseLocal();
        void this.#free(host, holder);
      };
    } catch (err) {
      releaseLocal();
      throw err;
    }
  }

  pace(host: string, signal?: AbortSignal): Promise<void> {
    return this.#o.local.pace?.(host, signal) ?? Promise.resolve();
  }

  /** Adapt this member's pace to the answer; a Retry-After pauses the host for the cluster too. */
  observe(host: string, answer: HostAnswer): void {
    this.#o.local.observe?.(host, answer);
    const after = answer.retryAfterMs;
    // As the local pace (host-pace.ts): a Retry-After beyond MAX_PAUSE_MS gives the url up and pauses nothing.
    if ((answer.status !== 429 && answer.status !== 503) || !after || after <= 0 || after > MAX_PAUSE_MS) return;
    void PAUSE.run(this.#o.redis, [`${this.#key(host)}:pause`], [after]).catch((err: unknown) =>
      this.#o.log.warn({ host, err: (err as Error).message }, 'host pause not shared with the cluster'),
    );
  }

  paceFor(host: string): number {
    return this.#o.local.paceFor?.(host) ?? this.#o.intervalMs;
  }

  rates(): HostRate[] {
    return this.#o.local.rates?.() ?? [];
  }

  // The back queues see this member's slots and pace; a host's cluster-wide slots are waited for in acquire.
  readyIn(host: string): number {
    return this.#o.local.readyIn?.(host) ?? 0;
  }

  reserve(host: string): Reservation {
    return this.#o.local.reserve?.(host) ?? { host, consumed: true };
  }

  unreserve(reservation: Reservation): void {
    this.#o.local.unreserve?.(reservation);
  }

  onFree(listener: (host: string) => void): () => void {
    return this.#o.local.onFree?.(listener) ?? (() => undefined);
  }

  #key(host: string): string {
    return `${this.#o.prefix}${host}`;
  }

  /** Wait for one of the host's cluster-wide slots, polling (bounded by the lease: a dead holder's slot frees). */
  async #take(host: string): Promise<string> {
    const o = this.#o;
    const holder = `${o.member}|${randomBytes(6).toString('hex')}`;
    const delay = (await o.crawlDelayMs(host)) ?? 0;
    const interval = Math.max(o.intervalMs, delay, o.local.paceFor?.(host) ?? 0);
    const key = this.#key(host);
    const deadline = Date.now() + this.#lease * 6;
    let poll = POLL_FIRST_MS;
    let waited = false;
    while (Date.now() < deadline) {
      const answer = Number(
        await ACQUIRE.run(
          o.redis,
          [key, `${key}:tat`, `${key}:pause`],
          [holder, o.maxPerHost, interval, this.#lease, this.#burst],
        ),
      );
      if (answer === 0) {
        this.#held.set(holder, key);
        if (!this.#renewal) {
          this.#renewal = setInterval(() => void this.#renew(), Math.floor(this.#lease / 3));
          this.#renewal.unref();
        }
        if (waited) this.waited++;
        return holder;
      }
      waited = true;
      await new Promise((resolve) => setTimeout(resolve, answer > 0 ? Math.min(answer, POLL_MAX_MS) : poll));
      poll = Math.min(POLL_MAX_MS, poll * 2);
    }
    throw new Error(`no slot of ${host} came free in the cluster within ${this.#lease * 6} ms`);
  }

  async #free(host: string, holder: string): Promise<void> {
    this.#held.delete(holder);
    if (this.#held.size === 0 && this.#renewal) {
      clearInterval(this.#renewal);
      this.#renewal = undefined;
    }
    await this.#o.redis.zrem(this.#key(host), holder).catch((err: unknown) => {
      this.#o.log.warn({ host, err: (err as Error).message }, 'host slot not given back; it frees with its lease');
    });
  }

  async #renew(): Promise<void> {
    if (this.#held.size === 0) return;
    const held = [...this.#held];
    await RENEW.run(
      this.#o.redis,
      held.map(([, key]) => key),
      [this.#lease, ...held.map(([holder]) => holder)],
    ).catch((err: unknown) => this.#o.log.warn({ err: (err as Error).message }, 'host slots not renewed'));
  }
}
