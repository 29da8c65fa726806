import {
  countPictureImageVectors,
  nearestPictureImages,
  type PictureImageVector,
  putPictureImageVectors,
} from './fts-picture-image-vectors.js';
import { picturesById } from './fts-pictures.js';
import type { CatalogIndex } from './fts-schema.js';
import type { PictureHit } from './search-index.js';

/**
 * The embedded index's image-vector side of pictures search, over the catalogs in scope (each with its versions):
 * what `SqliteFtsIndex` answers for `upsertPictureImageVectors`, `pictureImageVectorCount` and
 * `searchPicturesByImageVector` (fts-picture-image-vectors.ts holds the table).
 */
export type ScopedCatalogIndex = { cat: CatalogIndex; versions: number[] };

/** Stores a catalog's image vectors of one model. */
export function storeImageVectors(cat: CatalogIndex, model: string, vectors: readonly PictureImageVector[]): void {
  if (vectors.length > 0) putPictureImageVectors(cat.db, model, vectors);
}

/** Image vectors the catalogs' versions hold (of `model`, or of any). */
export function imageVectorCount(catalogs: readonly ScopedCatalogIndex[], model?: string): number {
  return catalogs.reduce((n, c) => n + countPictureImageVectors(c.cat.db, c.versions, model), 0);
}

/** Each catalog's nearest picture records by an exact cosine scan of its image vectors of `model`, merged by score. */
export function picturesByImageVector(
  catalogs: readonly ScopedCatalogIndex[],
  model: string,
  vector: Float32Array,
  size: number,
): PictureHit[] {
  const hits: PictureHit[] = [];
  for (const { cat, versions } of catalogs) {
    hits.push(...picturesById(cat, nearestPictureImages(cat.db, versions, model, vector, size)));
  }
  hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return hits.slice(0, size);
}
