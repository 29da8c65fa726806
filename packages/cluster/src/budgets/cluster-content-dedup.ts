import type { ContentDedupFilter } from '@greenfinger/core';
import type { Redis } from 'ioredis';
import type { ClusterKeys } from '../plumbing/keys.js';
import { LuaScript } from '../plumbing/lua-script.js';

/** Record `fp → resourceId` unless held by another resource; returns the holder, or '' when recorded (or ours). */
const RECORD = new LuaScript(`
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur and cur ~= ARGV[2] then return cur end
if not cur then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
return ''`);

/** How long a version's fingerprints stay after its last write. @default 7 days */
export const CONTENT_TTL_SECONDS = 7 * 24 * 3600;

/**
 * Content dedup shared by the members (seed 000 replicates the dedup store between per-node RocksDBs; here it is one
 * shared store instead): exact fingerprints (sha256, and simhash's exact path for short texts) are checked and
 * recorded in one Redis hash per catalog version, `gf:<cluster>:content:<catalogId>:<version>` (~120 bytes a saved
 * page, expiring a week after the version's last write), so two members never both save the same text. The member's
 * own filter still records everything, and decides simhash near-duplicates alone: near-duplicates found by two
 * different members are both saved (docs/cluster.md).
 */
export class ClusterContentDedup implements ContentDedupFilter {
  readonly kind: ContentDedupFilter['kind'];
  readonly #local: ContentDedupFilter;
  readonly #redis: Redis;
  readonly #keys: ClusterKeys;

  constructor(local: ContentDedupFilter, redis: Redis, keys: ClusterKeys) {
    this.#local = local;
    this.kind = local.kind;
    this.#redis = redis;
    this.#keys = keys;
  }

  fingerprint(text: string): string {
    return this.#local.fingerprint(text);
  }

  async checkAndRecord(
    catalogId: string,
    version: number,
    text: string,
    resourceId: string,
  ): Promise<string | undefined> {
    const fp = this.#local.fingerprint(text);
    if (fp.length === 64) {
      const holder = String(
        await RECORD.run(this.#redis, [this.#key(catalogId, version)], [fp, resourceId, CONTENT_TTL_SECONDS]),
      );
      if (holder) return holder;
    }
    return this.#local.checkAndRecord(catalogId, version, text, resourceId);
  }

  async check(catalogId: string, version: number, text: string): Promise<string | undefined> {
    const fp = this.#local.fingerprint(text);
    if (fp.length === 64) {
      const holder = await this.#redis.hget(this.#key(catalogId, version), fp);
      if (holder) return holder;
    }
    return this.#local.check(catalogId, version, text);
  }

  async forget(catalogId: string, version: number, text: string): Promise<void> {
    const fp = this.#local.fingerprint(text);
    if (fp.length === 64) await this.#redis.hdel(this.#key(catalogId, version), fp);
    await this.#local.forget(catalogId, version, text);
  }

  async clearVersion(catalogId: string, version: number): Promise<void> {
    await this.#redis.del(this.#key(catalogId, version));
    await this.#local.clearVersion(catalogId, version);
  }

  close(): Promise<void> {
    return this.#local.close();
  }

  #key(catalogId: string, version: number): string {
    return `${this.#keys.prefix}content:${catalogId}:${version}`;
  }
}
