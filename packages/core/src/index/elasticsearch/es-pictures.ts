import { CLOSE, clean, OPEN, toHighlight } from '../fts-highlights.js';
import { fileNameWords, pictureRecordId } from '../fts-pictures.js';
import type { IndexDocument, IndexImage, PictureHit, PicturePage, PictureQuery } from '../search-index.js';
import { type AnalysisPlugins, catalogIndexBody, catalogVersionKey } from './es-mapping.js';
import { partQuery, queryParts, versionFilter } from './es-query.js';

/*
 * The picture records of a catalog on Elasticsearch, as the embedded index keeps them (fts-pictures.ts): one
 * document per kept picture of a version (`_id` `ids.imagePoint`), whatever number of pages show it, in the
 * catalog's picture index `{prefix}-{catalogId}-pictures`. Its alt texts, captions, the words of its file name, the
 * titles of the pages that show it (and its folders), and those pages. Pure builders, no client (unit tests read
 * them as they are sent).
 */

/** Weights of alt, caption, file name words and context (page titles, folders): the embedded bm25 weights. */
export const PICTURE_FIELDS = ['alt^6', 'caption^2', 'name^4', 'context^1'] as const;
/** Distinct alt texts and captions kept per picture. */
const MAX_TEXTS = 3;
/** Pages listed per picture (the count goes on). */
const MAX_PAGES = 100;
/** Distinct page titles in the context. */
const MAX_TITLES = 5;
/** Deepest result a pictures search reaches (size and offset each), as the embedded index. */
export const MAX_PICTURE_PAGE = 1000;

/** The `_source` of a picture record. `alt` and `caption` are newline-joined distinct texts, the first as seen first. */
export interface EsPictureSource {
  id: string;
  imageId: string;
  catalogId: string;
  catalogName: string;
  version: number;
  catalogVersion: string;
  url: string;
  path: string;
  width: number | null;
  height: number | null;
  alt: string;
  caption: string;
  name: string;
  context: string;
  dirs: string;
  pages: PicturePage[];
  /** The ids of `pages`, a keyword field: a page's records are found by it. */
  pageIds: string[];
  pageCount: number;
}

/** A catalog's picture index: beside its page index, not a catalog index itself (catalogOfIndex rejects it). */
export function pictureIndexName(catalogIndex: string): string {
  return `${catalogIndex}-pictures`;
}

/** Settings and mappings of a picture index: the page index's analysis (words, folding, stems). */
export function pictureIndexBody(plugins: AnalysisPlugins): {
  settings: Record<string, unknown>;
  mappings: Record<string, unknown>;
} {
  const text = { type: 'text', analyzer: 'gf_text', index_options: 'offsets' };
  return {
    settings: catalogIndexBody(plugins).settings,
    mappings: {
      dynamic: false,
      properties: {
        id: { type: 'keyword' },
        catalogId: { type: 'keyword' },
        catalogVersion: { type: 'keyword' },
        version: { type: 'integer' },
        alt: text,
        caption: text,
        name: text,
        context: text,
        pageIds: { type: 'keyword' },
        pageCount: { type: 'integer' },
      },
    },
  };
}

/** Adds `text` to a newline-joined list of distinct texts, at most `max` of them. */
function addDistinct(list: string, text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (!t) return list;
  const items = list ? list.split('\n') : [];
  if (items.includes(t) || items.length >= max) return list;
  items.push(t);
  return items.join('\n');
}

/** The ids of the picture records these page documents touch (one per picture per version). */
export function pictureRecordIds(catalogId: string, docs: readonly IndexDocument[]): string[] {
  const ids = new Set<string>();
  for (const d of docs)
    for (const img of d.images ?? []) if (img.id) ids.add(pictureRecordId(catalogId, d.version, img.id));
  return [...ids];
}

/**
 * The picture records after writing these page documents, from the records held before (`known`, by id; updated in
 * place): a new picture gets its record, a known one gains the page (replaced when the page is written again) and
 * any alt text or caption not yet held. Returns the records changed.
 */
export function mergePictureRecords(
  catalogId: string,
  docs: readonly IndexDocument[],
  known: Map<string, EsPictureSource>,
): EsPictureSource[] {
  const changed = new Map<string, EsPictureSource>();
  for (const d of docs) {
    const seen = new Set<string>();
    for (const img of d.images ?? []) {
      if (!img.id || seen.has(img.id)) continue;
      seen.add(img.id);
      const record = mergeOne(catalogId, d, img, known.get(pictureRecordId(catalogId, d.version, img.id)));
      known.set(record.id, record);
      changed.set(record.id, record);
    }
  }
  return [...changed.values()];
}

