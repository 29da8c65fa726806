import { ConfigError } from '../errors.js';
import { prefixEnd } from '../frontier/open-level.js';
import { sha256Hex } from '../ids.js';
import { LevelContentStore, normalizeWhitespace, versionPrefix } from './level-content-store.js';
import { forgetExact, lookupExact, recordExact } from './sha256-content-dedup.js';
import { hammingDistance, simhash64 } from './simhash.js';
import type { ContentDedupFilter } from './url-filter.js';

/** Options of {@link SimhashContentDedup}. */
export interface SimhashContentDedupOptions {
  /** Largest Hamming distance counted as the same content, 0..3. @default 3 */
  maxDistance?: number;
  /** Normalised texts shorter than this fall back to exact sha256. @default 200 */
  minLength?: number;
}

const BANDS = 4;
const HAS_WORD = /[\p{L}\p{N}]/u;

/**
 * Near-duplicate content dedup: a 64-bit simhash over word 3-shingles. Up to 3 differing bits are found
 * with the pigeonhole trick: the hash is split into 4 bands of 16 bits, one of which must match exactly,
 * stored as `{catalogId}:{version}:b{band}:{bandBits}:{fullHash}` → resource id.
 * Short texts (and texts without words) use the exact sha256 path instead.
 */
export class SimhashContentDedup implements ContentDedupFilter {
  readonly kind = 'simhash' as const;
  readonly maxDistance: number;
  readonly minLength: number;
  readonly #store: LevelContentStore;

  constructor(store: LevelContentStore, options: SimhashContentDedupOptions = {}) {
    this.maxDistance = checkDistance(options.maxDistance ?? 3);
    this.minLength = Math.max(0, options.minLength ?? 200);
    this.#store = store;
  }

  /** Open (creating) the store at `dir` (`DataLayout.contentDedupDir`). */
  static async open(dir: string, options: SimhashContentDedupOptions = {}): Promise<SimhashContentDedup> {
    checkDistance(options.maxDistance ?? 3);
    return new SimhashContentDedup(await LevelContentStore.open(dir), options);
  }

  /** 16 hex characters (simhash), or 64 (sha256) for a short text. */
  fingerprint(text: string): string {
    const normalized = normalizeWhitespace(text);
    if (normalized.length < this.minLength || !HAS_WORD.test(normalized)) return sha256Hex(normalized);
    return simhash64(normalized);
  }

  /** A text recorded again under the same resource id counts as new (replays stay idempotent). */
  async checkAndRecord(
    catalogId: string,
    version: number,
    text: string,
    resourceId: string,
  ): Promise<string | undefined> {
    const store = this.#store;
    const fp = this.fingerprint(text);
    if (fp.length !== 16) return recordExact(store, catalogId, version, fp, resourceId);
    store.check();
    const bands = bandPrefixes(catalogId, version, fp);
    return store.lock.run(bands, () =>
      store.step('recording a fingerprint', async () => {
        let own = false;
        const bandKeys = bands.map((band) => band.slice(versionPrefix(catalogId, version).length, -1));
        for (const [i, band] of bands.entries()) {
          // A band no text of the version fell in holds nothing near: no scan.
          if (!(await store.mightHold(catalogId, version, bandKeys[i] as string))) continue;
          for await (const [key, holder] of store.db.iterator({ gte: band, lt: prefixEnd(band) })) {
            if (hammingDistance(key.slice(band.length), fp) > this.maxDistance) continue;
            if (holder !== resourceId) return holder;
            if (key.endsWith(fp)) own = true;
          }
        }
        if (!own) {
          await store.db.batch(bands.map((band) => ({ type: 'put' as const, key: band + fp, value: resourceId })));
          store.added(catalogId, version, bandKeys);
        }
        return undefined;
      }),
    );
  }

  /** The first holder within the distance, recording nothing. */
  async check(catalogId: string, version: number, text: string): Promise<string | undefined> {
    const store = this.#store;
    const fp = this.fingerprint(text);
    if (fp.length !== 16) return lookupExact(store, catalogId, version, fp);
    store.check();
    const bands = bandPrefixes(catalogId, version, fp);
    const bandKeys = bands.map((band) => band.slice(versionPrefix(catalogId, version).length, -1));
    return store.step('looking a fingerprint up', async () => {
      for (const [i, band] of bands.entries()) {
        if (!(await store.mightHold(catalogId, version, bandKeys[i] as string))) continue;
        for await (const [key, holder] of store.db.iterator({ gte: band, lt: prefixEnd(band) })) {
          if (hammingDistance(key.slice(band.length), fp) <= this.maxDistance) return holder;
        }
      }
      return undefined;
    });
  }

  async forget(catalogId: string, version: number, text: string): Promise<void> {
    const store = this.#store;
    const fp = this.fingerprint(text);
    if (fp.length !== 16) return forgetExact(store, catalogId, version, fp);
    store.check();
    const bands = bandPrefixes(catalogId, version, fp);
    await store.lock.run(bands, () =>
      store.step('forgetting a fingerprint', () =>
        store.db.batch(bands.map((band) => ({ type: 'del' as const, key: band + fp }))),
      ),
    );
  }

  async clearVersion(catalogId: string, version: number): Promise<void> {
    await this.#store.clearVersion(catalogId, version);
  }

  async close(): Promise<void> {
    await this.#store.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function checkDistance(maxDistance: number): number {
  if (!Number.isInteger(maxDistance) || maxDistance < 0 || maxDistance > 3) {
    throw new ConfigError(
      'simhashDistance',
      `must be an integer from 0 to 3, got ${maxDistance}`,
      'set GF_SIMHASH_DISTANCE to 0..3 (4 bands of 16 bits find at most 3 differing bits)',
    );
  }
  return maxDistance;
}

/** `{catalogId}:{version}:b{band}:{16 bits as 4 hex}:` for each band. */
function bandPrefixes(catalogId: string, version: number, fp: string): string[] {
  const p = versionPrefix(catalogId, version);
  return Array.from({ length: BANDS }, (_, b) => `${p}b${b}:${fp.slice(4 * b, 4 * b + 4)}:`);
}
