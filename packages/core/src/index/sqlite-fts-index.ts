import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CrawlerError } from '../errors.js';
import { segmentCjk, unsegmentCjk } from './cjk.js';
import { buildChampionLists } from './fts-champions.js';
import { ftsExtensionProblem, loadFtsExtension } from './fts-extension.js';
import { buildPairs, dropPairs, PAIRS_READY_SQL, pairPhrase, pairTerms } from './fts-pairs.js';
import { toFtsQuery } from './fts-query.js';
import { FtsScratch, TOKENIZE } from './fts-scratch.js';
import { decodeCursor, encodeCursor, type SearchAfter } from './search-cursor.js';
import type { IndexDocument, OptimizeStats, SearchIndex, WordsHit, WordsQuery, WordsResult } from './search-index.js';

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

/** How one catalog's hits of the last search were ranked (diagnostics: SqliteFtsIndex.lastPlan). */
export interface SearchPlanTarget {
  catalogId: string;
  /** `champions`: among the champion lists of the query's terms and the documents added since they were built. */
  path: 'exact' | 'champions';
  /** Why the exact path was taken. */
  reason?:
    | 'disabled'
    | 'plain-ranking'
    | 'phrase'
    | 'infrequent-term'
    | 'no-lists'
    | 'large-part'
    | 'beyond-candidates';
  /** Matches in this catalog (always exact). */
  total: number;
  /** The query's phrases were read as word pairs from the catalog's pair table (fts-pairs.ts). */
  pairs?: boolean;
  /**
   * Champion path: `stored`, a one-term query answered from the list's stored scores (the catalog unchanged
   * since the build: they are what bm25 computes; `total` is the stored document frequency); `computed`,
   * bm25 over the candidates.
   */
  scores?: 'stored' | 'computed';
  /** Distinct documents of the champion lists used. */
  candidates?: number;
  /** Documents above this number were added after the lists were built and are all candidates. */
  watermark?: number;
}

export interface SearchPlan {
  /** `any`: no page had all the words, so the words were OR-ed. */
  match: 'all' | 'any';
  /** The index terms of each quoted part of the query (a part of several terms is a phrase). */
  terms: string[][];
  /** Whether the query needed the scope clause (a catalog holding versions out of scope). */
  scoped: boolean[];
  targets: SearchPlanTarget[];
}

const SCHEMA_VERSION = 2;
const OPEN = '\u0001';
const CLOSE = '\u0002';
const MARKERS = /[\u0001\u0002]/g;
const MAX_PAGE = 1000;
const ID_RE = /^[A-Za-z0-9_-]{1,128}$/;
/** The tokens marking versions in the scope column: a query term like these must be kept to the text columns. */
const SCOPE_TOKEN_RE = /^v\d+$/;
const PART_RE = /"([^"]*)"/g;
/** Entries of each champion list that keep their score (pages of a one-term query up to here need no bm25). */
const SCORED = 100;

/** The statements of one search over an FTS5 table (`docs_fts`, or `pairs_fts` for phrases). */
interface SearchStatements {
  count: Database.Statement;
  page: Database.Statement;
  counted: Database.Statement;
  restricted: Database.Statement;
  partRowids: Database.Statement;
}

interface Statements extends SearchStatements {
  insert: Database.Statement;
  deleteId: Database.Statement;
  deleteVersion: Database.Statement;
  deleteChampions: Database.Statement;
  deleteBuild: Database.Statement;
  countVersion: Database.Statement;
  versionRange: Database.Statement;
  hasVersion: Database.Statement;
  hasPairs: Database.Statement;
  pairsReady: Database.Statement<[], { ready: number }>;
  build: Database.Statement;
  list: Database.Statement;
  changes: Database.Statement;
  ids: Database.Statement;
  details: Database.Statement;
}

interface CatalogIndex {
  catalogId: string;
  db: Database.Database;
  stmts: Statements;
  scratch: FtsScratch;
  /** Greenfinger's SQLite extension is loaded on this connection (the pair table can be built and read). */
  extension: boolean;
  /** The search statements over `pairs_fts`, prepared on first use. */
  pairStmts?: SearchStatements;
}

interface Target {
  catalog: CatalogIndex;
  versions: number[];
  /** FTS5 alternatives of the version tokens in scope, e.g. `"v1" OR "v2"`; null when the catalog holds no other. */
  scope: string | null;
  /** A one-term query's champion list with valid stored scores, when there is one. */
  stored?: StoredList | undefined;
  /** The query as this catalog runs it: on `docs_fts`, or with its phrases as word pairs on `pairs_fts`. */
  view: QueryView;
}

