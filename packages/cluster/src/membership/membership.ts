import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { CrawlerError, type Logger } from '@greenfinger/core';
import type { Redis } from 'ioredis';
import type { ClusterKeys } from '../plumbing/keys.js';
import { LuaScript } from '../plumbing/lua-script.js';
import { parseObject, str } from '../plumbing/wire.js';

/** What a member says about itself in its heartbeat. */
export interface MemberInfo {
  name: string;
  /** Unique per process: tells a restarted member, or a second process using the same name, apart. */
  instance: string;
  pid: number;
  host: string;
  startedAt: string;
  /** Anything else the member publishes (data root, threads…); unknown fields are kept as they are. */
  [field: string]: unknown;
}

/** A change of the live member list, found by polling. */
export interface MembershipChange {
  live: string[];
  joined: string[];
  left: string[];
}

/** 1 renewed, 2 written again (it had expired), 0 held by another instance. */
const RENEW = new LuaScript(`
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not v then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  redis.call('SADD', KEYS[2], ARGV[3])
  return 2
end
return 0`);

/** Delete the heartbeat only when it is ours. */
const LEAVE = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('SREM', KEYS[2], ARGV[2])
return 1`);

/** Forget a member whose heartbeat is gone (after its work was re-homed); a live one is kept. */
const FORGET = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
return redis.call('SREM', KEYS[2], ARGV[1])`);

export interface MembershipOptions {
  name: string;
  /** A heartbeat lives this long unless renewed. @default 3000 */
  ttlMs?: number;
  /** Renew (and poll the list) this often. @default ttlMs / 3 */
  intervalMs?: number;
  /** More to publish in the heartbeat. */
  info?: Record<string, unknown>;
  log: Logger;
}

/**
 * Cluster membership: every member keeps a heartbeat key with an expiry (`gf:<cluster>:member:<name>`) and its name in
 * the member set. A member is live while its key exists; one that stops renewing (killed, frozen, cut off) drops out
 * after the expiry, with no clock compared between machines. Joins and leaves are found by polling the list.
 */
export class Membership {
  readonly name: string;
  readonly info: MemberInfo;
  readonly #redis: Redis;
  readonly #keys: ClusterKeys;
  readonly #ttlMs: number;
  readonly #intervalMs: number;
  readonly #log: Logger;
  readonly #value: string;
  #timer: NodeJS.Timeout | undefined;
  #last = new Set<string>();
  readonly #watchers: Array<(change: MembershipChange) => void> = [];
  readonly #lapseWatchers: Array<() => void> = [];
  #ticking = false;
  /** When the heartbeat was last written (a tick that comes later than the expiry after it finds it lapsed). */
  #lastBeat = 0;
  /** The beat whose lapse the watchers were told of (once per lapse, whoever finds it first). */
  #lapseTold = 0;

  constructor(redis: Redis, keys: ClusterKeys, options: MembershipOptions) {
    this.#redis = redis;
    this.#keys = keys;
    this.name = options.name;
    this.#ttlMs = options.ttlMs ?? 3000;
    this.#intervalMs = options.intervalMs ?? Math.max(50, Math.floor(this.#ttlMs / 3));
    this.#log = options.log.child({ component: 'membership', node: options.name });
    this.info = {
      ...options.info,
      name: options.name,
      instance: randomUUID(),
      pid: process.pid,
      host: hostname(),
      startedAt: new Date().toISOString(),
    };
    this.#value = JSON.stringify(this.info);
  }

  get ttlMs(): number {
    return this.#ttlMs;
  }

