import { v5 as uuidv5 } from 'uuid';
import { CrawlerError } from '../../errors.js';
import type { TextPointPayload, VectorHit, VectorPoint, VectorQuery } from '../vector-store.js';

/*
 * The requests the Qdrant family sends, built by pure functions (tested without a server): collection names,
 * point ids, payloads, filters and the search body. qdrant-store.ts only sends them.
 */

/** Payload keys Qdrant indexes (keyword): the filters and the facet of `stats` read them. */
export const INDEXED_KEYS = ['catalogVersion', 'catalogId', 'resourceId'] as const;

/** The payload key holding the caller's own point id (Qdrant ids are UUIDs or integers only). */
export const POINT_ID_KEY = 'pointId';

/** Deepest hit a search asks for (the embedded store's KNN limit, so meaning search pages the same on both). */
export const QDRANT_MAX_K = 4096;

/** What a point carries in Qdrant: the text point's payload, self-explaining, plus the caller's id. */
export type QdrantPayload = TextPointPayload & { [POINT_ID_KEY]: string };

/** A filter in Qdrant's JSON (the subset this family uses). */
export interface QdrantFilter {
  must?: QdrantCondition[];
  should?: QdrantCondition[];
}
export interface QdrantCondition {
  key: string;
  match: { value: string } | { any: string[] } | { text: string };
}

/** The namespace of point ids derived from ids that are not UUIDs (fixed: the same id gives the same point). */
const POINT_NAMESPACE = '6b7e6c1e-2f0b-5d4e-9a57-3a8f0e3c1d42';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NAME_RE = /^[a-z0-9_-]+$/;

/** `greenfinger_text_384`: the text collection of one width (GF_VECTOR_COLLECTION + width). */
export function textCollectionName(collection: string, dims: number): string {
  checkCollection(collection, dims);
  return `${collection}_${dims}`;
}

/**
 * `greenfinger_image_512`: the picture collection of one width, named as seed 000 names it. Picture vectors live with
 * the search index today (SearchIndex.upsertPictureVectors), so the family creates none yet.
 */
export function imageCollectionName(collection: string, dims: number): string {
  const base = collection.endsWith('_text') ? `${collection.slice(0, -'_text'.length)}_image` : `${collection}_image`;
  checkCollection(base, dims);
  return `${base}_${dims}`;
}

/**
 * The base and width of a collection of this family: `<collection>_<dims>`, or `<collection>_<space>_<dims>` when an
 * embedding endpoint wrote it (vectorSpace()); undefined for any other name (another family's, a picture collection).
 */
export function parseCollectionName(
  collection: string,
  name: string,
): { collection: string; dims: number } | undefined {
  const shape = new RegExp(`^(${collection.replace(/[-]/g, '\\-')}(?:_[a-z0-9-]+)?)_([1-9]\\d{0,3})$`);
  const m = shape.exec(name);
  return m ? { collection: m[1] as string, dims: Number(m[2]) } : undefined;
}

function checkCollection(collection: string, dims: number): void {
  if (!NAME_RE.test(collection)) {
    throw new CrawlerError('BAD_INPUT', `vector collection name ${JSON.stringify(collection)} is not allowed`, {
      fix: 'use lowercase letters, digits, - and _ (GF_VECTOR_COLLECTION)',
    });
  }
  if (!Number.isInteger(dims) || dims < 1 || dims > 8192) {
    throw new CrawlerError('BAD_INPUT', `vector width ${dims} is not usable`, {
      fix: 'dims comes from the embedding model; use a model with 1..8192 dimensions',
    });
  }
}

/** The body that creates a collection: cosine distance, vectors on disk as Qdrant keeps them by default. */
export function createCollectionBody(dims: number): { vectors: { size: number; distance: 'Cosine' } } {
  return { vectors: { size: dims, distance: 'Cosine' } };
}

/** Qdrant's id of a point: the id itself when it is a UUID (text points are uuidv5), else a uuidv5 of it. */
export function qdrantPointId(id: string): string {
  return UUID_RE.test(id) ? id.toLowerCase() : uuidv5(id, POINT_NAMESPACE);
}

/** `catalogId:version`, the scope every filter reads. */
export function scopeKey(catalogId: string, version: number): string {
  return `${catalogId}:${version}`;
}

