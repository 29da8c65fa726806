import type Database from 'better-sqlite3';
import { TOKENIZE } from './fts-scratch.js';

/**
 * The word-pair table of a catalog's index (`pairs_fts`): the same documents, columns and statistics as `docs_fts`,
 * each word after a column's first indexed as the pair `<previous term>\x1f<term>` by the `gf_pairs` tokenizer of
 * Greenfinger's SQLite extension (native/gf_fts.c). A phrase of two words is one term there and a phrase of n words
 * a phrase of n − 1 pairs, so FTS5 reads a short posting list instead of the positions of every document holding
 * all the words, and bm25 gives exactly the phrase's score on `docs_fts` (same counts, same column sizes).
 *
 * It is built by optimize() (the crawl's publish) for a version of at least `pairsMinDocs` documents, filled from
 * `docs` in batches, and is used only while the catalog is unchanged since (meta `pairs_changes` equals the change
 * counter `changes`): a write makes it stale until the next optimize().
 */
export const PAIR_SEP = '\u001f';
export const PAIRS_TOKENIZE = `gf_pairs ${TOKENIZE}`;
const BATCH = 2000;

/** The pair terms of a phrase's index terms: `a b c` → `a␟b`, `b␟c`. */
export function pairTerms(terms: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < terms.length; i++) out.push(`${terms[i - 1]}${PAIR_SEP}${terms[i]}`);
  return out;
}

/** FTS5 syntax of a phrase of two or more index terms on `pairs_fts`: its pairs, each one verbatim term, in a row. */
export function pairPhrase(terms: readonly string[]): string {
  return pairTerms(terms).map(pairTermQuery).join(' + ');
}

/** FTS5 syntax of one index term on `pairs_fts` (a pair term, read verbatim). */
export function pairTermQuery(term: string): string {
  return `"${PAIR_SEP}${term.replaceAll('"', '""')}"`;
}

export interface PairsBuild {
  documents: number;
  ms: number;
  /** Whether the table is in use: false when the catalog was written while it was being built. */
  ready: boolean;
}

/** SQL: whether the catalog's pair table is current (built at the value the change counter still has): `ready` 0/1. */
export const PAIRS_READY_SQL = `
  SELECT coalesce((SELECT value FROM meta WHERE key = 'pairs_changes') = (SELECT value FROM meta WHERE key = 'changes'), 0)
    AS ready`;

/**
 * (Re)builds `pairs_fts` from `docs` (the extension must be loaded on `db`). Readers stop using the old table
 * before it is dropped (meta `pairs_changes` removed in the same transaction) and start using the new one only
 * once it is complete and the catalog has not changed meanwhile.
 */
export function buildPairs(db: Database.Database, merge: boolean): PairsBuild {
  const started = performance.now();
  const { changes, max } = db
    .transaction(() => {
      db.prepare(`DELETE FROM meta WHERE key = 'pairs_changes'`).run();
      db.exec(`
        DROP TABLE IF EXISTS pairs_fts;
        CREATE VIRTUAL TABLE pairs_fts USING fts5(
          title, text, image_text, scope, content = '', tokenize = '${PAIRS_TOKENIZE}'
        );`);
      return db
        .prepare(`
          SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'changes'), 0) AS changes,
                 coalesce((SELECT max(rowid) FROM docs), 0) AS max`)
        .get() as { changes: number; max: number };
    })
    .immediate();
  const fill = db.prepare(`
    INSERT INTO pairs_fts(rowid, title, text, image_text, scope)
    SELECT rowid, title, text, image_text, scope FROM docs WHERE rowid > ? AND rowid <= ?`);
  let documents = 0;
  for (let lo = 0; lo < max; lo += BATCH) {
    documents += db.transaction(() => fill.run(lo, Math.min(max, lo + BATCH)).changes).immediate();
  }
  if (merge) db.exec(`INSERT INTO pairs_fts(pairs_fts) VALUES ('optimize')`);
  const ready = db
    .transaction(() => {
      const now = db.prepare(`SELECT value FROM meta WHERE key = 'changes'`).get() as { value: string } | undefined;
      if (Number(now?.value ?? 0) !== changes) return false;
      db.prepare(`INSERT OR REPLACE INTO meta(key, value) VALUES ('pairs_changes', ?)`).run(String(changes));
      return true;
    })
    .immediate();
  return { documents, ms: performance.now() - started, ready };
}

/** Drops the pair table (a version too small for it, or pairs turned off). */
export function dropPairs(db: Database.Database): void {
  db.transaction(() => {
    db.prepare(`DELETE FROM meta WHERE key = 'pairs_changes'`).run();
    db.exec(`DROP TABLE IF EXISTS pairs_fts`);
  }).immediate();
}
