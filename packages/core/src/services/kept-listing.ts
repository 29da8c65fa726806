import type { ComponentFactory } from '../compose/component-factory.js';
import { CrawlerError } from '../errors.js';
import type { IndexImage } from '../index/search-index.js';
import type { ResourceRow } from '../model.js';
import type { ScopedCatalog } from './search-scope.js';

/** How much of the article a card of the listing carries. */
export const KEPT_EXCERPT_CHARS = 400;

/** One card of a blank query's listing: a kept page, shaped like a ranked result. */
export interface KeptCard {
  id: string;
  title: string;
  url: string;
  catalog: string;
  catalogId: string;
  version: number;
  score: number;
  /** The first 400 characters of the article, HTML-escaped (one passage, like a ranked result's highlights). */
  highlights: string[];
  textPath: string;
  /** When the page was fetched (the listing's order: newest first). */
  fetchedAt: string;
  /** The page's pictures, deduplicated by image id. */
  pictures: IndexImage[];
}

export interface KeptPage {
  results: KeptCard[];
  /** Pages of the versions listed. */
  total: number;
  nextCursor: string | null;
}

/** Where a page of the listing starts: after this row, in the order (fetchedAt desc, id asc). */
interface KeptAfter {
  fetchedAt: string;
  id: string;
}

/**
 * A blank query lists what was kept (seed 000: "straight out of the record store"): the pages of the versions in
 * scope, newest fetch first across every catalog, `size` at a time. Each catalog gives its next `size` rows after
 * the cursor by a keyset (fetched_at desc, id), merged here, so a deep page costs what the first one does. No vector
 * is read; each card carries the first 400 characters of its article text and its pictures, deduplicated by image id.
 */
export async function keptListing(
  gf: ComponentFactory,
  published: ScopedCatalog[],
  size: number,
  cursor: string | undefined,
): Promise<KeptPage> {
  const after = cursor ? decodeKeptCursor(cursor) : undefined;
  const resources = (await gf.database()).resources;
  const rows: Array<{ row: ResourceRow; catalog: ScopedCatalog }> = [];
  let total = 0;
  for (const c of published) {
    total += (await resources.count(c.catalogId, c.version)).resources;
    for (const row of await resources.newestResources(c.catalogId, c.version, size + 1, after))
      rows.push({ row, catalog: c });
  }
  rows.sort((a, b) => newestFirst(a.row, b.row));
  const page = rows.slice(0, size);
  const results = await Promise.all(page.map(({ row, catalog }) => card(gf, row, catalog)));
  const last = page.at(-1)?.row;
  return {
    results,
    total,
    nextCursor: rows.length > size && last ? encodeKeptCursor({ fetchedAt: last.fetchedAt, id: last.id }) : null,
  };
}

/** fetchedAt desc (ISO-8601 instants), then id asc: the order the stores list in. */
function newestFirst(a: ResourceRow, b: ResourceRow): number {
  const ta = Date.parse(a.fetchedAt);
  const tb = Date.parse(b.fetchedAt);
  if (ta !== tb) return tb - ta;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

async function card(gf: ComponentFactory, row: ResourceRow, c: ScopedCatalog): Promise<KeptCard> {
  const [text, images] = await Promise.all([
    row.textPath ? gf.blobs.getText(row.textPath).catch(() => undefined) : undefined,
    gf
      .database()
      .then((db) => db.resources.imagesOfResource(row.id))
      .catch(() => []),
  ]);
  const seen = new Set<string>();
  const pictures: IndexImage[] = [];
  for (const i of images) {
    if (seen.has(i.id)) continue;
    seen.add(i.id);
    pictures.push({ id: i.id, path: i.path, url: i.url, alt: i.alt, width: i.width, height: i.height });
  }
  return {
    id: row.id,
    title: row.title,
    url: row.url,
    catalog: c.name,
    catalogId: c.catalogId,
    version: c.version,
    score: 0,
    highlights: text ? [opening(text)] : [],
    textPath: row.textPath,
    fetchedAt: row.fetchedAt,
    pictures,
  };
}

/** The first 400 characters of an article, whitespace folded, HTML-escaped, with an ellipsis when cut. */
function opening(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const cut = flat.slice(0, KEPT_EXCERPT_CHARS);
  const escaped = cut.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return flat.length > KEPT_EXCERPT_CHARS ? `${escaped}…` : escaped;
}

function encodeKeptCursor(after: KeptAfter): string {
  return Buffer.from(JSON.stringify({ k: 'kept', t: after.fetchedAt, i: after.id }), 'utf8').toString('base64url');
}

function decodeKeptCursor(cursor: string): KeptAfter {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (v && typeof v === 'object') {
      const { k, t, i } = v as { k?: unknown; t?: unknown; i?: unknown };
      if (k === 'kept' && typeof t === 'string' && !Number.isNaN(Date.parse(t)) && typeof i === 'string')
        return { fetchedAt: t, id: i };
    }
  } catch {
    // reported below
  }
  throw new CrawlerError('BAD_INPUT', `cursor "${cursor.slice(0, 40)}" is not a cursor of the listing`, {
    fix: 'pass the nextCursor of the previous page of the blank query unchanged, or omit it to start from the newest',
  });
}
