import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CrawlerError } from '../errors.js';
import { segmentCjk, unsegmentCjk } from './cjk.js';
import { toFtsQuery } from './fts-query.js';
import { decodeCursor, encodeCursor, type SearchAfter } from './search-cursor.js';
import type { IndexDocument, SearchIndex, WordsHit, WordsQuery, WordsResult } from './search-index.js';

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
}

const SCHEMA_VERSION = 1;
const OPEN = '\u0001';
const CLOSE = '\u0002';
const MARKERS = /[\u0001\u0002]/g;
const MAX_PAGE = 1000;
const ID_RE = /^[A-Za-z0-9_-]{1,128}$/;

interface Statements {
  insert: Database.Statement;
  deleteId: Database.Statement;
  deleteVersion: Database.Statement;
  countVersion: Database.Statement;
  count: Database.Statement;
  page: Database.Statement;
  detail: Database.Statement;
}

interface CatalogIndex {
  catalogId: string;
  db: Database.Database;
  stmts: Statements;
}

interface Target {
  catalog: CatalogIndex;
  /** FTS5 alternatives of the version tokens in scope, e.g. `"v1" OR "v2"`. */
  scope: string;
}

interface Candidate {
  target: Target;
  rowid: number;
  id: string;
  score: number;
}

interface DetailRow {
  id: string;
  version: number;
  catalog_name: string;
  url: string;
  title: string;
  html_path: string;
  text_path: string;
  images: string;
  s_text: string;
  s_title: string;
  s_image: string;
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
 */
export class SqliteFtsIndex implements SearchIndex {
  readonly name = 'sqlite-fts5';
  readonly #root: string;
  readonly #prefix: string;
  readonly #weights: readonly [number, number, number];
  readonly #snippetTokens: number;
  readonly #open = new Map<string, CatalogIndex>();
  #closed = false;

  constructor(options: SqliteFtsIndexOptions) {
    this.#root = options.root;
    this.#prefix = options.prefix;
    this.#weights = options.weights ?? [10, 1, 0.5];
    this.#snippetTokens = options.snippetTokens ?? 16;
  }

