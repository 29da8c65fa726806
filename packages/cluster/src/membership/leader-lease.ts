import type { Logger } from '@greenfinger/core';
import type { Redis } from 'ioredis';
import type { ClusterKeys } from '../plumbing/keys.js';
import { LuaScript } from '../plumbing/lua-script.js';

/**
 * Take the lease when it is free — or when its holder's heartbeat is gone (a member killed is known dead after the
 * heartbeat's 3 s, before its 5 s lease runs out) — with a new token from the epoch counter. Renews it when it is ours.
 * KEYS: lease, epoch. ARGV: name, ttl, instance, member key prefix (`gf:<cluster>:member:`).
 * Returns the token, or 0 when a live member holds it.
 */
const ACQUIRE = new LuaScript(`
local v = redis.call('GET', KEYS[1])
if v then
  local mine = ARGV[1] .. '|' .. ARGV[3] .. '|'
  if string.sub(v, 1, string.len(mine)) == mine then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return tonumber(string.sub(v, string.len(mine) + 1)) or 0
  end
  if ARGV[4] ~= '' then
    local a = string.find(v, '|', 1, true)
    local b = a and string.find(v, '|', a + 1, true)
    if a and b then
      local beat = redis.call('GET', ARGV[4] .. string.sub(v, 1, a - 1))
      local instance = string.sub(v, a + 1, b - 1)
      if beat and string.find(beat, '"instance":"' .. instance .. '"', 1, true) then return 0 end
    else
      return 0
    end
  else
    return 0
  end
end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. ARGV[3] .. '|' .. token, 'PX', ARGV[2])
return token`);

/** Renew only the lease this holder took (name, instance and token); 0 when it was lost. */
const RENEW = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`);

const RELEASE = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`);

/**
 * A write guarded by a fencing token: done only while `token` is the newest one handed out (the epoch), so a leader
 * whose lease expired — paused, cut off — and that does not know it yet cannot write over its successor.
 * KEYS[1] epoch, KEYS[2] target; ARGV[1] token, ARGV[2] value. Returns 1 written, 0 refused.
 */
const FENCED_SET = new LuaScript(`
if tonumber(redis.call('GET', KEYS[1]) or '0') ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
return 1`);

/**
 * Move a catalog's published version forward under a fencing token: refused for a stale token, and refused for a
 * version older than the one recorded, so nothing publishes backwards; with a once-key (a run's), done at most once.
 * KEYS[1] epoch, KEYS[2] published register, KEYS[3] once-key (optional); ARGV token, version.
 * Returns 'ok', 'stale', 'backwards' or 'done' (the once-key was already set).
 */
const FENCED_PUBLISH = new LuaScript(`
if tonumber(redis.call('GET', KEYS[1]) or '0') ~= tonumber(ARGV[1]) then return 'stale' end
if KEYS[3] and redis.call('EXISTS', KEYS[3]) == 1 then return 'done' end
local cur = redis.call('HGET', KEYS[2], 'version')
if cur and tonumber(cur) > tonumber(ARGV[2]) then return 'backwards' end
redis.call('HSET', KEYS[2], 'version', ARGV[2], 'token', ARGV[1])
if KEYS[3] then redis.call('SET', KEYS[3], ARGV[1]) end
return 'ok'`);

/** Who holds the lease. */
export interface LeaseHolder {
  name: string;
  instance: string;
  token: number;
  /** Milliseconds left before it expires unless renewed. */
  ttlMs: number;
}

export interface LeaderLeaseOptions {
  name: string;
  /** Unique per process (the membership's instance). */
  instance: string;
  /** The lease lives this long unless renewed. @default 5000 */
  ttlMs?: number;
  /**
   * Take the lease at once from a holder whose membership heartbeat is gone (the members' heartbeats expire sooner
   * than the lease). @default true
   */
  takeOverDead?: boolean;
  log: Logger;
}

