import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IndexDocument, IndexImage, SearchIndex } from '@greenfinger/core';
import { ids } from '@greenfinger/core/internal';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const CAT = '0190a0b0-0000-7000-8000-0000000000c1';
const MODEL = 'clip-vit-base-patch32';

function picture(id: string, alt: string): IndexImage {
  return { id, path: `assets/x/img/${id}.png`, url: `http://127.0.0.1/img/${id}.png`, alt };
}

function page(id: string, images: IndexImage[], version = 1): IndexDocument {
  return {
    id,
    catalogId: CAT,
    catalogName: 'gamma',
    version,
    url: `http://127.0.0.1/${id}`,
    title: `Page ${id}`,
    text: 'Nothing in particular is written here.',
    imageText: images.map((i) => i.alt).join(' '),
    htmlPath: `assets/x/${id}.html`,
    textPath: `assets/x/${id}.txt`,
    images,
    linkDensity: 0,
    fetchedAt: '2026-01-01T00:00:00.000Z',
  };
}

/** A picture record's id, as the vector layer keys its vectors. */
const rec = (imageId: string, version = 1) => ids.imagePoint(CAT, version, imageId);

/**
 * The storage of picture image vectors (`contentMode text+image`), the same for every SearchIndex that keeps them:
 * given vectors are stored per record and model, counted by version and model, read back in cosine order, preferred
 * by "pictures like this one" over caption vectors, and removed with their version or their last page. The vectors
 * here are given numbers, never a model's output: what a model gives is tested in picture-image-search.test.ts.
 */
export function describePictureImageVectorContract(
  name: string,
  create: (root: string) => SearchIndex | Promise<SearchIndex>,
): void {
  describe(`SearchIndex picture image vectors contract: ${name}`, () => {
    let root: string;
    let index: SearchIndex;
    const scope1 = [{ catalogId: CAT, version: 1 }];
    const need = <T>(f: T | undefined, what: string): T => {
      if (!f) throw new Error(`${name} has no ${what}`);
      return f;
    };
    const put = (vectors: Array<{ id: string; version: number; vector: Float32Array }>, model = MODEL) =>
      need(index.upsertPictureImageVectors, 'upsertPictureImageVectors').call(index, CAT, model, vectors);
    const count = (scopes = scope1, model?: string) =>
      need(index.pictureImageVectorCount, 'pictureImageVectorCount').call(index, scopes, model);
    const nearest = (vector: number[], model = MODEL, scopes = scope1) =>
      need(index.searchPicturesByImageVector, 'searchPicturesByImageVector').call(index, {
        vector: Float32Array.from(vector),
        model,
        scopes,
        size: 10,
      });

    beforeEach(async () => {
      root = mkdtempSync(join(tmpdir(), 'gf-image-vectors-'));
      index = await create(root);
      await index.upsert([
        page('p1', [picture('red', 'Red square'), picture('blue', 'Blue square')]),
        page('p2', [picture('green', 'Green square'), picture('red', 'Red square')]),
        page('p3', [picture('red', 'Red square')], 2),
      ]);
    });
    afterEach(async () => {
      await index.close();
      rmSync(root, { recursive: true, force: true });
    });

    it('stores one vector per record and model, counts them by version and model, replaces on a second write', async () => {
      expect(await count()).toBe(0);
      await put([
        { id: rec('red'), version: 1, vector: Float32Array.from([1, 0, 0]) },
        { id: rec('blue'), version: 1, vector: Float32Array.from([0, 0, 1]) },
        { id: rec('green'), version: 1, vector: Float32Array.from([0, 1, 0]) },
        { id: rec('red', 2), version: 2, vector: Float32Array.from([1, 0, 0]) },
      ]);
      await put([{ id: rec('red'), version: 1, vector: Float32Array.from([0.9, 0.1, 0]) }]);
      await put([{ id: rec('red'), version: 1, vector: Float32Array.from([1, 0]) }], 'siglip-base-patch16-224');
      expect(await count()).toBe(4);
      expect(await count(scope1, MODEL)).toBe(3);
      expect(await count(scope1, 'siglip-base-patch16-224')).toBe(1);
      expect(await count([{ catalogId: CAT, version: 2 }])).toBe(1);
    });

    it('reads them back nearest first by cosine, one hit per picture with its record', async () => {
      await put([
        { id: rec('red'), version: 1, vector: Float32Array.from([1, 0, 0]) },
        { id: rec('blue'), version: 1, vector: Float32Array.from([0, 0, 1]) },
        { id: rec('green'), version: 1, vector: Float32Array.from([0.6, 0.8, 0]) },
      ]);
      const hits = await nearest([0.9, 0.3, 0]);
      expect(hits.map((h) => h.imageId)).toEqual(['red', 'green', 'blue']);
      expect(hits[0]).toMatchObject({ id: rec('red'), alt: 'Red square', pageCount: 2 });
      expect(hits[0]?.score).toBeCloseTo(0.9 / Math.hypot(0.9, 0.3), 5);
      // Another model's vectors, or another width, are never compared.
      expect(await nearest([0.8, 0.6, 0], 'siglip-base-patch16-224')).toEqual([]);
      expect(await nearest([0.8, 0.6])).toEqual([]);
    });

    it('"like" compares image vectors when the picture has one, caption vectors when it has only those', async () => {
      const like = need(index.picturesLike, 'picturesLike').bind(index);
      await need(index.upsertPictureVectors, 'upsertPictureVectors').call(index, CAT, [
        { id: rec('red'), version: 1, vector: Float32Array.from([1, 0]) },
        { id: rec('blue'), version: 1, vector: Float32Array.from([0, 1]) },
        { id: rec('green'), version: 1, vector: Float32Array.from([1, 0.1]) },
      ]);
      const byCaption = await like({ like: 'red', scopes: scope1, size: 5 });
      expect(byCaption).toMatchObject({ by: 'caption meaning', total: 2 });
      expect(byCaption.results.map((h) => h.imageId)).toEqual(['green', 'blue']);
      await put([
        { id: rec('red'), version: 1, vector: Float32Array.from([1, 0, 0]) },
        { id: rec('blue'), version: 1, vector: Float32Array.from([0.9, 0, 0.1]) },
        { id: rec('green'), version: 1, vector: Float32Array.from([0, 1, 0]) },
      ]);
      const byImage = await like({ like: rec('red'), scopes: scope1, size: 5, imageModel: MODEL });
      expect(byImage).toMatchObject({ by: 'image', total: 2, vectors: 3 });
      expect(byImage.results.map((h) => h.imageId)).toEqual(['blue', 'green']);
    });

    it('go with their version, and with a record whose last page is deleted', async () => {
      await put([
        { id: rec('red'), version: 1, vector: Float32Array.from([1, 0, 0]) },
        { id: rec('blue'), version: 1, vector: Float32Array.from([0, 0, 1]) },
        { id: rec('red', 2), version: 2, vector: Float32Array.from([1, 0, 0]) },
      ]);
      await index.deleteResource(CAT, 1, 'p1');
      // blue was only on p1; red is still on p2.
      expect((await nearest([0, 0, 1])).map((h) => h.imageId)).toEqual(['red']);
      await index.deleteVersion(CAT, 1);
      expect(await count()).toBe(0);
      expect(await count([{ catalogId: CAT, version: 2 }])).toBe(1);
      await index.purge(CAT);
      expect(await count([{ catalogId: CAT, version: 2 }])).toBe(0);
    });
  });
}
