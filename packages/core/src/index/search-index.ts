import type { SharedThread } from '../worker-entry.js';

/** One document of the embedded full-text index: self-contained, search never reads the database. */
export interface IndexDocument {
  /** = resource id */
  id: string;
  catalogId: string;
  catalogName: string;
  version: number;
  url: string;
  title: string;
  text: string;
  /** Alt and surrounding text of the page's pictures, joined. */
  imageText: string;
  htmlPath: string;
  textPath: string;
  images: IndexImage[];
  linkDensity: number;
  fetchedAt: string;
}

/**
 * A kept picture of a page as its index document carries it. The index also keeps one picture record per picture
 * (keyed by `ids.imagePoint`) built from these, for pictures search: `caption`, `width` and `height` feed it.
 */
export interface IndexImage {
  /** The image id (`ids.image`): one per picture content in a version. */
  id: string;
  /** The stored file, under the data root's `user/`. */
  path: string;
  /** The picture's own url. */
  url: string;
  alt: string;
  /** The `<figure>` caption, else the text of the block the picture sits in (~300 characters). */
  caption?: string | undefined;
  width?: number | null | undefined;
  height?: number | null | undefined;
}

/** A pictures search: the picture records of the versions in scope, ranked by their words. */
export interface PictureQuery {
  q: string;
  scopes: Array<{ catalogId: string; version: number }>;
  size: number;
  /** Results to skip (at most 1,000). @default 0 */
  offset?: number | undefined;
}

/** A page that shows a picture. */
export interface PicturePage {
  /** The page's resource id. */
  id: string;
  url: string;
  title: string;
}

/** One picture found: what the picture record holds, with the passage that matched. */
export interface PictureHit {
  /** The picture record's id, `ids.imagePoint(catalog, version, imageId)`. */
  id: string;
  imageId: string;
  catalogId: string;
  catalogName: string;
  version: number;
  /** The picture's own url. */
  pictureUrl: string;
  /** The stored file, under the data root's `user/`. */
  file: string;
  width: number | null;
  height: number | null;
  alt: string;
  /** The caption or surrounding text of the picture, as first seen. */
  caption: string;
  /** The record's text that matched, with the matches in <em>…</em> (HTML-escaped). */
  highlights: string[];
  score: number;
  /** The pages that show it (the first 100), and how many there are. */
  pages: PicturePage[];
  pageCount: number;
}

export interface PictureResult {
  results: PictureHit[];
  /** Pictures that hold any of the words, in scope. */
  total: number;
}

/** "Pictures like this one": the others of the versions in scope nearest to one picture's vector. */
export interface PictureLikeQuery {
  /** The picture: its record's id (`ids.imagePoint`, a pictures result's `id`) or its image id (`imageId`). */
  like: string;
  scopes: Array<{ catalogId: string; version: number }>;
  size: number;
  /** Results to skip (at most 1,000). @default 0 */
  offset?: number | undefined;
  /** The image model whose vectors are compared first, when the picture has image vectors of several. */
  imageModel?: string | undefined;
}

export interface PictureLikeResult {
  /** The picture named; null when no version in scope holds it. */
  source: PictureHit | null;
  /**
   * What was compared: the pictures' image vectors (`image`, when the picture named has one), else their
   * caption-meaning vectors; null when the picture named has neither.
   */
  by: 'image' | 'caption meaning' | null;
  /** The other pictures, nearest first (score: cosine), the picture itself and its copies in other versions left out. */
  results: PictureHit[];
  /** The other pictures with a vector, in scope. */
  total: number;
  /** Picture vectors the versions in scope hold (0: the vector layer never embedded their pictures). */
  vectors: number;
}

