import {
  isPatternRecord,
  type Logger,
  observeRender,
  type PatternRecord,
  type RenderMemory,
  type RenderObservation,
} from '@greenfinger/core/internal';
import type { Redis } from 'ioredis';
import type { ClusterKeys } from '../plumbing/keys.js';

/** How long a host's memory stays after its last write. @default 90 days */
export const RENDER_MEMORY_TTL_SECONDS = 90 * 24 * 3600;
/** How long a record read from Redis is taken as it is before it is read again. */
const FRESH_MS = 2000;
/** Observations one member holds back for one pattern at most, between two flushes. */
const MAX_PENDING = 1000;
/** Times a flush retries a pattern another member wrote meanwhile. */
const MAX_RETRIES = 5;

interface Entry {
  /** The record as last read from Redis (undefined: none there), with the pending observations applied. */
  record: PatternRecord | undefined;
  readAt: number;
  /** Observed here and not written yet, in order. */
  pending: Array<{ observation: RenderObservation; at: number }>;
}

export interface RedisRenderMemoryOptions {
  /** Flush every this many ms while observations wait. @default 2000 */
  flushMs?: number;
  log: Logger;
}

/**
 * The render memory shared by a cluster's members (issue 17: "in a cluster, shared through Redis"): one hash per host,
 * `gf:<cluster>:render:<host>`, a field per url pattern holding its PatternRecord as JSON, kept 90 days after the
 * host's last write. Each member counts its pages locally and writes them in batches: a flush reads the pattern's
 * record again, applies its own observations in order (the same `observe` rule as the file memory) and writes it
 * under WATCH, retrying when another member wrote it meanwhile, so no member's pages are lost. Reads are cached for
 * 2 s. The memory is advice: a member that cannot reach Redis renders as the detector says and logs it.
 */
export class RedisRenderMemory implements RenderMemory {
  readonly #redis: Redis;
  readonly #keys: ClusterKeys;
  readonly #log: Logger;
  readonly #entries = new Map<string, Entry>();
  readonly #timer: NodeJS.Timeout;
  #flushing: Promise<void> = Promise.resolve();
  /** The connection of the WATCH transactions (WATCH holds for the connection it was sent on); flushes are serial. */
  #tx: Redis | undefined;
  #closed = false;

  constructor(redis: Redis, keys: ClusterKeys, options: RedisRenderMemoryOptions) {
    this.#redis = redis;
    this.#keys = keys;
    this.#log = options.log;
    this.#timer = setInterval(() => void this.flush(), options.flushMs ?? 2000);
    this.#timer.unref();
  }

  #key(host: string): string {
    return `${this.#keys.prefix}render:${host}`;
  }

  async get(host: string, pattern: string): Promise<PatternRecord | undefined> {
    const id = `${host}\n${pattern}`;
    const entry = this.#entries.get(id);
    if (entry && Date.now() - entry.readAt < FRESH_MS) return entry.record;
    let stored: PatternRecord | undefined;
    try {
      stored = parse(await this.#redis.hget(this.#key(host), pattern));
    } catch (err) {
      this.#log.warn({ err, host }, 'render memory unreadable in Redis; the detector decides');
      return entry?.record;
    }
    const pending = entry?.pending ?? [];
    const record = pending.reduce<PatternRecord | undefined>((r, p) => observeRender(r, p.observation, p.at), stored);
    this.#entries.set(id, { record, readAt: Date.now(), pending });
    if (this.#entries.size > 10_000 && pending.length === 0) this.#entries.delete(id);
    return record;
  }

  async record(host: string, pattern: string, observation: RenderObservation): Promise<void> {
    if (this.#closed) return;
    const id = `${host}\n${pattern}`;
    const entry = this.#entries.get(id) ?? { record: undefined, readAt: 0, pending: [] };
    const at = Date.now();
    entry.record = observeRender(entry.record, observation, at);
    if (entry.pending.length < MAX_PENDING) entry.pending.push({ observation, at });
    this.#entries.set(id, entry);
  }

  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#flushAll());
    return this.#flushing;
  }

  async #flushAll(): Promise<void> {
    for (const [id, entry] of this.#entries) {
      if (entry.pending.length === 0) continue;
      const [host, pattern] = id.split('\n') as [string, string];
      const pending = entry.pending;
      entry.pending = [];
      try {
        entry.record = await this.#write(host, pattern, pending);
        entry.readAt = Date.now();
      } catch (err) {
        // Kept for the next flush (within the bound).
        entry.pending = [...pending, ...entry.pending].slice(-MAX_PENDING);
        this.#log.warn({ err, host }, 'render memory not written to Redis; retried at the next flush');
      }
    }
  }

  /** Apply a pattern's observations to the record in Redis, under WATCH so no other member's write is lost. */
  async #write(
    host: string,
    pattern: string,
    pending: ReadonlyArray<{ observation: RenderObservation; at: number }>,
  ): Promise<PatternRecord | undefined> {
    const key = this.#key(host);
    for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
      this.#tx ??= this.#redis.duplicate();
      const tx = this.#tx;
      await tx.watch(key);
      const stored = parse(await tx.hget(key, pattern));
      const record = pending.reduce<PatternRecord | undefined>((r, p) => observeRender(r, p.observation, p.at), stored);
      const done = await tx
        .multi()
        .hset(key, pattern, JSON.stringify(record))
        .expire(key, RENDER_MEMORY_TTL_SECONDS)
        .exec();
      if (done !== null) return record;
    }
    throw new Error(`render memory of ${host} ${pattern}: written by other members ${MAX_RETRIES} times in a row`);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    clearInterval(this.#timer);
    await this.flush();
    this.#closed = true;
    this.#tx?.disconnect();
    this.#tx = undefined;
  }
}

function parse(value: string | null): PatternRecord | undefined {
  if (!value) return undefined;
  try {
    const v: unknown = JSON.parse(value);
    return isPatternRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
