import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CrawlerError } from '../errors.js';
import { checkSqliteFile } from '../storage/sqlite-check.js';
import { SqliteVecStore } from './sqlite-vec-store.js';
import type { VectorStats, VectorStoreFamily } from './vector-store.js';

export interface SqliteVecFamilyOptions {
  /** The `user/vector` directory: each width's collection is `<root>/<collection>_<dims>/vectors.db`. */
  root: string;
  /** GF_VECTOR_COLLECTION, e.g. `greenfinger_text`. */
  collection: string;
  /** SqliteVecStoreOptions.annMinPoints of every collection (GF_VECTOR_ANN_MIN). */
  annMinPoints?: number | undefined;
}

/**
 * The embedded vector store family: one SqliteVecStore per embedding width under `root`, found by their directory
 * names (`<collection>_<dims>` holding a `vectors.db`), each opened once and kept until close.
 */
export class SqliteVecFamily implements VectorStoreFamily {
  readonly name = 'sqlite-vec';
  readonly #options: SqliteVecFamilyOptions;
  readonly #stores = new Map<number, SqliteVecStore>();
  #closed = false;

  constructor(options: SqliteVecFamilyOptions) {
    this.#options = { ...options };
  }

  open(dims: number): SqliteVecStore {
    if (this.#closed) {
      throw new CrawlerError('STORAGE', `the vector store family ${this.#options.collection} is closed`, {
        fix: 'open a new SqliteVecFamily',
      });
    }
    let store = this.#stores.get(dims);
    if (!store) {
      const { root, collection, annMinPoints } = this.#options;
      store = new SqliteVecStore({ root, collection, dims, annMinPoints });
      this.#stores.set(dims, store);
    }
    return store;
  }

  /** The widths with a store on disk (and those opened since), smallest first. */
  async collections(): Promise<SqliteVecStore[]> {
    const { root, collection } = this.#options;
    const widths = new Set(this.#stores.keys());
    let names: string[] = [];
    try {
      names = readdirSync(root);
    } catch {
      // nothing written yet
    }
    const lead = `${collection}_`;
    for (const name of names) {
      const dims = name.slice(lead.length);
      if (name.startsWith(lead) && /^\d+$/.test(dims) && existsSync(join(root, name, 'vectors.db'))) {
        widths.add(Number(dims));
      }
    }
    return [...widths].sort((a, b) => a - b).map((dims) => this.open(dims));
  }

  async verify(catalogId: string): Promise<void> {
    const { root, collection } = this.#options;
    const lead = `${collection}_`;
    const names = existsSync(root) ? readdirSync(root).filter((n) => n.startsWith(lead)) : [];
    for (const name of names) {
      checkSqliteFile(
        join(root, name, 'vectors.db'),
        'the vector store',
        `delete ${join(root, name)}, then rebuild it from the stored pages: greenfinger replay --id ${catalogId} --layers vector`,
      );
    }
  }

  async deleteVersion(catalogId: string, version: number, dryRun: boolean): Promise<number> {
    let n = 0;
    for (const store of await this.collections()) {
      n += dryRun ? await store.countVersion(catalogId, version) : await store.deleteVersion(catalogId, version);
    }
    return n;
  }

  async deleteResource(catalogId: string, version: number, resourceId: string, dryRun: boolean): Promise<number> {
    let n = 0;
    for (const store of await this.collections()) {
      n += dryRun
        ? await store.countResource(catalogId, version, resourceId)
        : await store.deleteResource(catalogId, version, resourceId);
    }
    return n;
  }

  async purge(catalogId: string): Promise<number> {
    let n = 0;
    for (const store of await this.collections()) n += await store.purge(catalogId);
    return n;
  }

  async stats(): Promise<VectorStats> {
    const collections = [];
    for (const store of await this.collections()) collections.push(await store.stats());
    return { name: this.name, collections, bytes: collections.reduce((a, c) => a + (c.bytes ?? 0), 0) };
  }

  /** Closes every store it opened (each saves its changed approximate indexes); the first failure is thrown. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    let failure: unknown;
    for (const store of this.#stores.values()) {
      try {
        await store.close();
      } catch (err) {
        failure ??= err;
      }
    }
    this.#stores.clear();
    if (failure) throw failure;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