/** A query's MATCH expressions and index terms on one table. */
interface QueryView {
  fts: SearchStatements;
  pairs: boolean;
  all: string;
  any: string | null;
  parts: string[];
  terms: string[][];
}

interface StoredList {
  df: number;
  rowids: number[];
  scores: number[];
}

interface Candidate {
  target: Target;
  rowid: number;
  id: string;
  score: number;
}

interface DetailRow {
  rowid: number;
  id: string;
  version: number;
  catalog_name: string;
  url: string;
  title: string;
  html_path: string;
  text_path: string;
  images: string;
}

interface Row {
  rowid: number;
  id: string;
  score: number;
}

interface RankArgs {
  mode: 'all' | 'any';
  columns: boolean;
  prefer: 0 | 1;
  after: SearchAfter | undefined;
  limit: number;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/** HTML-escapes a snippet and turns the match markers into <em>…</em>. */
function toHighlight(snippet: string): string | null {
  if (!snippet.includes(OPEN)) return null;
  return escapeHtml(unsegmentCjk(snippet)).replaceAll(OPEN, '<em>').replaceAll(CLOSE, '</em>');
}

function clean(s: string): string {
  return s.replace(MARKERS, ' ');
}

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
  readonly #root: string;
  readonly #prefix: string;
  readonly #weights: readonly [number, number, number];
  readonly #snippetTokens: number;
  readonly #championMinDf: number;
  readonly #championSize: number;
  readonly #championSearch: boolean;
  readonly #mergeOnOptimize: boolean;
  readonly #pairsMinDocs: number;
  readonly #pairSearch: boolean;
  readonly #open = new Map<string, CatalogIndex>();
  #closed = false;
  #lastPlan: SearchPlan | undefined;

  constructor(options: SqliteFtsIndexOptions) {
    this.#root = options.root;
    this.#prefix = options.prefix;
    this.#weights = options.weights ?? [10, 1, 0.5];
    this.#snippetTokens = options.snippetTokens ?? 16;
    this.#championMinDf = positiveInt(options.championMinDf ?? 4000, 'championMinDf');
    this.#championSize = positiveInt(options.championSize ?? 1000, 'championSize');
    this.#championSearch = options.championSearch ?? true;
    this.#mergeOnOptimize = options.mergeOnOptimize ?? true;
    const pairsMinDocs = options.pairsMinDocs ?? 10_000;
    if (!Number.isInteger(pairsMinDocs) || pairsMinDocs < 0) {
      throw new CrawlerError('BAD_INPUT', `pairsMinDocs is ${pairsMinDocs}`, {
        fix: 'set pairsMinDocs to a whole number of documents, or 0 for no word-pair table',
      });
    }
    this.#pairsMinDocs = pairsMinDocs;
    this.#pairSearch = options.pairSearch ?? true;
  }

