import type { EmbeddingClient } from '../embeddings/embedding-client.js';
import { CrawlerError } from '../errors.js';
import { MAX_KNN } from './sqlite-vec-store.js';
import type { VectorHit, VectorStore } from './vector-store.js';

/** Deepest offset a meaning search walks: a vector store pays for every skipped hit. */
export const MAX_MEANING_OFFSET = 1000;

export interface MeaningQuery {
  q: string;
  /** `catalogId:version` pairs to search (the published versions). */
  scopes: Array<{ catalogId: string; version: number }>;
  size: number;
  /** Pages to skip; at most 1000. @default 0 */
  offset?: number | undefined;
  /** Rank detail pages above listings by link density. @default true */
  preferDetailPages?: boolean | undefined;
}

/** One page found by meaning: its best-matching chunk and the page it came from. */
export interface MeaningHit {
  resourceId: string;
  catalogId: string;
  catalogName: string;
  version: number;
  url: string;
  title: string;
  textPath: string;
  /** Cosine similarity, times the link-density factor when detail pages are preferred. */
  score: number;
  /** The best chunk of the page, as a passage. */
  chunk: string;
  chunkIndex: number;
}

export interface MeaningResult {
  results: MeaningHit[];
  /** Offset of the next page, or null when this one was the last. */
  nextOffset: number | null;
  /** Pages found in all, up to `offset + size + 1` (0 when the scopes hold no vectors). */
  found: number;
}

export interface VectorSearcherOptions {
  store: VectorStore;
  embedder: EmbeddingClient;
  /** Chunks fetched per wanted page before dedup and rerank. @default 4 */
  overFetch?: number;
}

/** 1.5 − link density, clamped to 0.5..1.5: close to 1.5 for an article, 0.5 for a listing. */
export function linkDensityFactor(density: number): number {
  const d = Number.isFinite(density) ? density : 0;
  return Math.min(1.5, Math.max(0.5, 1.5 - d));
}

/**
 * Meaning search: embeds the query, over-fetches chunks (×4), reranks them by link density (vector stores have
 * no function score) and keeps one hit per page, because twenty chunks of one long article is one result to a
 * reader. When dedup leaves too few pages it asks again for more chunks, up to the store's KNN limit.
 */
export class VectorSearcher {
  readonly #store: VectorStore;
  readonly #embedder: EmbeddingClient;
  readonly #overFetch: number;

  constructor(options: VectorSearcherOptions) {
    this.#store = options.store;
    this.#embedder = options.embedder;
    this.#overFetch = Math.max(1, options.overFetch ?? 4);
  }

  async search(query: MeaningQuery): Promise<MeaningResult> {
    const offset = Math.max(0, Math.trunc(query.offset ?? 0));
    if (offset > MAX_MEANING_OFFSET) {
      throw new CrawlerError(
        'BAD_INPUT',
        `offset ${offset} is deeper than meaning search goes (${MAX_MEANING_OFFSET})`,
        {
          fix: 'narrow the query or the catalogs instead of paging further',
        },
      );
    }
    const size = Math.max(0, Math.trunc(query.size));
    if (size === 0 || query.scopes.length === 0 || query.q.trim() === '')
      return { results: [], nextOffset: null, found: 0 };
    if (this.#embedder.dims !== this.#store.dims) {
      throw new CrawlerError(
        'EMBEDDING',
        `the embedding model ${this.#embedder.model} gives ${this.#embedder.dims}-d vectors but the store holds ${this.#store.dims}-d`,
        { fix: 'search the collection named after the model width, or re-embed with replay --layers=vector' },
      );
    }
    const vector = await this.#embedder.embedQuery(query.q);
    const prefer = query.preferDetailPages !== false;
    const wanted = offset + size + 1;
    let limit = Math.min(wanted * this.#overFetch, MAX_KNN);
    let pages: MeaningHit[] = [];
    for (let round = 0; round < 4; round++) {
      const hits = await this.#store.search({ vector, scopes: query.scopes, limit });
      pages = rank(hits, prefer);
      if (pages.length >= wanted || hits.length < limit || limit >= MAX_KNN) break;
      limit = Math.min(limit * 4, MAX_KNN);
    }
    const results = pages.slice(offset, offset + size);
    const more = pages.length > offset + size;
    return {
      results,
      nextOffset: more && offset + size <= MAX_MEANING_OFFSET ? offset + size : null,
      found: pages.length,
    };
  }
}

/** Rerank by link density and keep the best chunk of each page. */
function rank(hits: VectorHit[], prefer: boolean): MeaningHit[] {
  const best = new Map<string, MeaningHit>();
  for (const h of hits) {
    const p = h.payload;
    const score = prefer && h.score > 0 ? h.score * linkDensityFactor(p.linkDensity) : h.score;
    const seen = best.get(p.resourceId);
    if (seen && seen.score >= score) continue;
    best.set(p.resourceId, {
      resourceId: p.resourceId,
      catalogId: p.catalogId,
      catalogName: p.catalogName,
      version: p.version,
      url: p.url,
      title: p.title,
      textPath: p.textPath,
      score,
      chunk: p.chunk,
      chunkIndex: p.chunkIndex,
    });
  }
  return [...best.values()].sort(
    (a, b) => b.score - a.score || (a.resourceId < b.resourceId ? -1 : a.resourceId > b.resourceId ? 1 : 0),
  );
}