export interface WordsQuery {
  q: string;
  /** `catalogId:version` pairs to search (the published versions). */
  scopes: Array<{ catalogId: string; version: number }>;
  size: number;
  /** Opaque cursor from the previous page's nextCursor. */
  cursor?: string | undefined;
  /** Rank detail pages above listings by link density. @default true */
  preferDetailPages?: boolean | undefined;
  /**
   * `all`: pages holding every word, else (none does) pages holding any; `any`: pages holding any word, ranked by
   * bm25 over the words they hold (what hybrid search reads for a question of several words). @default 'all'
   */
  match?: 'all' | 'any' | undefined;
  /** Only the first this many hits get highlights, the others none (hybrid reads deeper than it shows). */
  highlightFirst?: number | undefined;
}

export interface WordsHit {
  id: string;
  catalogId: string;
  catalogName: string;
  version: number;
  url: string;
  title: string;
  score: number;
  /** Passages with matches wrapped in <em>…</em>. */
  highlights: string[];
  htmlPath: string;
  textPath: string;
  images: IndexDocument['images'];
}

export interface WordsResult {
  results: WordsHit[];
  total: number;
  nextCursor: string | null;
  /** How the pages matched: `all` their words, or `any` (asked for, or no page held them all). */
  match?: 'all' | 'any' | undefined;
}

/**
 * What SearchIndex.optimize did for one version, in terms every index family can give: how long it took, what went
 * wrong without failing it (e.g. a feature its files could not get), and the family's own figures in `details`
 * (the embedded FTS: champion lists, word pairs, the merge; see FtsOptimizeStats).
 */
export interface OptimizeReport {
  catalogId: string;
  version: number;
  /** Wall time, milliseconds. */
  ms: number;
  /** Problems that left the version searchable but less prepared than asked (log them; never fatal). */
  warnings: string[];
  /** The family's own figures, for logs and diagnostics. */
  details: Record<string, unknown>;
}

/** What the embedded FTS index's optimize built for one version (OptimizeReport.details of SqliteFtsIndex). */
export interface FtsOptimizeDetails {
  /** Terms given a champion list: document frequency in the version of at least `minDf`. */
  terms: number;
  /** Frequent terms left without a list (the index cannot be queried for exactly that term). */
  skipped: number;
  /** Postings scored to build the lists (the sum of those terms' document frequencies). */
  postings: number;
  minDf: number;
  /** Documents kept per list. */
  size: number;
  /** Highest document number at the build: documents added later are searched exactly (the delta). */
  watermark: number;
  /** Whether the index's segments were merged into one first. */
  merged: boolean;
  /**
   * The word-pair table that answers phrases (built for a version of at least `pairsMinDocs` documents):
   * documents indexed, frequent pairs given a champion list (counted in `terms` too), time.
   */
  pairs?: { documents: number; terms: number; ms: number };
  [key: string]: unknown;
}

/**
 * SqliteFtsIndex.optimize's report. A version big enough for the word-pair table that has none (the SQLite extension
 * is not built or not loading) says why in `warnings`.
 */
export interface FtsOptimizeStats extends OptimizeReport {
  details: FtsOptimizeDetails;
}

/** @deprecated the embedded index's report is FtsOptimizeStats; the generic one is OptimizeReport. */
export type OptimizeStats = FtsOptimizeStats;

/** The documents of one catalog an index holds. */
export interface IndexCatalogStats {
  catalogId: string;
  /** Documents per version, by version. */
  versions: Array<{ version: number; documents: number }>;
  documents: number;
  /** Bytes on disk of this catalog's index, when the family can say. */
  bytes?: number | undefined;
}

/** What an index holds (`index-info`): documents per catalog and version, and bytes on disk when known. */
export interface IndexStats {
  /** The family's name (SearchIndex.name). */
  name: string;
  /** By catalog id. */
  catalogs: IndexCatalogStats[];
  /** Bytes on disk of the whole index, when the family can say. */
  bytes?: number | undefined;
}

