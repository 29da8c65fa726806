import type { ClassicLevel } from 'classic-level';
import { CrawlerError } from '../errors.js';
import { type LevelStoreLabel, levelError, openLevel, prefixEnd } from '../frontier/open-level.js';
import { KeyedLock } from './keyed-lock.js';

/** The LevelDB of content fingerprints (`system/dedup/content/`), shared by both kinds of content dedup. */
export class LevelContentStore {
  readonly dir: string;
  readonly db: ClassicLevel<string, string>;
  readonly lock = new KeyedLock();
  readonly #label: LevelStoreLabel;
  #closed = false;

  private constructor(dir: string, db: ClassicLevel<string, string>, label: LevelStoreLabel) {
    this.dir = dir;
    this.db = db;
    this.#label = label;
  }

  /**
   * Open (creating) the store at `dir`.
   * @throws CrawlerError CONFLICT when another process holds it, CORRUPT when it cannot be read.
   */
  static async open(dir: string): Promise<LevelContentStore> {
    const label: LevelStoreLabel = {
      what: 'content dedup store',
      corruptFix: `delete ${dir} (working state) and crawl again; duplicates saved meanwhile are not detected`,
    };
    return new LevelContentStore(dir, await openLevel(dir, label), label);
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
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
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