/** One point as Qdrant stores it; the width is checked here so a wrong one never reaches the server. */
export function toQdrantPoint(
  p: VectorPoint,
  dims: number,
  label: string,
): { id: string; vector: number[]; payload: QdrantPayload & Record<string, unknown> } {
  if (p.vector.length !== dims) {
    throw new CrawlerError(
      'BAD_INPUT',
      `point ${p.id} has ${p.vector.length} dimensions but collection ${label} holds ${dims}`,
      { fix: 'the embedding model changed width: vectors go to the collection named after their width' },
    );
  }
  // The scope key is written from catalogId and version, whatever the caller put there: filters trust it.
  const payload: QdrantPayload & Record<string, unknown> = {
    ...p.payload,
    catalogVersion: scopeKey(p.payload.catalogId, p.payload.version),
    [POINT_ID_KEY]: p.id,
  };
  return { id: qdrantPointId(p.id), vector: Array.from(p.vector), payload };
}

/** The text point back from what Qdrant returned (its id and payload as written). */
export function fromQdrantPayload(
  raw: Record<string, unknown> | null | undefined,
  fallbackId: string | number,
): { id: string; payload: TextPointPayload } {
  const { [POINT_ID_KEY]: pointId, ...rest } = (raw ?? {}) as Partial<QdrantPayload>;
  return { id: typeof pointId === 'string' ? pointId : String(fallbackId), payload: rest as TextPointPayload };
}

/** Hits from a search answer, in Qdrant's order (score descending). */
export function toHits(
  points: Array<{ id: string | number; score: number; payload?: Record<string, unknown> | null | undefined }>,
): VectorHit[] {
  return points.map((p) => {
    const { id, payload } = fromQdrantPayload(p.payload, p.id);
    return { id, score: p.score, payload };
  });
}

/** Points of one catalog version. */
export function versionFilter(catalogId: string, version: number): QdrantFilter {
  return { must: [{ key: 'catalogVersion', match: { value: scopeKey(catalogId, version) } }] };
}

/** Points of one page of one catalog version. */
export function resourceFilter(catalogId: string, version: number, resourceId: string): QdrantFilter {
  return {
    must: [
      { key: 'catalogVersion', match: { value: scopeKey(catalogId, version) } },
      { key: 'resourceId', match: { value: resourceId } },
    ],
  };
}

/** Points of one catalog, every version. */
export function catalogFilter(catalogId: string): QdrantFilter {
  return { must: [{ key: 'catalogId', match: { value: catalogId } }] };
}

/** Points of any of the scopes (`catalogVersion` in the list). */
export function scopesFilter(scopes: VectorQuery['scopes']): QdrantFilter {
  const keys = [...new Set(scopes.map((s) => scopeKey(s.catalogId, s.version)))];
  return { must: [{ key: 'catalogVersion', match: { any: keys } }] };
}

export interface QdrantSearchBody {
  vector: number[];
  filter: QdrantFilter;
  limit: number;
  offset: number;
  with_payload: true;
  with_vector: false;
  params: { hnsw_ef: number; exact: boolean };
}

/**
 * The search body of a query, or undefined when it can find nothing (no scope, no hit wanted). The page is
 * `offset..offset+limit` of one ranking over every scope, as the embedded store pages. The graph search explores
 * `hnsw_ef` candidates, at least 4 × the hits wanted (over-fetch), and Qdrant scores each candidate exactly
 * against the stored vector (rerank): the same shape as the embedded store's approximate path. `exact` skips the
 * graph (a collection small enough for a full scan is searched exactly by Qdrant anyway).
 */
export function searchBody(
  query: VectorQuery,
  dims: number,
  label: string,
  options: { exact?: boolean } = {},
): QdrantSearchBody | undefined {
  if (query.vector.length !== dims) {
    throw new CrawlerError(
      'BAD_INPUT',
      `the query vector has ${query.vector.length} dimensions, collection ${label} holds ${dims}`,
      { fix: 'embed the query with the model that wrote this collection' },
    );
  }
  const offset = Math.max(0, Math.trunc(query.offset ?? 0));
  const limit = Math.max(0, Math.trunc(query.limit));
  const k = Math.min(offset + limit, QDRANT_MAX_K);
  if (k <= offset || query.scopes.length === 0) return undefined;
  return {
    vector: Array.from(query.vector),
    filter: scopesFilter(query.scopes),
    limit: k - offset,
    offset,
    with_payload: true,
    with_vector: false,
    params: { hnsw_ef: Math.max(128, 4 * k), exact: options.exact ?? false },
  };
}

/** Split `catalogId:version` (the facet values of `stats`). */
export function parseScopeKey(key: string): { catalogId: string; version: number } | undefined {
  const cut = key.lastIndexOf(':');
  const version = Number(key.slice(cut + 1));
  if (cut <= 0 || !Number.isSafeInteger(version)) return undefined;
  return { catalogId: key.slice(0, cut), version };
}
