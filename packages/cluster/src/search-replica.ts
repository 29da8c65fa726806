import {
  type CrawledPage,
  type IndexDocument,
  type Logger,
  type OutputChannel,
  type SearchIndex,
  toIndexDocument,
} from '@greenfinger/core';
import type { Redis } from 'ioredis';
import { closeRedis, connectRedis } from './redis-connection.js';
import { str } from './wire.js';

const BATCH = 100;
const FLUSH_MS = 500;

/**
 * The sending half of the `search` channel (seed 000: multicast excluding self, buffered, applied idempotently, only
 * when the store behind it is per node): every page this member saves goes into the run's search stream as its
 * self-contained index document, in frames of up to 100 (text inside JSON; picture bytes never), so every member's
 * embedded index ends up holding every page of the run. A shared search service would need none of this.
 */
export class IndexReplicaChannel implements OutputChannel {
  readonly layer = 'index-replica';
  readonly #redis: Redis;
  readonly #key: string;
  readonly #node: string;
  readonly #log: Logger;
  #buffer: IndexDocument[] = [];
  #timer: NodeJS.Timeout | undefined;
  #sending: Promise<void> = Promise.resolve();
  #written = 0;
  #failed = 0;
  #lastError: string | undefined;

  constructor(redis: Redis, key: string, node: string, log: Logger) {
    this.#redis = redis;
    this.#key = key;
    this.#node = node;
    this.#log = log;
  }

  async write(page: CrawledPage): Promise<void> {
    this.#buffer.push(toIndexDocument(page));
    if (this.#buffer.length >= BATCH) await this.#send();
    else this.#timer ??= setTimeout(() => void this.#send(), FLUSH_MS);
  }

  #send(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#buffer;
    this.#buffer = [];
    if (batch.length === 0) return this.#sending;
    this.#sending = this.#sending.then(async () => {
      try {
        await this.#redis.xadd(this.#key, '*', 'from', this.#node, 'm', JSON.stringify(batch));
        this.#written += batch.length;
      } catch (err) {
        this.#failed += batch.length;
        this.#lastError = err instanceof Error ? err.message : String(err);
        this.#log.warn({ err: this.#lastError, docs: batch.length }, 'index documents not sent to the other members');
      }
    });
    return this.#sending;
  }

  flush(): Promise<void> {
    return this.#send();
  }

  async deleteVersion(): Promise<{ count: number; bytes: number }> {
    return { count: 0, bytes: 0 };
  }

  counts(): { written: number; failed: number; lastError?: string } {
    return { written: this.#written, failed: this.#failed, ...(this.#lastError ? { lastError: this.#lastError } : {}) };
  }

  async close(): Promise<void> {
    await this.#send();
  }
}

/**
 * The receiving half: this member's own consumer group on the run's search stream (from its first entry, so a member
 * that joins late gets what is still there), applying the other members' documents to its embedded index and
 * acknowledging them. Upserts by resource id, so a frame delivered twice changes nothing.
 */
export class IndexReplicaConsumer {
  readonly #redisUrl: string;
  readonly #key: string;
  readonly #node: string;
  readonly #index: SearchIndex;
  readonly #log: Logger;
  #conn: Redis | undefined;
  #stopped = false;
  #loop: Promise<void> | undefined;
  /** Documents applied from the other members. */
  applied = 0;

  constructor(options: { redisUrl: string; key: string; node: string; index: SearchIndex; log: Logger }) {
    this.#redisUrl = options.redisUrl;
    this.#key = options.key;
    this.#node = options.node;
    this.#index = options.index;
    this.#log = options.log.child({ component: 'index-replica', node: options.node });
  }

  async start(): Promise<void> {
    const conn = await connectRedis(this.#redisUrl, { role: 'index-replica', log: this.#log });
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
        const reply = (await conn.call(
          'XREADGROUP',
          'GROUP',
          this.#node,
          this.#node,
          'COUNT',
          10,
          'BLOCK',
          500,
          'STREAMS',
          this.#key,
          '>',
        )) as unknown;
        const entries = streamEntries(reply);
        const docs: IndexDocument[] = [];
        for (const [, fields] of entries) {
          const f = fieldsOf(fields);
          if (f.from === this.#node) continue;
          const parsed = parseFrame(f.m ?? '');
          if (!parsed) this.#log.warn('an index frame was not understood; skipped');
          else docs.push(...parsed);
        }
        if (docs.length > 0) {
          await this.#index.upsert(docs);
          this.applied += docs.length;
        }
        if (entries.length > 0) await conn.xack(this.#key, this.#node, ...entries.map(([id]) => id));
      } catch (err) {
        if (this.#stopped) break;
        this.#log.warn({ err: (err as Error).message }, 'index frames not applied; trying again');
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

/** A frame's documents, each with the fields an index document needs (unknown fields are dropped by the index). */
function parseFrame(text: string): IndexDocument[] | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(v)) return undefined;
  const docs: IndexDocument[] = [];
  for (const d of v) {
    const o = d && typeof d === 'object' ? (d as Record<string, unknown>) : undefined;
    if (!o || !str(o, 'id') || !str(o, 'catalogId') || typeof o.version !== 'number') continue;
    docs.push(o as unknown as IndexDocument);
  }
  return docs;
}

/**
 * Has every named member applied everything in the search stream? (its group there: no lag, nothing pending).
 * True when the stream does not exist (the run writes no index).
 */
export async function searchCaughtUp(redis: Redis, key: string, members: readonly string[]): Promise<boolean> {
  if (!(await redis.exists(key))) return true;
  const groups = (await redis.call('XINFO', 'GROUPS', key)) as unknown[];
  const byName = new Map<string, Record<string, unknown>>();
  for (const g of groups) {
    const o = Array.isArray(g) ? Object.fromEntries(pairs(g)) : (g as Record<string, unknown>);
    byName.set(String(o.name), o);
  }
  return members.every((m) => {
    const g = byName.get(m);
    return g !== undefined && Number(g.pending ?? 1) === 0 && Number(g.lag ?? 1) === 0;
  });
}

function pairs(list: unknown[]): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (let i = 0; i + 1 < list.length; i += 2) out.push([String(list[i]), list[i + 1]]);
  return out;
}

/** Drop frames every member's group has read and acknowledged (the stream is multicast: trimmed behind the slowest). */
export async function trimSearch(redis: Redis, key: string): Promise<void> {
  if (!(await redis.exists(key))) return;
  const groups = (await redis.call('XINFO', 'GROUPS', key)) as unknown[];
  let min: string | undefined;
  for (const g of groups) {
    const o = Array.isArray(g) ? Object.fromEntries(pairs(g)) : (g as Record<string, unknown>);
    if (Number(o.pending ?? 0) > 0) return;
    const last = String(o['last-delivered-id'] ?? '0-0');
    if (min === undefined || compareIds(last, min) < 0) min = last;
  }
  if (min && min !== '0-0') await redis.xtrim(key, 'MINID', min);
}

function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am !== bm ? am - bm : as - bs;
}
