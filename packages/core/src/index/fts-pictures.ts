import type Database from 'better-sqlite3';
import { ids, isUuid } from '../ids.js';
import { segmentCjk, unsegmentCjk } from './cjk.js';
import { CLOSE, clean, OPEN, toHighlight } from './fts-highlights.js';
import {
  countPictureImageVectors,
  deletePictureImageVectors,
  deletePictureImageVectorsOfVersion,
  nearestPictureImages,
  pictureImageVectorOf,
} from './fts-picture-image-vectors.js';
import {
  countPictureVectors,
  deletePictureVectors,
  deletePictureVectorsOfVersion,
  nearestPictures,
  pictureVectorOf,
} from './fts-picture-vectors.js';
import type { CatalogIndex } from './fts-schema.js';
import { scopeToken } from './fts-schema.js';
import { TOKENIZE } from './fts-scratch.js';
import type { IndexDocument, PictureHit, PictureLikeQuery, PictureLikeResult, PicturePage } from './search-index.js';

/**
 * Picture records of the embedded full-text index: one row per kept picture of a version (keyed by
 * `ids.imagePoint`), whatever number of pages show it, in the catalog's own index file beside the page documents.
 * A record holds the picture's alt texts, captions, the words of its file name, the titles of the pages that show
 * it (and the folders its file sits in), and those pages; `pictures_fts` ranks them. Written inside the page
 * upsert's transaction, so the writer thread needs nothing new, and dropped with the version.
 */

/** bm25 weights of alt, caption, name, context and scope. */
const WEIGHTS = [6, 2, 4, 1, 0] as const;
/** Distinct alt texts and captions kept per picture (a picture on many pages mostly repeats them). */
const MAX_TEXTS = 3;
/** Pages listed per picture (the count goes on). */
const MAX_PAGES = 100;
/** Distinct page titles in the context column. */
const MAX_TITLES = 5;
/** Folder names that say nothing about a picture. */
const GENERIC_DIRS = new Set([
  'images',
  'image',
  'img',
  'imgs',
  'pictures',
  'static',
  'assets',
  'media',
  'uploads',
  'files',
  'wp-content',
  'en',
]);

interface PictureRow {
  rowid: number;
  id: string;
  image_id: string;
  version: number;
  catalog_name: string;
  url: string;
  path: string;
  width: number | null;
  height: number | null;
  alt: string;
  caption: string;
  name: string;
  context: string;
  dirs: string;
  pages: string;
  page_count: number;
}

interface PictureStatements {
  get: Database.Statement;
  insert: Database.Statement;
  deleteRow: Database.Statement;
  deleteVersion: Database.Statement;
  ofPage: Database.Statement;
}

const prepared = new WeakMap<Database.Database, PictureStatements>();

/** The picture tables of an index file (created on first use: a file written before them simply has none yet). */
function statementsOf(db: Database.Database): PictureStatements {
  const cached = prepared.get(db);
  if (cached) return cached;
  db.transaction(() => {
    db.exec(`
      CREATE TABLE IF NOT EXISTS pictures (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        image_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        catalog_name TEXT NOT NULL,
        url TEXT NOT NULL,
        path TEXT NOT NULL,
        width INTEGER,
        height INTEGER,
        alt TEXT NOT NULL,
        caption TEXT NOT NULL,
        name TEXT NOT NULL,
        context TEXT NOT NULL,
        dirs TEXT NOT NULL,
        scope TEXT NOT NULL,
        pages TEXT NOT NULL,
        page_count INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS pictures_version ON pictures(version);
      CREATE VIRTUAL TABLE IF NOT EXISTS pictures_fts USING fts5(
        alt, caption, name, context, scope,
        content = 'pictures', content_rowid = 'rowid',
        tokenize = '${TOKENIZE}'
      );
      CREATE TRIGGER IF NOT EXISTS pictures_ai AFTER INSERT ON pictures BEGIN
        INSERT INTO pictures_fts(rowid, alt, caption, name, context, scope)
          VALUES (new.rowid, new.alt, new.caption, new.name, new.context, new.scope);
      END;
      CREATE TRIGGER IF NOT EXISTS pictures_ad AFTER DELETE ON pictures BEGIN
        INSERT INTO pictures_fts(pictures_fts, rowid, alt, caption, name, context, scope)
          VALUES ('delete', old.rowid, old.alt, old.caption, old.name, old.context, old.scope);
      END;
    `);
  }).immediate();
  const stmts: PictureStatements = {
    get: db.prepare(`SELECT * FROM pictures WHERE id = ?`),
    insert: db.prepare(`
      INSERT INTO pictures (id, image_id, version, catalog_name, url, path, width, height, alt, caption, name, context, dirs, scope, pages, page_count)
      VALUES (@id, @image_id, @version, @catalog_name, @url, @path, @width, @height, @alt, @caption, @name, @context, @dirs, @scope, @pages, @page_count)`),
    deleteRow: db.prepare(`DELETE FROM pictures WHERE id = ?`),
    deleteVersion: db.prepare(`DELETE FROM pictures WHERE version = ?`),
    ofPage: db.prepare(
      `SELECT * FROM pictures WHERE version = ? AND EXISTS (SELECT 1 FROM json_each(pictures.pages) WHERE json_extract(value, '$.id') = ?)`,
    ),
  };
  prepared.set(db, stmts);
  return stmts;
}

