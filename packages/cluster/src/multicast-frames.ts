import type { Logger } from '@greenfinger/core';
import type { Redis } from 'ioredis';
import { closeRedis, connectRedis } from './redis-connection.js';

const BATCH = 100;
const FLUSH_MS = 500;

/**
 * The sending half of a replicated channel (seed 000: `record`, `search`…: multicast excluding self, buffered, in
 * batched frames): items are pushed by kind and sent as frames of up to 100 (or every 500 ms) into one run stream, each
 * entry `from` (the member), `k` (the kind) and `m` (a JSON array). Every member reads the stream through its own
 * group (FrameConsumer) and skips its own frames. Text travels inside JSON; bytes never do.
 */
export class FrameSender {
  readonly #redis: Redis;
  readonly #key: string;
  readonly #node: string;
  readonly #log: Logger;
  readonly #buffers = new Map<string, unknown[]>();
  #timer: NodeJS.Timeout | undefined;
  #sending: Promise<void> = Promise.resolve();
  sent = 0;
  failed = 0;
  lastError: string | undefined;

  constructor(redis: Redis, key: string, node: string, log: Logger) {
    this.#redis = redis;
    this.#key = key;
    this.#node = node;
    this.#log = log;
  }

  /** Queue items of a kind; a full frame is sent at once (awaited), a partial one within 500 ms. */
  async push(kind: string, items: readonly unknown[]): Promise<void> {
    if (items.length === 0) return;
    const buffer = this.#buffers.get(kind) ?? [];
    buffer.push(...items);
    this.#buffers.set(kind, buffer);
    if (buffer.length >= BATCH) await this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Send everything queued; resolves once it is in Redis (never rejects: a failed frame is counted and logged). */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const frames: Array<[string, unknown[]]> = [];
    for (const [kind, items] of this.#buffers) {
      for (let i = 0; i < items.length; i += BATCH) frames.push([kind, items.slice(i, i + BATCH)]);
    }
    this.#buffers.clear();
    if (frames.length === 0) return this.#sending;
    this.#sending = this.#sending.then(async () => {
      for (const [kind, items] of frames) {
        try {
          await this.#redis.xadd(this.#key, '*', 'from', this.#node, 'k', kind, 'm', JSON.stringify(items));
          this.sent += items.length;
        } catch (err) {
          this.failed += items.length;
          this.lastError = err instanceof Error ? err.message : String(err);
          this.#log.warn({ err: this.lastError, kind, items: items.length }, 'frame not sent to the other members');
        }
      }
    });
    return this.#sending;
  }
}

/**
 * The receiving half: this member's own consumer group on the stream (from its first entry, so a member that joins
 * late gets what is still there), handing the other members' frames to `apply` and acknowledging them. `apply` must
 * be idempotent: a frame can be delivered again after a crash.
 */
export class FrameConsumer {
  readonly #redisUrl: string;
  readonly #key: string;
  readonly #node: string;
  readonly #apply: (kind: string, items: unknown[]) => Promise<void>;
  readonly #log: Logger;
  #conn: Redis | undefined;
  #stopped = false;
  #loop: Promise<void> | undefined;
  /** Items applied from the other members. */
  applied = 0;

  constructor(options: {
    redisUrl: string;
    key: string;
    node: string;
    apply: (kind: string, items: unknown[]) => Promise<void>;
    log: Logger;
  }) {
    this.#redisUrl = options.redisUrl;
    this.#key = options.key;
    this.#node = options.node;
    this.#apply = options.apply;
    this.#log = options.log;
  }

  async start(): Promise<void> {
    const conn = await connectRedis(this.#redisUrl, { role: 'frames', log: this.#log });
    this.#conn = conn;
    try {
      await conn.xgroup('CREATE', this.#key, this.#node, '0', 'MKSTREAM');
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('BUSYGROUP')) throw err;
    }
    this.#loop = this.#run(conn);
  }

  async #run(conn: Redis): Promise<void> {
    while (!this.#stopped) {
      try {
        const reply = await conn.call(
          'XREADGROUP',
          'GROUP',
          this.#node,
          this.#node,
          'COUNT',
          50,
          'BLOCK',
          500,
          'STREAMS',
          this.#key,
          '>',
        );
        const entries = streamEntries(reply);
        // The frames of one read, merged by kind (one transaction per kind instead of one per frame), applied in the
        // order the kinds first came (a sender's rows come before the links to them).
        const byKind = new Map<string, unknown[]>();
        for (const [, fields] of entries) {
          const f = fieldsOf(fields);
          if (f.from === this.#node) continue;
          const items = parseItems(f.m ?? '');
          if (!items) {
            this.#log.warn({ kind: f.k }, 'a frame was not understood; skipped');
            continue;
          }
          const list = byKind.get(f.k ?? '') ?? [];
          for (const item of items) list.push(item);
          byKind.set(f.k ?? '', list);
        }
        for (const [kind, items] of byKind) {
          await this.#apply(kind, items);
          this.applied += items.length;
        }
        if (entries.length > 0) await conn.xack(this.#key, this.#node, ...entries.map(([id]) => id));
      } catch (err) {
        if (this.#stopped) break;
        this.#log.warn({ err: (err as Error).message }, 'frames not applied; trying again');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop?.catch(() => undefined);
    if (this.#conn) await closeRedis(this.#conn);
  }
}

type Raw = [string, string[]];

function streamEntries(reply: unknown): Raw[] {
  if (!Array.isArray(reply) || reply.length === 0) return [];
  const entries = (typeof reply[0] === 'string' ? reply[1] : (reply[0] as unknown[])?.[1]) as Raw[] | undefined;
  return (entries ?? []).filter((e) => Array.isArray(e) && Array.isArray(e[1]));
}

function fieldsOf(fields: string[]): Record<string, string> {
  const o: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) o[fields[i] as string] = fields[i + 1] as string;
  return o;
}

function parseItems(text: string): unknown[] | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function groupsOf(reply: unknown): Array<Record<string, unknown>> {
  return ((reply as unknown[]) ?? []).map((g) => {
    if (!Array.isArray(g)) return g as Record<string, unknown>;
    const o: Record<string, unknown> = {};
    for (let i = 0; i + 1 < g.length; i += 2) o[String(g[i])] = g[i + 1];
    return o;
  });
}

/**
 * Has every named member applied everything in the stream? (its group there: no lag, nothing pending). True when the
 * stream does not exist (nothing was ever sent on it).
 */
export async function framesCaughtUp(redis: Redis, key: string, members: readonly string[]): Promise<boolean> {
  if (!(await redis.exists(key))) return true;
  const byName = new Map(groupsOf(await redis.call('XINFO', 'GROUPS', key)).map((g) => [String(g.name), g]));
  return members.every((m) => {
    const g = byName.get(m);
    return g !== undefined && Number(g.pending ?? 1) === 0 && Number(g.lag ?? 1) === 0;
  });
}

/** Drop frames every member's group has read and acknowledged (a multicast stream is trimmed behind the slowest). */
export async function trimFrames(redis: Redis, key: string): Promise<void> {
  if (!(await redis.exists(key))) return;
  let min: string | undefined;
  for (const g of groupsOf(await redis.call('XINFO', 'GROUPS', key))) {
    if (Number(g.pending ?? 0) > 0) return;
    const last = String(g['last-delivered-id'] ?? '0-0');
    if (min === undefined || compareIds(last, min) < 0) min = last;
  }
  if (min && min !== '0-0') await redis.xtrim(key, 'MINID', min);
}

function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am !== bm ? am - bm : as - bs;
}
