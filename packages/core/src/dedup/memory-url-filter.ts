import { CrawlerError } from '../errors.js';
import type { ExistingUrlPathFilter } from './url-filter.js';

/** ExistingUrlPathFilter held in memory (one Set per catalog version), for library users and tests. */
export class MemoryUrlFilter implements ExistingUrlPathFilter {
  readonly #versions = new Map<string, Set<string>>();
  #closed = false;

  async has(catalogId: string, version: number, urlHash: string): Promise<boolean> {
    this.#check();
    return this.#versions.get(`${catalogId}:${version}`)?.has(urlHash) ?? false;
  }

  async mark(catalogId: string, version: number, urlHash: string): Promise<void> {
    await this.markAll(catalogId, version, [urlHash]);
  }

  async markAll(catalogId: string, version: number, urlHashes: string[]): Promise<void> {
    this.#check();
    const key = `${catalogId}:${version}`;
    let set = this.#versions.get(key);
    if (!set) {
      set = new Set();
      this.#versions.set(key, set);
    }
    for (const h of urlHashes) set.add(h);
  }

  async forgetAll(catalogId: string, version: number, urlHashes: string[]): Promise<void> {
    this.#check();
    const set = this.#versions.get(`${catalogId}:${version}`);
    for (const h of urlHashes) set?.delete(h);
  }

  async clearVersion(catalogId: string, version: number): Promise<void> {
    this.#check();
    this.#versions.delete(`${catalogId}:${version}`);
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #check(): void {
    if (this.#closed) throw new CrawlerError('STORAGE', 'memory url filter is closed', { fix: 'create a new one' });
  }
}
