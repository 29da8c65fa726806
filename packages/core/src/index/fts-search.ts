import { hitsOf } from './fts-highlights.js';
import { pairPhrase, pairTerms } from './fts-pairs.js';
import type { FtsQuery } from './fts-query.js';
import { type CatalogIndex, prepareSearch, type SearchStatements, scopeToken } from './fts-schema.js';
import { encodeCursor, type SearchAfter } from './search-cursor.js';
import type { WordsQuery, WordsResult } from './search-index.js';

/**
 * Query planning of the embedded full-text index: how each catalog's matches are counted and ranked (exactly, from
 * the champion lists, from the word-pair table), merged across catalogs and paged. See docs/search.md, Words search
 * at scale.
 */

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

/** What a search reads of the index's options. */
export interface FtsSearchSettings {
  weights: readonly [number, number, number];
  snippetTokens: number;
  championSearch: boolean;
  pairSearch: boolean;
}

/** A catalog to search and the versions of it in scope. */
export interface CatalogScope {
  catalog: CatalogIndex;
  versions: number[];
}

/** The tokens marking versions in the scope column: a query term like these must be kept to the text columns. */
const SCOPE_TOKEN_RE = /^v\d+$/;
const PART_RE = /"([^"]*)"/g;

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

/**
 * One search over the catalogs in scope, each in a read transaction of its own (count, ranking and highlights see
 * the same snapshot). `onPlan` receives the plan as soon as it is made; ranking fills in its targets.
 */
export function searchCatalogs(
  s: FtsSearchSettings,
  catalogs: readonly CatalogScope[],
  fts: FtsQuery & { all: string },
  query: WordsQuery,
  size: number,
  after: SearchAfter | undefined,
  onPlan: (plan: SearchPlan) => void,
): WordsResult {
  try {
    for (const { catalog } of catalogs) catalog.db.exec('BEGIN');
    const parts = [...fts.all.matchAll(PART_RE)].map((m) => m[0]);
    const terms = (catalogs[0] as CatalogScope).catalog.scratch.terms(parts.map((p) => p.slice(1, -1)));
    // A user term that looks like a scope token (v1, v2…) must not match the scope column; no other term can.
    const columns = terms.some((t) => t.some((term) => SCOPE_TOKEN_RE.test(term)));
    // A query of phrases only is read from a catalog's word-pair table when it has a current one.
    const phrases = terms.every((t) => t.length >= 2);
    const pairParts = phrases ? terms.map((t) => pairPhrase(t)) : [];
    const viewOf = (catalog: CatalogIndex): QueryView => {
      if (phrases && s.pairSearch && catalog.extension && catalog.stmts.pairsReady.get()?.ready === 1) {
        return {
          fts: pairStatements(catalog),
          pairs: true,
          all: pairParts.join(' '),
          any: pairParts.length > 1 ? pairParts.join(' OR ') : null,
          parts: pairParts,
          terms: terms.map((t) => pairTerms(t)),
        };
      }
      return { fts: catalog.stmts, pairs: false, all: fts.all, any: fts.any, parts, terms };
    };
    const targets: Target[] = catalogs.map(({ catalog, versions }) => ({
      catalog,
      versions,
      scope: scopeOf(catalog, versions),
      view: viewOf(catalog),
    }));
    const plan: SearchPlan = { match: 'all', terms, scoped: targets.map((t) => t.scope !== null), targets: [] };
    onPlan(plan);

    const prefer = query.preferDetailPages === false ? 0 : 1;
    if (s.championSearch && prefer === 1) {
      for (const t of targets) {
        const only = t.view.terms.length === 1 ? t.view.terms[0] : undefined;
        if (only?.length === 1) t.stored = storedList(s, t, only[0] as string);
      }
    }
    const args: RankArgs = { mode: 'all', columns, prefer, after, limit: size + 1 };
    // A phrase is ranked exactly, and each statement over it evaluates it in full (positions of every
    // document with all its words): one statement counts and ranks.
    const ranked = new Map<Target, Row[]>();
    const anyFirst = query.match === 'any' && fts.any !== null;
    let totals = targets.map((t) => {
      if (anyFirst) return 0;
      if (t.stored) return t.stored.df;
      if (!t.view.terms.some((x) => x.length !== 1)) return count(t, args);
      const { total, rows } = countAndRank(s, t, args);
      ranked.set(t, rows);
      return total;
    });
    if (sum(totals) === 0 && fts.any) {
      args.mode = 'any';
      plan.match = 'any';
      ranked.clear();
      totals = targets.map((t) => count(t, args));
    }
    const total = sum(totals);
    if (total === 0 || size === 0) return { results: [], total, nextCursor: null, match: args.mode };
    const match = args.mode === 'all' ? fts.all : (fts.any as string);

    const candidates: Candidate[] = [];
    targets.forEach((target, i) => {
      const t = totals[i] as number;
      const step: SearchPlanTarget = { catalogId: target.catalog.catalogId, path: 'exact', total: t };
      if (target.view.pairs) step.pairs = true;
      plan.targets.push(step);
      if (t === 0) return;
      let rows = ranked.get(target);
      if (rows) step.reason = !s.championSearch ? 'disabled' : prefer === 0 ? 'plain-ranking' : 'phrase';
      else rows = rank(s, target, args, step);
      for (const r of rows) candidates.push({ target, rowid: r.rowid, id: r.id, score: r.score });
    });
    candidates.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const page = candidates.slice(0, size);
    const results = hitsOf(page, match, s.snippetTokens, query.highlightFirst);
    const last = page.at(-1);
    const more = candidates.length > size && last !== undefined;
    return {
      results,
      total,
      nextCursor: more ? encodeCursor({ score: last.score, id: last.id } satisfies SearchAfter) : null,
      match: args.mode,
    };
  } finally {
    for (const { catalog } of catalogs) if (catalog.db.open && catalog.db.inTransaction) catalog.db.exec('COMMIT');
  }
}

