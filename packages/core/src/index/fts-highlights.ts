import { unsegmentCjk } from './cjk.js';
import type { CatalogIndex } from './fts-schema.js';
import type { IndexDocument, WordsHit } from './search-index.js';

/** The match markers snippet() puts around a match (never in indexed text: `clean` removes them). */
export const OPEN = '\u0001';
export const CLOSE = '\u0002';
const MARKERS = /[\u0001\u0002]/g;

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

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/** HTML-escapes a snippet and turns the match markers into <em>…</em>. */
export function toHighlight(snippet: string): string | null {
  if (!snippet.includes(OPEN)) return null;
  return escapeHtml(unsegmentCjk(snippet)).replaceAll(OPEN, '<em>').replaceAll(CLOSE, '</em>');
}

/** Text to index with the match markers taken out (snippet() puts them around matches). */
export function clean(s: string): string {
  return s.replace(MARKERS, ' ');
}

/** One hit of a page: the catalog it is in, its document number there and its score. */
export interface PageHit {
  target: { catalog: CatalogIndex };
  rowid: number;
  score: number;
}

/**
 * The page's hits with their fields and highlights, computed per hit on a scratch table; only the first
 * `highlightFirst` hits get highlights (the others an empty list).
 */
export function hitsOf(
  page: readonly PageHit[],
  match: string,
  snippetTokens: number,
  highlightFirst = Number.POSITIVE_INFINITY,
): WordsHit[] {
  const byCatalog = new Map<CatalogIndex, number[]>();
  const highlighted = new Map<CatalogIndex, number[]>();
  for (const [i, c] of page.entries()) {
    if (i < highlightFirst) {
      const list = highlighted.get(c.target.catalog) ?? [];
      list.push(c.rowid);
      highlighted.set(c.target.catalog, list);
    }
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
    const wanted = highlighted.get(catalog) ?? [];
    for (const s of wanted.length ? catalog.scratch.snippets(wanted, match, OPEN, CLOSE, snippetTokens) : []) {
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
