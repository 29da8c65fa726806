import {
  type ImageRow,
  type Logger,
  type PictureClaim,
  type PictureRegistry,
  sha256Hex,
} from '@greenfinger/core/internal';
import type { Redis } from 'ioredis';
import { LuaScript } from '../plumbing/lua-script.js';
import { parseObject } from '../plumbing/wire.js';

/** How long a claim holds before another member may fetch the picture itself. @default 30 s */
export const PICTURE_CLAIM_STALE_MS = 30_000;
/** Polls of a member waiting for another's picture: from 25 ms, doubling, at most 200 ms apart. */
const POLL_FIRST_MS = 25;
const POLL_MAX_MS = 200;

/**
 * Claim a picture url (one field of the run's `pictures` hash): answers the settled value, `wait` while a live claim
 * holds, or `mine` after writing this member's claim (`c|<ms>|<member>`, with Redis's own clock: no member clocks
 * are compared). A claim older than ARGV[3] ms is taken over: its member died or hangs.
 */
const CLAIM = new LuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local v = redis.call('HGET', KEYS[1], ARGV[1])
if v then
  if string.sub(v, 1, 2) ~= 'c|' then return v end
  local sep = string.find(v, '|', 3, true)
  local at = tonumber(string.sub(v, 3, sep - 1)) or 0
  if now - at < tonumber(ARGV[3]) then return 'wait' end
end
redis.call('HSET', KEYS[1], ARGV[1], 'c|' .. now .. '|' .. ARGV[2])
return 'mine'
`);

/** A settled field: `r|<row JSON>` (kept) or `-` (not kept). */
function settled(value: string): PictureClaim {
  if (value === '-') return { fetch: false, row: undefined };
  const row = parseObject(value.slice(2)) as ImageRow | undefined;
  return row && typeof row.id === 'string' && typeof row.path === 'string' ? { fetch: false, row } : { fetch: true };
}

/**
 * Pictures fetched once across a cluster run (seed 000: one url, fetched once — pictures included): the first member
 * whose page shows a picture claims its url in the run's hash `gf:<cluster>:run:<id>:pictures` and fetches it; it
 * then writes the row the picture became (or `-`: not kept). Every other member that meets the url waits for that
 * (polling, 25–200 ms) and links the row without a request; the picture's image row reaches its database through
 * the shared PostgreSQL or the record channel, like any row of the run. A claim left by a member that died is taken
 * over after {@link PICTURE_CLAIM_STALE_MS}. The hash expires with the run's keys (≈ 300 bytes a picture url).
 */
export class RedisPictureRegistry implements PictureRegistry {
  readonly #redis: Redis;
  readonly #key: string;
  readonly #member: string;
  readonly #staleMs: number;
  readonly #log: Logger;
  /** Pictures another member fetched, linked here. */
  linked = 0;

  constructor(redis: Redis, key: string, member: string, log: Logger, staleMs = PICTURE_CLAIM_STALE_MS) {
    this.#redis = redis;
    this.#key = key;
    this.#member = member;
    this.#staleMs = staleMs;
    this.#log = log;
  }

  async claim(url: string, signal?: AbortSignal): Promise<PictureClaim> {
    const field = sha256Hex(url);
    const deadline = Date.now() + this.#staleMs * 2;
    let wait = POLL_FIRST_MS;
    while (!signal?.aborted && Date.now() < deadline) {
      const answer = String(await CLAIM.run(this.#redis, [this.#key], [field, this.#member, this.#staleMs]));
      if (answer === 'mine') return { fetch: true };
      if (answer !== 'wait') {
        const claim = settled(answer);
        if (!claim.fetch) this.linked++;
        return claim;
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(POLL_MAX_MS, wait * 2);
    }
    this.#log.warn({ url }, 'no answer from the member fetching this picture; fetching it here');
    return { fetch: true };
  }

  async settle(url: string, row: ImageRow | undefined): Promise<void> {
    await this.#redis.hset(this.#key, sha256Hex(url), row ? `r|${JSON.stringify(row)}` : '-');
  }
}
