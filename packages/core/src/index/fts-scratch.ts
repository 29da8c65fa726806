import type Database from 'better-sqlite3';

/** The tokenizer of the index's FTS5 table: the scratch tables must cut text exactly the same way. */
export const TOKENIZE = 'porter unicode61 remove_diacritics 2';

/** snippet() of one hit's title, text and image text. */
export interface SnippetRow {
  rowid: number;
  s_text: string | null;
  s_title: string | null;
  s_image: string | null;
}

/**
 * Per-connection scratch FTS5 tables in the `temp` schema (private to the connection, never written to the file):
 * - `gf_query` (contentless) + its fts5vocab `instance` table: the terms FTS5 makes of a query, stemmed exactly as
 *   the index stems them (no re-implementation of the porter stemmer);
 * - `gf_snip` over `gf_snip_src`: a page's hits copied in, so snippet() costs per hit and not per match (on the
 *   index's table, snippet() for one row under a MATCH walks the whole match list up to that row).
 * Each use fills them inside a savepoint and rolls it back before returning (emptying an FTS5 table by
 * deleting would cost as much as filling it).
 */
export class FtsScratch {
  readonly #db: Database.Database;
  readonly #addQuery: Database.Statement;
  readonly #queryTerms: Database.Statement;
  readonly #fillSrc: Database.Statement;
  readonly #fillSnip: Database.Statement;
  readonly #snippets: Database.Statement;

  constructor(db: Database.Database) {
    this.#db = db;
    db.exec(`
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.gf_query USING fts5(t, content = '', tokenize = '${TOKENIZE}');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.gf_query_terms USING fts5vocab(temp, gf_query, 'instance');
      CREATE TABLE IF NOT EXISTS temp.gf_snip_src (
        rowid INTEGER PRIMARY KEY, title TEXT NOT NULL, text TEXT NOT NULL, image_text TEXT NOT NULL
      );
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.gf_snip USING fts5(
        title, text, image_text, content = 'gf_snip_src', content_rowid = 'rowid', tokenize = '${TOKENIZE}'
      );
    `);
    this.#addQuery = db.prepare(`INSERT INTO temp.gf_query(rowid, t) VALUES (CAST(? AS INTEGER), ?)`);
    this.#queryTerms = db.prepare(`SELECT doc, term FROM temp.gf_query_terms ORDER BY doc, offset`);
    this.#fillSrc = db.prepare(`
      INSERT INTO temp.gf_snip_src(rowid, title, text, image_text)
      SELECT rowid, title, text, image_text FROM main.docs WHERE rowid IN (SELECT value FROM json_each(?))`);
    this.#fillSnip = db.prepare(`
      INSERT INTO temp.gf_snip(rowid, title, text, image_text) SELECT rowid, title, text, image_text FROM temp.gf_snip_src`);
    this.#snippets = db.prepare(`
      SELECT rowid,
        snippet(gf_snip, 1, @open, @close, '…', @tokens) AS s_text,
        snippet(gf_snip, 0, @open, @close, '…', @tokens) AS s_title,
        snippet(gf_snip, 2, @open, @close, '…', @tokens) AS s_image
      FROM temp.gf_snip WHERE gf_snip MATCH @q`);
  }

  /** The index terms of each text, in order (a text of several terms is a phrase to FTS5). */
  terms(texts: readonly string[]): string[][] {
    this.#db.exec('SAVEPOINT gf_query');
    try {
      for (const [i, t] of texts.entries()) this.#addQuery.run(i + 1, t);
      const out: string[][] = texts.map(() => []);
      for (const r of this.#queryTerms.all() as Array<{ doc: number; term: string }>) out[r.doc - 1]?.push(r.term);
      return out;
    } finally {
      this.#db.exec('ROLLBACK TO gf_query; RELEASE gf_query');
    }
  }

  /**
   * snippet() of title, text and image text for each of `rowids` under `match` (the user's terms, without the
   * scope clause: the scratch table has no scope column). Same tokenizer, same text, same expression: the same
   * passages and markers as snippet() on the index's table.
   */
  snippets(rowids: readonly number[], match: string, open: string, close: string, tokens: number): SnippetRow[] {
    if (rowids.length === 0) return [];
    this.#db.exec('SAVEPOINT gf_snip');
    try {
      this.#fillSrc.run(JSON.stringify(rowids));
      this.#fillSnip.run();
      return this.#snippets.all({ q: match, open, close, tokens }) as SnippetRow[];
    } finally {
      this.#db.exec('ROLLBACK TO gf_snip; RELEASE gf_snip');
    }
  }
}