/** The picture record id: `ids.imagePoint`, or a plain key for a catalog id that is not a UUID (tests). */
export function pictureRecordId(catalogId: string, version: number, imageId: string): string {
  return isUuid(catalogId) ? ids.imagePoint(catalogId, version, imageId) : `${catalogId}|${version}|image|${imageId}`;
}

/**
 * The words of a picture's file name (`export-webp-dialog.png` → `export webp dialog`, camelCase split too) and
 * of the folders it sits in, generic ones (`images`, `static`…) left out.
 */
export function fileNameWords(url: string): { name: string; dirs: string } {
  let path = url;
  try {
    path = decodeURIComponent(new URL(url).pathname);
  } catch {
    // not a url: the text as it is
  }
  const parts = path.split('/').filter(Boolean);
  const file = (parts.pop() ?? '').replace(/\.[A-Za-z0-9]{1,5}$/, '');
  const words = (s: string) =>
    s
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length > 0 && !/^\d+$/.test(w))
      .join(' ');
  const dirs = parts.filter((d) => !GENERIC_DIRS.has(d.toLowerCase())).map(words);
  return { name: words(file), dirs: dirs.filter(Boolean).join(' ') };
}

/** Adds `text` to a newline-joined list of distinct texts, at most `max` of them. */
function addDistinct(list: string, text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (!t) return list;
  const items = list ? list.split('\n') : [];
  if (items.includes(t) || items.length >= max) return list;
  items.push(t);
  return items.join('\n');
}

/**
 * Writes the picture records of these page documents (call inside the upsert's transaction): a new picture gets
 * its record, a known one gains the page (replaced when the page is written again) and any alt text or caption not
 * yet held.
 */
export function upsertPictures(db: Database.Database, catalogId: string, docs: readonly IndexDocument[]): void {
  if (!docs.some((d) => d.images?.length)) return;
  const s = statementsOf(db);
  for (const d of docs) {
    const seen = new Set<string>();
    for (const img of d.images ?? []) {
      if (!img.id || seen.has(img.id)) continue;
      seen.add(img.id);
      const id = pictureRecordId(catalogId, d.version, img.id);
      const old = s.get.get(id) as PictureRow | undefined;
      const page: PicturePage = { id: d.id, url: d.url, title: d.title };
      let pages: PicturePage[] = old ? (JSON.parse(old.pages) as PicturePage[]) : [];
      const had = pages.some((p) => p.id === d.id);
      pages = had ? pages.map((p) => (p.id === d.id ? page : p)) : pages.length < MAX_PAGES ? [...pages, page] : pages;
      const { name, dirs } = old ? { name: old.name, dirs: old.dirs } : fileNameWords(img.url);
      const titles = pages.map((p) => p.title).filter(Boolean);
      const row = {
        id,
        image_id: img.id,
        version: d.version,
        catalog_name: d.catalogName,
        url: img.url,
        path: img.path,
        width: img.width ?? old?.width ?? null,
        height: img.height ?? old?.height ?? null,
        alt: addDistinct(old?.alt ?? '', segmentCjk(clean(img.alt ?? '')), MAX_TEXTS),
        caption: addDistinct(old?.caption ?? '', segmentCjk(clean(img.caption ?? '')), MAX_TEXTS),
        name,
        context: segmentCjk(clean([...new Set(titles)].slice(0, MAX_TITLES).join('\n'))) + (dirs ? `\n${dirs}` : ''),
        dirs,
        scope: scopeToken(d.version),
        pages: JSON.stringify(pages),
        page_count: (old?.page_count ?? 0) + (had ? 0 : 1),
      };
      if (old) s.deleteRow.run(id);
      s.insert.run(row);
    }
  }
}