  /** Directory of one catalog's index. */
  dirOf(catalogId: string): string {
    return join(this.#root, `${this.#prefix}-${catalogId}`);
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
      })();
    }
  }

  async deleteVersion(catalogId: string, version: number): Promise<number> {
    const cat = this.#catalog(catalogId, false);
    if (!cat) return 0;
    return cat.db.transaction(() => {
      cat.stmts.deleteChampions.run(version);
      cat.stmts.deleteBuild.run(version);
      return cat.stmts.deleteVersion.run(version).changes;
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
   * exactly). Rebuilding replaces the version's lists.
   */
  async optimize(catalogId: string, version: number): Promise<OptimizeStats> {
    if (!Number.isInteger(version) || version < 0) {
      throw new CrawlerError('BAD_INPUT', `cannot optimize version ${version}`, {
        fix: 'versions are integers from 0',
      });
    }
    const started = performance.now();
    const cat = this.#catalog(catalogId, false);
    const stats: OptimizeStats = {
      catalogId,
      version,
      terms: 0,
      skipped: 0,
      postings: 0,
      minDf: this.#championMinDf,
      size: this.#championSize,
      watermark: 0,
      merged: false,
      ms: 0,
    };
    if (cat) {
      if (this.#mergeOnOptimize) {
        cat.db.exec(`INSERT INTO docs_fts(docs_fts) VALUES ('optimize')`);
        stats.merged = true;
      }
      const documents = (cat.stmts.countVersion.get(version) as { n: number }).n;
      const wantsPairs = this.#pairsMinDocs > 0 && documents >= this.#pairsMinDocs;
      let pairs = false;
      if (wantsPairs && cat.extension) {
        const built = buildPairs(cat.db, this.#mergeOnOptimize);
        stats.pairs = { documents: built.documents, terms: 0, ms: built.ms };
        pairs = built.ready;
      } else if (wantsPairs) {
        stats.pairsUnavailable = ftsExtensionProblem() ?? 'the SQLite extension gf_fts is not loaded';
      } else if (cat.stmts.hasPairs.get()) {
        // Too small a version now, or pairs turned off: the old table goes (it needs the extension to drop).
        if (cat.extension) dropPairs(cat.db);
      }
      const built = buildChampionLists(cat.db, cat.scratch, {
        pairs,
        version,
        scope: this.#scopeOf(cat, [version]),
        minDf: this.#championMinDf,
        size: this.#championSize,
        scored: SCORED,
        weights: this.#weights,
      });
      const { pairTerms: pairLists, ...lists } = built;
      Object.assign(stats, lists);
      if (stats.pairs) stats.pairs.terms = pairLists;
      if (stats.merged) cat.db.pragma('wal_checkpoint(TRUNCATE)');
    }
    stats.ms = performance.now() - started;
    return stats;
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
    const catalogs: Array<{ catalog: CatalogIndex; versions: number[] }> = [];
    for (const [catalogId, versions] of versionsOf) {
      const catalog = this.#catalog(catalogId, false);
      if (catalog) catalogs.push({ catalog, versions: [...versions] });
    }
    if (catalogs.length === 0) return empty;

    // One read transaction per catalog: count, ranking and highlights see the same snapshot.
    try {
      for (const { catalog } of catalogs) catalog.db.exec('BEGIN');
      const parts = [...fts.all.matchAll(PART_RE)].map((m) => m[0]);
      const terms = (catalogs[0] as { catalog: CatalogIndex }).catalog.scratch.terms(parts.map((p) => p.slice(1, -1)));
      // A user term that looks like a scope token (v1, v2…) must not match the scope column; no other term can.
      const columns = terms.some((t) => t.some((term) => SCOPE_TOKEN_RE.test(term)));
      // A query of phrases only is read from a catalog's word-pair table when it has a current one.
      const phrases = terms.every((t) => t.length >= 2);
      const pairParts = phrases ? terms.map((t) => pairPhrase(t)) : [];
      const viewOf = (catalog: CatalogIndex): QueryView => {
        if (phrases && this.#pairSearch && catalog.extension && catalog.stmts.pairsReady.get()?.ready === 1) {
          return {
            fts: this.#pairStatements(catalog),
            pairs: true,
            all: pairParts.join(' '),
            any: pairParts.length > 1 ? pairParts.join(' OR ') : null,
            parts: pairParts,
            terms: terms.map((t) => pairTerms(t)),
          };
        }
        return { fts: catalog.stmts, pairs: false, all: fts.all as string, any: fts.any, parts, terms };
      };
      const targets: Target[] = catalogs.map(({ catalog, versions }) => ({
        catalog,
        versions,
        scope: this.#scopeOf(catalog, versions),
        view: viewOf(catalog),
      }));
      const plan: SearchPlan = { match: 'all', terms, scoped: targets.map((t) => t.scope !== null), targets: [] };
      this.#lastPlan = plan;

      const prefer = query.preferDetailPages === false ? 0 : 1;
      if (this.#championSearch && prefer === 1) {
        for (const t of targets) {
          const only = t.view.terms.length === 1 ? t.view.terms[0] : undefined;
          if (only?.length === 1) t.stored = this.#stored(t, only[0] as string);
        }
      }
      const args: RankArgs = { mode: 'all', columns, prefer, after, limit: size + 1 };
      // A phrase is ranked exactly, and each statement over it evaluates it in full (positions of every
      // document with all its words): one statement counts and ranks.
      const ranked = new Map<Target, Row[]>();
      let totals = targets.map((t) => {
        if (t.stored) return t.stored.df;
        if (!t.view.terms.some((x) => x.length !== 1)) return this.#count(t, args);
        const { total, rows } = this.#countAndRank(t, args);
        ranked.set(t, rows);
        return total;
      });
      if (sum(totals) === 0 && fts.any) {
        args.mode = 'any';
        plan.match = 'any';
        ranked.clear();
        totals = targets.map((t) => this.#count(t, args));
      }
      const total = sum(totals);
      if (total === 0 || size === 0) return { results: [], total, nextCursor: null };
      const match = args.mode === 'all' ? fts.all : (fts.any as string);

      const candidates: Candidate[] = [];
      targets.forEach((target, i) => {
        const t = totals[i] as number;
        const step: SearchPlanTarget = { catalogId: target.catalog.catalogId, path: 'exact', total: t };
        if (target.view.pairs) step.pairs = true;
        plan.targets.push(step);
        if (t === 0) return;
        let rows = ranked.get(target);
        if (rows) step.reason = !this.#championSearch ? 'disabled' : prefer === 0 ? 'plain-ranking' : 'phrase';
        else rows = this.#rank(target, args, step);
        for (const r of rows) candidates.push({ target, rowid: r.rowid, id: r.id, score: r.score });
      });
      candidates.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const page = candidates.slice(0, size);
      const results = this.#hits(page, match);
      const last = page.at(-1);
      const more = candidates.length > size && last !== undefined;
      return {
        results,
        total,
        nextCursor: more ? encodeCursor({ score: last.score, id: last.id } satisfies SearchAfter) : null,
      };
    } finally {
      for (const { catalog } of catalogs) if (catalog.db.open && catalog.db.inTransaction) catalog.db.exec('COMMIT');
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const cat of this.#open.values()) cat.db.close();
    this.#open.clear();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * The versions' scope clause, or null when the catalog holds no document of another version: the clause then
   * matches every document and only costs a walk of the scope column's postings (its bm25 weight is 0).
   */
  #scopeOf(catalog: CatalogIndex, versions: number[]): string | null {
    const clause = versions.map((v) => `"${scopeToken(v)}"`).join(' OR ');
    const { lo, hi } = catalog.stmts.versionRange.get() as { lo: number | null; hi: number | null };
    if (lo === null || hi === null) return null;
    if (hi - lo > 64) return clause;
    const wanted = new Set(versions);
    for (let v = lo; v <= hi; v++) if (!wanted.has(v) && catalog.stmts.hasVersion.get(v)) return clause;
    return null;
  }

  #count(target: Target, a: RankArgs): number {
    return (target.view.fts.count.get({ q: scoped(matchOf(target, a), target.scope, a.columns) }) as { n: number }).n;
  }

  #pairStatements(catalog: CatalogIndex): SearchStatements {
    catalog.pairStmts ??= prepareSearch(catalog.db, 'pairs_fts');
    return catalog.pairStmts;
  }

  /** Exact ranking and count of all matches in one statement (see `counted`). */
  #countAndRank(target: Target, a: RankArgs): { total: number; rows: Row[] } {
    const [wt, wx, wi] = this.#weights;
    const out = target.view.fts.counted.all({
      q: scoped(matchOf(target, a), target.scope, a.columns),
      wt,
      wx,
      wi,
      prefer: a.prefer,
      afterScore: a.after?.score ?? null,
      afterId: a.after?.id ?? null,
      limit: a.limit,
    }) as Array<{ total: number; rowid: number | null; id: string | null; score: number | null }>;
    const rows: Row[] = [];
    for (const r of out)
      if (r.rowid !== null) rows.push({ rowid: r.rowid, id: r.id as string, score: r.score as number });
    return { total: out[0]?.total ?? 0, rows };
  }

  /** One catalog's best `limit` matches after the cursor: from the champion lists when they can answer, else exact. */
  #rank(target: Target, a: RankArgs, step: SearchPlanTarget): Row[] {
    const stmts = target.view.fts;
    const [wt, wx, wi] = this.#weights;
    const common = {
      q: scoped(matchOf(target, a), target.scope, a.columns),
      wt,
      wx,
      wi,
      afterScore: a.after?.score ?? null,
      afterId: a.after?.id ?? null,
      limit: a.limit,
    };
    const stored = target.stored && this.#fromStored(target, target.stored, a);
    if (stored) {
      step.path = 'champions';
      step.scores = 'stored';
      step.candidates = target.stored?.rowids.length;
      return stored;
    }
    if (!this.#championSearch) step.reason = 'disabled';
    else if (a.prefer === 0) step.reason = 'plain-ranking';
    else {
      const c = this.#candidates(target, a);
      if ('reason' in c) step.reason = c.reason;
      else {
        step.candidates = c.count;
        step.watermark = c.watermark;
        const rows = stmts.restricted.all({ ...common, candidates: c.json, watermark: c.watermark }) as Row[];
        if (rows.length >= a.limit) {
          step.path = 'champions';
          step.scores = 'computed';
          return rows;
        }
        // The candidates after the cursor ran out before the page did: the rest comes from all matches.
        step.reason = 'beyond-candidates';
      }
    }
    return stmts.page.all({ ...common, prefer: a.prefer }) as Row[];
  }

  /**
   * The champion list of a one-term query in a one-version target whose stored scores are still exact: the
   * catalog has had no insert or delete since the build (bm25's statistics are the whole file's) and the
   * weights are the build's.
   */
  #stored(target: Target, term: string): StoredList | undefined {
    if (target.versions.length !== 1) return undefined;
    const { stmts } = target.catalog;
    const build = stmts.build.get(target.versions[0]) as { changes: number; weights: string } | undefined;
    if (!build || build.weights !== JSON.stringify(this.#weights)) return undefined;
    const changes = Number((stmts.changes.get() as { value: string } | undefined)?.value ?? 0);
    if (changes !== build.changes) return undefined;
    const list = stmts.list.get(target.versions[0], term) as { df: number; rowids: string; scores: string } | undefined;
    if (!list) return undefined;
    return { df: list.df, rowids: JSON.parse(list.rowids) as number[], scores: JSON.parse(list.scores) as number[] };
  }

  /** A page from stored scores, or undefined when it reaches past them (and they are not all the matches). */
  #fromStored(target: Target, list: StoredList, a: RankArgs): Row[] | undefined {
    const { scores, rowids } = list;
    let from = 0;
    if (a.after) {
      const { score, id } = a.after;
      while (from < scores.length && (scores[from] as number) > score) from++;
      // Equal scores are in id order: skip those up to the cursor's id.
      let tie = from;
      while (tie < scores.length && scores[tie] === score) tie++;
      if (tie > from) {
        const ties = this.#idsOf(target, rowids.slice(from, tie));
        while (from < tie && (ties.get(rowids[from] as number) as string) <= id) from++;
      }
    }
    const end = from + a.limit;
    if (end > scores.length && scores.length < list.df) return undefined;
    const page = rowids.slice(from, Math.min(end, scores.length));
    const ids = this.#idsOf(target, page);
    return page.map((rowid, i) => ({ rowid, id: ids.get(rowid) as string, score: scores[from + i] as number }));
  }

  #idsOf(target: Target, rowids: number[]): Map<number, string> {
    const rows = target.catalog.stmts.ids.all(JSON.stringify(rowids)) as Array<{ rowid: number; id: string }>;
    return new Map(rows.map((r) => [r.rowid, r.id]));
  }

  /**
   * The candidate documents of a query in one catalog: the union of its terms' champion lists in every version
   * in scope (and, for OR-ed words, every match of a word without a list when there are few), or why not.
   */
  #candidates(
    target: Target,
    a: RankArgs,
  ): { json: string; count: number; watermark: number } | { reason: NonNullable<SearchPlanTarget['reason']> } {
    const { stmts } = target.catalog;
    let watermark = Number.POSITIVE_INFINITY;
    let minDf = 0;
    for (const v of target.versions) {
      const b = stmts.build.get(v) as { watermark: number; min_df: number } | undefined;
      if (!b) return { reason: 'no-lists' };
      watermark = Math.min(watermark, b.watermark);
      minDf = Math.max(minDf, b.min_df);
    }
    const ids = new Set<number>();
    const { view } = target;
    for (let i = 0; i < view.terms.length; i++) {
      const terms = view.terms[i] as string[];
      if (terms.length === 1) {
        const lists = target.versions.map((v) => stmts.list.get(v, terms[0]) as { rowids: string } | undefined);
        if (lists.every((l) => l !== undefined)) {
          for (const l of lists) for (const id of JSON.parse(l.rowids) as number[]) ids.add(id);
          continue;
        }
        if (a.mode === 'all') return { reason: 'infrequent-term' };
      } else if (a.mode === 'all') return { reason: 'phrase' };
      // OR-ed words: a word or phrase without a list brings all its matches, when they are few.
      const rows = view.fts.partRowids.all({
        q: scoped(view.parts[i] as string, target.scope, a.columns),
        limit: minDf + 1,
      }) as Array<{ rowid: number }>;
      if (rows.length > minDf) return { reason: 'large-part' };
      for (const r of rows) ids.add(r.rowid);
    }
    return { json: JSON.stringify([...ids]), count: ids.size, watermark };
  }

  /** The page's hits with their fields and highlights, computed per hit on a scratch table. */
  #hits(page: Candidate[], match: string): WordsHit[] {
    const byCatalog = new Map<CatalogIndex, number[]>();
    for (const c of page) {
      const list = byCatalog.get(c.target.catalog) ?? [];
      list.push(c.rowid);
      byCatalog.set(c.target.catalog, list);
    }
    const details = new Map<CatalogIndex, Map<number, DetailRow>>();
    const snippets = new Map<CatalogIndex, Map<number, string[]>>();
    for (const [catalog, rowids] of byCatalog) {
      const rows = catalog.stmts.details.all(JSON.stringify(rowids)) as DetailRow[];
      details.set(catalog, new Map(rows.map((r) => [r.rowid, r])));
      const highlights = new Map<number, string[]>();
      for (const s of catalog.scratch.snippets(rowids, match, OPEN, CLOSE, this.#snippetTokens)) {
        const list: string[] = [];
        for (const text of [s.s_text, s.s_title, s.s_image]) {
          const h = toHighlight(text ?? '');
          if (h && list.length < 2) list.push(h);
        }
        highlights.set(s.rowid, list);
      }
      snippets.set(catalog, highlights);
    }
    const hits: WordsHit[] = [];
    for (const c of page) {
      const row = details.get(c.target.catalog)?.get(c.rowid);
      if (!row) continue;
      hits.push({
        id: row.id,
        catalogId: c.target.catalog.catalogId,
        catalogName: row.catalog_name,
        version: row.version,
        url: row.url,
        title: unsegmentCjk(row.title),
        score: c.score,
        highlights: snippets.get(c.target.catalog)?.get(c.rowid) ?? [],
        htmlPath: row.html_path,
        textPath: row.text_path,
        images: JSON.parse(row.images) as IndexDocument['images'],
      });
    }
    return hits;
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
    const dir = this.dirOf(catalogId);
    const file = join(dir, 'index.db');
    if (!create && !existsSync(file)) return null;
    mkdirSync(dir, { recursive: true });
    let db: Database.Database | undefined;
    let cat: CatalogIndex;
    try {
      db = new Database(file);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 5000');
      // The scratch tables of queries and highlights live in memory, never in a temp file.
      db.pragma('temp_store = MEMORY');
      // Before anything reads the file: a table built with the extension's tokenizer needs it to be opened.
      const extension = loadFtsExtension(db);
      migrate(db, catalogId);
      cat = { catalogId, db, stmts: prepare(db), scratch: new FtsScratch(db), extension };
    } catch (err) {
      db?.close();
      throw new CrawlerError('STORAGE', `cannot open the full-text index ${file}: ${(err as Error).message}`, {
        cause: err,
        fix: 'check the directory is writable; a corrupt index can be rebuilt with replay --layers=index',
      });
    }
    this.#open.set(catalogId, cat);
    return cat;
  }
}

