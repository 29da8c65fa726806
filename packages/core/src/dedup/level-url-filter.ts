import type { ClassicLevel } from 'classic-level';
import { ConfigError, CrawlerError } from '../errors.js';
import { type LevelStoreLabel, levelError, openLevel, prefixEnd } from '../frontier/open-level.js';
import { BloomFilter } from './bloom-filter.js';
import type { ExistingUrlPathFilter } from './url-filter.js';

/** Options of {@link LevelUrlFilter.open}. */
export interface LevelUrlFilterOptions {
  /** Urls per catalog version the Bloom filter is sized for; it is rebuilt larger when passed. @default 1_000_000 */
  expectedItems?: number;
  /** False-positive rate of the Bloom filter. @default 0.01 */
  falsePositiveRate?: number;
  /** Keys read per batch while rebuilding a Bloom filter from LevelDB. @default 4096 */
  rebuildChunk?: number;
}

interface VersionBloom {
  bloom: BloomFilter;
  ready: Promise<void>;
  /** Keys added (loaded and marked), to know when to resize. */
  added: number;
}

/** Bloom filter state of one catalog version, for diagnostics. */
export interface UrlFilterStats {
  items: number;
  bits: number;
  hashes: number;
  fill: number;
  configuredFalsePositiveRate: number;
  estimatedFalsePositiveRate: number;
}

/**
 * ExistingUrlPathFilter on one LevelDB (`system/dedup/url/`), keys `{catalogId}:{version}:{urlHash}`,
 * with a Bloom filter per catalog version in front so that a negative answer never touches LevelDB.
 * A version's Bloom filter is rebuilt lazily on its first use by iterating that version's keys.
 */
export class LevelUrlFilter implements ExistingUrlPathFilter {
  readonly dir: string;
  readonly #db: ClassicLevel<string, string>;
  readonly #label: LevelStoreLabel;
  readonly #expected: number;
  readonly #fpRate: number;
  readonly #chunk: number;
  readonly #blooms = new Map<string, VersionBloom>();
  #closed = false;

  private constructor(
    dir: string,
    db: ClassicLevel<string, string>,
    label: LevelStoreLabel,
    options: LevelUrlFilterOptions,
  ) {
    this.dir = dir;
    this.#db = db;
    this.#label = label;
    this.#expected = Math.max(1, options.expectedItems ?? 1_000_000);
    this.#fpRate = options.falsePositiveRate ?? 0.01;
    this.#chunk = Math.max(1, options.rebuildChunk ?? 4096);
  }

  /**
   * Open (creating) the url filter at `dir` (`DataLayout.urlDedupDir`).
   * @throws CrawlerError CONFLICT when another process holds it, CORRUPT when it cannot be read.
   */
  static async open(dir: string, options: LevelUrlFilterOptions = {}): Promise<LevelUrlFilter> {
    const label: LevelStoreLabel = {
      what: 'url dedup store',
      corruptFix: `delete ${dir} (working state) and crawl again; a resume would fetch the version's pages again`,
    };
    const fp = options.falsePositiveRate ?? 0.01;
    if (!(fp > 0 && fp < 1)) {
      throw new ConfigError('falsePositiveRate', `must be between 0 and 1 exclusive, got ${fp}`, 'use e.g. 0.01');
    }
    const db = await openLevel(dir, label);
    return new LevelUrlFilter(dir, db, label, options);
  }

  async has(catalogId: string, version: number, urlHash: string): Promise<boolean> {
    this.#check();
    const state = await this.#bloomOf(catalogId, version);
    if (!state.bloom.mightContain(urlHash)) return false;
    try {
      return await this.#db.has(`${prefix(catalogId, version)}${urlHash}`);
    } catch (err) {
      throw levelError(err, this.dir, this.#label, 'reading');
    }
  }

  async mark(catalogId: string, version: number, urlHash: string): Promise<void> {
    await this.markAll(catalogId, version, [urlHash]);
  }

  async markAll(catalogId: string, version: number, urlHashes: string[]): Promise<void> {
    this.#check();
    if (urlHashes.length === 0) return;
    const p = prefix(catalogId, version);
    try {
      await this.#db.batch(urlHashes.map((h) => ({ type: 'put' as const, key: `${p}${h}`, value: '' })));
    } catch (err) {
      throw levelError(err, this.dir, this.#label, 'writing');
    }
    const state = this.#blooms.get(p);
    if (state) {
      for (const h of urlHashes) {
        if (state.bloom.mightContain(h)) continue;
        state.bloom.add(h);
        state.added++;
      }
    }
  }

  /** The keys go; the Bloom filter cannot forget, so `has` reads LevelDB for them (and answers false). */
  async forgetAll(catalogId: string, version: number, urlHashes: string[]): Promise<void> {
    this.#check();
    if (urlHashes.length === 0) return;
    const p = prefix(catalogId, version);
    try {
      await this.#db.batch(urlHashes.map((h) => ({ type: 'del' as const, key: `${p}${h}` })));
    } catch (err) {
      throw levelError(err, this.dir, this.#label, 'writing');
    }
  }

  async clearVersion(catalogId: string, version: number): Promise<void> {
    this.#check();
    const p = prefix(catalogId, version);
    try {
      await this.#db.clear({ gte: p, lt: prefixEnd(p) });
    } catch (err) {
      throw levelError(err, this.dir, this.#label, 'clearing a version');
    }
    this.#blooms.delete(p);
  }

  /** The Bloom filter of one version (loading it when needed). */
  async stats(catalogId: string, version: number): Promise<UrlFilterStats> {
    this.#check();
    const { bloom, added } = await this.#bloomOf(catalogId, version);
    return {
      items: added,
      bits: bloom.bits,
      hashes: bloom.hashes,
      fill: bloom.fill,
      configuredFalsePositiveRate: bloom.configuredFalsePositiveRate,
      estimatedFalsePositiveRate: bloom.estimatedFalsePositiveRate,
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([...this.#blooms.values()].map((s) => s.ready));
    this.#blooms.clear();
    await this.#db.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #check(): void {
    if (this.#closed) {
      throw new CrawlerError('STORAGE', `url dedup store at ${this.dir} is closed`, {
        fix: 'open it again with LevelUrlFilter.open() before using it',
      });
    }
  }

  async #bloomOf(catalogId: string, version: number): Promise<VersionBloom> {
    const p = prefix(catalogId, version);
    let state = this.#blooms.get(p);
    if (!state || state.added > state.bloom.expectedItems) {
      state = this.#load(p, state ? state.added * 2 : this.#expected);
      this.#blooms.set(p, state);
    }
    await state.ready;
    return state;
  }

  /** A Bloom filter for one version, registered before its keys are read so concurrent marks reach it. */
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
          for (const key of keys) state.bloom.add(key.slice(p.length));
          state.added += keys.length;
        }
      } finally {
        await it.close();
      }
    })().catch((err: unknown) => {
      if (this.#blooms.get(p) === state) this.#blooms.delete(p);
      throw levelError(err, this.dir, this.#label, 'loading the Bloom filter');
    });
    return state;
  }
}

function prefix(catalogId: string, version: number): string {
  return `${catalogId}:${version}:`;
}
