import type { ClassicLevel } from 'classic-level';
import { type LevelStoreLabel, levelError, prefixEnd } from '../frontier/open-level.js';
import { BloomFilter } from './bloom-filter.js';

/** Options of {@link VersionBlooms}. */
export interface VersionBloomsOptions {
  /** Keys per catalog version a Bloom filter is sized for; it is rebuilt twice as large when passed. @default 1_000_000 */
  expectedItems?: number | undefined;
  /** False-positive rate of each Bloom filter. @default 0.01 */
  falsePositiveRate?: number | undefined;
  /** Keys read per batch while rebuilding a Bloom filter from LevelDB. @default 4096 */
  rebuildChunk?: number | undefined;
  /** The Bloom key of a stored key (its part after the version prefix); undefined leaves the key out. @default itself */
  bloomKey?: ((rest: string) => string | undefined) | undefined;
}

/** The Bloom filter of one catalog version. */
export interface VersionBloom {
  bloom: BloomFilter;
  ready: Promise<void>;
  /** Keys added (loaded and marked), to know when to resize. */
  added: number;
}

/**
 * One Bloom filter per catalog version in front of a LevelDB whose keys start with `{catalogId}:{version}:`, so a
 * negative answer never touches LevelDB (the url filter's and the content store's). Nothing of it is written: a
 * version's filter is rebuilt lazily on its first use by iterating that version's keys, and rebuilt twice as large
 * once it holds more keys than it was sized for. A key the LevelDB forgets stays in the filter (a Bloom filter
 * cannot forget), which only costs a read.
 */
export class VersionBlooms {
  readonly #db: ClassicLevel<string, string>;
  readonly #dir: string;
  readonly #label: LevelStoreLabel;
  readonly #expected: number;
  readonly #fpRate: number;
  readonly #chunk: number;
  readonly #bloomKey: (rest: string) => string | undefined;
  readonly #blooms = new Map<string, VersionBloom>();

  constructor(
    db: ClassicLevel<string, string>,
    dir: string,
    label: LevelStoreLabel,
    options: VersionBloomsOptions = {},
  ) {
    this.#db = db;
    this.#dir = dir;
    this.#label = label;
    this.#expected = Math.max(1, options.expectedItems ?? 1_000_000);
    this.#fpRate = options.falsePositiveRate ?? 0.01;
    this.#chunk = Math.max(1, options.rebuildChunk ?? 4096);
    this.#bloomKey = options.bloomKey ?? ((rest) => rest);
  }

  /** The Bloom filter of a version prefix, loaded (or resized) when needed. */
  async of(prefix: string): Promise<VersionBloom> {
    let state = this.#blooms.get(prefix);
    if (!state || state.added > state.bloom.expectedItems) {
      state = this.#load(prefix, state ? state.added * 2 : this.#expected);
      this.#blooms.set(prefix, state);
    }
    await state.ready;
    return state;
  }

  /** Whether a Bloom key might be stored under the prefix: false means certainly not. */
  async mightHold(prefix: string, key: string): Promise<boolean> {
    return (await this.of(prefix)).bloom.mightContain(key);
  }

  /** Note Bloom keys just written under the prefix (a filter not loaded yet reads them from LevelDB when it loads). */
  added(prefix: string, keys: Iterable<string>): void {
    const state = this.#blooms.get(prefix);
    if (!state) return;
    for (const key of keys) {
      if (state.bloom.mightContain(key)) continue;
      state.bloom.add(key);
      state.added++;
    }
  }

  /** Forget the filter of a prefix (its keys were cleared). */
  drop(prefix: string): void {
    this.#blooms.delete(prefix);
  }

  /** Wait for the loads under way, then forget every filter (before the LevelDB closes). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#blooms.values()].map((s) => s.ready));
    this.#blooms.clear();
  }

  /** A Bloom filter for one version, registered before its keys are read so concurrent writes reach it. */
  #load(p: string, expectedItems: number): VersionBloom {
    const state: VersionBloom = {
      bloom: new BloomFilter({ expectedItems, falsePositiveRate: this.#fpRate }),
      ready: Promise.resolve(),
      added: 0,
    };
    state.ready = (async () => {
      const it = this.#db.keys({ gte: p, lt: prefixEnd(p) });
      try {
        for (;;) {
          const keys = await it.nextv(this.#chunk);
          if (keys.length === 0) break;
          for (const key of keys) {
            const bloomKey = this.#bloomKey(key.slice(p.length));
            if (bloomKey === undefined) continue;
            state.bloom.add(bloomKey);
            state.added++;
          }
        }
      } finally {
        await it.close();
      }
    })().catch((err: unknown) => {
      if (this.#blooms.get(p) === state) this.#blooms.delete(p);
      throw levelError(err, this.#dir, this.#label, 'loading the Bloom filter');
    });
    return state;
  }
}