/** IndexAdmin + Searcher of one index family (embedded FTS by default). */
export interface SearchIndex {
  readonly name: string;
  upsert(docs: IndexDocument[]): Promise<void>;
  deleteVersion(catalogId: string, version: number): Promise<number>;
  countVersion(catalogId: string, version: number): Promise<number>;
  /**
   * Remove one page's document from a version (a url deleted by hand); `dryRun`: count it and remove nothing.
   * Returns the documents removed (or that would be): 0 or 1.
   */
  deleteResource(catalogId: string, version: number, resourceId: string, dryRun?: boolean): Promise<number>;
  /** Remove the whole index of a catalog (purge). */
  purge(catalogId: string): Promise<void>;
  search(query: WordsQuery): Promise<WordsResult>;
  /**
   * Pictures search over the picture records of the versions in scope, one hit per picture; a family without
   * picture records omits it (pictures mode then says so).
   */
  searchPictures?(query: PictureQuery): Promise<PictureResult>;
  /**
   * Stores the text vectors of picture records (`id`: the record's, `ids.imagePoint`): the vector layer embeds each
   * picture once per run. They go with the version's records.
   */
  upsertPictureVectors?(
    catalogId: string,
    vectors: Array<{ id: string; version: number; vector: Float32Array }>,
  ): Promise<void>;
  /** How many picture vectors the versions in scope hold (0: pictures search is words alone, no model to load). */
  pictureVectorCount?(scopes: Array<{ catalogId: string; version: number }>): Promise<number>;
  /**
   * Stores the image vectors of picture records (`id`: the record's, `ids.imagePoint`) that the image model `model`
   * gave from the pictures' bytes (catalog `contentMode` `text+image`). They go with the version's records.
   */
  upsertPictureImageVectors?(
    catalogId: string,
    model: string,
    vectors: Array<{ id: string; version: number; vector: Float32Array }>,
  ): Promise<void>;
  /** How many image vectors the versions in scope hold: of `model`, or of any model when none is named. */
  pictureImageVectorCount?(scopes: Array<{ catalogId: string; version: number }>, model?: string): Promise<number>;
  /** The picture records whose image vectors of `model` are nearest to a vector, best first (cosine as score). */
  searchPicturesByImageVector?(query: {
    vector: Float32Array;
    model: string;
    scopes: Array<{ catalogId: string; version: number }>;
    size: number;
  }): Promise<PictureHit[]>;
  /** The picture records nearest by meaning to a query vector, best first (cosine as score, no highlights). */
  searchPicturesByVector?(query: {
    vector: Float32Array;
    scopes: Array<{ catalogId: string; version: number }>;
    size: number;
  }): Promise<PictureHit[]>;
  /** Pictures like one picture, by its stored vector (no model is loaded); a family without them omits it. */
  picturesLike?(query: PictureLikeQuery): Promise<PictureLikeResult>;
  /**
   * The pictures of pages, read from their index documents (a meaning hit's page has none in its vector payload):
   * by resource id, deduplicated by image id. Pages the index does not hold are left out.
   */
  picturesOfPages?(pages: Array<{ catalogId: string; id: string }>): Promise<Map<string, IndexImage[]>>;
  /** Documents per catalog and version, and bytes on disk when the family can say. */
  stats(): Promise<IndexStats>;
  /**
   * Check a catalog's index before a run writes to it (the embedded index: SQLite's quick_check of its file), so a
   * damaged copy is named with its fix instead of being written on. @throws CrawlerError CORRUPT
   */
  verify?(catalogId: string): Promise<void>;
  /**
   * Prepares a version for serving once its writes are done (called just before it is published): for the
   * embedded FTS index, merges the index and builds the champion lists of its frequent terms.
   */
  optimize?(catalogId: string, version: number): Promise<OptimizeReport>;
  /**
   * The index a crawl or a replay writes through (upsert, optimize at publish; everything else may go to this
   * index). The embedded FTS index returns an OffThreadIndex over itself: writes and optimize run on a worker
   * thread (`thread` when one is lent, e.g. an extraction worker's; a thread of its own otherwise). A family whose
   * writes cost the event loop nothing omits it (or returns itself): write through the index itself.
   * Close what you got when it is not this index; closing it leaves this index open.
   */
  openWriter?(options?: { thread?: SharedThread | undefined }): SearchIndex;
  close(): Promise<void>;
}
