import type { estypes } from '@elastic/elasticsearch';
import { CrawlerError } from '../../errors.js';
import type { TextPointPayload, VectorHit, VectorQuery } from '../vector-store.js';

/*
 * The request bodies of the Elasticsearch vector store and how its answers become hits: pure builders, no client
 * (the unit tests read them as they are sent).
 */

/** The index of one collection and width: `{collection}_{dims}` (the same name as the embedded store's directory). */
export function vectorIndexName(collection: string, dims: number): string {
  return `${collection}_${dims}`;
}

/** The collection and width of an index name under `collection` (any embedding space after it), else undefined. */
export function parseVectorIndex(collection: string, index: string): { collection: string; dims: number } | undefined {
  const shape = new RegExp(`^(${collection.replace(/[-]/g, '\\-')}(?:_[a-z0-9-]+)?)_(\\d+)$`);
  const m = shape.exec(index);
  return m ? { collection: m[1] as string, dims: Number(m[2]) } : undefined;
}

/**
 * A collection's index: the vector as `dense_vector` (cosine, an HNSW graph of full floats: no quantization, so the
 * scores are the cosines the embedded store gives), the payload kept whole in `_source` with the fields filters
 * read mapped as keywords.
 */
export function vectorIndexBody(dims: number): {
  settings: Record<string, unknown>;
  mappings: Record<string, unknown>;
} {
  return {
    settings: { number_of_shards: 1 },
    mappings: {
      dynamic: false,
      properties: {
        vector: { type: 'dense_vector', dims, index: true, similarity: 'cosine', index_options: { type: 'hnsw' } },
        payload: {
          properties: {
            catalogId: { type: 'keyword' },
            catalogVersion: { type: 'keyword' },
            version: { type: 'integer' },
            resourceId: { type: 'keyword' },
            chunkIndex: { type: 'integer' },
          },
        },
      },
    },
  };
}

/** The version filter of the vector store: `payload.catalogVersion` in the `catalogId:version` pairs in scope. */
export function scopeFilter(scopes: VectorQuery['scopes']): Record<string, unknown> {
  return { terms: { 'payload.catalogVersion': scopes.map((s) => `${s.catalogId}:${s.version}`) } };
}

/** One version, or one page of one version. */
export function pointsFilter(catalogId: string, version: number, resourceId?: string): Record<string, unknown> {
  const filter: Array<Record<string, unknown>> = [{ term: { 'payload.catalogVersion': `${catalogId}:${version}` } }];
  if (resourceId !== undefined) filter.push({ term: { 'payload.resourceId': resourceId } });
  return { bool: { filter } };
}

/**
 * The kNN search of a query: the `offset + limit` nearest in scope (candidates: four times that, at least 100, at
 * most 10,000), the vectors left out of the answer.
 */
export function knnRequest(query: VectorQuery): Record<string, unknown> {
  const k = Math.min(10_000, (query.offset ?? 0) + query.limit);
  return {
    knn: {
      field: 'vector',
      query_vector: Array.from(query.vector),
      k,
      num_candidates: Math.min(10_000, Math.max(100, 4 * k)),
      filter: scopeFilter(query.scopes),
    },
    size: k,
    _source: { excludes: ['vector'] },
  };
}

/** Elasticsearch's cosine score is (1 + cos) / 2; the store answers the cosine, as the embedded one does. */
export function cosineOf(score: number): number {
  return 2 * score - 1;
}

export function toVectorHit(hit: {
  _id?: string | undefined;
  _score?: number | null | undefined;
  _source?: unknown;
}): VectorHit {
  const source = hit._source as { payload: TextPointPayload };
  return { id: String(hit._id), score: cosineOf(Number(hit._score ?? 0)), payload: source.payload };
}

/** @throws CrawlerError BAD_INPUT for a vector of another width than the collection's */
export function checkWidth(vector: Float32Array, dims: number, collection: string): void {
  if (vector.length !== dims) {
    throw new CrawlerError(
      'BAD_INPUT',
      `a vector of ${vector.length} dimensions for the collection ${collection} of ${dims}`,
      {
        fix: 'embed with the model that wrote the collection, or open the collection of this width',
      },
    );
  }
}

/** Points per catalog version: a composite aggregation, in catalog then version order, from `after` on. */
export function versionsAgg(
  after?: Record<string, string | number>,
): Record<string, estypes.AggregationsAggregationContainer> {
  const sources: Array<Record<string, estypes.AggregationsCompositeAggregationSource>> = [
    { catalogId: { terms: { field: 'payload.catalogId' } } },
    { version: { terms: { field: 'payload.version' } } },
  ];
  return { versions: { composite: { size: 10_000, sources, ...(after ? { after } : {}) } } };
}

export function versionsOf(
  buckets: ReadonlyArray<{ key: Record<string, unknown>; doc_count: number }>,
): Array<{ catalogId: string; version: number; points: number }> {
  return buckets.map((b) => ({
    catalogId: String(b.key.catalogId),
    version: Number(b.key.version),
    points: b.doc_count,
  }));
}
