import type { ClassicLevel } from 'classic-level';
import { CrawlerError } from '../errors.js';
import { type LevelStoreLabel, levelError, openLevel, prefixEnd } from '../frontier/open-level.js';
import { KeyedLock } from './keyed-lock.js';
import { VersionBlooms, type VersionBloomsOptions } from './version-blooms.js';

/** Options of {@link LevelContentStore.open}: the Bloom filter of each version, sized as the url filter's. */
export type LevelContentStoreOptions = Pick<VersionBloomsOptions, 'expectedItems' | 'falsePositiveRate'>;

/** What the Bloom filters in front of the store saved since it was opened. */
export interface ContentBloomStats {
  /** Keys asked of the Bloom filters before a read of the store (a get, or a band's scan). */
  asked: number;
  /** Of them, answered "certainly absent": a read of the store saved. */
  skipped: number;
}

/**
 * The Bloom key of a stored key (its part after the version prefix): the fingerprint of an exact key `x:{sha256}`,
 * the band `b{n}:{16 bits}` of a simhash key `b{n}:{16 bits}:{simhash}` (a scan reads the whole band).
 */
export function contentBloomKey(rest: string): string | undefined {
  if (rest.startsWith('x:')) return rest.slice(2);
  if (rest.startsWith('b')) return rest.slice(0, rest.indexOf(':', 3));
  return undefined;
}

/**
 * The LevelDB of content fingerprints (`system/dedup/content/`), shared by both kinds of content dedup, with a Bloom
 * filter per catalog version in front of it (as the url filter has; rebuilt from the keys on a version's first use),
 * so a new text, the common case, is recorded without a read.
 */
export class LevelContentStore {
  readonly dir: string;
  readonly db: ClassicLevel<string, string>;
  readonly lock = new KeyedLock();
  readonly #label: LevelStoreLabel;
  readonly #blooms: VersionBlooms;
  readonly #stats: ContentBloomStats = { asked: 0, skipped: 0 };
  #closed = false;

  private constructor(
    dir: string,
    db: ClassicLevel<string, string>,
    label: LevelStoreLabel,
    options: LevelContentStoreOptions,
  ) {
    this.dir = dir;
    this.db = db;
    this.#label = label;
    this.#blooms = new VersionBlooms(db, dir, label, { ...options, bloomKey: contentBloomKey });
  }

  /**
   * Open (creating) the store at `dir`.
   * @throws CrawlerError CONFLICT when another process holds it, CORRUPT when it cannot be read.
   */
  static async open(dir: string, options: LevelContentStoreOptions = {}): Promise<LevelContentStore> {
    const label: LevelStoreLabel = {
      what: 'content dedup store',
      corruptFix: `delete ${dir} (working state) and crawl again; duplicates saved meanwhile are not detected`,
    };
    return new LevelContentStore(dir, await openLevel(dir, label), label, options);
  }

  /** Whether a Bloom key (see {@link contentBloomKey}) may be stored in the version: false means certainly not. */
  async mightHold(catalogId: string, version: number, bloomKey: string): Promise<boolean> {
    const might = await this.#blooms.mightHold(versionPrefix(catalogId, version), bloomKey);
    this.#stats.asked++;
    if (!might) this.#stats.skipped++;
    return might;
  }

  /** Note Bloom keys just written to the version. */
  added(catalogId: string, version: number, bloomKeys: Iterable<string>): void {
    this.#blooms.added(versionPrefix(catalogId, version), bloomKeys);
  }

  /** What the Bloom filters saved since the store was opened. */
  bloomStats(): ContentBloomStats {
    return { ...this.#stats };
  }

  /** Run a LevelDB step, mapping its failure to a CrawlerError. */
  async step<T>(doing: string, fn: () => Promise<T>): Promise<T> {
    this.check();
    try {
      return await fn();
    } catch (err) {
      throw err instanceof CrawlerError ? err : levelError(err, this.dir, this.#label, doing);
    }
  }

  check(): void {
    if (this.#closed) {
      throw new CrawlerError('STORAGE', `content dedup store at ${this.dir} is closed`, {
        fix: 'open it again with createContentDedup() before using it',
      });
    }
  }

  async clearVersion(catalogId: string, version: number): Promise<void> {
    const p = versionPrefix(catalogId, version);
    await this.step('clearing a version', () => this.db.clear({ gte: p, lt: prefixEnd(p) }));
    this.#blooms.drop(p);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#blooms.close();
    await this.db.close();
  }
}

export function versionPrefix(catalogId: string, version: number): string {
  return `${catalogId}:${version}:`;
}

/** Whitespace-normalised text: runs of white space become one space, ends trimmed. */
export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