function positiveInt(n: number, name: string): number {
  if (!Number.isInteger(n) || n < 1) {
    throw new CrawlerError('BAD_INPUT', `${name} is ${n}`, { fix: `set ${name} to a whole number of at least 1` });
  }
  return n;
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/** The token that marks a document's version inside the FTS table, so scoping is part of the match. */
function scopeToken(version: number): string {
  return `v${version}`;
}

/**
 * The MATCH expression of user terms in scope. User terms only match the text columns: the column filter is
 * needed only when a term could equal a scope token, and the scope clause only when the catalog holds
 * documents of versions out of scope. Neither changes the bm25 score (the scope column's weight is 0).
 */
function scoped(match: string, scope: string | null, columns: boolean): string {
  const user = columns ? `{title text image_text} : (${match})` : match;
  return scope ? `${columns ? user : `(${user})`} AND scope : (${scope})` : user;
}

function migrate(db: Database.Database, catalogId: string): void {
  db.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  const schema = (): number | undefined => {
    const row = db.prepare(`SELECT value FROM meta WHERE key = 'schema'`).get() as { value: string } | undefined;
    if (!row) return undefined;
    const v = Number(row.value);
    if (!Number.isInteger(v) || v < 1 || v > SCHEMA_VERSION) {
      throw new Error(`schema version ${row.value}, this build reads 1 to ${SCHEMA_VERSION}`);
    }
    return v;
  };
  if (schema() === SCHEMA_VERSION) return;
  // Immediate: of two connections opening the file at once, one migrates and the other then sees it done.
  db.transaction(() => {
    const from = schema() ?? 0;
    if (from === SCHEMA_VERSION) return;
    const put = db.prepare(
      `INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
    );
    if (from < 1) {
      db.exec(`
        CREATE TABLE docs (
          rowid INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          version INTEGER NOT NULL,
          catalog_name TEXT NOT NULL,
          url TEXT NOT NULL,
          title TEXT NOT NULL,
          text TEXT NOT NULL,
          image_text TEXT NOT NULL,
          scope TEXT NOT NULL,
          html_path TEXT NOT NULL,
          text_path TEXT NOT NULL,
          images TEXT NOT NULL,
          link_density REAL NOT NULL,
          fetched_at TEXT NOT NULL
        );
        CREATE INDEX docs_version ON docs(version);
        CREATE VIRTUAL TABLE docs_fts USING fts5(
          title, text, image_text, scope,
          content = 'docs', content_rowid = 'rowid',
          tokenize = '${TOKENIZE}'
        );
        CREATE TRIGGER docs_ai AFTER INSERT ON docs BEGIN
          INSERT INTO docs_fts(rowid, title, text, image_text, scope)
            VALUES (new.rowid, new.title, new.text, new.image_text, new.scope);
        END;
        CREATE TRIGGER docs_ad AFTER DELETE ON docs BEGIN
          INSERT INTO docs_fts(docs_fts, rowid, title, text, image_text, scope)
            VALUES ('delete', old.rowid, old.title, old.text, old.image_text, old.scope);
        END;
      `);
      put.run('catalogId', catalogId);
    }
    if (from < 2) {
      // v2: what ranking reads of a match (id for the tie-break, link density for the factor) in a table of its
      // own, a few dozen bytes a row: in `docs` they sit after the text, so each match read its overflow pages.
      // And the champion lists of frequent terms (optimize()).
      db.exec(`
        CREATE TABLE ranks (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL, link_density REAL NOT NULL);
        INSERT INTO ranks(rowid, id, link_density) SELECT rowid, id, link_density FROM docs;
        CREATE TRIGGER ranks_ai AFTER INSERT ON docs BEGIN
          INSERT INTO ranks(rowid, id, link_density) VALUES (new.rowid, new.id, new.link_density);
        END;
        CREATE TRIGGER ranks_ad AFTER DELETE ON docs BEGIN
          DELETE FROM ranks WHERE rowid = old.rowid;
        END;
        INSERT INTO meta(key, value) VALUES ('changes', '0') ON CONFLICT(key) DO NOTHING;
        CREATE TRIGGER changes_ai AFTER INSERT ON docs BEGIN
          UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'changes';
        END;
        CREATE TRIGGER changes_ad AFTER DELETE ON docs BEGIN
          UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'changes';
        END;
        CREATE TABLE champion_builds (
          version INTEGER PRIMARY KEY,
          watermark INTEGER NOT NULL,
          min_df INTEGER NOT NULL,
          size INTEGER NOT NULL,
          terms INTEGER NOT NULL,
          changes INTEGER NOT NULL,
          weights TEXT NOT NULL,
          built_at TEXT NOT NULL
        );
        CREATE TABLE champions (
          version INTEGER NOT NULL,
          term TEXT NOT NULL,
          df INTEGER NOT NULL,
          rowids TEXT NOT NULL,
          scores TEXT NOT NULL,
          PRIMARY KEY (version, term)
        ) WITHOUT ROWID;
      `);
    }
    put.run('schema', String(SCHEMA_VERSION));
  }).immediate();
}

function prepare(db: Database.Database): Statements {
  return {
    ...prepareSearch(db, 'docs_fts'),
    // A new document is numbered above every document and every champion-list watermark (rowid_floor), so a
    // number freed by a delete is never reused for a document the lists have not seen.
    insert: db.prepare(`
      INSERT INTO docs (rowid, id, version, catalog_name, url, title, text, image_text, scope, html_path, text_path, images, link_density, fetched_at)
      VALUES (
        max(coalesce((SELECT max(rowid) FROM docs), 0),
            coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'rowid_floor'), 0)) + 1,
        @id, @version, @catalog_name, @url, @title, @text, @image_text, @scope, @html_path, @text_path, @images, @link_density, @fetched_at)`),
    deleteId: db.prepare(`DELETE FROM docs WHERE id = ?`),
    deleteVersion: db.prepare(`DELETE FROM docs WHERE version = ?`),
    deleteChampions: db.prepare(`DELETE FROM champions WHERE version = ?`),
    deleteBuild: db.prepare(`DELETE FROM champion_builds WHERE version = ?`),
    countVersion: db.prepare(`SELECT count(*) AS n FROM docs WHERE version = ?`),
    versionRange: db.prepare(`SELECT (SELECT min(version) FROM docs) AS lo, (SELECT max(version) FROM docs) AS hi`),
    hasVersion: db.prepare(`SELECT 1 FROM docs WHERE version = ? LIMIT 1`),
    hasPairs: db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pairs_fts'`),
    pairsReady: db.prepare<[], { ready: number }>(PAIRS_READY_SQL),
    build: db.prepare(`SELECT watermark, min_df, changes, weights FROM champion_builds WHERE version = ?`),
    list: db.prepare(`SELECT df, rowids, scores FROM champions WHERE version = ? AND term = ?`),
    changes: db.prepare(`SELECT value FROM meta WHERE key = 'changes'`),
    ids: db.prepare(`SELECT rowid, id FROM ranks WHERE rowid IN (SELECT value FROM json_each(?))`),
    details: db.prepare(`
      SELECT rowid, id, version, catalog_name, url, title, html_path, text_path, images
      FROM docs WHERE rowid IN (SELECT value FROM json_each(?))`),
  };
}

