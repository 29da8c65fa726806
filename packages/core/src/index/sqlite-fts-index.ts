import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CrawlerError } from '../errors.js';
import { bytesIn } from '../storage/dir-bytes.js';
import { checkSqliteFile } from '../storage/sqlite-check.js';
import type { SharedThread } from '../worker-entry.js';
import { segmentCjk } from './cjk.js';
import { buildChampionLists } from './fts-champions.js';
import { ftsExtensionProblem } from './fts-extension.js';
import { clean } from './fts-highlights.js';
import {
  imageVectorCount,
  picturesByImageVector,
  type ScopedCatalogIndex,
  storeImageVectors,
} from './fts-image-search.js';
import type { SqliteFtsIndexOptions } from './fts-options.js';
import { buildPairs, dropPairs } from './fts-pairs.js';
import { countPictureVectors, nearestPictures, putPictureVectors } from './fts-picture-vectors.js';
import {
  deletePicturesOfVersion,
  likePictures,
  picturesById,
  rankPictures,
  removePageFromPictures,
  upsertPictures,
} from './fts-pictures.js';
import { toFtsQuery } from './fts-query.js';
import { type CatalogIndex, openCatalogIndex, scopeToken } from './fts-schema.js';
import { type CatalogScope, type FtsSearchSettings, type SearchPlan, scopeOf, searchCatalogs } from './fts-search.js';
import { OffThreadIndex } from './off-thread-index.js';
import { decodeCursor } from './search-cursor.js';
import type {
  FtsOptimizeStats,
  IndexCatalogStats,
  IndexDocument,
  IndexImage,
  IndexStats,
  PictureHit,
  PictureLikeQuery,
  PictureLikeResult,
  PictureQuery,
  PictureResult,
  SearchIndex,
  WordsQuery,
  WordsResult,
} from './search-index.js';

export type { SqliteFtsIndexOptions } from './fts-options.js';
export type { SearchPlan, SearchPlanTarget } from './fts-search.js';

const MAX_PAGE = 1000;
const ID_RE = /^[A-Za-z0-9_-]{1,128}$/;
/** Entries of each champion list that keep their score (pages of a one-term query up to here need no bm25). */
const SCORED = 100;

/**
 * The embedded full-text index: SQLite FTS5 (porter stemming, Unicode, diacritics folded), one database file
 * per catalog. Documents are self-contained, so a search renders its results without the database.
 * Ranking is bm25 over title, text and image text, times the link-density factor (1.5 − density, clamped to
 * 0.5..1.5) so detail pages rank above listings; paging is search_after on (score desc, id asc).
 * A query whose terms are all frequent is ranked among the terms' champion lists (built by optimize()) and
 * the documents added since, not among all its matches; `total` is always the exact count.
 */
export class SqliteFtsIndex implements SearchIndex {
  readonly name = 'sqlite-fts5';
  readonly #options: SqliteFtsIndexOptions;
  readonly #root: string;
  readonly #prefix: string;
  readonly #search: FtsSearchSettings;
  readonly #championMinDf: number;
  readonly #championSize: number;
  readonly #mergeOnOptimize: boolean;
  readonly #pairsMinDocs: number;
  readonly #open = new Map<string, CatalogIndex>();
  #closed = false;
  #lastPlan: SearchPlan | undefined;

