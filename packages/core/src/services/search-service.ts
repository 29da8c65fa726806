import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ComponentFactory } from '../compose/component-factory.js';
import { CrawlerError } from '../errors.js';
import { meaningVersionOf, type PublishedCatalog } from '../index/catalog-registry.js';
import type { PictureHit, WordsHit } from '../index/search-index.js';
import { uniquePictures } from '../index/sqlite-fts-index.js';
import { MAX_MEANING_OFFSET, type MeaningHit, VectorSearcher } from '../vector/vector-searcher.js';
import { fuseRanks, fusionDepth } from './hybrid-search.js';
import { keptListing } from './kept-listing.js';
import {
  findPictures,
  findPicturesLike,
  imageSearch,
  type PagePicture,
  type PictureFields,
  type PictureRanking,
  pictureTitle,
} from './picture-search.js';
import { type ScopedCatalog, type ScopeRequest, searchScopes } from './search-scope.js';
import { type WordsMatch, type WordsMatched, wordsSearch } from './words-question.js';

/**
 * words: the full-text index; meaning: the text vectors; hybrid: both, fused by rank (hybrid-search.ts);
 * pictures: the picture records, one result per picture (picture-search.ts).
 */
export type SearchMode = 'words' | 'meaning' | 'hybrid' | 'pictures';

/** Every search mode, in the order front ends offer them. */
export const SEARCH_MODES: readonly SearchMode[] = ['hybrid', 'words', 'meaning', 'pictures'];

export interface SearchRequest extends ScopeRequest {
  q: string;
  /**
   * `auto` (what the CLI, the prompt, the API and the page ask for when no mode is given): hybrid when a catalog
   * searched has text vectors, else words; the answer says which. @default 'words'
   */
  mode?: SearchMode | 'auto' | undefined;
  /** @default 10 */
  size?: number | undefined;
  /**
   * words and the blank query's listing: the previous page's nextCursor (a keyset: a deep page costs what the first
   * does); meaning, hybrid and pictures: the offset as a string, at most 1,000.
   */
  cursor?: string | undefined;
  /** Rank detail pages above listings. @default true */
  preferDetailPages?: boolean | undefined;
  /**
   * Pictures like this one: a pictures result's `id` or `imageId`. A pictures search (mode `pictures`, or `auto`)
   * with a blank `q`: the other pictures ranked by their stored vectors' likeness to it.
   */
  like?: string | undefined;
  /** Words (and hybrid without vectors): how pages match the words (words-question.ts). @default 'auto' */
  match?: WordsMatch | undefined;
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
  /** The page's pictures, deduplicated by image id. */
  pictures?: PagePicture[] | undefined;
  /** A blank query's listing: when the page was fetched (it lists newest first). */
  fetchedAt?: string | undefined;
}

/** A result of pictures mode: one picture (title: its alt text; url: the picture's own url). */
export type PictureSearchHit = SearchHit & PictureFields;

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
  /** The mode that answered: the one asked for, or the default; words when hybrid found no vectors to read. */
  mode: SearchMode;
  results: SearchHit[];
  total: number;
  nextCursor: string | null;
  elapsedMs: number;
  /** Meaning search over vectors still being written (see {@link EmbeddingNotice}); absent when they are complete. */
  embedding?: EmbeddingNotice | undefined;
  /** A `like` search: what was compared (the pictures' image vectors when the picture has one, else caption meaning). */
  likeBy?: 'caption meaning' | 'image' | undefined;
  /** Pictures mode: the rankings fused into the answer (`words`, then `caption meaning` and `image` when they took part). */
  rankings?: PictureRanking[] | undefined;
  /** A `like` search: the picture it was asked for. */
  likeOf?: PictureSearchHit | undefined;
  /** Words: how the pages matched: every word, any word (none held them all, or asked), or as a question. */
  match?: WordsMatched | undefined;
  /**
   * Why an answer is empty, or narrower than asked, when the reason is not the query: a meaning search of catalogs
   * without vectors, or a hybrid one answered by words alone.
   */
  note?: string | undefined;
}

/**
 * Search that never reads the database: scopes come from the published-catalog record in user/, words from
 * the full-text index, meaning from the text vectors.
 */
export class SearchService {
  readonly #gf: ComponentFactory;
  /** `catalogId:version` pairs known to hold text vectors (a version never loses them while it is served). */
  readonly #withVectors = new Set<string>();
  constructor(gf: ComponentFactory) {
    this.#gf = gf;
  }

