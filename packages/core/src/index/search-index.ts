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
  images: Array<{ id: string; path: string; url: string; alt: string }>;
  linkDensity: number;
  fetchedAt: string;
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
}

/** What SearchIndex.optimize did for one published version. */
export interface OptimizeStats {
  catalogId: string;
  version: number;
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
  /** Why a version big enough for the word-pair table has none (the SQLite extension is not built or not loading). */
  pairsUnavailable?: string;
  ms: number;
}

/** IndexAdmin + Searcher of one index family (embedded FTS by default). */
export interface SearchIndex {
  readonly name: string;
  upsert(docs: IndexDocument[]): Promise<void>;
  deleteVersion(catalogId: string, version: number): Promise<number>;
  countVersion(catalogId: string, version: number): Promise<number>;
  /** Remove the whole index of a catalog (purge). */
  purge(catalogId: string): Promise<void>;
  search(query: WordsQuery): Promise<WordsResult>;
  /**
   * Prepares a version for serving once its writes are done (called just before it is published): for the
   * embedded FTS index, merges the index and builds the champion lists of its frequent terms.
   */
  optimize?(catalogId: string, version: number): Promise<OptimizeStats>;
  close(): Promise<void>;
}
