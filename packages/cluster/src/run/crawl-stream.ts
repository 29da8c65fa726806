import type { Redis } from 'ioredis';

/** The consumer group every crawl stream has: its owner reads through it, a claimant takes a dead owner's entries. */
export const GROUP = 'g';

/** One stream entry: its id and its message (the `m` field, JSON). */
export interface StreamEntry {
  id: string;
  message: string;
}

type RawEntry = [id: string, fields: string[]];

/**
 * The entries of the one stream an XREADGROUP named: RESP2 answers `[[key, entries]]`, RESP3 (ioredis 6) a map that
 * arrives as `[key, entries]`. Entries deleted while pending come back with no fields and are skipped.
 */
function readReply(reply: unknown): StreamEntry[] {
  if (!Array.isArray(reply) || reply.length === 0) return [];
  const entries = (typeof reply[0] === 'string' ? reply[1] : (reply[0] as unknown[])?.[1]) as RawEntry[] | undefined;
  return (entries ?? []).filter((e) => Array.isArray(e) && Array.isArray(e[1])).map(entryOf);
}

function entryOf([id, fields]: RawEntry): StreamEntry {
  const i = fields.indexOf('m');
  return { id, message: i >= 0 ? (fields[i + 1] ?? '') : '' };
}

/**
 * The crawl channel's primitives over one Redis stream per member (seed 000: unicast, buffered, many consumers):
 * batched XADD; XREADGROUP by the owner; XACK + XDEL once an entry's page is committed, so the stream holds only the
 * entries in flight; XAUTOCLAIM and XREADGROUP by a claimant for a member that died. Keys come from the caller
 * (RunKeys.stream), so these know nothing of runs.
 */
export class CrawlStreams {
  readonly #redis: Redis;

  constructor(redis: Redis) {
    this.#redis = redis;
  }

  /** Create the stream and its group (reading from the first entry); a second call does nothing. */
  async create(key: string): Promise<void> {
    try {
      await this.#redis.xgroup('CREATE', key, GROUP, '0', 'MKSTREAM');
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('BUSYGROUP')) throw err;
    }
  }

  /** Append messages, pipelined in one round trip; returns their ids. */
  async add(key: string, messages: readonly string[]): Promise<string[]> {
    if (messages.length === 0) return [];
    const p = this.#redis.pipeline();
    for (const m of messages) p.xadd(key, '*', 'm', m);
    const results = (await p.exec()) ?? [];
    return results.map(([err, id]) => {
      if (err) throw err;
      return String(id);
    });
  }

  /**
   * Up to `count` entries never delivered to anyone, as `consumer`; waits up to `blockMs` for one (0 = do not wait).
   * Use a connection of its own when blocking: a blocked connection answers nothing else meanwhile.
   */
  async read(key: string, consumer: string, count: number, blockMs = 0, redis = this.#redis): Promise<StreamEntry[]> {
    const args: Array<string | number> = ['GROUP', GROUP, consumer, 'COUNT', count];
    if (blockMs > 0) args.push('BLOCK', blockMs);
    args.push('STREAMS', key, '>');
    return readReply(await redis.call('XREADGROUP', ...args));
  }

  /** The ids in `consumer`'s pending list now (delivered to it, not acknowledged, not moved away), up to `count`. */
  async pendingIds(key: string, consumer: string, count: number): Promise<Set<string>> {
    const rows = (await this.#redis.call('XPENDING', key, GROUP, '-', '+', count, consumer)) as unknown[];
    return new Set((rows ?? []).map((r) => String((r as unknown[])[0])));
  }

  /** Entries delivered to `consumer` and not acknowledged (its pending list), oldest first. */
  async pendingOf(key: string, consumer: string, count: number): Promise<StreamEntry[]> {
    return readReply(
      await this.#redis.call('XREADGROUP', 'GROUP', GROUP, consumer, 'COUNT', count, 'STREAMS', key, '0'),
    );
  }

  /** Acknowledge and delete in one MULTI: the stream shrinks as pages are committed. Returns how many were deleted. */
  async ack(key: string, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const r = await this.#redis
      .multi()
      .xack(key, GROUP, ...ids)
      .xdel(key, ...ids)
      .exec();
    return Number(r?.[1]?.[1] ?? 0);
  }

  /**
   * Take over up to `count` entries pending with any consumer for at least `minIdleMs` (a dead member's), as
   * `consumer`, walking the pending list from its start (XAUTOCLAIM). Entries deleted meanwhile are skipped.
   */
  async claim(key: string, consumer: string, count: number, minIdleMs = 0): Promise<StreamEntry[]> {
    const out: StreamEntry[] = [];
    let cursor = '0-0';
    for (let i = 0; i < 1000 && out.length < count; i++) {
      const reply = (await this.#redis.call(
        'XAUTOCLAIM',
        key,
        GROUP,
        consumer,
        minIdleMs,
        cursor,
        'COUNT',
        count - out.length,
      )) as [string, Array<RawEntry | null>, string[]?];
      for (const e of reply[1]) if (Array.isArray(e) && Array.isArray(e[1])) out.push(entryOf(e));
      cursor = reply[0];
      if (cursor === '0-0') break;
    }
    return out;
  }

  /** Entries in the stream (delivered or not, until acknowledged and deleted); 0 for a stream that does not exist. */
  length(key: string): Promise<number> {
    return this.#redis.xlen(key);
  }

  /** Entries delivered and not yet acknowledged. */
  async pending(key: string): Promise<number> {
    try {
      const summary = (await this.#redis.xpending(key, GROUP)) as [number, ...unknown[]];
      return Number(summary[0] ?? 0);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith('NOGROUP')) return 0;
      throw err;
    }
  }
}
