import type { Client } from '@elastic/elasticsearch';
import { bulkIndex, type EsBulkOptions, type Refresher } from '../../index/elasticsearch/es-bulk.js';
import { esCall, isNotFound, LONG_REQUEST_MS } from '../../index/elasticsearch/es-client.js';
import type { VectorCollectionStats, VectorHit, VectorPoint, VectorQuery, VectorStore } from '../vector-store.js';
import {
  checkWidth,
  knnRequest,
  pointsFilter,
  toVectorHit,
  vectorIndexBody,
  vectorIndexName,
  versionsAgg,
  versionsOf,
} from './es-vector-requests.js';

/** What a store shares with its family: the client, the refresher, the server's url, the bulk pacing. */
export interface EsVectorContext {
  client: Client;
  refresher: Refresher;
  url: string;
  bulk?: EsBulkOptions | undefined;
}

/** One collection of one width on Elasticsearch: the index `{collection}_{dims}`, a `dense_vector` per point. */
export class EsVectorStore implements VectorStore {
  readonly name = 'elasticsearch';
  readonly collection: string;
  readonly dims: number;
  readonly index: string;
  readonly #ctx: EsVectorContext;

  constructor(ctx: EsVectorContext, collection: string, dims: number) {
    this.#ctx = ctx;
    this.collection = collection;
    this.dims = dims;
    this.index = vectorIndexName(collection, dims);
  }

  #call<T>(doing: string, fn: (client: Client) => Promise<T>): Promise<T> {
    return esCall(this.#ctx.url, `${doing} (${this.index})`, () => fn(this.#ctx.client));
  }

  /** Runs a read after refreshing this process's writes; a missing index reads as `empty`. */
  async #read<T>(doing: string, empty: T, fn: (client: Client) => Promise<T>): Promise<T> {
    await this.#ctx.refresher.refresh([this.index]);
    return this.#call(doing, async (client) => {
      try {
        return await fn(client);
      } catch (err) {
        if (isNotFound(err)) return empty;
        throw err;
      }
    });
  }

  /** Make the index when it is missing; asked before every write (another process may have removed it). */
  async #ensure(): Promise<void> {
    await this.#call('create the index', async (client) => {
      if (await client.indices.exists({ index: this.index })) return;
      try {
        await client.indices.create({ index: this.index, ...vectorIndexBody(this.dims) });
      } catch (err) {
        const type = (err as { body?: { error?: { type?: string } } }).body?.error?.type;
        if (type !== 'resource_already_exists_exception') throw err;
      }
    });
  }

  async upsert(points: VectorPoint[]): Promise<void> {
    if (points.length === 0) return;
    for (const p of points) checkWidth(p.vector, this.dims, this.index);
    await this.#ensure();
    const docs = points.map((p) => ({ id: p.id, source: { vector: Array.from(p.vector), payload: p.payload } }));
    await bulkIndex(this.#ctx.client, this.#ctx.url, this.index, docs, this.#ctx.bulk);
    this.#ctx.refresher.written(this.index);
  }

  async search(query: VectorQuery): Promise<VectorHit[]> {
    checkWidth(query.vector, this.dims, this.index);
    if (query.scopes.length === 0 || query.limit <= 0) return [];
    const hits = await this.#read('search', [] as VectorHit[], async (client) => {
      const r = await client.search({ index: this.index, ...knnRequest(query) });
      return r.hits.hits.map(toVectorHit);
    });
    const offset = query.offset ?? 0;
    return hits.slice(offset, offset + query.limit);
  }

  #count(catalogId: string, version: number, resourceId?: string): Promise<number> {
    return this.#read('count', 0, async (client) => {
      return (await client.count({ index: this.index, query: pointsFilter(catalogId, version, resourceId) })).count;
    });
  }

  #deleteBy(query: Record<string, unknown>): Promise<number> {
    return this.#read('delete', 0, async (client) => {
      const r = await client.deleteByQuery(
        { index: this.index, query, refresh: true, conflicts: 'proceed' },
        { requestTimeout: LONG_REQUEST_MS },
      );
      return r.deleted ?? 0;
    });
  }

  deleteVersion(catalogId: string, version: number): Promise<number> {
    return this.#deleteBy(pointsFilter(catalogId, version));
  }

  deleteResource(catalogId: string, version: number, resourceId: string): Promise<number> {
    return this.#deleteBy(pointsFilter(catalogId, version, resourceId));
  }

  countResource(catalogId: string, version: number, resourceId: string): Promise<number> {
    return this.#count(catalogId, version, resourceId);
  }

  countVersion(catalogId: string, version: number): Promise<number> {
    return this.#count(catalogId, version);
  }

  pointsOfResource(catalogId: string, version: number, resourceId: string): Promise<VectorPoint[]> {
    return this.#read('read a page', [] as VectorPoint[], async (client) => {
      const r = await client.search({
        index: this.index,
        query: pointsFilter(catalogId, version, resourceId),
        sort: [{ 'payload.chunkIndex': { order: 'asc' } }],
        size: 1000,
      });
      let hits = r.hits.hits;
      // Elasticsearch 9 leaves dense vectors out of _source unless asked (exclude_vectors, which 8.x does not know).
      if (hits.some((h) => !Array.isArray((h._source as { vector?: unknown } | undefined)?.vector))) {
        const again = await client.search({
          index: this.index,
          query: pointsFilter(catalogId, version, resourceId),
          sort: [{ 'payload.chunkIndex': { order: 'asc' } }],
          size: 1000,
          _source: { exclude_vectors: false } as Record<string, unknown>,
        });
        hits = again.hits.hits;
      }
      return hits.map((h) => {
        const s = h._source as { vector: number[]; payload: VectorPoint['payload'] };
        return { id: String(h._id), vector: Float32Array.from(s.vector), payload: s.payload };
      });
    });
  }

  purge(catalogId: string): Promise<number> {
    return this.#deleteBy({ term: { 'payload.catalogId': catalogId } });
  }

  async stats(): Promise<VectorCollectionStats> {
    const versions = await this.#read('count the versions', [] as VectorCollectionStats['versions'], async (client) => {
      const all: VectorCollectionStats['versions'] = [];
      let after: Record<string, string | number> | undefined;
      for (let page = 0; page < 100; page++) {
        const r = await client.search({ index: this.index, size: 0, aggs: versionsAgg(after) });
        const agg = r.aggregations?.versions as
          | {
              buckets: Array<{ key: Record<string, unknown>; doc_count: number }>;
              after_key?: Record<string, string | number>;
            }
          | undefined;
        all.push(...versionsOf(agg?.buckets ?? []));
        if (!agg?.after_key || (agg.buckets ?? []).length === 0) break;
        after = agg.after_key;
      }
      return all;
    });
    const bytes = await this.#read('measure', 0, async (client) => {
      const rows = (await client.cat.indices({ index: this.index, format: 'json', bytes: 'b' })) as Array<{
        'store.size'?: string;
      }>;
      return Number(rows[0]?.['store.size'] ?? 0);
    });
    const points = versions.reduce((a, v) => a + v.points, 0);
    return { collection: this.collection, dims: this.dims, versions, points, ...(bytes > 0 ? { bytes } : {}) };
  }

  /** Refresh, so the version's points are visible to every reader. */
  async optimize(): Promise<unknown> {
    this.#ctx.refresher.written(this.index);
    await this.#ctx.refresher.refresh([this.index]);
    return { index: this.index, refreshed: true };
  }

  /** Refreshes what it wrote; the family closes the client. */
  async close(): Promise<void> {
    await this.#ctx.refresher.refresh([this.index]);
  }
}