/**
 * The versions' scope clause, or null when the catalog holds no document of another version: the clause then
 * matches every document and only costs a walk of the scope column's postings (its bm25 weight is 0).
 */
export function scopeOf(catalog: CatalogIndex, versions: number[]): string | null {
  const clause = versions.map((v) => `"${scopeToken(v)}"`).join(' OR ');
  const { lo, hi } = catalog.stmts.versionRange.get() as { lo: number | null; hi: number | null };
  if (lo === null || hi === null) return null;
  if (hi - lo > 64) return clause;
  const wanted = new Set(versions);
  for (let v = lo; v <= hi; v++) if (!wanted.has(v) && catalog.stmts.hasVersion.get(v)) return clause;
  return null;
}

function count(target: Target, a: RankArgs): number {
  return (target.view.fts.count.get({ q: scoped(matchOf(target, a), target.scope, a.columns) }) as { n: number }).n;
}

function pairStatements(catalog: CatalogIndex): SearchStatements {
  catalog.pairStmts ??= prepareSearch(catalog.db, 'pairs_fts');
  return catalog.pairStmts;
}

/** Exact ranking and count of all matches in one statement (see `counted`). */
function countAndRank(s: FtsSearchSettings, target: Target, a: RankArgs): { total: number; rows: Row[] } {
  const [wt, wx, wi] = s.weights;
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
function rank(s: FtsSearchSettings, target: Target, a: RankArgs, step: SearchPlanTarget): Row[] {
  const stmts = target.view.fts;
  const [wt, wx, wi] = s.weights;
  const common = {
    q: scoped(matchOf(target, a), target.scope, a.columns),
    wt,
    wx,
    wi,
    afterScore: a.after?.score ?? null,
    afterId: a.after?.id ?? null,
    limit: a.limit,
  };
  const stored = target.stored && fromStored(target, target.stored, a);
  if (stored) {
    step.path = 'champions';
    step.scores = 'stored';
    step.candidates = target.stored?.rowids.length;
    return stored;
  }
  if (!s.championSearch) step.reason = 'disabled';
  else if (a.prefer === 0) step.reason = 'plain-ranking';
  else {
    const c = candidatesOf(target, a);
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
function storedList(s: FtsSearchSettings, target: Target, term: string): StoredList | undefined {
  if (target.versions.length !== 1) return undefined;
  const { stmts } = target.catalog;
  const build = stmts.build.get(target.versions[0]) as { changes: number; weights: string } | undefined;
  if (!build || build.weights !== JSON.stringify(s.weights)) return undefined;
  const changes = Number((stmts.changes.get() as { value: string } | undefined)?.value ?? 0);
  if (changes !== build.changes) return undefined;
  const list = stmts.list.get(target.versions[0], term) as { df: number; rowids: string; scores: string } | undefined;
  if (!list) return undefined;
  return { df: list.df, rowids: JSON.parse(list.rowids) as number[], scores: JSON.parse(list.scores) as number[] };
}

/** A page from stored scores, or undefined when it reaches past them (and they are not all the matches). */
function fromStored(target: Target, list: StoredList, a: RankArgs): Row[] | undefined {
  const { scores, rowids } = list;
  let from = 0;
  if (a.after) {
    const { score, id } = a.after;
    while (from < scores.length && (scores[from] as number) > score) from++;
    // Equal scores are in id order: skip those up to the cursor's id.
    let tie = from;
    while (tie < scores.length && scores[tie] === score) tie++;
    if (tie > from) {
      const ties = idsOf(target, rowids.slice(from, tie));
      while (from < tie && (ties.get(rowids[from] as number) as string) <= id) from++;
    }
  }
  const end = from + a.limit;
  if (end > scores.length && scores.length < list.df) return undefined;
  const page = rowids.slice(from, Math.min(end, scores.length));
  const ids = idsOf(target, page);
  return page.map((rowid, i) => ({ rowid, id: ids.get(rowid) as string, score: scores[from + i] as number }));
}

function idsOf(target: Target, rowids: number[]): Map<number, string> {
  const rows = target.catalog.stmts.ids.all(JSON.stringify(rowids)) as Array<{ rowid: number; id: string }>;
  return new Map(rows.map((r) => [r.rowid, r.id]));
}

/**
 * The candidate documents of a query in one catalog: the union of its terms' champion lists in every version
 * in scope (and, for OR-ed words, every match of a word without a list when there are few), or why not.
 */
function candidatesOf(
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

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
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

/** The MATCH expression of a target's view in the query's current mode (all words, or any). */
function matchOf(target: Target, a: RankArgs): string {
  return a.mode === 'all' ? target.view.all : (target.view.any as string);
}