  /**
   * The mode a request answers in (`auto` resolved; a blank query lists what was kept, as words), without searching:
   * lets a front end send words searches to threads of their own and keep the ones that embed a query by the model.
   */
  async modeFor(req: Pick<SearchRequest, 'q' | 'mode' | 'catalogs' | 'cat' | 'version' | 'like'>): Promise<SearchMode> {
    const asked = req.mode ?? 'words';
    if (asked !== 'auto') return asked;
    if (req.like !== undefined) return 'pictures';
    if (req.q.trim() === '') return 'words';
    return this.defaultMode(await this.scopes(req));
  }

  /**
   * The mode a search without one answers in: hybrid when any of these catalogs has text vectors for the version
   * meaning search reads, else words. A data root that never wrote vectors is told apart without loading a model.
   */
  async defaultMode(published: Array<ScopedCatalog>): Promise<SearchMode> {
    const keys = published.map((c) => `${c.catalogId}:${meaningVersionOf(c)}`);
    if (keys.some((k) => this.#withVectors.has(k))) return 'hybrid';
    if (!existsSync(join(this.#gf.layout.user, 'vector'))) return 'words';
    try {
      const store = await this.#gf.vectors();
      for (const [i, c] of published.entries()) {
        if ((await store.countVersion(c.catalogId, meaningVersionOf(c))) > 0) {
          this.#withVectors.add(keys[i] as string);
          return 'hybrid';
        }
      }
    } catch {
      // No embedding model or vector store to open: words answer.
    }
    return 'words';
  }

  /**
   * Published catalogs search may read, narrowed to the ones named and to a category, each at its published version
   * or at the kept version asked for (search-scope.ts).
   */
  scopes(req: ScopeRequest | string[] = {}): Promise<ScopedCatalog[]> {
    return searchScopes(this.#gf, Array.isArray(req) ? { catalogs: req } : req);
  }

  async search(req: SearchRequest): Promise<SearchResponse> {
    const started = performance.now();
    const size = req.size ?? 10;
    if (!Number.isInteger(size) || size < 1 || size > 1000) {
      throw new CrawlerError('BAD_INPUT', `--size ${size} is out of range`, {
        fix: 'use a whole number from 1 to 1000',
      });
    }
    const published = await this.scopes(req);
    if (published.length === 0) {
      throw new CrawlerError('NOT_FOUND', 'nothing has been published to search yet', {
        fix: 'a crawl publishes its version when it ends normally: greenfinger crawl --url <site>',
      });
    }
    const asked = req.mode ?? 'words';
    if (req.like !== undefined) {
      return {
        ...(await this.#picturesLike(req, published, size)),
        elapsedMs: Math.round(performance.now() - started),
      };
    }
    if (req.q.trim() === '' && asked !== 'pictures') {
      const kept = await keptListing(this.#gf, published, size, req.cursor);
      return { mode: asked === 'auto' ? 'words' : asked, ...kept, elapsedMs: Math.round(performance.now() - started) };
    }
    const mode = asked === 'auto' ? await this.defaultMode(published) : asked;
    if (mode === 'pictures') {
      return { ...(await this.#pictures(req, published, size)), elapsedMs: Math.round(performance.now() - started) };
    }
    const answer =
      mode === 'words'
        ? await this.#words(req, published, size)
        : mode === 'meaning'
          ? await this.#meaning(req, published, size)
          : await this.#hybrid(req, published, size);
    await this.#addPictures(answer.results);
    return { ...answer, elapsedMs: Math.round(performance.now() - started) };
  }

  /** One result per picture, ranked over the picture records of the versions in scope; paged by offset. */
  async #pictures(
    req: SearchRequest,
    published: Array<ScopedCatalog>,
    size: number,
  ): Promise<Omit<SearchResponse, 'elapsedMs'>> {
    const offset = offsetOf(req.cursor, 'pictures');
    const f = this.#gf;
    const r = await findPictures(f.index(), () => f.embedding(), req.q, published, size, offset, imageSearch(f));
    const note = r.supported ? r.note : `the index "${f.index().name}" keeps no picture records to search`;
    return {
      ...picturePage(r.hits, r.total, offset, namesOf(published)),
      rankings: r.rankings,
      ...(note ? { note } : {}),
    };
  }

  /**
   * Pictures like one (`like`, picture-search.ts): only in pictures mode, and instead of a query's words, which it
   * refuses beside it (a 400 naming both) rather than silently ignoring one of them.
   */
  async #picturesLike(
    req: SearchRequest,
    published: Array<ScopedCatalog>,
    size: number,
  ): Promise<Omit<SearchResponse, 'elapsedMs'>> {
    const asked = req.mode ?? 'words';
    if (asked !== 'pictures' && asked !== 'auto') {
      throw new CrawlerError('BAD_INPUT', `like: pictures like one are found by pictures search, not mode ${asked}`, {
        fix: 'set mode to pictures (--mode pictures), or leave it out',
      });
    }
    const like = (req.like ?? '').trim();
    if (!like) {
      throw new CrawlerError('BAD_INPUT', 'like is blank', {
        fix: 'give the id of a pictures result: greenfinger search "<words>" --mode pictures --json',
      });
    }
    if (req.q.trim() !== '') {
      throw new CrawlerError('BAD_INPUT', 'q and like together: a search is by its words or like a picture, not both', {
        fix: 'leave the query (q) blank to find pictures like the one named, or leave like out to search by words',
      });
    }
    const offset = offsetOf(req.cursor, 'pictures');
    const r = await findPicturesLike(this.#gf.index(), like, published, size, offset, this.#gf.settings.imageModel);
    const names = namesOf(published);
    return {
      ...picturePage(r.results, r.total, offset, names),
      likeBy: r.by,
      likeOf: pictureResult(r.source, names),
    };
  }

  /**
   * Gives each page result its pictures, deduplicated by image id: a words hit carries them from its index
   * document, a meaning hit (whose vector holds none) gets them from the index documents of its page.
   */
  async #addPictures(results: SearchHit[]): Promise<void> {
    const missing = results.filter((r) => r.pictures === undefined);
    if (missing.length === 0) return;
    const index = this.#gf.index();
    const found = index.picturesOfPages
      ? await index.picturesOfPages(missing.map((r) => ({ catalogId: r.catalogId, id: r.id })))
      : new Map<string, PagePicture[]>();
    for (const r of missing) r.pictures = found.get(r.id) ?? [];
  }

  async #words(
    req: SearchRequest,
    published: Array<ScopedCatalog>,
    size: number,
  ): Promise<Omit<SearchResponse, 'elapsedMs'>> {
    if (req.cursor !== undefined && /^\d+$/.test(req.cursor)) {
      throw new CrawlerError('BAD_INPUT', `offset ${req.cursor}: words search pages by cursor, not by offset`, {
        fix: 'pass the nextCursor of the previous page (offset is for meaning, hybrid and pictures)',
      });
    }
    const scopes = published.map((c) => ({ catalogId: c.catalogId, version: c.version }));
    const r = await wordsSearch(this.#gf.index(), { ...req, scopes }, size);
    const names = namesOf(published);
    return {
      mode: 'words',
      match: r.match,
      results: r.results.map((h) => ({ ...hit(h, h.id, h.highlights, names), pictures: uniquePictures(h.images) })),
      total: r.total,
      nextCursor: r.nextCursor,
    };
  }

  /**
   * Meaning reads the version the registry names for it: while a rebuilt version's vectors are being written, the
   * previous complete one; else the served one, with the vectors written so far.
   */
  async #meaningHits(req: SearchRequest, published: Array<ScopedCatalog>, size: number, offset: number) {
    const meaningScopes = published.map((c) => ({ catalogId: c.catalogId, version: meaningVersionOf(c) }));
    const searcher = new VectorSearcher({ store: await this.#gf.vectors(), embedder: await this.#gf.embedding() });
    return searcher.search({ q: req.q, scopes: meaningScopes, size, offset, preferDetailPages: req.preferDetailPages });
  }

  async #meaning(
    req: SearchRequest,
    published: Array<ScopedCatalog>,
    size: number,
  ): Promise<Omit<SearchResponse, 'elapsedMs'>> {
    const offset = offsetOf(req.cursor, 'meaning');
    const r = await this.#meaningHits(req, published, size, offset);
    const notice = embeddingNotice(published);
    const note = r.found === 0 ? noVectorsNote(published) : undefined;
    return {
      mode: 'meaning',
      results: r.results.map((h) => hit(h, h.resourceId, [excerpt(h.chunk)], namesOf(published))),
      // A vector search has no total: while more exist it counts the pages returned up to here (nextCursor says
      // more exist); on the last page, the pages found in all — never the offset asked for when nothing is there.
      total: r.nextOffset !== null ? offset + r.results.length : Math.min(r.found, offset + r.results.length),
      ...(note ? { note } : {}),
      nextCursor: r.nextOffset === null ? null : String(r.nextOffset),
      ...(notice ? { embedding: notice } : {}),
    };
  }

  /**
   * Words and meaning, each read `fusionDepth` deep from the top, fused by reciprocal rank, one result per page,
   * paged by offset. The words list holds the pages with any of the words, by bm25: a question put in other words
   * than the page's rarely has all of them on the right page, and often all of them on the longest pages. The highlights are the words passages when words found the page, else its best chunk. Without
   * any vector in the catalogs searched the answer is the words one, and says so (`mode: words` and a note).
   */
  async #hybrid(
    req: SearchRequest,
    published: Array<ScopedCatalog>,
    size: number,
  ): Promise<Omit<SearchResponse, 'elapsedMs'>> {
    const offset = offsetOf(req.cursor, 'hybrid');
    const depth = fusionDepth(offset, size);
    const [meaning, words] = await Promise.all([
      this.#meaningHits(req, published, depth, 0),
      this.#gf.index().search({
        q: req.q,
        scopes: published.map((c) => ({ catalogId: c.catalogId, version: c.version })),
        size: depth,
        preferDetailPages: req.preferDetailPages,
        match: 'any',
        // A words hit ranked below offset + size shows only when meaning lifted it, with the meaning passage.
        highlightFirst: offset + size,
      }),
    ]);
    if (meaning.found === 0 && offset === 0) {
      const r = await this.#words({ ...req, cursor: undefined }, published, size);
      return { ...r, note: `${noVectorsNote(published)}; this answer is words alone` };
    }
    const fused = fuseRanks<WordsHit, MeaningHit>(words.results, meaning.results, {
      words: (h) => h.id,
      meaning: (h) => h.resourceId,
    });
    const names = namesOf(published);
    const results = fused.slice(offset, offset + size).map((f) => {
      const highlights = f.words?.highlights.length ? f.words.highlights : f.meaning ? [excerpt(f.meaning.chunk)] : [];
      const from = (f.words ?? f.meaning) as WordsHit | MeaningHit;
      const pictures = f.words ? { pictures: uniquePictures(f.words.images) } : {};
      return { ...hit(from, f.id, highlights, names), score: f.score, ...pictures };
    });
    const more = fused.length > offset + size && offset + size <= MAX_MEANING_OFFSET;
    const notice = embeddingNotice(published);
    return {
      mode: 'hybrid',
      results,
      // Pages holding the words, or more when meaning found pages words did not: a lower bound, as for meaning.
      total: Math.max(words.total, more ? offset + results.length : Math.min(fused.length, offset + results.length)),
      nextCursor: more ? String(offset + size) : null,
      ...(notice ? { embedding: notice } : {}),
    };
  }
}

/** A pictures result as every front end shows it (title: its alt text; url: the picture's own url). */
/** One page of pictures results from `offset`, with the cursor of the next while under the offset cap. */
function picturePage(hits: PictureHit[], total: number, offset: number, names: Map<string, string>) {
  const results = hits.map((h) => pictureResult(h, names));
  const next = offset + results.length;
  return {
    mode: 'pictures' as const,
    results,
    total,
    nextCursor: next < total && next <= MAX_MEANING_OFFSET ? String(next) : null,
  };
}

function pictureResult(h: PictureHit, names: Map<string, string>): PictureSearchHit {
  return {
    id: h.id,
    title: pictureTitle(h),
    url: h.pictureUrl,
    catalog: names.get(h.catalogId) ?? h.catalogName,
    catalogId: h.catalogId,
    version: h.version,
    score: h.score,
    highlights: h.highlights,
    textPath: '',
    pictureUrl: h.pictureUrl,
    file: h.file,
    width: h.width,
    height: h.height,
    alt: h.alt,
    caption: h.caption,
    imageId: h.imageId,
    pages: h.pages,
    pageCount: h.pageCount,
  };
}

/** The published catalogs' names by id. */
function namesOf(published: PublishedCatalog[]): Map<string, string> {
  return new Map(published.map((c) => [c.catalogId, c.name]));
}

/** Why a meaning search of these catalogs found nothing to read. */
function noVectorsNote(published: PublishedCatalog[]): string {
  return `no text vectors to search in ${published.map((c) => `"${c.name}"`).join(', ')}: meaning search needs the vector output — add "vector" to the catalog's outputs, then replay --layers=vector`;
}

/** The offset a meaning or hybrid cursor carries. */
function offsetOf(cursor: string | undefined, mode: SearchMode): number {
  const offset = cursor ? Number(cursor) : 0;
  if (!Number.isInteger(offset) || offset < 0) {
    throw new CrawlerError('BAD_INPUT', `cursor "${cursor}" is not an offset`, {
      fix: `pass the nextCursor of the previous ${mode} search`,
    });
  }
  if (offset > MAX_MEANING_OFFSET) {
    throw new CrawlerError(
      'BAD_INPUT',
      `offset ${offset} (cursor) is deeper than ${mode} search pages: at most ${MAX_MEANING_OFFSET}`,
      {
        fix: 'narrow the query, the catalogs or the category instead of paging further, or search by words (mode words), whose cursor pages to any depth',
      },
    );
  }
  return offset;
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
