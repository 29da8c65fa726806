import type { Logger } from '@greenfinger/core';
import type { Redis } from 'ioredis';
import { closeRedis, connectRedis } from '../plumbing/redis-connection.js';

const BATCH = 100;
const FLUSH_MS = 500;
/**
 * The most bytes one frame carries (its binary body plus its JSON header): 1 MiB. A frame closes at 100 items or at
 * this many bytes, whichever comes first; an item larger than this (a big picture) travels in pieces of up to this
 * size, each in a frame of its own, and is put together again by the receiving half before it is applied.
 */
export const MAX_FRAME_BYTES = 1024 * 1024;

/** An item of a binary frame: a small JSON head (what it is) and its bytes, which never pass through JSON. */
export interface BinaryItem {
  head: Record<string, unknown>;
  body: Buffer;
}

/** One piece of a binary item in a frame's header: its head, its bytes here, and (split items) where they go. */
interface PieceHeader {
  h: Record<string, unknown>;
  /** Bytes of this piece in the frame's body. */
  n: number;
  /** Split items only: the item's sequence number at its sender, its total bytes, this piece's offset. */
  s?: number;
  t?: number;
  o?: number;
}

interface Queued {
  items: unknown[];
  binary: BinaryItem[];
  bytes: number;
}

type Frame = { kind: string; items: unknown[] } | { kind: string; pieces: PieceHeader[]; body: Buffer[] };

/**
 * The sending half of a replicated channel (seed 000: `record`, `search`, `blob`…: multicast excluding self,
 * buffered, in batched frames): items are pushed by kind and sent as frames of up to 100 (or every 500 ms) into one
 * run stream, each entry `from` (the member), `k` (the kind) and `m` (a JSON array). Every member reads the stream
 * through its own group (FrameConsumer) and skips its own frames. Text travels inside JSON; bytes never do: a binary
 * frame (`pushBinary`) is `m`, the JSON array of its items' heads and sizes, and `b`, their bytes one after the other
 * as a binary field value, at most {@link MAX_FRAME_BYTES} a frame.
 */
export class FrameSender {
  readonly #redis: Redis;
  readonly #key: string;
  readonly #node: string;
  readonly #log: Logger;
  readonly #buffers = new Map<string, Queued>();
  #timer: NodeJS.Timeout | undefined;
  #sending: Promise<void> = Promise.resolve();
  #seq = 0;
  sent = 0;
  failed = 0;
  /** Frames and bytes (headers and bodies) sent. */
  frames = 0;
  bytes = 0;
  lastError: string | undefined;

  constructor(redis: Redis, key: string, node: string, log: Logger) {
    this.#redis = redis;
    this.#key = key;
    this.#node = node;
    this.#log = log;
  }

