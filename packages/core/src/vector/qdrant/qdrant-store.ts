import type { QdrantClient } from '@qdrant/js-client-rest';
import { CrawlerError } from '../../errors.js';
import type { VectorCollectionStats, VectorHit, VectorPoint, VectorQuery, VectorStore } from '../vector-store.js';
import { qdrantError } from './qdrant-errors.js';
import {
  catalogFilter,
  createCollectionBody,
  fromQdrantPayload,
  INDEXED_KEYS,
  parseScopeKey,
  type QdrantFilter,
  resourceFilter,
  searchBody,
  textCollectionName,
  toHits,
  toQdrantPoint,
  versionFilter,
} from './qdrant-requests.js';

/** Points sent per upsert request. */
export const UPSERT_BATCH = 256;
/** Versions `stats` reads per collection (facet values). */
const MAX_FACET_VALUES = 100_000;
/** Chunks one page can have at most (GF_MAX_CHUNKS ≤ 1000). */
const MAX_CHUNKS_READ = 1000;

export interface QdrantStoreOptions {
  /** The family's client (made on first use). */
  client: () => Promise<QdrantClient>;
  /** GF_QDRANT_URL, for the errors. */
  url: string;
  /** GF_VECTOR_COLLECTION, e.g. `greenfinger_text`. */
  collection: string;
  dims: number;
  /** Search every candidate exactly (no graph); for tests and small collections. @default false */
  exact?: boolean | undefined;
}

/**
 * One width's text collection in Qdrant (`greenfinger_text_{dims}`, cosine). Each point's payload is the text
 * point's own (catalog, version, `catalogId:version`, resource id, chunk index and text, url, title), so a hit
 * explains itself; `catalogVersion`, `catalogId` and `resourceId` are indexed keywords, and every filter, delete and
 * count goes through them. The collection and its indexes are made on first use.
 */
export class QdrantStore implements VectorStore {
  readonly name = 'qdrant';
  readonly collection: string;
  readonly dims: number;
  /** The collection's name on the server. */
  readonly qdrantName: string;
  readonly #client: () => Promise<QdrantClient>;
  readonly #url: string;
  readonly #exact: boolean;
  #ready: Promise<void> | undefined;
  #closed = false;

  constructor(options: QdrantStoreOptions) {
    this.qdrantName = textCollectionName(options.collection, options.dims);
    this.collection = options.collection;
    this.dims = options.dims;
    this.#client = options.client;
    this.#url = options.url;
    this.#exact = options.exact ?? false;
  }

  async upsert(points: VectorPoint[]): Promise<void> {
    this.#check();
    const sent = points.map((p) => toQdrantPoint(p, this.dims, this.qdrantName));
    if (sent.length === 0) return;
    await this.#ensure();
    for (let i = 0; i < sent.length; i += UPSERT_BATCH) {
      const batch = sent.slice(i, i + UPSERT_BATCH);
      await this.#call('write points', async () =>
        (await this.#client()).upsert(this.qdrantName, { wait: true, points: batch }),
      );
    }
  }

  async search(query: VectorQuery): Promise<VectorHit[]> {
    this.#check();
    const body = searchBody(query, this.dims, this.qdrantName, { exact: this.#exact });
    if (!body) return [];
    await this.#ensure();
    const found = await this.#call('search', async () => (await this.#client()).search(this.qdrantName, body));
    return toHits(found);
  }

  async deleteVersion(catalogId: string, version: number): Promise<number> {
    return this.#deleteWhere(versionFilter(catalogId, version));
  }

  async deleteResource(catalogId: string, version: number, resourceId: string): Promise<number> {
    return this.#deleteWhere(resourceFilter(catalogId, version, resourceId));
  }

  async countResource(catalogId: string, version: number, resourceId: string): Promise<number> {
    return this.#count(resourceFilter(catalogId, version, resourceId));
  }

  async pointsOfResource(catalogId: string, version: number, resourceId: string): Promise<VectorPoint[]> {
    this.#check();
    await this.#ensure();
    const page = await this.#call('read points', async () =>
      (await this.#client()).scroll(this.qdrantName, {
        filter: resourceFilter(catalogId, version, resourceId),
        limit: MAX_CHUNKS_READ,
        with_payload: true,
        with_vector: true,
      }),
    );
    const points: VectorPoint[] = [];
    for (const p of page.points) {
      if (!Array.isArray(p.vector)) continue;
      const { id, payload } = fromQdrantPayload(p.payload, p.id);
      points.push({ id, vector: Float32Array.from(p.vector as number[]), payload });
    }
    return points.sort((a, b) => a.payload.chunkIndex - b.payload.chunkIndex);
  }

