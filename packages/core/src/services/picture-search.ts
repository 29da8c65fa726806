import type { PublishedCatalog } from '../index/catalog-registry.js';
import type { IndexImage, PictureHit, PicturePage, SearchIndex } from '../index/search-index.js';

/**
 * Pictures mode: one result per kept picture, from the picture records of the full-text index (alt texts,
 * captions, file name words, the titles of the pages that show it), never the database. A result is shaped as
 * every other search result (title, url, highlights) so any front end can list it, and adds the picture's own
 * fields: its url, stored file, size, caption and the pages that show it.
 */

/** What a pictures result adds to a search result. */
export interface PictureFields {
  /** The picture's own url. */
  pictureUrl: string;
  /** The stored file, under the data root's `user/`. */
  file: string;
  width: number | null;
  height: number | null;
  /** The picture's alt text (first one seen). */
  alt: string;
  /** The `<figure>` caption or surrounding text (first one seen); `highlights` holds the passage that matched. */
  caption: string;
  /** The image id (`ids.image`). */
  imageId: string;
  /** The pages that show it (up to 100), each with url and title. */
  pages: PicturePage[];
  /** How many pages show it. */
  pageCount: number;
}

/** The title a picture result shows: its alt text, else its caption, else its file name. */
export function pictureTitle(h: Pick<PictureHit, 'alt' | 'caption' | 'pictureUrl'>): string {
  if (h.alt) return h.alt;
  if (h.caption) return h.caption.length > 120 ? `${h.caption.slice(0, 119)}…` : h.caption;
  return decodeURIComponent(h.pictureUrl.split('/').pop() ?? h.pictureUrl);
}

/** The pictures mode answer of one query over the versions in scope. */
export async function findPictures(
  index: SearchIndex,
  q: string,
  published: Array<PublishedCatalog & { version: number }>,
  size: number,
  offset: number,
): Promise<{ hits: PictureHit[]; total: number; supported: boolean }> {
  if (!index.searchPictures) return { hits: [], total: 0, supported: false };
  const r = await index.searchPictures({
    q,
    scopes: published.map((c) => ({ catalogId: c.catalogId, version: c.version })),
    size,
    offset,
  });
  return { hits: r.results, total: r.total, supported: true };
}

/** A picture of a page as a search result lists it. */
export type PagePicture = IndexImage;