  #queue(kind: string): Queued {
    let q = this.#buffers.get(kind);
    if (!q) {
      q = { items: [], binary: [], bytes: 0 };
      this.#buffers.set(kind, q);
    }
    return q;
  }

  /** Queue items of a kind; a full frame is sent at once (awaited), a partial one within 500 ms. */
  async push(kind: string, items: readonly unknown[]): Promise<void> {
    if (items.length === 0) return;
    const q = this.#queue(kind);
    q.items.push(...items);
    if (q.items.length >= BATCH) await this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /**
   * Queue binary items of a kind (their bytes are sent as they are, never encoded); 100 items or 1 MiB queued are
   * sent at once (awaited), fewer within 500 ms.
   */
  async pushBinary(kind: string, items: readonly BinaryItem[]): Promise<void> {
    if (items.length === 0) return;
    const q = this.#queue(kind);
    for (const item of items) {
      q.binary.push(item);
      q.bytes += item.body.length + JSON.stringify(item.head).length;
    }
    if (q.binary.length >= BATCH || q.bytes >= MAX_FRAME_BYTES) await this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Send everything queued; resolves once it is in Redis (never rejects: a failed frame is counted and logged). */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const frames: Frame[] = [];
    for (const [kind, q] of this.#buffers) {
      for (let i = 0; i < q.items.length; i += BATCH) frames.push({ kind, items: q.items.slice(i, i + BATCH) });
      frames.push(...this.#binaryFrames(kind, q.binary));
    }
    this.#buffers.clear();
    if (frames.length === 0) return this.#sending;
    this.#sending = this.#sending.then(async () => {
      for (const frame of frames) await this.#send(frame);
    });
    return this.#sending;
  }

  /** Binary items into frames of at most 100 pieces and MAX_FRAME_BYTES, splitting an item larger than that. */
  #binaryFrames(kind: string, items: readonly BinaryItem[]): Frame[] {
    const frames: Frame[] = [];
    let pieces: PieceHeader[] = [];
    let body: Buffer[] = [];
    let bytes = 0;
    const close = () => {
      if (pieces.length > 0) frames.push({ kind, pieces, body });
      pieces = [];
      body = [];
      bytes = 0;
    };
    for (const item of items) {
      const headBytes = JSON.stringify(item.head).length + 96;
      const room = Math.max(1024, MAX_FRAME_BYTES - headBytes);
      if (item.body.length <= room) {
        if (pieces.length >= BATCH || bytes + headBytes + item.body.length > MAX_FRAME_BYTES) close();
        pieces.push({ h: item.head, n: item.body.length });
        body.push(item.body);
        bytes += headBytes + item.body.length;
        continue;
      }
      // Larger than a frame: pieces of a frame each, numbered so the receiving half puts them together again.
      close();
      const seq = this.#seq++;
      const total = item.body.length;
      for (let o = 0, guard = 0; o < total && guard < 1_000_000; o += room, guard++) {
        const part = item.body.subarray(o, Math.min(total, o + room));
        frames.push({ kind, pieces: [{ h: item.head, n: part.length, s: seq, t: total, o }], body: [part] });
      }
    }
    close();
    return frames;
  }

  async #send(frame: Frame): Promise<void> {
    const count = 'items' in frame ? frame.items.length : frame.pieces.length;
    try {
      if ('items' in frame) {
        const m = JSON.stringify(frame.items);
        await this.#redis.xadd(this.#key, '*', 'from', this.#node, 'k', frame.kind, 'm', m);
        this.bytes += Buffer.byteLength(m);
      } else {
        const m = JSON.stringify(frame.pieces);
        const b = frame.body.length === 1 ? (frame.body[0] as Buffer) : Buffer.concat(frame.body);
        await this.#redis.xadd(this.#key, '*', 'from', this.#node, 'k', frame.kind, 'm', m, 'b', b);
        this.bytes += Buffer.byteLength(m) + b.length;
      }
      this.frames++;
      // A split item counts once, with its last piece.
      this.sent += 'items' in frame ? count : frame.pieces.filter(isLastPiece).length;
    } catch (err) {
      this.failed += count;
      this.lastError = err instanceof Error ? err.message : String(err);
      this.#log.warn({ err: this.lastError, kind: frame.kind, items: count }, 'frame not sent to the other members');
    }
  }
}

function isLastPiece(p: PieceHeader): boolean {
  return p.t === undefined || (p.o ?? 0) + p.n >= p.t;
}

/**
 * Items handed to `apply` at a time. A member that fell behind reads up to 50 frames (5,000 items) at once; applied in
 * one go they held its event loop for seconds (an embedded index upserts ~1 ms a page on the main thread), long
 * enough under load for its 3 s heartbeat to lapse and its stream to be re-homed while it still held those urls.
 */
const APPLY_SLICE = 100;

/** Split items being put together, at most this many at a time (a sender that died mid-item leaves one behind). */
const MAX_ASSEMBLING = 64;

/**
 * The receiving half: this member's own consumer group on the stream (from its first entry, so a member that joins
 * late gets what is still there), handing the other members' frames to `apply` and acknowledging them. `apply` must
 * be idempotent: a frame can be delivered again after a crash. The items of a binary frame come to `apply` as
 * {@link BinaryItem}s, a split one once all of its pieces are there.
 */
