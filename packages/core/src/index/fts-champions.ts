import type Database from 'better-sqlite3';
import { PAIR_SEP, pairTermQuery } from './fts-pairs.js';
import type { FtsScratch } from './fts-scratch.js';

/** What buildChampionLists did (part of FtsOptimizeDetails). */
export interface ChampionBuild {
  terms: number;
  /** Of which pairs of words (phrases; see fts-pairs.ts). */
  pairTerms: number;
  skipped: number;
  postings: number;
  watermark: number;
}

export interface ChampionOptions {
  version: number;
  /** The first this many entries of each list keep their score (answers a one-term query with no bm25 at all). */
  scored: number;
  /** The version's scope clause (`"v3"`), or null when the catalog holds no document of another version. */
  scope: string | null;
  minDf: number;
  size: number;
  weights: readonly [number, number, number];
  /** Also give the frequent word pairs of `pairs_fts` (current: built at this change count) their lists. */
  pairs: boolean;
}

const SCOPE_TOKEN_RE = /^v\d+$/;
/** Endings tried to find a word that FTS5 reads as a given stem when the stem itself reads as another one. */
const ENDINGS = ['e', 's', 'es', 'ed', 'ing', 'y', 'al', 'er', 'ion', 'ly', 'ate', 'ize', 'ic', 'ous', 'ive', 'ity'];

/**
 * Champion lists (Manning, Raghavan & Schütze, Introduction to Information Retrieval, §7.1.3) of one version:
 * for each term in at least `minDf` of the version's documents, the `size` documents with the best score for
 * that term alone — -bm25 with the index's weights times the link-density factor, ties by id, exactly what
 * search computes — stored as a JSON array of rowids in `champions` (with the scores of the first `scored`),
 * and the build's watermark (the highest rowid) in `champion_builds`, with the value of the catalog's change
 * counter (meta `changes`, bumped by every insert and delete) and the weights: while both are unchanged, the
 * stored scores are exactly what bm25 computes.
 *
 * Documents added later are numbered above the watermark (the `rowid_floor` meta key, set first, keeps a
 * freed number from being reused below it), so search treats every document above it as a candidate.
 * The frequent terms come from fts5vocab. A list is built with a MATCH that FTS5 reads as exactly that index
 * term: the term itself or, the porter stemmer not being idempotent (`rais` reads as `rai`), the term with
 * one of a few endings (`raise` reads as `rais`); a term with none is skipped.
 * With `pairs`, the frequent pairs of `pairs_fts` get lists too, scored there (a pair's bm25 on `pairs_fts` is
 * the phrase's on `docs_fts`) and queried verbatim, so no read-back is needed.
 */