  /**
   * Write the heartbeat and start renewing it.
   * @throws CrawlerError CONFLICT when a live member already uses the name
   */
  async join(): Promise<void> {
    const key = this.#keys.member(this.name);
    const done = await this.#redis.set(key, this.#value, 'PX', this.#ttlMs, 'NX');
    if (done !== 'OK') {
      const other = parseObject((await this.#redis.get(key)) ?? '');
      throw new CrawlerError(
        'CONFLICT',
        `a member named "${this.name}" is already in cluster "${this.#keys.cluster}" (pid ${String(other?.pid ?? '?')} on ${str(other ?? {}, 'host') ?? '?'})`,
        { fix: `give this node another --node-name, or wait ${this.#ttlMs} ms for a dead one's heartbeat to expire` },
      );
    }
    await this.#redis.sadd(this.#keys.members, this.name);
    this.#lastBeat = Date.now();
    this.#timer = setInterval(() => void this.#tick(), this.#intervalMs);
    this.#timer.unref();
    await this.#poll();
  }

  async #tick(): Promise<void> {
    if (this.#ticking) return;
    this.#ticking = true;
    // A tick that comes later than the expiry after the last beat (the process was frozen) knows at once, before
    // any round trip, that the others may have taken this member for dead.
    const late = this.checkLapse();
    try {
      const r = await RENEW.run(
        this.#redis,
        [this.#keys.member(this.name), this.#keys.members],
        [this.#value, this.#ttlMs, this.name],
      );
      if (r !== 0) this.#lastBeat = Date.now();
      if (r === 2) {
        this.#log.warn('the heartbeat had expired (the process was paused or cut off); written again');
        if (!late) this.#lapsed();
      }
      if (r === 0) this.#log.error('another process now holds this member name; this one keeps running unlisted');
      await this.#poll();
    } catch (err) {
      this.#log.warn({ err: (err as Error).message }, 'heartbeat not renewed');
    } finally {
      this.#ticking = false;
    }
  }

  /**
   * Tell the lapse watchers now, synchronously, when the last beat is older than the expiry (the process was frozen):
   * a worker about to take a url calls it, so nothing re-homed meanwhile is taken before the tick that would find it.
   * Once per lapse. Returns whether the beat had lapsed.
   */
  checkLapse(): boolean {
    const late = this.#lastBeat > 0 && Date.now() - this.#lastBeat > this.#ttlMs;
    if (late && this.#lapseTold !== this.#lastBeat) {
      this.#lapseTold = this.#lastBeat;
      this.#lapsed();
    }
    return late;
  }

  #lapsed(): void {
    for (const w of this.#lapseWatchers) {
      try {
        w();
      } catch (err) {
        this.#log.warn({ err }, 'a lapse watcher failed');
      }
    }
  }

  async #poll(): Promise<void> {
    if (this.#watchers.length === 0) return;
    const live = (await this.live()).map((m) => m.name);
    const now = new Set(live);
    const joined = live.filter((n) => !this.#last.has(n));
    const left = [...this.#last].filter((n) => !now.has(n));
    this.#last = now;
    if (joined.length === 0 && left.length === 0) return;
    for (const w of this.#watchers) w({ live, joined, left });
  }

  /** Be told of every change of the live list (checked at each heartbeat); the first call reports the list as joined. */
  watch(handler: (change: MembershipChange) => void): () => void {
    this.#watchers.push(handler);
    return () => {
      const i = this.#watchers.indexOf(handler);
      if (i >= 0) this.#watchers.splice(i, 1);
    };
  }

  /**
   * Be told when this member's heartbeat is found expired and written again: the others took it for dead meanwhile,
   * and may have re-homed its work.
   */
  onLapse(handler: () => void): () => void {
    this.#lapseWatchers.push(handler);
    return () => {
      const i = this.#lapseWatchers.indexOf(handler);
      if (i >= 0) this.#lapseWatchers.splice(i, 1);
    };
  }

  /** Renew the heartbeat again after {@link halt} (a test standing in for a process that was frozen). */
  thaw(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.#tick(), this.#intervalMs);
    this.#timer.unref();
  }

  /** The members whose heartbeat exists now, by name. */
  async live(): Promise<MemberInfo[]> {
    const names = (await this.#redis.smembers(this.#keys.members)).sort();
    if (names.length === 0) return [];
    const values = await this.#redis.mget(...names.map((n) => this.#keys.member(n)));
    const out: MemberInfo[] = [];
    for (const v of values) {
      const o = v ? parseObject(v) : undefined;
      if (o && typeof o.name === 'string') out.push(o as MemberInfo);
    }
    return out;
  }

  /** Names in the member set whose heartbeat is gone: dead, or left without saying so. */
  async dead(): Promise<string[]> {
    const names = (await this.#redis.smembers(this.#keys.members)).sort();
    if (names.length === 0) return [];
    const values = await this.#redis.mget(...names.map((n) => this.#keys.member(n)));
    return names.filter((_, i) => values[i] === null);
  }

  /** Take a dead member off the member set (once its work was re-homed); false when it is live again. */
  async forget(name: string): Promise<boolean> {
    return (await FORGET.run(this.#redis, [this.#keys.member(name), this.#keys.members], [name])) === 1;
  }

  /** Stop renewing and remove the heartbeat: the others see this member leave at their next poll. */
  async leave(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await LEAVE.run(this.#redis, [this.#keys.member(this.name), this.#keys.members], [this.#value, this.name]);
  }

  /** Stop renewing without removing anything (a test standing in for a process that died). */
  halt(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