export class FrameConsumer {
  readonly #redisUrl: string;
  readonly #key: string;
  readonly #node: string;
  readonly #apply: (kind: string, items: unknown[]) => Promise<void>;
  readonly #onStop: (() => Promise<void>) | undefined;
  readonly #log: Logger;
  readonly #count: number;
  /** Split items by `from|seq`: their pieces so far. */
  readonly #assembling = new Map<string, { head: Record<string, unknown>; parts: Buffer[]; got: number }>();
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
    /** Frames read (and applied together) at a time. @default 50 */
    count?: number;
    /** Called once the consumer has stopped (what `apply` opened is closed there). */
    onStop?: () => Promise<void>;
  }) {
    this.#redisUrl = options.redisUrl;
    this.#key = options.key;
    this.#node = options.node;
    this.#apply = options.apply;
    this.#onStop = options.onStop;
    this.#log = options.log;
    this.#count = Math.max(1, options.count ?? 50);
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
        // Binary replies: a binary frame's body stays the bytes it was sent as.
        const reply = await conn.callBuffer(
          'XREADGROUP',
          'GROUP',
          this.#node,
          this.#node,
          'COUNT',
          this.#count,
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
        for (const { fields: f } of entries) {
          const from = f.get('from')?.toString();
          if (from === this.#node) continue;
          const kind = f.get('k')?.toString() ?? '';
          const body = f.get('b');
          const items = parseItems(f.get('m')?.toString() ?? '');
          const decoded = items && body ? this.#binaryItems(from ?? '', items, body) : items;
          if (!decoded) {
            this.#log.warn({ kind }, 'a frame was not understood; skipped');
            continue;
          }
          const list = byKind.get(kind) ?? [];
          for (const item of decoded) list.push(item);
          byKind.set(kind, list);
        }
        for (const [kind, items] of byKind) {
          for (let i = 0; i < items.length; i += APPLY_SLICE) {
            const slice = items.slice(i, i + APPLY_SLICE);
            await this.#apply(kind, slice);
            this.applied += slice.length;
            // The event loop between slices: heartbeats, the crawl's own work.
            await new Promise((r) => setImmediate(r));
          }
        }
        if (entries.length > 0) await conn.xack(this.#key, this.#node, ...entries.map((e) => e.id));
      } catch (err) {
        if (this.#stopped) break;
        this.#log.warn({ err: (err as Error).message }, 'frames not applied; trying again');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** A binary frame's items: heads from `m`, bytes sliced from `b`; a split item only with its last piece. */
  #binaryItems(from: string, pieces: unknown[], body: Buffer): BinaryItem[] | undefined {
    const out: BinaryItem[] = [];
    let offset = 0;
    for (const raw of pieces) {
      const p = raw as PieceHeader;
      if (!p || typeof p !== 'object' || typeof p.n !== 'number' || !p.h || typeof p.h !== 'object') return undefined;
      if (offset + p.n > body.length) return undefined;
      const bytes = body.subarray(offset, offset + p.n);
      offset += p.n;
      if (p.t === undefined) {
        out.push({ head: p.h, body: bytes });
        continue;
      }
      const id = `${from}|${p.s}`;
      let a = this.#assembling.get(id);
      if (!a || p.o === 0) {
        a = { head: p.h, parts: [], got: 0 };
        this.#assembling.set(id, a);
        if (this.#assembling.size > MAX_ASSEMBLING) {
          const oldest = this.#assembling.keys().next().value as string;
          this.#assembling.delete(oldest);
          this.#log.warn({ item: oldest }, 'a split item never got its last piece; dropped');
        }
      }
      if ((p.o ?? 0) !== a.got) {
        this.#log.warn(
          { item: id, offset: p.o, expected: a.got },
          'a piece of a split item came out of order; dropped',
        );
        this.#assembling.delete(id);
        continue;
      }
      // Copied: the reply's buffer is not kept past this read.
      a.parts.push(Buffer.from(bytes));
      a.got += p.n;
      if (a.got >= p.t) {
        this.#assembling.delete(id);
        out.push({ head: a.head, body: Buffer.concat(a.parts, a.got) });
      }
    }
    return out;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop?.catch(() => undefined);
    this.#assembling.clear();
    if (this.#conn) await closeRedis(this.#conn);
    await this.#onStop?.().catch((err: unknown) => this.#log.warn({ err }, 'the channel did not close cleanly'));
  }
}

interface Entry {
  id: string;
  fields: Map<string, Buffer>;
}

/** XREADGROUP's binary reply, one stream: `[[key, [[id, [field, value, …]], …]]]`. */
function streamEntries(reply: unknown): Entry[] {
  if (!Array.isArray(reply) || reply.length === 0) return [];
  const first = reply[0] as unknown;
  const raw = (Buffer.isBuffer(first) || typeof first === 'string' ? reply[1] : (first as unknown[])?.[1]) as
    | unknown[]
    | undefined;
  const out: Entry[] = [];
  for (const e of raw ?? []) {
    if (!Array.isArray(e) || !Array.isArray(e[1])) continue;
    const values = e[1] as Buffer[];
    const fields = new Map<string, Buffer>();
    for (let i = 0; i + 1 < values.length; i += 2) fields.set(String(values[i]), values[i + 1] as Buffer);
    out.push({ id: String(e[0]), fields });
  }
  return out;
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

/** Where a replicated channel's receiving half reads: the run's stream, through this member's own group. */
export interface ReplicaStream {
  redisUrl: string;
  key: string;
  node: string;
  log: Logger;
}

/**
 * A replicated channel's receiving half (search, record, blob, vectors, frontier-dedup): a FrameConsumer on the
 * stream, its log named for the channel, applying what the other members sent.
 */
export function replicaConsumer(
  stream: ReplicaStream,
  component: string,
  apply: (kind: string, items: unknown[], log: Logger) => Promise<void>,
  more: { count?: number; onStop?: () => Promise<void> } = {},
): FrameConsumer {
  const log = stream.log.child({ component, node: stream.node });
  return new FrameConsumer({
    redisUrl: stream.redisUrl,
    key: stream.key,
    node: stream.node,
    log,
    apply: (kind, items) => apply(kind, items, log),
    ...more,
  });
}

/**
 * Has every named member applied everything in the stream? (its group there: nothing pending, and nothing after its
 * last delivered frame). True when the stream does not exist (nothing was ever sent on it). The group's `lag` is not
 * used: Redis answers it with nil in some states of a trimmed stream, which would read as "not caught up" forever.
 */
export async function framesCaughtUp(redis: Redis, key: string, members: readonly string[]): Promise<boolean> {
  return (await framesBehind(redis, key, members)).length === 0;
}

/** The members whose group in the stream has frames pending or not yet delivered (with why, for the log). */
export async function framesBehind(
  redis: Redis,
  key: string,
  members: readonly string[],
): Promise<Array<{ member: string; pending: number; lastDelivered: string; lastGenerated: string }>> {
  if (!(await redis.exists(key))) return [];
  const stream = groupsOf([await redis.call('XINFO', 'STREAM', key)])[0] ?? {};
  const lastGenerated = String(stream['last-generated-id'] ?? '0-0');
  const byName = new Map(groupsOf(await redis.call('XINFO', 'GROUPS', key)).map((g) => [String(g.name), g]));
  const behind: Array<{ member: string; pending: number; lastDelivered: string; lastGenerated: string }> = [];
  for (const m of members) {
    const g = byName.get(m);
    const pending = g ? Number(g.pending ?? 1) : -1;
    const lastDelivered = g ? String(g['last-delivered-id'] ?? '0-0') : 'no group';
    if (g && pending === 0 && compareIds(lastDelivered, lastGenerated) >= 0) continue;
    behind.push({ member: m, pending, lastDelivered, lastGenerated });
  }
  return behind;
}

/**
 * Drop frames every member's group has read and acknowledged (a multicast stream is trimmed behind the slowest): up
 * to a group's oldest pending frame while it has some, past its last delivered one otherwise. `members`: only their
 * groups count (a dead member's group, which no longer moves, does not hold the stream back).
 */
export async function trimFrames(redis: Redis, key: string, members?: readonly string[]): Promise<void> {
  if (!(await redis.exists(key))) return;
  const counted = members ? new Set(members) : undefined;
  let min: string | undefined;
  for (const g of groupsOf(await redis.call('XINFO', 'GROUPS', key))) {
    if (counted && !counted.has(String(g.name))) continue;
    let bound: string;
    if (Number(g.pending ?? 0) > 0) {
      const summary = (await redis.call('XPENDING', key, String(g.name))) as unknown[];
      const oldest = summary?.[1];
      if (typeof oldest !== 'string') return;
      bound = oldest;
    } else {
      bound = nextId(String(g['last-delivered-id'] ?? '0-0'));
    }
    if (min === undefined || compareIds(bound, min) < 0) min = bound;
  }
  if (min && compareIds(min, '0-1') > 0) await redis.xtrim(key, 'MINID', min);
}

/** The smallest stream id after `id`. */
function nextId(id: string): string {
  const [ms, seq] = id.split('-').map(Number) as [number, number];
  return `${ms}-${seq + 1}`;
}

function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am !== bm ? am - bm : as - bs;
}