function mergeOne(catalogId: string, d: IndexDocument, img: IndexImage, old: EsPictureSource | undefined) {
  const page: PicturePage = { id: d.id, url: d.url, title: d.title };
  const before = old?.pages ?? [];
  const had = before.some((p) => p.id === d.id);
  const pages = had
    ? before.map((p) => (p.id === d.id ? page : p))
    : before.length < MAX_PAGES
      ? [...before, page]
      : before;
  const { name, dirs } = old ? { name: old.name, dirs: old.dirs } : fileNameWords(img.url);
  const titles = [...new Set(pages.map((p) => p.title).filter(Boolean))].slice(0, MAX_TITLES);
  return {
    id: pictureRecordId(catalogId, d.version, img.id),
    imageId: img.id,
    catalogId,
    catalogName: d.catalogName,
    version: d.version,
    catalogVersion: catalogVersionKey(catalogId, d.version),
    url: img.url,
    path: img.path,
    width: img.width ?? old?.width ?? null,
    height: img.height ?? old?.height ?? null,
    alt: addDistinct(old?.alt ?? '', clean(img.alt ?? ''), MAX_TEXTS),
    caption: addDistinct(old?.caption ?? '', clean(img.caption ?? ''), MAX_TEXTS),
    name,
    context: clean(titles.join('\n')) + (dirs ? `\n${dirs}` : ''),
    dirs,
    pages,
    pageIds: pages.map((p) => p.id),
    pageCount: (old?.pageCount ?? 0) + (had ? 0 : 1),
  } satisfies EsPictureSource;
}

/**
 * A record without one page (a page deleted): null when no page is left (the record goes), as the embedded index
 * drops a record whose count reaches zero.
 */
export function withoutPage(record: EsPictureSource, resourceId: string): EsPictureSource | null {
  const pages = record.pages.filter((p) => p.id !== resourceId);
  if (record.pageCount <= 1 || pages.length === 0) return null;
  return { ...record, pages, pageIds: pages.map((p) => p.id), pageCount: record.pageCount - 1 };
}

/** The records of a version that list a page. */
export function picturesOfPageQuery(catalogId: string, version: number, resourceId: string): Record<string, unknown> {
  return {
    bool: {
      filter: [{ term: { catalogVersion: catalogVersionKey(catalogId, version) } }, { term: { pageIds: resourceId } }],
    },
  };
}

/**
 * The search request of a pictures search (index names apart), or null when it finds nothing without asking (a
 * query that is not blank but holds no word). Words: any of them in any field, ranked by the weighted bm25 of the
 * fields, ties by id. Blank: the versions' pictures, those shown on the most pages first.
 */
export function pictureSearchRequest(query: PictureQuery): Record<string, unknown> | null {
  const size = Math.min(Math.max(Math.trunc(query.size), 0), MAX_PICTURE_PAGE);
  const from = Math.min(Math.max(Math.trunc(query.offset ?? 0), 0), MAX_PICTURE_PAGE);
  const parts = queryParts(query.q);
  const filter = [versionFilter(query.scopes)];
  const page = { from, size, track_total_hits: true };
  if (parts.length === 0) {
    if (query.q.trim() !== '') return null;
    return {
      ...page,
      query: { bool: { filter } },
      sort: [{ pageCount: { order: 'desc' } }, { id: { order: 'asc' } }],
    };
  }
  const fragment = { number_of_fragments: 1, fragment_size: 150, no_match_size: 0 };
  return {
    ...page,
    query: {
      bool: {
        should: parts.map((p) => partQuery(p, [...PICTURE_FIELDS])),
        minimum_should_match: 1,
        filter,
      },
    },
    sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }],
    track_scores: true,
    highlight: {
      pre_tags: [OPEN],
      post_tags: [CLOSE],
      encoder: 'default',
      require_field_match: true,
      fields: { caption: fragment, alt: fragment, name: fragment, context: fragment },
    },
  };
}

/** One hit of a pictures search as the client gives it. */
export interface EsPictureHit {
  _source?: EsPictureSource | undefined;
  _score?: number | null | undefined;
  highlight?: Record<string, string[]> | undefined;
}

/** A hit as searchPictures returns it: the record, its score (the page count for a blank query), two passages. */
export function toPictureHit(hit: EsPictureHit, blank: boolean): PictureHit {
  const s = hit._source as EsPictureSource;
  const highlights: string[] = [];
  for (const field of ['caption', 'alt', 'name', 'context']) {
    const h = toHighlight(hit.highlight?.[field]?.[0] ?? '');
    if (h && highlights.length < 2) highlights.push(h);
  }
  return {
    id: s.id,
    imageId: s.imageId,
    catalogId: s.catalogId,
    catalogName: s.catalogName,
    version: s.version,
    pictureUrl: s.url,
    file: s.path,
    width: s.width,
    height: s.height,
    alt: s.alt.split('\n')[0] ?? '',
    caption: s.caption.split('\n')[0] ?? '',
    highlights,
    score: blank ? s.pageCount : Number(hit._score ?? 0),
    pages: s.pages,
    pageCount: s.pageCount,
  };
}
