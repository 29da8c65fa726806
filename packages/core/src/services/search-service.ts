import type { ComponentFactory } from '../compose/component-factory.js';
import { CrawlerError } from '../errors.js';
import { meaningVersionOf, type PublishedCatalog } from '../index/catalog-registry.js';
import { VectorSearcher } from '../vector/vector-searcher.js';

export type SearchMode = 'words' | 'meaning';

export interface SearchRequest {
  q: string;
  mode?: SearchMode | undefined;
  /** Catalog ids or names; all published catalogs when empty. */
  catalogs?: string[] | undefined;
  /** @default 10 */
  size?: number | undefined;
  /** words: the previous page's nextCursor; meaning: the offset as a string. */
  cursor?: string | undefined;
  /** Rank detail pages above listings. @default true */
  preferDetailPages?: boolean | undefined;
}

export interface SearchHit {
  id: string;
  title: string;
  url: string;
  catalog: string;
  catalogId: string;
  version: number;
  score: number;
  highlights: string[];
  textPath: string;
}

/** A meaning search that read vectors still being written: it answered from the pages embedded so far. */
export interface EmbeddingNotice {
  /** Pages of the versions it read. */
  pages: number;
  /** Of those, pages with a vector: the ones it can find. */
  embedded: number;
  /** Pages with all their vectors. */
  complete: number;
  /** The catalogs whose vectors are incomplete. */
  catalogs: string[];
}

export interface SearchResponse {
  mode: SearchMode;
  results: SearchHit[];
  total: number;
  nextCursor: string | null;
  elapsedMs: number;
  /** Meaning search over vectors still being written (see {@link EmbeddingNotice}); absent when they are complete. */
  embedding?: EmbeddingNotice | undefined;
  /** Why an answer is empty when the reason is not the query (a meaning search of catalogs without vectors). */
  note?: string | undefined;
}

/**
 * Search that never reads the database: scopes come from the published-catalog record in user/, words from
 * the full-text index, meaning from the text vectors.
 */
export class SearchService {
  readonly #gf: ComponentFactory;
  constructor(gf: ComponentFactory) {
    this.#gf = gf;
  }

  /** Published catalogs search may read, narrowed to the ones named. */
  async scopes(names?: string[]): Promise<Array<PublishedCatalog & { version: number }>> {
    const all = await this.#gf.published.list();
    let chosen = all;
    if (names && names.length > 0) {
      chosen = [];
      for (const n of names) {
        const found = all.find((c) => c.catalogId === n || c.name === n);
        if (!found) {
          throw new CrawlerError('NOT_FOUND', `no published catalog "${n}"`, {
            fix: all.length
              ? `published: ${all.map((c) => c.name).join(', ')}`
              : 'crawl a site first: greenfinger crawl --url <site>',
          });
        }
        chosen.push(found);
      }
    }
    return chosen.filter((c) => c.searchVersion >= 0).map((c) => ({ ...c, version: c.searchVersion }));
  }