  async countVersion(catalogId: string, version: number): Promise<number> {
    return this.#count(versionFilter(catalogId, version));
  }

  async purge(catalogId: string): Promise<number> {
    return this.#deleteWhere(catalogFilter(catalogId));
  }

  /** Points per catalog version (an exact facet of `catalogVersion`); Qdrant does not say bytes per collection. */
  async stats(): Promise<VectorCollectionStats> {
    this.#check();
    await this.#ensure();
    const facet = await this.#call('count versions', async () =>
      (await this.#client()).facet(this.qdrantName, { key: 'catalogVersion', limit: MAX_FACET_VALUES, exact: true }),
    );
    const versions: VectorCollectionStats['versions'] = [];
    for (const hit of facet.hits) {
      const scope = typeof hit.value === 'string' ? parseScopeKey(hit.value) : undefined;
      if (scope && hit.count > 0) versions.push({ ...scope, points: hit.count });
    }
    versions.sort((a, b) => (a.catalogId < b.catalogId ? -1 : a.catalogId > b.catalogId ? 1 : a.version - b.version));
    return {
      collection: this.collection,
      dims: this.dims,
      versions,
      points: versions.reduce((a, v) => a + v.points, 0),
    };
  }

  /** Ends this handle; the family owns the connection. */
  async close(): Promise<void> {
    this.#closed = true;
  }

  /** The collection exists, with its keyword indexes (made once per handle; a failure is tried again next time). */
  #ensure(): Promise<void> {
    this.#ready ??= this.#create().catch((err: unknown) => {
      this.#ready = undefined;
      throw err;
    });
    return this.#ready;
  }

  async #create(): Promise<void> {
    const name = this.qdrantName;
    const { exists } = await this.#call('look up the collection', async () =>
      (await this.#client()).collectionExists(name),
    );
    if (exists) {
      const info = await this.#call('read the collection', async () => (await this.#client()).getCollection(name));
      const size = widthOf(info.config?.params?.vectors);
      if (size !== undefined && size !== this.dims) {
        throw new CrawlerError(
          'STORAGE',
          `Qdrant collection ${name} holds vectors of ${size} dimensions, not ${this.dims}`,
          {
            fix: 'that collection was made by something else: set GF_VECTOR_COLLECTION to another name',
          },
        );
      }
    } else {
      await this.#call('create the collection', async () =>
        (await this.#client()).createCollection(name, createCollectionBody(this.dims)).catch(async (err: unknown) => {
          // Another process made it between the check and the create.
          if ((await (await this.#client()).collectionExists(name)).exists) return true;
          throw err;
        }),
      );
    }
    for (const key of INDEXED_KEYS) {
      await this.#call('index the payload', async () =>
        (await this.#client()).createPayloadIndex(name, { field_name: key, field_schema: 'keyword', wait: true }),
      );
    }
  }

  async #count(filter: QdrantFilter): Promise<number> {
    this.#check();
    await this.#ensure();
    const { count } = await this.#call('count points', async () =>
      (await this.#client()).count(this.qdrantName, { filter, exact: true }),
    );
    return count;
  }

  /** Counts what matches, then deletes it by the same filter and waits for the delete to apply. */
  async #deleteWhere(filter: QdrantFilter): Promise<number> {
    const n = await this.#count(filter);
    if (n === 0) return 0;
    await this.#call('delete points', async () =>
      (await this.#client()).delete(this.qdrantName, { wait: true, filter }),
    );
    return n;
  }

  async #call<T>(doing: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (err) {
      throw qdrantError(err, this.#url, `${doing} in ${this.qdrantName}`);
    }
  }

  #check(): void {
    if (this.#closed) {
      throw new CrawlerError('STORAGE', `the vector store ${this.qdrantName} is closed`, {
        fix: 'open it again from its QdrantFamily',
      });
    }
  }
}

/** The width of a collection's unnamed vector, from its config. */
function widthOf(vectors: unknown): number | undefined {
  const size = (vectors as { size?: unknown } | undefined)?.size;
  return typeof size === 'number' ? size : undefined;
}