  /** Directory of one catalog's index. */
  dirOf(catalogId: string): string {
    return join(this.#root, `${this.#prefix}-${catalogId}`);
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
    return cat.db.transaction(() => cat.stmts.deleteVersion.run(version).changes)();
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

  async search(query: WordsQuery): Promise<WordsResult> {
    const size = Math.min(Math.max(Math.trunc(query.size), 0), MAX_PAGE);
    const after = query.cursor ? decodeCursor(query.cursor) : undefined;
    const fts = toFtsQuery(query.q);
    const empty: WordsResult = { results: [], total: 0, nextCursor: null };
    if (!fts.all) return empty;

    const targets: Target[] = [];
    const versionsOf = new Map<string, Set<number>>();
    for (const s of query.scopes) {
      const set = versionsOf.get(s.catalogId) ?? new Set<number>();
      set.add(s.version);
      versionsOf.set(s.catalogId, set);
    }
    for (const [catalogId, versions] of versionsOf) {
      const catalog = this.#catalog(catalogId, false);
      if (catalog) targets.push({ catalog, scope: [...versions].map((v) => `"${scopeToken(v)}"`).join(' OR ') });
    }
    if (targets.length === 0) return empty;

    let match = fts.all;
    let total = this.#count(targets, match);
    if (total === 0 && fts.any) {
      match = fts.any;
      total = this.#count(targets, match);
    }
    if (total === 0 || size === 0) return { results: [], total, nextCursor: null };

    const prefer = query.preferDetailPages === false ? 0 : 1;
    const [wt, wx, wi] = this.#weights;
    const candidates: Candidate[] = [];
    for (const target of targets) {
      const { catalog } = target;
      const rows = catalog.stmts.page.all({
        q: scoped(match, target.scope),
        prefer,
        wt,
        wx,
        wi,
        afterScore: after?.score ?? null,
        afterId: after?.id ?? null,
        limit: size + 1,
      }) as Array<{ rowid: number; id: string; score: number }>;
      for (const r of rows) candidates.push({ target, rowid: r.rowid, id: r.id, score: r.score });
    }
    candidates.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const page = candidates.slice(0, size);
    const results = page.map((c) => this.#hit(c, match));
    const last = page.at(-1);
    const more = candidates.length > size && last !== undefined;
    return {
      results,
      total,
      nextCursor: more ? encodeCursor({ score: last.score, id: last.id } satisfies SearchAfter) : null,
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const cat of this.#open.values()) cat.db.close();
    this.#open.clear();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #count(targets: Target[], match: string): number {
    let n = 0;
    for (const { catalog, scope } of targets)
      n += (catalog.stmts.count.get({ q: scoped(match, scope) }) as { n: number }).n;
    return n;
  }

  #hit(c: Candidate, match: string): WordsHit {
    const row = c.target.catalog.stmts.detail.get({
      q: scoped(match, c.target.scope),
      rowid: c.rowid,
      open: OPEN,
      close: CLOSE,
      tokens: this.#snippetTokens,
    }) as DetailRow;
    const highlights: string[] = [];
    for (const s of [row.s_text, row.s_title, row.s_image]) {
      const h = toHighlight(s ?? '');
      if (h && highlights.length < 2) highlights.push(h);
    }
    return {
      id: row.id,
      catalogId: c.target.catalog.catalogId,
      catalogName: row.catalog_name,
      version: row.version,
      url: row.url,
      title: unsegmentCjk(row.title),
      score: c.score,
      highlights,
      htmlPath: row.html_path,
      textPath: row.text_path,
      images: JSON.parse(row.images) as IndexDocument['images'],
    };
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
    let db: Database.Database;
    try {
      db = new Database(file);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 5000');
      migrate(db, catalogId);
    } catch (err) {
      throw new CrawlerError('STORAGE', `cannot open the full-text index ${file}: ${(err as Error).message}`, {
        cause: err,
        fix: 'check the directory is writable; a corrupt index can be rebuilt with replay --layers=index',
      });
    }
    const cat: CatalogIndex = { catalogId, db, stmts: prepare(db) };
    this.#open.set(catalogId, cat);
    return cat;
  }
}

/** The token that marks a document's version inside the FTS table, so scoping is part of the match. */
function scopeToken(version: number): string {
  return `v${version}`;
}

/** User terms only match the text columns; the version filter matches the scope column. */
function scoped(match: string, scope: string): string {
  return `{title text image_text} : (${match}) AND scope : (${scope})`;
}

function migrate(db: Database.Database, catalogId: string): void {
  db.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  const row = db.prepare(`SELECT value FROM meta WHERE key = 'schema'`).get() as { value: string } | undefined;
  if (row && Number(row.value) !== SCHEMA_VERSION) {
    throw new Error(`schema version ${row.value}, this build reads ${SCHEMA_VERSION}`);
  }
  if (row) return;
  db.transaction(() => {
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
        tokenize = 'porter unicode61 remove_diacritics 2'
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
    const put = db.prepare(`INSERT INTO meta(key, value) VALUES (?, ?)`);
    put.run('schema', String(SCHEMA_VERSION));
    put.run('catalogId', catalogId);
  })();
}

function prepare(db: Database.Database): Statements {
  return {
    insert: db.prepare(`
      INSERT INTO docs (id, version, catalog_name, url, title, text, image_text, scope, html_path, text_path, images, link_density, fetched_at)
      VALUES (@id, @version, @catalog_name, @url, @title, @text, @image_text, @scope, @html_path, @text_path, @images, @link_density, @fetched_at)`),
    deleteId: db.prepare(`DELETE FROM docs WHERE id = ?`),
    deleteVersion: db.prepare(`DELETE FROM docs WHERE version = ?`),
    countVersion: db.prepare(`SELECT count(*) AS n FROM docs WHERE version = ?`),
    count: db.prepare(`SELECT count(*) AS n FROM docs_fts WHERE docs_fts MATCH @q`),
    page: db.prepare(`
      SELECT rowid, id, score FROM (
        SELECT d.rowid AS rowid, d.id AS id,
          -bm25(docs_fts, @wt, @wx, @wi, 0.0)
            * (CASE WHEN @prefer = 1 THEN max(0.5, min(1.5, 1.5 - d.link_density)) ELSE 1.0 END) AS score
        FROM docs_fts JOIN docs d ON d.rowid = docs_fts.rowid
        WHERE docs_fts MATCH @q
      )
      WHERE @afterScore IS NULL OR score < @afterScore OR (score = @afterScore AND id > @afterId)
      ORDER BY score DESC, id ASC
      LIMIT @limit`),
    // The unary + keeps the rowid test out of FTS5's plan: pushed down together with MATCH, SQLite 3.53's FTS5
    // computes snippet() for the first match of the query instead of this row (every hit got the same passage).
    detail: db.prepare(`
      SELECT d.id, d.version, d.catalog_name, d.url, d.title, d.html_path, d.text_path, d.images,
        snippet(docs_fts, 1, @open, @close, '…', @tokens) AS s_text,
        snippet(docs_fts, 0, @open, @close, '…', @tokens) AS s_title,
        snippet(docs_fts, 2, @open, @close, '…', @tokens) AS s_image
      FROM docs_fts JOIN docs d ON d.rowid = docs_fts.rowid
      WHERE docs_fts MATCH @q AND +docs_fts.rowid = @rowid`),
  };
}
