/** How the embedded full-text index (SqliteFtsIndex) is opened; the off-thread writer opens its copy with the same. */
export interface SqliteFtsIndexOptions {
  /** The `user/index` directory (DataLayout.indexRoot). */
  root: string;
  /** GF_INDEX_PREFIX: each catalog lives in `<root>/<prefix>-<catalogId>/index.db`. */
  prefix: string;
  /**
   * bm25 weights of title, text and image text. A word in the title says far more about what a page is
   * than one in the body, and alt text is the weakest, most boilerplate-prone signal.
   * @default [10, 1, 0.5]
   */
  weights?: readonly [number, number, number];
  /** Tokens per highlight passage. @default 16 */
  snippetTokens?: number;
  /**
   * optimize() gives a term a champion list in a version when its document frequency there is at least this.
   * @default 4000
   */
  championMinDf?: number;
  /** Documents kept per champion list (the best by the term's own score). @default 1000 */
  championSize?: number;
  /**
   * Answer queries whose every term has a champion list from those lists (an approximation of the exact top
   * hits; see docs/search.md). false: always rank every match. @default true
   */
  championSearch?: boolean;
  /** optimize() first merges the FTS5 index into one segment (faster walks of long posting lists). @default true */
  mergeOnOptimize?: boolean;
  /**
   * optimize() builds the word-pair table (fts-pairs.ts), which answers phrases without reading positions, for a
   * version of at least this many documents; 0: never (and an existing one is dropped). Needs Greenfinger's
   * SQLite extension (native/gf_fts.c); without it phrases are read from positions as before. @default 10000
   */
  pairsMinDocs?: number;
  /** Read queries of phrases from a current word-pair table. false: from word positions, always. @default true */
  pairSearch?: boolean;
}