/**
 * The leader lease: one key (`gf:<cluster>:leader` = `name|instance|token`) set with NX and an expiry that the
 * holder renews; a member whose heartbeat has expired loses it at once to the next member that asks. Each acquisition takes a new fencing token from an increasing counter, and writes that only the
 * leader may do compare it (`fencedSet`, `fencedPublish`), so a stale leader's writes are refused.
 */
export class LeaderLease {
  readonly #redis: Redis;
  readonly #keys: ClusterKeys;
  readonly #name: string;
  readonly #instance: string;
  readonly #ttlMs: number;
  readonly #log: Logger;
  readonly #takeOverDead: boolean;
  #token = 0;

  constructor(redis: Redis, keys: ClusterKeys, options: LeaderLeaseOptions) {
    this.#redis = redis;
    this.#keys = keys;
    this.#name = options.name;
    this.#instance = options.instance;
    this.#ttlMs = options.ttlMs ?? 5000;
    this.#takeOverDead = options.takeOverDead ?? true;
    this.#log = options.log.child({ component: 'leader-lease', node: options.name });
  }

  get ttlMs(): number {
    return this.#ttlMs;
  }

  /** The token of the lease this process holds (0 = none). */
  get token(): number {
    return this.#token;
  }

  /** Take the lease if it is free (or renew it when it is already ours); returns the token, 0 when another holds it. */
  async tryAcquire(): Promise<number> {
    const prefix = this.#takeOverDead ? this.#keys.member('') : '';
    const token = Number(
      await ACQUIRE.run(
        this.#redis,
        [this.#keys.leader, this.#keys.epoch],
        [this.#name, this.#ttlMs, this.#instance, prefix],
      ),
    );
    if (token > 0 && token !== this.#token) this.#log.info({ token }, 'leader lease taken');
    this.#token = token;
    return token;
  }

  /** Extend the lease; false (and the token forgotten) when it was lost — expired and perhaps taken by another. */
  async renew(): Promise<boolean> {
    if (this.#token === 0) return false;
    const ok = (await RENEW.run(this.#redis, [this.#keys.leader], [this.#value(), this.#ttlMs])) === 1;
    if (!ok) {
      this.#log.warn({ token: this.#token }, 'leader lease lost');
      this.#token = 0;
    }
    return ok;
  }

  /** Give the lease up (a member leaving); another member takes it at its next try. */
  async release(): Promise<void> {
    if (this.#token === 0) return;
    await RELEASE.run(this.#redis, [this.#keys.leader], [this.#value()]);
    this.#token = 0;
  }

  /** The holder now, if any. */
  async holder(): Promise<LeaseHolder | undefined> {
    const [value, ttl] = await this.#redis
      .multi()
      .get(this.#keys.leader)
      .pttl(this.#keys.leader)
      .exec()
      .then((r) => [r?.[0]?.[1] as string | null, Number(r?.[1]?.[1] ?? -2)] as const);
    return value ? parseHolder(value, ttl) : undefined;
  }

  /** Set `key` only while `token` is the newest token; false when refused. */
  async fencedSet(token: number, key: string, value: string): Promise<boolean> {
    return (await FENCED_SET.run(this.#redis, [this.#keys.epoch, key], [token, value])) === 1;
  }

  /** Record `version` as the catalog's published version under `token`, at most once per `onceKey` (FENCED_PUBLISH). */
  async fencedPublish(
    token: number,
    catalogId: string,
    version: number,
    onceKey?: string,
  ): Promise<'ok' | 'stale' | 'backwards' | 'done'> {
    const keys = [this.#keys.epoch, this.#keys.published(catalogId), ...(onceKey ? [onceKey] : [])];
    return (await FENCED_PUBLISH.run(this.#redis, keys, [token, version])) as 'ok' | 'stale' | 'backwards' | 'done';
  }

  #value(): string {
    return `${this.#name}|${this.#instance}|${this.#token}`;
  }
}

/** Read a lease value: `name|instance|token`. */
export function parseHolder(value: string, ttlMs: number): LeaseHolder | undefined {
  const [name, instance, token] = value.split('|');
  if (!name || !instance || !token) return undefined;
  return { name, instance, token: Number(token), ttlMs };
}
