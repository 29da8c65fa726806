import type { ClassicLevel } from 'classic-level';
import { ConfigError, CrawlerError } from '../errors.js';
import { type LevelStoreLabel, levelError, openLevel, prefixEnd } from '../frontier/open-level.js';
import type { ExistingUrlPathFilter } from './url-filter.js';
import { VersionBlooms } from './version-blooms.js';

/** Options of {@link LevelUrlFilter.open}. */
export interface LevelUrlFilterOptions {
  /** Urls per catalog version the Bloom filter is sized for; it is rebuilt larger when passed. @default 1_000_000 */
  expectedItems?: number;
  /** False-positive rate of the Bloom filter. @default 0.01 */
  falsePositiveRate?: number;
  /** Keys read per batch while rebuilding a Bloom filter from LevelDB. @default 4096 */
  rebuildChunk?: number;
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
  readonly #blooms: VersionBlooms;
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
    this.#blooms = new VersionBlooms(db, dir, label, options);
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
    if (!(await this.#blooms.mightHold(prefix(catalogId, version), urlHash))) return false;
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
    this.#blooms.added(p, urlHashes);
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
    this.#blooms.drop(p);
  }

  /** The Bloom filter of one version (loading it when needed). */
  async stats(catalogId: string, version: number): Promise<UrlFilterStats> {
    this.#check();
    const { bloom, added } = await this.#blooms.of(prefix(catalogId, version));
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
    await this.#blooms.close();
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
}

function prefix(catalogId: string, version: number): string {
  return `${catalogId}:${version}:`;
}