  constructor(options: SqliteFtsIndexOptions) {
    this.#options = { ...options };
    this.#root = options.root;
    this.#prefix = options.prefix;
    this.#championMinDf = positiveInt(options.championMinDf ?? 4000, 'championMinDf');
    this.#championSize = positiveInt(options.championSize ?? 1000, 'championSize');
    this.#mergeOnOptimize = options.mergeOnOptimize ?? true;
    const pairsMinDocs = options.pairsMinDocs ?? 10_000;
    if (!Number.isInteger(pairsMinDocs) || pairsMinDocs < 0) {
      throw new CrawlerError('BAD_INPUT', `pairsMinDocs is ${pairsMinDocs}`, {
        fix: 'set pairsMinDocs to a whole number of documents, or 0 for no word-pair table',
      });
    }
    this.#pairsMinDocs = pairsMinDocs;
    this.#search = {
      weights: options.weights ?? [10, 1, 0.5],
      snippetTokens: options.snippetTokens ?? 16,
      championSearch: options.championSearch ?? true,
      pairSearch: options.pairSearch ?? true,
    };
  }

  /** Directory of one catalog's index. */
  dirOf(catalogId: string): string {
    return join(this.#root, `${this.#prefix}-${catalogId}`);
  }

  async verify(catalogId: string): Promise<void> {
    const dir = this.dirOf(catalogId);
    checkSqliteFile(
      join(dir, 'index.db'),
      'the full-text index',
      `delete ${dir}, then rebuild it from the stored pages: greenfinger replay --id ${catalogId} --layers index`,
    );
  }

  /** How the last search() ranked each catalog's matches (diagnostics and tests). */
  get lastPlan(): SearchPlan | undefined {
    return this.#lastPlan;
  }

  async upsert(docs: IndexDocument[]): Promise<void> {
    const byCatalog = new Map<string, IndexDocument[]>();
    for (const doc of docs) {
      if (!doc.id)
        throw new CrawlerError('BAD_INPUT', 'an index document has no id', { fix: 'set id to the resource id' });
      if (!Number.isInteger(doc.version) || doc.version < 0) {
        throw new CrawlerError('BAD_INPUT', `index document ${doc.id} has version ${doc.version}`, {
          fix: 'versions are integers from 0',
        });
      }
      const list = byCatalog.get(doc.catalogId) ?? [];
      list.push(doc);
      byCatalog.set(doc.catalogId, list);
    }
    for (const [catalogId, list] of byCatalog) {
      const cat = this.#catalog(catalogId, true) as CatalogIndex;
      cat.db.transaction(() => {
        for (const d of list) {
          cat.stmts.deleteId.run(d.id);
          cat.stmts.insert.run({
            id: d.id,
            version: d.version,
            catalog_name: d.catalogName,
            url: d.url,
            title: segmentCjk(clean(d.title)),
            text: segmentCjk(clean(d.text)),
            image_text: segmentCjk(clean(d.imageText)),
            scope: scopeToken(d.version),
            html_path: d.htmlPath,
            text_path: d.textPath,
            images: JSON.stringify(d.images ?? []),
            link_density: Number.isFinite(d.linkDensity) ? d.linkDensity : 0,
            fetched_at: d.fetchedAt,
          });
        }
        upsertPictures(cat.db, catalogId, list);
      })();
    }
  }

  async deleteVersion(catalogId: string, version: number): Promise<number> {
    const cat = this.#catalog(catalogId, false);
    if (!cat) return 0;
    return cat.db.transaction(() => {
      cat.stmts.deleteChampions.run(version);
      cat.stmts.deleteBuild.run(version);
      deletePicturesOfVersion(cat.db, version);
      return cat.stmts.deleteVersion.run(version).changes;
    })();
  }

  async deleteResource(catalogId: string, version: number, resourceId: string, dryRun = false): Promise<number> {
    const cat = this.#catalog(catalogId, false);
    if (!cat) return 0;
    const sql = dryRun
      ? 'SELECT count(*) AS n FROM docs WHERE id = ? AND version = ?'
      : 'DELETE FROM docs WHERE id = ? AND version = ?';
    const stmt = cat.db.prepare(sql);
    if (dryRun) return (stmt.get(resourceId, version) as { n: number }).n;
    return cat.db.transaction(() => {
      removePageFromPictures(cat.db, version, resourceId);
      return stmt.run(resourceId, version).changes;
    })();
  }

  async countVersion(catalogId: string, version: number): Promise<number> {
    const cat = this.#catalog(catalogId, false);
    if (!cat) return 0;
    return (cat.stmts.countVersion.get(version) as { n: number }).n;
  }

  async purge(catalogId: string): Promise<void> {
    this.#checkId(catalogId);
    const cat = this.#open.get(catalogId);
    if (cat) {
      cat.db.close();
      this.#open.delete(catalogId);
    }
    rmSync(this.dirOf(catalogId), { recursive: true, force: true });
  }

  /**
   * Prepares a version for serving: merges the FTS5 index into one segment (optional), then builds the
   * champion lists of the version — for each term in at least `championMinDf` of its documents, the
   * `championSize` documents with the best score for that term alone (same weights and link-density factor as
   * search) — and records the highest document number as the watermark (documents added later are searched
   * exactly). Rebuilding replaces the version's lists. A version big enough for the word-pair table that cannot
   * have one (the SQLite extension is not built or not loading) is reported in `warnings`.
   */
  async optimize(catalogId: string, version: number): Promise<FtsOptimizeStats> {
    if (!Number.isInteger(version) || version < 0) {
      throw new CrawlerError('BAD_INPUT', `cannot optimize version ${version}`, {
        fix: 'versions are integers from 0',
      });
    }
    const started = performance.now();
    const cat = this.#catalog(catalogId, false);
    const details: FtsOptimizeStats['details'] = {
      terms: 0,
      skipped: 0,
      postings: 0,
      minDf: this.#championMinDf,
      size: this.#championSize,
      watermark: 0,
      merged: false,
    };
    const report: FtsOptimizeStats = { catalogId, version, ms: 0, warnings: [], details };
    if (cat) {
      if (this.#mergeOnOptimize) {
        cat.db.exec(`INSERT INTO docs_fts(docs_fts) VALUES ('optimize')`);
        details.merged = true;
      }
      const documents = (cat.stmts.countVersion.get(version) as { n: number }).n;
      const wantsPairs = this.#pairsMinDocs > 0 && documents >= this.#pairsMinDocs;
      let pairs = false;
      if (wantsPairs && cat.extension) {
        const built = buildPairs(cat.db, this.#mergeOnOptimize);
        details.pairs = { documents: built.documents, terms: 0, ms: built.ms };
        pairs = built.ready;
      } else if (wantsPairs) {
        report.warnings.push(
          `no word-pair table for phrases: ${ftsExtensionProblem() ?? 'the SQLite extension gf_fts is not loaded'}`,
        );
      } else if (cat.stmts.hasPairs.get()) {
        // Too small a version now, or pairs turned off: the old table goes (it needs the extension to drop).
        if (cat.extension) dropPairs(cat.db);
      }
      const built = buildChampionLists(cat.db, cat.scratch, {
        pairs,
        version,
        scope: scopeOf(cat, [version]),
        minDf: this.#championMinDf,
        size: this.#championSize,
        scored: SCORED,
        weights: this.#search.weights,
      });
      const { pairTerms: pairLists, ...lists } = built;
      Object.assign(details, lists);
      if (details.pairs) details.pairs.terms = pairLists;
      if (details.merged) cat.db.pragma('wal_checkpoint(TRUNCATE)');
    }
    report.ms = performance.now() - started;
    return report;
  }

  async search(query: WordsQuery): Promise<WordsResult> {
    const size = Math.min(Math.max(Math.trunc(query.size), 0), MAX_PAGE);
    const after = query.cursor ? decodeCursor(query.cursor) : undefined;
    const fts = toFtsQuery(query.q);
    const empty: WordsResult = { results: [], total: 0, nextCursor: null };
    if (!fts.all) return empty;

    const versionsOf = new Map<string, Set<number>>();
    for (const s of query.scopes) {
      const set = versionsOf.get(s.catalogId) ?? new Set<number>();
      set.add(s.version);
      versionsOf.set(s.catalogId, set);
    }
    const catalogs: CatalogScope[] = [];
    for (const [catalogId, versions] of versionsOf) {
      const catalog = this.#catalog(catalogId, false);
      if (catalog) catalogs.push({ catalog, versions: [...versions] });
    }
    if (catalogs.length === 0) return empty;
    // Asked for any word (hybrid's words list), pages holding the query's words together rank first (fts-query.ts,
    // `near`); the fallback of an all-words search to any word stays plain.
    const any = query.match === 'any' ? (fts.near ?? fts.any) : fts.any;
    return searchCatalogs(this.#search, catalogs, { all: fts.all, any, near: null }, query, size, after, (plan) => {
      this.#lastPlan = plan;
    });
  }

  /**
   * Pictures search: each catalog's picture records in scope holding any of the words, ranked by bm25 over alt
   * text (×6), file name words (×4), captions (×2) and the titles of the pages that show it (×1); merged by score,
   * ties by id, paged by offset (at most 1,000). A blank query lists the pictures, those on the most pages first.
   */
  async searchPictures(query: PictureQuery): Promise<PictureResult> {
    const size = Math.min(Math.max(Math.trunc(query.size), 0), MAX_PAGE);
    const offset = Math.min(Math.max(Math.trunc(query.offset ?? 0), 0), MAX_PAGE);
    const fts = toFtsQuery(query.q);
    // Any of the words, ranked by bm25 (a picture's words are few: requiring all of them misses most questions).
    // A query of no word at all lists the pictures; one blank of words but not of characters finds nothing.
    const match = fts.any ?? fts.all;
    if (!match && query.q.trim() !== '') return { results: [], total: 0 };
    const versionsOf = new Map<string, Set<number>>();
    for (const s of query.scopes) {
      const set = versionsOf.get(s.catalogId) ?? new Set<number>();
      set.add(s.version);
      versionsOf.set(s.catalogId, set);
    }
    const hits: PictureHit[] = [];
    let total = 0;
    for (const [catalogId, versions] of versionsOf) {
      const cat = this.#catalog(catalogId, false);
      if (!cat) continue;
      const r = rankPictures(cat, match, [...versions], offset + size);
      hits.push(...r.hits);
      total += r.total;
    }
    hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { results: hits.slice(offset, offset + size), total };
  }

  async upsertPictureVectors(
    catalogId: string,
    vectors: Array<{ id: string; version: number; vector: Float32Array }>,
  ): Promise<void> {
    if (vectors.length > 0) putPictureVectors((this.#catalog(catalogId, true) as CatalogIndex).db, vectors);
  }

  async pictureVectorCount(scopes: Array<{ catalogId: string; version: number }>): Promise<number> {
    let n = 0;
    for (const [catalogId, versions] of versionsByCatalog(scopes)) {
      const cat = this.#catalog(catalogId, false);
      if (cat) n += countPictureVectors(cat.db, versions);
    }
    return n;
  }

  /** Each catalog's nearest picture records by an exact cosine scan of the versions' vectors, merged by score. */
  async searchPicturesByVector(query: {
    vector: Float32Array;
    scopes: Array<{ catalogId: string; version: number }>;
    size: number;
  }): Promise<PictureHit[]> {
    const size = Math.min(Math.max(Math.trunc(query.size), 0), MAX_PAGE);
    const hits: PictureHit[] = [];
    for (const [catalogId, versions] of versionsByCatalog(query.scopes)) {
      const cat = this.#catalog(catalogId, false);
      if (cat) hits.push(...picturesById(cat, nearestPictures(cat.db, versions, query.vector, size)));
    }
    hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return hits.slice(0, size);
  }

  async upsertPictureImageVectors(
    catalogId: string,
    model: string,
    vectors: Array<{ id: string; version: number; vector: Float32Array }>,
  ): Promise<void> {
    if (vectors.length > 0) storeImageVectors(this.#catalog(catalogId, true) as CatalogIndex, model, vectors);
  }

  async pictureImageVectorCount(scopes: Array<{ catalogId: string; version: number }>, model?: string) {
    return imageVectorCount(this.#scoped(scopes), model);
  }

  /** Each catalog's nearest picture records by an exact cosine scan of its image vectors (fts-image-search.ts). */
  async searchPicturesByImageVector(query: {
    vector: Float32Array;
    model: string;
    scopes: Array<{ catalogId: string; version: number }>;
    size: number;
  }): Promise<PictureHit[]> {
    const size = Math.min(Math.max(Math.trunc(query.size), 0), MAX_PAGE);
    return picturesByImageVector(this.#scoped(query.scopes), query.model, query.vector, size);
  }

  /** Pictures like one, by an exact cosine scan of the versions' image or caption vectors (fts-pictures.ts). */
  async picturesLike(query: PictureLikeQuery): Promise<PictureLikeResult> {
    return likePictures(this.#scoped(query.scopes), query, MAX_PAGE);
  }

  /** The catalog indexes of these scopes that exist, each with its versions. */
  #scoped(scopes: Array<{ catalogId: string; version: number }>): ScopedCatalogIndex[] {
    return [...versionsByCatalog(scopes)].flatMap(([catalogId, versions]) => {
      const cat = this.#catalog(catalogId, false);
      return cat ? [{ cat, versions }] : [];
    });
  }

  /** The pictures of pages, from their documents' `images`, deduplicated by image id. */
  async picturesOfPages(pages: Array<{ catalogId: string; id: string }>): Promise<Map<string, IndexImage[]>> {
    const out = new Map<string, IndexImage[]>();
    const byCatalog = new Map<string, string[]>();
    for (const p of pages) byCatalog.set(p.catalogId, [...(byCatalog.get(p.catalogId) ?? []), p.id]);
    for (const [catalogId, idList] of byCatalog) {
      const cat = this.#catalog(catalogId, false);
      if (!cat) continue;
      const rows = cat.db
        .prepare(`SELECT id, images FROM docs WHERE id IN (SELECT value FROM json_each(?))`)
        .all(JSON.stringify(idList)) as Array<{ id: string; images: string }>;
      for (const r of rows) out.set(r.id, uniquePictures(JSON.parse(r.images) as IndexImage[]));
    }
    return out;
  }

  /** Documents per catalog and version, and the bytes of each catalog's files (database, WAL and shared memory). */
  async stats(): Promise<IndexStats> {
    const catalogs: IndexCatalogStats[] = [];
    const lead = `${this.#prefix}-`;
    let names: string[] = [];
    try {
      names = readdirSync(this.#root);
    } catch {
      // no index written yet
    }
    for (const name of names.sort()) {
      const catalogId = name.slice(lead.length);
      if (!name.startsWith(lead) || !ID_RE.test(catalogId)) continue;
      const cat = this.#catalog(catalogId, false);
      if (!cat) continue;
      const versions = (cat.stmts.versionCounts.all() as Array<{ version: number; n: number }>).map((r) => ({
        version: r.version,
        documents: r.n,
      }));
      catalogs.push({
        catalogId,
        versions,
        documents: versions.reduce((a, v) => a + v.documents, 0),
        bytes: bytesIn(this.dirOf(catalogId)),
      });
    }
    return { name: this.name, catalogs, bytes: catalogs.reduce((a, c) => a + (c.bytes ?? 0), 0) };
  }

  /**
   * The writer a crawl or a replay writes through: an OffThreadIndex over this index with the same options, so its
   * upserts and its optimize() (champion lists, word pairs: seconds to minutes at scale) run on a worker thread —
   * `thread` when one is lent (an extraction worker's: one V8 isolate fewer), a thread of its own otherwise. Close
   * it when done; this index stays open.
   */
  openWriter(options: { thread?: SharedThread | undefined } = {}): OffThreadIndex {
    return new OffThreadIndex(this, { ...this.#options, thread: options.thread });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const cat of this.#open.values()) cat.db.close();
    this.#open.clear();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #checkId(catalogId: string): void {
    if (!ID_RE.test(catalogId)) {
      throw new CrawlerError('BAD_INPUT', `catalog id ${JSON.stringify(catalogId)} cannot name an index directory`, {
        fix: 'use the catalog id (letters, digits, - and _ only)',
      });
    }
  }

  #catalog(catalogId: string, create: boolean): CatalogIndex | null {
    if (this.#closed)
      throw new CrawlerError('STORAGE', 'the full-text index is closed', { fix: 'open a new SqliteFtsIndex' });
    this.#checkId(catalogId);
    const cached = this.#open.get(catalogId);
    if (cached) return cached;
    const cat = openCatalogIndex(this.dirOf(catalogId), catalogId, create);
    if (cat) this.#open.set(catalogId, cat);
    return cat;
  }
}

/** The versions in scope, by catalog. */
function versionsByCatalog(scopes: Array<{ catalogId: string; version: number }>): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const s of scopes) out.set(s.catalogId, [...new Set([...(out.get(s.catalogId) ?? []), s.version])]);
  return out;
}

/** Pictures deduplicated by image id, first kept. */
export function uniquePictures(images: readonly IndexImage[]): IndexImage[] {
  const seen = new Set<string>();
  return images.filter((i) => !seen.has(i.id) && Boolean(seen.add(i.id)));
}

function positiveInt(n: number, name: string): number {
  if (!Number.isInteger(n) || n < 1) {
    throw new CrawlerError('BAD_INPUT', `${name} is ${n}`, { fix: `set ${name} to a whole number of at least 1` });
  }
  return n;
}