/** Removes the picture records of a version; returns how many went. */
export function deletePicturesOfVersion(db: Database.Database, version: number): number {
  deletePictureVectorsOfVersion(db, version);
  deletePictureImageVectorsOfVersion(db, version);
  return statementsOf(db).deleteVersion.run(version).changes;
}

/** Takes a page off the records of the pictures it shows; a record left with no page goes. */
export function removePageFromPictures(db: Database.Database, version: number, resourceId: string): void {
  const s = statementsOf(db);
  for (const old of s.ofPage.all(version, resourceId) as PictureRow[]) {
    const pages = (JSON.parse(old.pages) as PicturePage[]).filter((p) => p.id !== resourceId);
    s.deleteRow.run(old.id);
    if (old.page_count <= 1 || pages.length === 0) {
      deletePictureVectors(db, [old.id]);
      deletePictureImageVectors(db, [old.id]);
      continue;
    }
    const { rowid: _, ...rest } = old;
    s.insert.run({ ...rest, pages: JSON.stringify(pages), page_count: old.page_count - 1 });
  }
}

/**
 * One catalog's ranked picture records for a MATCH expression: the first `limit`, and how many match. Without one
 * (a blank query) the version's pictures are listed, those shown on the most pages first (score: that count).
 */
export function rankPictures(
  cat: CatalogIndex,
  match: string | null,
  versions: readonly number[],
  limit: number,
): { hits: PictureHit[]; total: number } {
  statementsOf(cat.db);
  if (match === null) return listPictures(cat, versions, limit);
  const scope = versions.map((v) => `"${scopeToken(v)}"`).join(' OR ');
  const q = `{alt caption name context} : (${match}) AND scope : (${scope})`;
  const total = (
    cat.db.prepare(`SELECT count(*) AS n FROM pictures_fts WHERE pictures_fts MATCH ?`).get(q) as {
      n: number;
    }
  ).n;
  if (total === 0 || limit === 0) return { hits: [], total };
  const snip = (col: number) => `snippet(pictures_fts, ${col}, '${OPEN}', '${CLOSE}', '…', 24)`;
  const rows = cat.db
    .prepare(`
      SELECT p.*, -bm25(pictures_fts, ${WEIGHTS.join(', ')}) AS score,
        ${snip(1)} AS s_caption, ${snip(0)} AS s_alt, ${snip(2)} AS s_name, ${snip(3)} AS s_context
      FROM pictures_fts JOIN pictures p ON p.rowid = pictures_fts.rowid
      WHERE pictures_fts MATCH ?
      ORDER BY score DESC, p.id ASC
      LIMIT ?`)
    .all(q, limit) as Array<
    PictureRow & { score: number; s_caption: string; s_alt: string; s_name: string; s_context: string }
  >;
  return { hits: rows.map((r) => toHit(cat, r)), total };
}

