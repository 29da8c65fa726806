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
  /**
   * The embedding provider and model when not the local one (`openai-bge-small`, vectorSpace()): `open` then writes
   * `<collection>_<space>_<dims>`, so vectors of another model never share a collection; erase, purge and stats still
   * cover the collections of every provider.
   */
  space?: string | undefined;
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
  /** By directory name (`<collection>[_<space>]_<dims>`). */
  readonly #stores = new Map<string, SqliteVecStore>();
  #closed = false;

  constructor(options: SqliteVecFamilyOptions) {
    this.#options = { ...options };
  }

  open(dims: number): SqliteVecStore {
    const { collection, space } = this.#options;
    return this.#open(space ? `${collection}_${space}` : collection, dims);
  }

  #open(collection: string, dims: number): SqliteVecStore {
    if (this.#closed) {
      throw new CrawlerError('STORAGE', `the vector store family ${this.#options.collection} is closed`, {
        fix: 'open a new SqliteVecFamily',
      });
    }
    let store = this.#stores.get(`${collection}_${dims}`);
    if (!store) {
      const { root, annMinPoints } = this.#options;
      store = new SqliteVecStore({ root, collection, dims, annMinPoints });
      this.#stores.set(`${collection}_${dims}`, store);
    }
    return store;
  }

  /**
   * The collections on disk (and those opened since) of every width and every embedding provider, smallest width
   * first, the local provider's before the others'.
   */
  async collections(): Promise<SqliteVecStore[]> {
    const { root, collection } = this.#options;
    const found = new Map<string, { collection: string; dims: number }>();
    for (const store of this.#stores.values()) {
      found.set(`${store.collection}_${store.dims}`, { collection: store.collection, dims: store.dims });
    }
    let names: string[] = [];
    try {
      names = readdirSync(root);
    } catch {
      // nothing written yet
    }
    const shape = new RegExp(`^(${collection.replace(/[-]/g, '\\-')}(?:_[a-z0-9-]+)?)_(\\d+)$`);
    for (const name of names) {
      const m = shape.exec(name);
      if (m && existsSync(join(root, name, 'vectors.db'))) {
        found.set(name, { collection: m[1] as string, dims: Number(m[2]) });
      }
    }
    return [...found.values()]
      .sort(
        (a, b) =>
          a.dims - b.dims || a.collection.length - b.collection.length || a.collection.localeCompare(b.collection),
      )
      .map((c) => this.#open(c.collection, c.dims));
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
