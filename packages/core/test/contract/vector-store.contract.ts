import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CrawlerError, type TextPointPayload, type VectorPoint, type VectorStore } from '@greenfinger/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const CAT_A = '0190a0b0-0000-7000-8000-00000000000a';
const CAT_B = '0190a0b0-0000-7000-8000-00000000000b';
/** Width of the vectors the contract writes; `create` must open a store of this width. */
export const CONTRACT_DIMS = 8;

function unit(...values: number[]): Float32Array {
  const v = new Float32Array(CONTRACT_DIMS);
  values.forEach((x, i) => {
    v[i] = x;
  });
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

function point(id: string, vector: Float32Array, over: Partial<TextPointPayload> = {}): VectorPoint {
  const catalogId = over.catalogId ?? CAT_A;
  const version = over.version ?? 1;
  return {
    id,
    vector,
    payload: {
      resourceId: `res-${id}`,
      catalogId,
      catalogName: 'alpha',
      version,
      catalogVersion: `${catalogId}:${version}`,
      chunkIndex: 0,
      chunk: `chunk of ${id}`,
      url: `http://127.0.0.1/${id}`,
      title: `Title ${id}`,
      textPath: `assets/${id}.txt`,
      linkDensity: 0.1,
      ...over,
    },
  };
}

/**
 * The behaviour every VectorStore must have. `create(root)` opens a store of CONTRACT_DIMS under `root`;
 * calling it twice with the same root must see the same data.
 */
export function describeVectorStoreContract(
  name: string,
  create: (root: string) => VectorStore | Promise<VectorStore>,
): void {
  describe(`VectorStore contract: ${name}`, () => {
    let root: string;
    let store: VectorStore;
    const scopeA1 = [{ catalogId: CAT_A, version: 1 }];

    beforeEach(async () => {
      root = mkdtempSync(join(tmpdir(), 'gf-vector-store-'));
      store = await create(root);
    });
    afterEach(async () => {
      await store.close();
      rmSync(root, { recursive: true, force: true });
    });

    it('returns the nearest points first, with cosine similarity as the score and the payload', async () => {
      await store.upsert([
        point('x', unit(1, 0)),
        point('xy', unit(1, 1)),
        point('y', unit(0, 1)),
        point('neg', unit(-1, 0)),
      ]);
      const hits = await store.search({ vector: unit(1, 0.1), scopes: scopeA1, limit: 3 });
      expect(hits.map((h) => h.id)).toEqual(['x', 'xy', 'y']);
      expect(hits[0]?.score).toBeCloseTo(1 / Math.hypot(1, 0.1), 5);
      expect(hits[1]?.score).toBeCloseTo(1.1 / Math.hypot(1, 0.1) / Math.SQRT2, 5);
      expect(hits[0]?.payload).toEqual(point('x', unit(1, 0)).payload);
      expect(store.dims).toBe(CONTRACT_DIMS);
    });

    it('replaces a point upserted again with the same id', async () => {
      await store.upsert([point('p', unit(1, 0)), point('q', unit(0, 0, 1))]);
      await store.upsert([point('p', unit(0, 1), { chunk: 'moved' })]);
      expect(await store.countVersion(CAT_A, 1)).toBe(2);
      const hits = await store.search({ vector: unit(0, 1), scopes: scopeA1, limit: 1 });
      expect(hits[0]?.id).toBe('p');
      expect(hits[0]?.score).toBeCloseTo(1, 5);
      expect(hits[0]?.payload.chunk).toBe('moved');
    });

    it('only searches the versions in scope: an unpublished version is invisible', async () => {
      await store.upsert([
        point('v1', unit(1, 0.2), { version: 1 }),
        point('v2', unit(1, 0), { version: 2 }),
        point('b1', unit(1, 0.1), { catalogId: CAT_B, version: 1 }),
      ]);
      const v1 = await store.search({ vector: unit(1, 0), scopes: scopeA1, limit: 10 });
      expect(v1.map((h) => h.id)).toEqual(['v1']);
      const both = await store.search({
        vector: unit(1, 0),
        scopes: [
          { catalogId: CAT_A, version: 1 },
          { catalogId: CAT_B, version: 1 },
        ],
        limit: 10,
      });
      expect(both.map((h) => h.id)).toEqual(['b1', 'v1']);
      expect(await store.search({ vector: unit(1, 0), scopes: [], limit: 10 })).toEqual([]);
    });

    it('pages with limit and offset over the merged ranking', async () => {
      const points = Array.from({ length: 12 }, (_, i) =>
        point(`p${String(i).padStart(2, '0')}`, unit(1, i / 4), { catalogId: i % 2 ? CAT_B : CAT_A }),
      );
      await store.upsert(points);
      const scopes = [
        { catalogId: CAT_A, version: 1 },
        { catalogId: CAT_B, version: 1 },
      ];
      const all = await store.search({ vector: unit(1, 0), scopes, limit: 12 });
      expect(all.map((h) => h.id)).toEqual(points.map((p) => p.id));
      const page = await store.search({ vector: unit(1, 0), scopes, limit: 4, offset: 5 });
      expect(page.map((h) => h.id)).toEqual(all.slice(5, 9).map((h) => h.id));
    });

    it('counts and deletes one version', async () => {
      await store.upsert([point('a', unit(1)), point('b', unit(0, 1)), point('c', unit(1), { version: 2 })]);
      expect(await store.countVersion(CAT_A, 1)).toBe(2);
      expect(await store.deleteVersion(CAT_A, 1)).toBe(2);
      expect(await store.countVersion(CAT_A, 1)).toBe(0);
      expect(await store.search({ vector: unit(1), scopes: scopeA1, limit: 5 })).toEqual([]);
      expect(await store.countVersion(CAT_A, 2)).toBe(1);
      const v2 = await store.search({ vector: unit(1), scopes: [{ catalogId: CAT_A, version: 2 }], limit: 5 });
      expect(v2.map((h) => h.id)).toEqual(['c']);
    });

    it('refuses vectors of another width', async () => {
      const wide = new Float32Array(CONTRACT_DIMS + 1).fill(0.1);
      await expect(store.upsert([point('w', wide)])).rejects.toBeInstanceOf(CrawlerError);
      await expect(store.search({ vector: wide, scopes: scopeA1, limit: 1 })).rejects.toBeInstanceOf(CrawlerError);
    });

    it('answers the same after reopening from disk', async () => {
      await store.upsert([point('r1', unit(1, 0.3)), point('r2', unit(0.3, 1))]);
      const before = await store.search({ vector: unit(1, 0), scopes: scopeA1, limit: 2 });
      await store.close();
      store = await create(root);
      expect(await store.search({ vector: unit(1, 0), scopes: scopeA1, limit: 2 })).toEqual(before);
    });
  });
}