/** The picture records with these ids (of any version), as hits scored as given, in the order given. */
export function picturesById(cat: CatalogIndex, scored: ReadonlyArray<{ id: string; score: number }>): PictureHit[] {
  if (scored.length === 0) return [];
  statementsOf(cat.db);
  const rows = cat.db
    .prepare(`SELECT * FROM pictures WHERE id IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify(scored.map((x) => x.id))) as PictureRow[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return scored.flatMap((x) => {
    const r = byId.get(x.id);
    return r ? [toHit(cat, { ...r, score: x.score })] : [];
  });
}

/**
 * Pictures like one (`query.like`: a record id or an image id, found in the first catalog in scope that holds it):
 * the other picture records of the catalogs' versions ranked by cosine to its stored **image** vector when it has
 * one (what it shows, compared with the image vectors of the same model: `by: 'image'`; the model `query.imageModel`
 * names first), else to its caption-meaning vector — an exact scan either way; the picture itself and its copies
 * (same image id) left out.
 */
export function likePictures(
  catalogs: ReadonlyArray<{ cat: CatalogIndex; versions: number[] }>,
  query: PictureLikeQuery,
  maxPage: number,
): PictureLikeResult {
  const size = Math.min(Math.max(Math.trunc(query.size), 0), maxPage);
  const offset = Math.min(Math.max(Math.trunc(query.offset ?? 0), 0), maxPage);
  const captionVectors = catalogs.reduce((n, c) => n + countPictureVectors(c.cat.db, c.versions), 0);
  let source: { cat: CatalogIndex; row: PictureRow } | undefined;
  for (const { cat, versions } of catalogs) {
    statementsOf(cat.db);
    const row = cat.db
      .prepare(`
        SELECT * FROM pictures WHERE (id = ? OR image_id = ?) AND version IN (SELECT value FROM json_each(?))
        ORDER BY version DESC LIMIT 1`)
      .get(query.like, query.like, JSON.stringify(versions)) as PictureRow | undefined;
    if (row) {
      source = { cat, row };
      break;
    }
  }
  if (!source) return { source: null, by: null, results: [], total: 0, vectors: captionVectors };
  const hit = toHit(source.cat, { ...source.row, score: 1 });
  const { db } = source.cat;
  const image =
    (query.imageModel ? pictureImageVectorOf(db, source.row.id, query.imageModel) : undefined) ??
    pictureImageVectorOf(db, source.row.id);
  const caption = image ? undefined : pictureVectorOf(db, source.row.id);
  if (!image && !caption) return { source: hit, by: null, results: [], total: 0, vectors: captionVectors };
  const vectors = image
    ? catalogs.reduce((n, c) => n + countPictureImageVectors(c.cat.db, c.versions, image.model), 0)
    : captionVectors;
  const hits: PictureHit[] = [];
  let copies = 0;
  for (const { cat, versions } of catalogs) {
    const same = cat.db
      .prepare(`SELECT id FROM pictures WHERE image_id = ? AND version IN (SELECT value FROM json_each(?))`)
      .all(source.row.image_id, JSON.stringify(versions)) as Array<{ id: string }>;
    copies += same.length;
    const exclude = new Set(same.map((r) => r.id));
    const near = image
      ? nearestPictureImages(cat.db, versions, image.model, image.vector, offset + size, exclude)
      : nearestPictures(cat.db, versions, caption as Float32Array, offset + size, exclude);
    hits.push(...picturesById(cat, near));
  }
  hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    source: hit,
    by: image ? 'image' : 'caption meaning',
    results: hits.slice(offset, offset + size),
    total: Math.max(0, vectors - copies),
    vectors,
  };
}

/** The pictures of the versions, shown on the most pages first. */
function listPictures(cat: CatalogIndex, versions: readonly number[], limit: number) {
  const list = JSON.stringify(versions);
  const total = (
    cat.db
      .prepare(`SELECT count(*) AS n FROM pictures WHERE version IN (SELECT value FROM json_each(?))`)
      .get(list) as { n: number }
  ).n;
  const rows = cat.db
    .prepare(`
      SELECT *, page_count AS score FROM pictures WHERE version IN (SELECT value FROM json_each(?))
      ORDER BY page_count DESC, id ASC LIMIT ?`)
    .all(list, limit) as Array<PictureRow & { score: number }>;
  return { hits: rows.map((r) => toHit(cat, r)), total };
}

/** A hit from a picture row, with the snippets that hold a match (the first two) as its highlights. */
function toHit(
  cat: CatalogIndex,
  r: PictureRow & { score: number; s_caption?: string; s_alt?: string; s_name?: string; s_context?: string },
): PictureHit {
  const highlights: string[] = [];
  for (const text of [r.s_caption, r.s_alt, r.s_name, r.s_context]) {
    const h = toHighlight(text ?? '');
    if (h && highlights.length < 2) highlights.push(h);
  }
  return {
    id: r.id,
    imageId: r.image_id,
    catalogId: cat.catalogId,
    catalogName: r.catalog_name,
    version: r.version,
    pictureUrl: r.url,
    file: r.path,
    width: r.width,
    height: r.height,
    alt: unsegmentCjk(r.alt.split('\n')[0] ?? ''),
    caption: unsegmentCjk(r.caption.split('\n')[0] ?? ''),
    highlights,
    score: r.score,
    pages: JSON.parse(r.pages) as PicturePage[],
    pageCount: r.page_count,
  };
}
