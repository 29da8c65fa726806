import { sha256Hex } from '../ids.js';
import { LevelContentStore, normalizeWhitespace, versionPrefix } from './level-content-store.js';
import type { ContentDedupFilter } from './url-filter.js';

/**
 * Exact content dedup: the fingerprint is the sha256 of the whitespace-normalised text,
 * stored as `{catalogId}:{version}:x:{sha256}` → resource id.
 */
export class Sha256ContentDedup implements ContentDedupFilter {
  readonly kind = 'sha256' as const;
  readonly #store: LevelContentStore;

  constructor(store: LevelContentStore) {
    this.#store = store;
  }

  /** Open (creating) the store at `dir` (`DataLayout.contentDedupDir`). */
  static async open(dir: string): Promise<Sha256ContentDedup> {
    return new Sha256ContentDedup(await LevelContentStore.open(dir));
  }

  fingerprint(text: string): string {
    return sha256Hex(normalizeWhitespace(text));
  }

  /** A text recorded again under the same resource id counts as new (replays stay idempotent). */
  async checkAndRecord(
    catalogId: string,
    version: number,
    text: string,
    resourceId: string,
  ): Promise<string | undefined> {
    return recordExact(this.#store, catalogId, version, this.fingerprint(text), resourceId);
  }

  check(catalogId: string, version: number, text: string): Promise<string | undefined> {
    return lookupExact(this.#store, catalogId, version, this.fingerprint(text));
  }

  async forget(catalogId: string, version: number, text: string): Promise<void> {
    await forgetExact(this.#store, catalogId, version, this.fingerprint(text));
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

/** Check-and-record an exact fingerprint under a per-key lock; the Bloom filter spares the read of a new one. */
export async function recordExact(
  store: LevelContentStore,
  catalogId: string,
  version: number,
  fingerprint: string,
  resourceId: string,
): Promise<string | undefined> {
  store.check();
  const key = `${versionPrefix(catalogId, version)}x:${fingerprint}`;
  return store.lock.run([key], () =>
    store.step('recording a fingerprint', async () => {
      if (await store.mightHold(catalogId, version, fingerprint)) {
        const existing = await store.db.get(key);
        if (existing !== undefined) return existing === resourceId ? undefined : existing;
      }
      await store.db.put(key, resourceId);
      store.added(catalogId, version, [fingerprint]);
      return undefined;
    }),
  );
}

/** The resource holding an exact fingerprint, read without a lock and without recording anything. */
export async function lookupExact(
  store: LevelContentStore,
  catalogId: string,
  version: number,
  fingerprint: string,
): Promise<string | undefined> {
  store.check();
  if (!(await store.mightHold(catalogId, version, fingerprint))) return undefined;
  return store.step(
    'looking a fingerprint up',
    async () => (await store.db.get(`${versionPrefix(catalogId, version)}x:${fingerprint}`)) ?? undefined,
  );
}

export async function forgetExact(
  store: LevelContentStore,
  catalogId: string,
  version: number,
  fingerprint: string,
): Promise<void> {
  store.check();
  const key = `${versionPrefix(catalogId, version)}x:${fingerprint}`;
  await store.lock.run([key], () => store.step('forgetting a fingerprint', () => store.db.del(key)));
}