/** The search statements over one FTS5 table of a catalog: `docs_fts`, or the word-pair table `pairs_fts`. */
function prepareSearch(db: Database.Database, table: 'docs_fts' | 'pairs_fts'): SearchStatements {
  const rank = `-bm25(${table}, @wt, @wx, @wi, 0.0)`;
  const after = `@afterScore IS NULL OR score < @afterScore OR (score = @afterScore AND id > @afterId)`;
  return {
    count: db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${table} MATCH @q`),
    page: db.prepare(`
      SELECT rowid, id, score FROM (
        SELECT r.rowid AS rowid, r.id AS id,
          ${rank} * (CASE WHEN @prefer = 1 THEN max(0.5, min(1.5, 1.5 - r.link_density)) ELSE 1.0 END) AS score
        FROM ${table} JOIN ranks r ON r.rowid = ${table}.rowid
        WHERE ${table} MATCH @q
      )
      WHERE ${after}
      ORDER BY score DESC, id ASC
      LIMIT @limit`),
    // `page` and the count of all matches from one evaluation of the MATCH (materialized once): the same scores
    // (the same double negated and multiplied), one row with a null rowid when the page is empty.
    counted: db.prepare(`
      WITH m AS MATERIALIZED (
        SELECT ${table}.rowid AS rowid, bm25(${table}, @wt, @wx, @wi, 0.0) AS b FROM ${table} WHERE ${table} MATCH @q
      ),
      page AS (
        SELECT rowid, id, score FROM (
          SELECT r.rowid AS rowid, r.id AS id,
            -m.b * (CASE WHEN @prefer = 1 THEN max(0.5, min(1.5, 1.5 - r.link_density)) ELSE 1.0 END) AS score
          FROM m JOIN ranks r ON r.rowid = m.rowid
        )
        WHERE ${after}
        ORDER BY score DESC, id ASC
        LIMIT @limit
      )
      SELECT (SELECT count(*) FROM m) AS total, page.rowid AS rowid, page.id AS id, page.score AS score
      FROM (SELECT 1) LEFT JOIN page`),
    // bm25 only for the candidates: the champion lists' documents and those added since (above the watermark).
    // The unary + keeps both tests out of FTS5: each rowid handed to it would restart the query.
    restricted: db.prepare(`
      SELECT rowid, id, score FROM (
        SELECT r.rowid AS rowid, r.id AS id,
          ${rank} * max(0.5, min(1.5, 1.5 - r.link_density)) AS score
        FROM ${table} JOIN ranks r ON r.rowid = ${table}.rowid
        WHERE ${table} MATCH @q
          AND (+${table}.rowid > @watermark OR +${table}.rowid IN (SELECT value FROM json_each(@candidates)))
      )
      WHERE ${after}
      ORDER BY score DESC, id ASC
      LIMIT @limit`),
    partRowids: db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH @q LIMIT @limit`),
  };
}

/** The MATCH expression of a target's view in the query's current mode (all words, or any). */
function matchOf(target: Target, a: RankArgs): string {
  return a.mode === 'all' ? target.view.all : (target.view.any as string);
}
