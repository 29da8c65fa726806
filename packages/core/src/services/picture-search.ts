import type { EmbeddingClient } from '../embeddings/embedding-client.js';
import { CrawlerError } from '../errors.js';
import type { PublishedCatalog } from '../index/catalog-registry.js';
import type { IndexImage, PictureHit, PictureLikeResult, PicturePage, SearchIndex } from '../index/search-index.js';
import { type FusionOptions, fuseRanks, fusionDepth } from './hybrid-search.js';

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

/** The title a picture result shows: its alt text (unless a mere file path), else its caption, else its file name. */
export function pictureTitle(h: Pick<PictureHit, 'alt' | 'caption' | 'pictureUrl'>): string {
  // An alt text that is only a file's path (Sphinx writes the image's own path when none is given) says nothing.
  if (h.alt && !/^\S*\.(?:png|jpe?g|gif|svg|webp|avif|bmp)$/i.test(h.alt)) return h.alt;
  if (h.caption) return h.caption.length > 120 ? `${h.caption.slice(0, 119)}…` : h.caption;
  return decodeURIComponent(h.pictureUrl.split('/').pop() ?? h.pictureUrl);
}

/**
 * How the words and the meaning of picture records are fused (reciprocal rank, as hybrid fuses pages). Tuned on
 * bench/queries/gimp-pictures.json with the bundled USE-lite: meaning alone finds the picture in its top 3 for 0.30
 * of the questions, words for 0.90, so a small k lets the words' first places lead and meaning weighs half; with
 * hybrid's k = 10 it cost MRR@10 0.11 (docs/search.md has the grid).
 */
export const PICTURE_FUSION: Readonly<Required<FusionOptions>> = Object.freeze({ k: 1, words: 1, meaning: 0.5 });

/**
 * The pictures mode answer of one query over the versions in scope: the picture records ranked by their words and,
 * when the versions hold picture vectors (the vector layer was on), by meaning too, fused by reciprocal rank as
 * hybrid search fuses pages (one result per picture). `embedder` is asked for only then: a catalog without vectors
 * loads no model. `fused` says whether meaning took part.
 */
export async function findPictures(
  index: SearchIndex,
  embedder: () => Promise<EmbeddingClient>,
  q: string,
  published: Array<PublishedCatalog & { version: number }>,
  size: number,
  offset: number,
): Promise<{ hits: PictureHit[]; total: number; supported: boolean; fused: boolean }> {
  if (!index.searchPictures) return { hits: [], total: 0, supported: false, fused: false };
  const scopes = published.map((c) => ({ catalogId: c.catalogId, version: c.version }));
  const vectors = q.trim() && index.searchPicturesByVector ? ((await index.pictureVectorCount?.(scopes)) ?? 0) : 0;
  if (vectors === 0) {
    const r = await index.searchPictures({ q, scopes, size, offset });
    return { hits: r.results, total: r.total, supported: true, fused: false };
  }
  const depth = fusionDepth(offset, size);
  const vector = await (await embedder()).embedQuery(q);
  const [words, meaning] = await Promise.all([
    index.searchPictures({ q, scopes, size: depth }),
    index.searchPicturesByVector?.({ vector, scopes, size: depth }) ?? [],
  ]);
  const fused = fuseRanks<PictureHit, PictureHit>(
    words.results,
    meaning,
    { words: (h) => h.id, meaning: (h) => h.id },
    PICTURE_FUSION,
  );
  const hits = fused
    .slice(offset, offset + size)
    .map((f) => ({ ...((f.words ?? f.meaning) as PictureHit), score: f.score }));
  // Pictures holding a word, or more when meaning found others: a lower bound, as for hybrid.
  return { hits, total: Math.max(words.total, Math.min(fused.length, vectors)), supported: true, fused: true };
}

/**
 * "Pictures like this one": the other pictures of the versions in scope nearest to the picture named (`like`: a
 * pictures result's `id` or `imageId`) by its stored vector; no model is loaded. A picture no version in scope holds
 * is NOT_FOUND, one without a vector (the vector layer never embedded the version's pictures) BAD_INPUT; each says
 * how to get what is missing.
 */
export async function findPicturesLike(
  index: SearchIndex,
  like: string,
  published: Array<PublishedCatalog & { version: number }>,
  size: number,
  offset: number,
): Promise<PictureLikeResult & { source: PictureHit; by: NonNullable<PictureLikeResult['by']> }> {
  const where = published.map((c) => `"${c.name}" v${c.version}`).join(', ');
  if (!index.picturesLike) {
    throw new CrawlerError('BAD_INPUT', `like: the index "${index.name}" keeps no picture vectors to compare`, {
      fix: 'search pictures by words instead (q with mode pictures); pictures like one need the embedded index',
    });
  }
  const scopes = published.map((c) => ({ catalogId: c.catalogId, version: c.version }));
  const r = await index.picturesLike({ like, scopes, size, offset });
  if (!r.source) {
    throw new CrawlerError('NOT_FOUND', `like: no picture "${like}" in ${where}`, {
      fix: 'give the id (or imageId) of a pictures result of the same catalogs: greenfinger search "<words>" --mode pictures --json',
    });
  }
  if (!r.by) {
    const what = r.vectors === 0 ? `${where} holds no picture vectors` : `picture "${like}" has no vector`;
    throw new CrawlerError('BAD_INPUT', `like: ${what}, so no picture can be compared with it`, {
      fix: 'add "vector" to the catalog\'s outputs, then write them: greenfinger replay --layers vector',
    });
  }
  return { ...r, source: r.source, by: r.by };
}

/** A picture of a page as a search result lists it. */
export type PagePicture = IndexImage;
