import type { ComponentFactory } from '../compose/component-factory.js';
import type { EmbeddingClient } from '../embeddings/embedding-client.js';
import type { ImageEmbeddingClient } from '../embeddings/transformers-image-embedding-client.js';
import { CrawlerError } from '../errors.js';
import type { PublishedCatalog } from '../index/catalog-registry.js';
import type { IndexImage, PictureHit, PictureLikeResult, PicturePage, SearchIndex } from '../index/search-index.js';
import { type FusionOptions, fusionDepth } from './hybrid-search.js';
import { fuseRankings, type PictureRanking, type RankedPictures } from './picture-fusion.js';

export type { PictureRanking } from './picture-fusion.js';

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
 * The weight of the image ranking (a `text+image` catalog's image vectors, compared with the query's text by the
 * image model's text tower) in the pictures fusion: as much as caption meaning, never more than the words. Not tuned
 * yet: no image model has run on the picture question set (docs/search.md).
 */
export const PICTURE_IMAGE_WEIGHT = 0.5;

/** The image model as pictures search may use it: asked for only when the versions searched hold its vectors. */
export interface ImageSearch {
  /** The model's name (GF_IMAGE_MODEL): only its vectors are compared. */
  model: string;
  /** Whether the model is at hand (its folder holds both towers); without it the image ranking is left out. */
  available: boolean;
  /** The model, loaded once per process and kept. */
  client: () => Promise<Pick<ImageEmbeddingClient, 'embedText'>>;
}

/** The node's image model as pictures search uses it (GF_IMAGE_MODEL; loaded only when its vectors are searched). */
export function imageSearch(f: ComponentFactory): ImageSearch {
  return { model: f.settings.imageModel, available: f.hasImageModel(), client: () => f.imageEmbedding() };
}

/** The answer of findPictures: the page of hits, which rankings took part and why one was left out. */
export interface PicturesFound {
  hits: PictureHit[];
  total: number;
  supported: boolean;
  /** The rankings fused, in the order they weigh: words always, then caption meaning and image when they took part. */
  rankings: PictureRanking[];
  /** Why the image ranking was left out although the versions hold image vectors (the model is not here). */
  note?: string | undefined;
}

/**
 * The pictures mode answer of one query over the versions in scope: the picture records ranked by their words and,
 * when the versions hold picture vectors (the vector layer was on), by caption meaning too, and when they hold image
 * vectors of the image model (contentMode text+image) and the model is here, by the query's text tower against them;
 * fused by reciprocal rank as hybrid search fuses pages (one result per picture). `embedder` and `image.client` are
 * asked for only then: a catalog without vectors loads no model. A blank query lists the pictures (words alone).
 */
export async function findPictures(
  index: SearchIndex,
  embedder: () => Promise<EmbeddingClient>,
  q: string,
  published: Array<PublishedCatalog & { version: number }>,
  size: number,
  offset: number,
  image?: ImageSearch,
): Promise<PicturesFound> {
  if (!index.searchPictures) return { hits: [], total: 0, supported: false, rankings: [] };
  const scopes = published.map((c) => ({ catalogId: c.catalogId, version: c.version }));
  const asked = q.trim() !== '';
  const vectors = asked && index.searchPicturesByVector ? ((await index.pictureVectorCount?.(scopes)) ?? 0) : 0;
  const images =
    asked && image && index.searchPicturesByImageVector
      ? ((await index.pictureImageVectorCount?.(scopes, image.model)) ?? 0)
      : 0;
  const useImages = images > 0 && image?.available === true;
  const note =
    images > 0 && !useImages
      ? `the versions searched hold ${images} image vectors of ${image?.model}, but the image model is not in GF_MODEL_DIR: ranked without them`
      : undefined;
  if (vectors === 0 && !useImages) {
    const r = await index.searchPictures({ q, scopes, size, offset });
    return { hits: r.results, total: r.total, supported: true, rankings: ['words'], ...(note ? { note } : {}) };
  }
  const depth = fusionDepth(offset, size);
  const [words, meaning, byImage] = await Promise.all([
    index.searchPictures({ q, scopes, size: depth }),
    vectors > 0
      ? embedder().then(
          async (e) =>
            (await index.searchPicturesByVector?.({ vector: await e.embedQuery(q), scopes, size: depth })) ?? [],
        )
      : [],
    useImages && image
      ? image.client().then(async (m) => {
          const vector = await m.embedText(q);
          return (await index.searchPicturesByImageVector?.({ vector, model: image.model, scopes, size: depth })) ?? [];
        })
      : [],
  ]);
  const lists: Array<RankedPictures<PictureHit>> = [
    { ranking: 'words', hits: words.results, weight: PICTURE_FUSION.words },
    ...(vectors > 0 ? [{ ranking: 'caption meaning' as const, hits: meaning, weight: PICTURE_FUSION.meaning }] : []),
    ...(useImages ? [{ ranking: 'image' as const, hits: byImage, weight: PICTURE_IMAGE_WEIGHT }] : []),
  ];
  const fused = fuseRankings(lists, (h) => h.id, PICTURE_FUSION.k);
  const hits = fused.slice(offset, offset + size).map((f) => ({ ...f.hit, score: f.score }));
  // Pictures holding a word, or more when a vector ranking found others: a lower bound, as for hybrid.
  const found = Math.min(fused.length, Math.max(vectors, images));
  return {
    hits,
    total: Math.max(words.total, found),
    supported: true,
    rankings: lists.map((l) => l.ranking),
    ...(note ? { note } : {}),
  };
}

/**
 * "Pictures like this one": the other pictures of the versions in scope nearest to the picture named (`like`: a
 * pictures result's `id` or `imageId`) by its stored vector — its image vector when it has one (`by: 'image'`, those
 * of `imageModel` first), else its caption-meaning vector; no model is loaded. A picture no version in scope holds
 * is NOT_FOUND, one without a vector (the vector layer never embedded the version's pictures) BAD_INPUT; each says
 * how to get what is missing.
 */
export async function findPicturesLike(
  index: SearchIndex,
  like: string,
  published: Array<PublishedCatalog & { version: number }>,
  size: number,
  offset: number,
  imageModel?: string,
): Promise<PictureLikeResult & { source: PictureHit; by: NonNullable<PictureLikeResult['by']> }> {
  const where = published.map((c) => `"${c.name}" v${c.version}`).join(', ');
  if (!index.picturesLike) {
    throw new CrawlerError('BAD_INPUT', `like: the index "${index.name}" keeps no picture vectors to compare`, {
      fix: 'search pictures by words instead (q with mode pictures); pictures like one need the embedded index',
    });
  }
  const scopes = published.map((c) => ({ catalogId: c.catalogId, version: c.version }));
  const r = await index.picturesLike({ like, scopes, size, offset, imageModel });
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
