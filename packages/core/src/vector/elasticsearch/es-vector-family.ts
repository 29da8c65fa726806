import type { Client } from '@elastic/elasticsearch';
import { CrawlerError } from '../../errors.js';
import { type EsBulkOptions, Refresher } from '../../index/elasticsearch/es-bulk.js';
import { checkEs, type EsConnectionOptions, esCall, esClient } from '../../index/elasticsearch/es-client.js';
import type { VectorStats, VectorStoreFamily } from '../vector-store.js';
import { parseVectorIndex } from './es-vector-requests.js';
import { EsVectorStore } from './es-vector-store.js';

export interface EsVectorFamilyOptions extends EsConnectionOptions {
  /** GF_VECTOR_COLLECTION, e.g. `greenfinger_text`: each width's index is `<collection>[_<space>]_<dims>`. */
  collection: string;
  /** The embedding provider and model when not the local one (vectorSpace()), as SqliteVecFamilyOptions.space. */
  space?: string | undefined;
  bulk?: EsBulkOptions | undefined;
}

/**
 * Vectors on Elasticsearch (`dense_vector`, cosine): one index per collection and width, found by name, so a
 * version written by an older model (another width) is still erased and purged. Every member of a cluster talks
 * to the same server: nothing is replicated.
 */
export class EsVectorFamily implements VectorStoreFamily {
  readonly name = 'elasticsearch';
  readonly url: string;
  readonly #options: EsVectorFamilyOptions;
  readonly #client: Client;
  readonly #refresher: Refresher;
  readonly #stores = new Map<string, EsVectorStore>();
  #closed = false;

  constructor(options: EsVectorFamilyOptions) {
    this.#options = { ...options };
    this.url = options.url;
    this.#client = esClient(options);
    this.#refresher = new Refresher(this.#client, this.url);
  }

  /** @throws ConfigError GF_ES_URL when nothing answers there (a short deadline) */
  check(): Promise<void> {
    return checkEs(this.#options);
  }

  open(dims: number): EsVectorStore {
    const { collection, space } = this.#options;
    return this.#open(space ? `${collection}_${space}` : collection, dims);
  }

  #open(collection: string, dims: number): EsVectorStore {
    if (this.#closed) {
      throw new CrawlerError(
        'STORAGE',
        `the vector store family ${this.#options.collection} on ${this.url} is closed`,
        {
          fix: 'open a new EsVectorFamily',
        },
      );
    }
    const key = `${collection}_${dims}`;
    let store = this.#stores.get(key);
    if (!store) {
      const ctx = { client: this.#client, refresher: this.#refresher, url: this.url, bulk: this.#options.bulk };
      store = new EsVectorStore(ctx, collection, dims);
      this.#stores.set(key, store);
    }
    return store;
  }

  /** The collections on the server (and those opened since) of every width and provider, smallest width first. */
  async collections(): Promise<EsVectorStore[]> {
    const { collection } = this.#options;
    const rows = (await esCall(this.url, `list the indices ${collection}_*`, () =>
      this.#client.cat.indices({ index: `${collection}_*`, format: 'json' }),
    )) as Array<{ index?: string }>;
    for (const row of rows) {
      const found = row.index ? parseVectorIndex(collection, row.index) : undefined;
      if (found) this.#open(found.collection, found.dims);
    }
    return [...this.#stores.values()].sort(
      (a, b) =>
        a.dims - b.dims || a.collection.length - b.collection.length || a.collection.localeCompare(b.collection),
    );
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
    const bytes = collections.reduce((a, c) => a + (c.bytes ?? 0), 0);
    return { name: this.name, collections, ...(bytes > 0 ? { bytes } : {}) };
  }

  /** @throws ConfigError GF_ES_URL when nothing answers */
  async verify(): Promise<void> {
    await esCall(this.url, 'answer', () => this.#client.ping());
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#refresher.refresh();
    } finally {
      await this.#client.close();
    }
  }
}
