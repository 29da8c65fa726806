import type { QdrantClient } from '@qdrant/js-client-rest';
import { ConfigError, CrawlerError } from '../../errors.js';
import type { VectorStats, VectorStoreFamily } from '../vector-store.js';
import { QDRANT_URL_SETTING, qdrantError } from './qdrant-errors.js';
import { parseCollectionName } from './qdrant-requests.js';
import { QdrantStore } from './qdrant-store.js';

export interface QdrantFamilyOptions {
  /** GF_QDRANT_URL, e.g. `http://127.0.0.1:6333`. */
  url: string;
  /** GF_QDRANT_API_KEY; empty or undefined = none. */
  apiKey?: string | undefined;
  /** GF_VECTOR_COLLECTION, e.g. `greenfinger_text`: each width's collection is `<collection>_<dims>`. */
  collection: string;
  /**
   * The embedding provider and model when not the local one (vectorSpace()): `open` then uses
   * `<collection>_<space>_<dims>`, as the embedded family does; erase, purge and stats cover every space.
   */
  space?: string | undefined;
  /** Deadline of one request, in ms. @default 30000 */
  timeoutMs?: number | undefined;
  /** Search every candidate exactly (QdrantStoreOptions.exact). @default false */
  exact?: boolean | undefined;
}

/** Deadline of the reachability check `check` makes (the CLI and `serve` stop on it within seconds). */
export const QDRANT_CHECK_TIMEOUT_MS = 5_000;

/**
 * The Qdrant vector store family: one collection per embedding width on one Qdrant server, found by name
 * (`<collection>_<dims>`), so a version written by an older model (another width) is still erased and purged.
 * Every member of a cluster talks to the same server: nothing is replicated.
 */
export class QdrantFamily implements VectorStoreFamily {
  readonly name = 'qdrant';
  readonly url: string;
  readonly #options: QdrantFamilyOptions;
  /** Made on first use: the client's package loads only when a request is sent (0.1 s kept off every start). */
  #client: Promise<QdrantClient> | undefined;
  /** By collection name on the server (`<collection>[_<space>]_<dims>`). */
  readonly #stores = new Map<string, QdrantStore>();
  #closed = false;

  constructor(options: QdrantFamilyOptions) {
    this.url = parseQdrantUrl(options.url);
    this.#options = { ...options };
  }

  /**
   * One request with a short deadline: the server answers and takes the key. The CLI and `serve` call it before
   * anything else, so a wrong url stops them at once with one line naming GF_QDRANT_URL.
   * @throws ConfigError GF_QDRANT_URL (nothing answers) or GF_QDRANT_API_KEY (key refused)
   */
  async check(): Promise<void> {
    try {
      const client = await qdrantClient(this.url, this.#options.apiKey, QDRANT_CHECK_TIMEOUT_MS);
      await client.getCollections();
    } catch (err) {
      throw qdrantError(err, this.url, 'list collections');
    }
  }

  open(dims: number): QdrantStore {
    const { collection, space } = this.#options;
    return this.#open(space ? `${collection}_${space}` : collection, dims);
  }

  #open(collection: string, dims: number): QdrantStore {
    if (this.#closed) {
      throw new CrawlerError(
        'STORAGE',
        `the vector store family ${this.#options.collection} on ${this.url} is closed`,
        {
          fix: 'open a new QdrantFamily',
        },
      );
    }
    let store = this.#stores.get(`${collection}_${dims}`);
    if (!store) {
      const { exact } = this.#options;
      store = new QdrantStore({ client: () => this.#connection(), url: this.url, collection, dims, exact });
      this.#stores.set(store.qdrantName, store);
    }
    return store;
  }

  /**
   * The collections on the server (and those opened since) of every width and every embedding provider, smallest
   * width first, the local provider's before the others'.
   */
  async collections(): Promise<QdrantStore[]> {
    const found = new Map<string, { collection: string; dims: number }>();
    for (const store of this.#stores.values()) {
      found.set(store.qdrantName, { collection: store.collection, dims: store.dims });
    }
    let listed: { collections: Array<{ name: string }> };
    try {
      listed = await (await this.#connection()).getCollections();
    } catch (err) {
      throw qdrantError(err, this.url, 'list collections');
    }
    for (const { name } of listed.collections) {
      const parsed = parseCollectionName(this.#options.collection, name);
      if (parsed) found.set(name, parsed);
    }
    return [...found.values()]
      .sort(
        (a, b) =>
          a.dims - b.dims || a.collection.length - b.collection.length || a.collection.localeCompare(b.collection),
      )
      .map((c) => this.#open(c.collection, c.dims));
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

  /** Points per version of every width; no bytes (Qdrant does not say them per collection). */
  async stats(): Promise<VectorStats> {
    const collections = [];
    for (const store of await this.collections()) collections.push(await store.stats());
    return { name: this.name, collections };
  }

  /** Drops every collection of this family on the server (a test's own collections; `erase` uses purge). */
  async dropCollections(): Promise<number> {
    let n = 0;
    for (const store of await this.collections()) {
      try {
        if (await (await this.#connection()).deleteCollection(store.qdrantName)) n += 1;
      } catch (err) {
        throw qdrantError(err, this.url, `drop ${store.qdrantName}`);
      }
    }
    return n;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const store of this.#stores.values()) await store.close();
    this.#stores.clear();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #connection(): Promise<QdrantClient> {
    this.#client ??= qdrantClient(this.url, this.#options.apiKey, this.#options.timeoutMs ?? 30_000);
    return this.#client;
  }
}

async function qdrantClient(url: string, apiKey: string | undefined, timeout: number): Promise<QdrantClient> {
  const { QdrantClient } = await import('@qdrant/js-client-rest');
  const u = new URL(url);
  // The client reads neither a path nor a scheme's default port from `url` (it would put :6333 after an https
  // host): give it the origin, the port only when written, and the path as its prefix.
  return new QdrantClient({
    url: `${u.protocol}//${u.host}`,
    port: u.port ? Number(u.port) : null,
    ...(u.pathname !== '/' ? { prefix: u.pathname.replace(/\/+$/, '') } : {}),
    apiKey: apiKey || undefined,
    timeout,
    // Off: the client would otherwise ask the server's version on every construction.
    checkCompatibility: false,
  });
}

/**
 * The url as the client wants it (no trailing slash), checked: http or https with a host.
 * @throws ConfigError GF_QDRANT_URL
 */
export function parseQdrantUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      QDRANT_URL_SETTING,
      `${JSON.stringify(raw)} is not a url`,
      'give the server, e.g. http://127.0.0.1:6333',
    );
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw new ConfigError(
      QDRANT_URL_SETTING,
      `${raw} is not an http(s) url`,
      'give the server, e.g. http://127.0.0.1:6333',
    );
  }
  return url.href.replace(/\/+$/, '');
}