  /**
   * A blank query lists what was kept: the pages of the published versions, catalog by catalog in name order and each
   * catalog's pages in id order (a hash of the url: no order of time), `size` at a time (the only answer read from the
   * database, since there is nothing to rank).
   */
  async #kept(
    published: Array<PublishedCatalog & { version: number }>,
    size: number,
    cursor: string | undefined,
    started: number,
    mode: SearchMode,
  ): Promise<SearchResponse> {
    const offset = keptOffset(cursor);
    const resources = (await this.#gf.database()).resources;
    const results: SearchHit[] = [];
    let total = 0;
    for (const c of published) {
      const counted = (await resources.count(c.catalogId, c.version)).resources;
      if (results.length < size && offset < total + counted) {
        let seen = total;
        for await (const rows of resources.iterateResources(c.catalogId, c.version)) {
          for (const r of rows) {
            if (seen++ < offset || results.length >= size) continue;
            results.push({
              id: r.id,
              title: r.title,
              url: r.url,
              catalog: c.name,
              catalogId: c.catalogId,
              version: c.version,
              score: 0,
              highlights: [],
              textPath: r.textPath,
            });
          }
          if (results.length >= size) break;
        }
      }
      total += counted;
    }
    const next = offset + results.length;
    return {
      mode,
      results,
      total,
      nextCursor: next < total ? String(next) : null,
      elapsedMs: Math.round(performance.now() - started),
    };
  }

  async search(req: SearchRequest): Promise<SearchResponse> {
    const started = performance.now();
    const mode = req.mode ?? 'words';
    const size = req.size ?? 10;
    if (!Number.isInteger(size) || size < 1 || size > 1000) {
      throw new CrawlerError('BAD_INPUT', `--size ${size} is out of range`, {
        fix: 'use a whole number from 1 to 1000',
      });
    }
    const published = await this.scopes(req.catalogs);
    if (published.length === 0) {
      throw new CrawlerError('NOT_FOUND', 'nothing has been published to search yet', {
        fix: 'a crawl publishes its version when it ends normally: greenfinger crawl --url <site>',
      });
    }
    const scopes = published.map((c) => ({ catalogId: c.catalogId, version: c.version }));
    const names = new Map(published.map((c) => [c.catalogId, c.name]));
    if (req.q.trim() === '') return this.#kept(published, size, req.cursor, started, mode);
    if (mode === 'words') {
      const r = await this.#gf
        .index()
        .search({ q: req.q, scopes, size, cursor: req.cursor, preferDetailPages: req.preferDetailPages });
      return {
        mode,
        results: r.results.map((h) => hit(h, h.id, h.highlights, names)),
        total: r.total,
        nextCursor: r.nextCursor,
        elapsedMs: Math.round(performance.now() - started),
      };
    }
    const offset = req.cursor ? Number.parseInt(req.cursor, 10) : 0;
    if (!Number.isInteger(offset) || offset < 0) {
      throw new CrawlerError('BAD_INPUT', `cursor "${req.cursor}" is not an offset`, {
        fix: 'pass the nextCursor of the previous meaning search',
      });
    }
    // Meaning reads the version the registry names for it: while a rebuilt version's vectors are being written, the
    // previous complete one; else the served one, with the vectors written so far.
    const meaningScopes = published.map((c) => ({ catalogId: c.catalogId, version: meaningVersionOf(c) }));
    const searcher = new VectorSearcher({ store: await this.#gf.vectors(), embedder: await this.#gf.embedding() });
    const r = await searcher.search({
      q: req.q,
      scopes: meaningScopes,
      size,
      offset,
      preferDetailPages: req.preferDetailPages,
    });
    const notice = embeddingNotice(published);
    const note =
      r.found === 0
        ? `no text vectors to search in ${published.map((c) => `"${c.name}"`).join(', ')}: meaning search needs the vector output — add "vector" to the catalog's outputs, then replay --layers=vector`
        : undefined;
    return {
      mode,
      results: r.results.map((h) => hit(h, h.resourceId, [excerpt(h.chunk)], names)),
      // A vector search has no total: while more exist it counts the pages returned up to here (nextCursor says
      // more exist); on the last page, the pages found in all — never the offset asked for when nothing is there.
      total: r.nextOffset !== null ? offset + r.results.length : Math.min(r.found, offset + r.results.length),
      ...(note ? { note } : {}),
      nextCursor: r.nextOffset === null ? null : String(r.nextOffset),
      elapsedMs: Math.round(performance.now() - started),
      ...(notice ? { embedding: notice } : {}),
    };
  }
}

/** The catalogs meaning search reads whose vectors are still being written, summed; undefined when none. */
function embeddingNotice(published: PublishedCatalog[]): EmbeddingNotice | undefined {
  const partial = published.filter((c) => c.embedding !== undefined && c.embedding.version === meaningVersionOf(c));
  if (partial.length === 0) return undefined;
  const sum = (k: 'pages' | 'embedded' | 'complete') => partial.reduce((a, c) => a + (c.embedding?.[k] ?? 0), 0);
  return {
    pages: sum('pages'),
    embedded: sum('embedded'),
    complete: sum('complete'),
    catalogs: partial.map((c) => c.name),
  };
}

/** A cursor of the blank-query listing: how many pages come before this page of it. */
function keptOffset(cursor: string | undefined): number {
  const offset = cursor ? Number.parseInt(cursor, 10) : 0;
  if (!Number.isInteger(offset) || offset < 0 || offset > 10_000_000) {
    throw new CrawlerError('BAD_INPUT', `cursor "${cursor}" is not an offset`, {
      fix: 'pass the nextCursor of the previous answer',
    });
  }
  return offset;
}

/** A result as every front end shows it, from a words or a meaning hit. */
function hit(
  h: {
    title: string;
    url: string;
    catalogId: string;
    catalogName: string;
    version: number;
    score: number;
    textPath: string;
  },
  id: string,
  highlights: string[],
  names: Map<string, string>,
): SearchHit {
  const { title, url, catalogId, version, score, textPath } = h;
  return {
    id,
    title,
    url,
    catalog: names.get(catalogId) ?? h.catalogName,
    catalogId,
    version,
    score,
    highlights,
    textPath,
  };
}

function excerpt(chunk: string): string {
  const flat = chunk.replace(/\s+/g, ' ').trim();
  const escaped = flat.slice(0, 280).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return flat.length > 280 ? `${escaped}…` : escaped;
}
