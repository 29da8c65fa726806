import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CrawlerError } from '../errors.js';
import { loadFtsExtension } from './fts-extension.js';
import { PAIRS_READY_SQL } from './fts-pairs.js';
import { FtsScratch, TOKENIZE } from './fts-scratch.js';

/**
 * The embedded full-text index's file: one SQLite database per catalog, its schema (migrated in place when opened)
 * and the prepared statements every write and search runs. See docs/search.md.
 */

const SCHEMA_VERSION = 2;

/** The statements of one search over an FTS5 table (`docs_fts`, or `pairs_fts` for phrases). */
export interface SearchStatements {
  count: Database.Statement;
  page: Database.Statement;
  counted: Database.Statement;
  restricted: Database.Statement;
  partRowids: Database.Statement;
}

export interface Statements extends SearchStatements {
  insert: Database.Statement;
  deleteId: Database.Statement;
  deleteVersion: Database.Statement;
  deleteChampions: Database.Statement;
  deleteBuild: Database.Statement;
  countVersion: Database.Statement;
  versionCounts: Database.Statement;
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

/** One catalog's open index file. */
export interface CatalogIndex {
  catalogId: string;
  db: Database.Database;
  stmts: Statements;
  scratch: FtsScratch;
  /** Greenfinger's SQLite extension is loaded on this connection (the pair table can be built and read). */
  extension: boolean;
  /** The search statements over `pairs_fts`, prepared on first use. */
  pairStmts?: SearchStatements;
}

/** The token that marks a document's version inside the FTS table, so scoping is part of the match. */
export function scopeToken(version: number): string {
  return `v${version}`;
}

/**
 * Opens (creating it when `create`) and migrates the index file of one catalog in `dir`; null when it does not
 * exist and `create` is false.
 */
export function openCatalogIndex(dir: string, catalogId: string, create: boolean): CatalogIndex | null {
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
  return cat;
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
    versionCounts: db.prepare(`SELECT version, count(*) AS n FROM docs GROUP BY version ORDER BY version`),
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
export function prepareSearch(db: Database.Database, table: 'docs_fts' | 'pairs_fts'): SearchStatements {
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
