import type { Logger } from '@greenfinger/core';
import type { Redis } from 'ioredis';

/**
 * Counters every member can read, in one Redis hash with fields `<node>|<name>`. Increments are added up locally and
 * flushed in one pipelined HINCRBY round at least every `flushMs` (default 500 ms), so reading the totals costs one
 * HGETALL and writing costs one round trip per interval however fast the counters move. `set` stores a value (a
 * member's progress as JSON) with the next flush.
 */
export class SharedCounters {
  readonly #redis: Redis;
  readonly #key: string;
  readonly #node: string;
  readonly #flushMs: number;
  readonly #log: Logger;
  #adds = new Map<string, number>();
  #sets = new Map<string, string>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();

  constructor(redis: Redis, key: string, node: string, options: { flushMs?: number; log: Logger }) {
    this.#redis = redis;
    this.#key = key;
    this.#node = node;
    this.#flushMs = Math.min(options.flushMs ?? 500, 500);
    this.#log = options.log;
  }

  /** Add `n` to this member's counter `name` (flushed with the next round). */
  add(name: string, n = 1): void {
    this.#adds.set(name, (this.#adds.get(name) ?? 0) + n);
  }

  /** Store a value under this member's `name` (flushed with the next round; the last one set wins). */
  set(name: string, value: string): void {
    this.#sets.set(name, value);
  }

  /** Start flushing every `flushMs`. */
  start(): void {
    this.#timer ??= setInterval(() => void this.flush(), this.#flushMs);
    this.#timer.unref();
  }

  /** Write what is buffered now (one round trip); resolves once it is in Redis. Never rejects: failures are logged and kept. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      if (this.#adds.size === 0 && this.#sets.size === 0) return;
      const adds = this.#adds;
      const sets = this.#sets;
      this.#adds = new Map();
      this.#sets = new Map();
      const p = this.#redis.pipeline();
      for (const [name, n] of adds) p.hincrby(this.#key, `${this.#node}|${name}`, n);
      if (sets.size > 0) p.hset(this.#key, ...[...sets].flatMap(([name, v]) => [`${this.#node}|${name}`, v]));
      try {
        const results = (await p.exec()) ?? [];
        const failed = results.find(([err]) => err);
        if (failed?.[0]) throw failed[0];
      } catch (err) {
        this.#log.warn({ err: (err as Error).message }, 'shared counters not flushed; kept for the next round');
        for (const [name, n] of adds) this.#adds.set(name, (this.#adds.get(name) ?? 0) + n);
        for (const [name, v] of sets) if (!this.#sets.has(name)) this.#sets.set(name, v);
      }
    });
    return this.#flushing;
  }

  /** Stop the timer and flush what is left. */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  /** Every member's values: node → name → raw value (numbers as strings). */
  async read(): Promise<Map<string, Record<string, string>>> {
    return byNode(await this.#redis.hgetall(this.#key));
  }
}

/** A `<node>|<name>` hash read back as node → name → value. */
export function byNode(hash: Record<string, string>): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const [field, value] of Object.entries(hash)) {
    const sep = field.lastIndexOf('|');
    if (sep <= 0) continue;
    const node = field.slice(0, sep);
    let row = out.get(node);
    if (!row) {
      row = {};
      out.set(node, row);
    }
    row[field.slice(sep + 1)] = value;
  }
  return out;
}