export function buildChampionLists(db: Database.Database, scratch: FtsScratch, o: ChampionOptions): ChampionBuild {
  // 1. The watermark, and the floor above which every later document is numbered.
  const watermark = db
    .transaction(() => {
      const w = (db.prepare(`SELECT coalesce(max(rowid), 0) AS w FROM docs`).get() as { w: number }).w;
      db.prepare(`
        INSERT INTO meta(key, value) VALUES ('rowid_floor', ?)
        ON CONFLICT(key) DO UPDATE SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))`).run(
        String(w),
      );
      return w;
    })
    .immediate();

  // 2. The lists, read from one snapshot (every document at or below the watermark that still exists is in it).
  const [wt, wx, wi] = o.weights;
  const lists = db.transaction(() => {
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.gf_vocab_rows USING fts5vocab(main, docs_fts, 'row')`);
    const frequent = (
      db.prepare(`SELECT term, doc FROM temp.gf_vocab_rows WHERE doc >= ?`).all(o.minDf) as Array<{
        term: string;
        doc: number;
      }>
    ).filter((t) => !SCOPE_TOKEN_RE.test(t.term));
    const readBack = scratch.terms(frequent.map((t) => t.term));
    const words = frequent.map(({ term }, i) => {
      const back = readBack[i] as string[];
      return back.length === 1 && back[0] === term ? term : undefined;
    });
    const unread = frequent.flatMap((_, i) => (words[i] === undefined ? [i] : []));
    const tries = scratch.terms(
      unread.flatMap((i) => ENDINGS.map((e) => `${(frequent[i] as { term: string }).term}${e}`)),
    );
    unread.forEach((i, k) => {
      const term = (frequent[i] as { term: string }).term;
      const hit = ENDINGS.findIndex((_, e) => {
        const back = tries[k * ENDINGS.length + e] as string[];
        return back.length === 1 && back[0] === term;
      });
      if (hit >= 0) words[i] = `${term}${ENDINGS[hit]}`;
    });
    const changes = Number(
      (db.prepare(`SELECT value FROM meta WHERE key = 'changes'`).get() as { value: string } | undefined)?.value ?? 0,
    );
    const statements = (table: string) => ({
      count: db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${table} MATCH ?`),
      top: db.prepare(`
        SELECT r.rowid AS rowid, r.id AS id,
          -bm25(${table}, @wt, @wx, @wi, 0.0) * max(0.5, min(1.5, 1.5 - r.link_density)) AS score
        FROM ${table} JOIN ranks r ON r.rowid = ${table}.rowid
        WHERE ${table} MATCH @q
        ORDER BY score DESC, id ASC
        LIMIT @size`),
    });
    const out: Array<{ term: string; df: number; rowids: number[]; scores: number[] }> = [];
    const list = (s: ReturnType<typeof statements>, term: string, phrase: string, doc: number): void => {
      const q = o.scope ? `(${phrase}) AND scope : (${o.scope})` : phrase;
      // fts5vocab counts the whole catalog; with other versions in the file, count this one's.
      const df = o.scope ? (s.count.get(q) as { n: number }).n : doc;
      if (df < o.minDf) return;
      const rows = s.top.all({ q, wt, wx, wi, size: o.size }) as Array<{ rowid: number; score: number }>;
      out.push({
        term,
        df,
        rowids: rows.map((r) => r.rowid),
        scores: rows.slice(0, o.scored).map((r) => r.score),
      });
    };
    const single = statements('docs_fts');
    let skipped = 0;
    frequent.forEach(({ term, doc }, i) => {
      const word = words[i];
      if (word === undefined) {
        skipped++;
        return;
      }
      list(single, term, `"${word.replaceAll('"', '""')}"`, doc);
    });
    let pairTerms = 0;
    if (o.pairs) {
      db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.gf_pair_rows USING fts5vocab(main, pairs_fts, 'row')`);
      const pairs = statements('pairs_fts');
      const before = out.length;
      for (const { term, doc } of db
        .prepare(`SELECT term, doc FROM temp.gf_pair_rows WHERE doc >= ?`)
        .all(o.minDf) as Array<{ term: string; doc: number }>) {
        if (term.includes(PAIR_SEP)) list(pairs, term, pairTermQuery(term), doc);
      }
      pairTerms = out.length - before;
    }
    return { out, skipped, changes, pairTerms };
  })();

  // 3. Replace the version's lists in one short write.
  db.transaction(() => {
    db.prepare(`DELETE FROM champions WHERE version = ?`).run(o.version);
    const put = db.prepare(`INSERT INTO champions(version, term, df, rowids, scores) VALUES (?, ?, ?, ?, ?)`);
    for (const l of lists.out) put.run(o.version, l.term, l.df, JSON.stringify(l.rowids), JSON.stringify(l.scores));
    db.prepare(`
      INSERT OR REPLACE INTO champion_builds(version, watermark, min_df, size, terms, changes, weights, built_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(
      o.version,
      watermark,
      o.minDf,
      o.size,
      lists.out.length,
      lists.changes,
      JSON.stringify(o.weights),
      new Date().toISOString(),
    );
  }).immediate();

  return {
    terms: lists.out.length,
    pairTerms: lists.pairTerms,
    skipped: lists.skipped,
    postings: lists.out.reduce((a, l) => a + l.df, 0),
    watermark,
  };
}
