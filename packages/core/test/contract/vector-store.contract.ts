import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CrawlerError,
  type TextPointPayload,
  type VectorPoint,
  type VectorStore,
  type VectorStoreFamily,
} from '@greenfinger/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const CAT_A = '0190a0b0-0000-7000-8000-00000000000a';
const CAT_B = '0190a0b0-0000-7000-8000-00000000000b';
/** Width of the vectors the contract writes; `create` must open a store of this width. */
export const CONTRACT_DIMS = 8;

/** The second width the family contract writes (an older embedding model's). */
export const CONTRACT_DIMS_OTHER = 12;

function unit(...values: number[]): Float32Array {
  return unitOf(CONTRACT_DIMS, ...values);
}

function unitOf(dims: number, ...values: number[]): Float32Array {
  const v = new Float32Array(dims);
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

/** What a store on a server needs beyond `create`: removing what a test wrote there (its own collections). */
export interface VectorContractOptions {
  /** Called after each test, once the store or family is closed, with the test's root. */
  dispose?(root: string): Promise<void>;
}

/**
 * The behaviour every VectorStore must have. `create(root)` opens a store of CONTRACT_DIMS under `root` (a store on
 * a server: a collection named after it); calling it twice with the same root must see the same data.
 */
export function describeVectorStoreContract(
  name: string,
  create: (root: string) => VectorStore | Promise<VectorStore>,
  options: VectorContractOptions = {},
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
      await options.dispose?.(root);
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

    it('purges every version of one catalog and leaves the others', async () => {
      await store.upsert([
        point('a1', unit(1), { version: 1 }),
        point('a2', unit(1, 0.5), { version: 1 }),
        point('a3', unit(0, 1), { version: 2 }),
        point('b1', unit(1, 0.2), { catalogId: CAT_B, version: 1 }),
      ]);
      expect(await store.purge(CAT_A)).toBe(3);
      expect(await store.countVersion(CAT_A, 1)).toBe(0);
      expect(await store.countVersion(CAT_A, 2)).toBe(0);
      expect(await store.search({ vector: unit(1), scopes: scopeA1, limit: 5 })).toEqual([]);
      const b = await store.search({ vector: unit(1), scopes: [{ catalogId: CAT_B, version: 1 }], limit: 5 });
      expect(b.map((h) => h.id)).toEqual(['b1']);
      expect(await store.purge(CAT_A)).toBe(0);
      await store.upsert([point('a1', unit(1), { version: 1 })]);
      expect((await store.search({ vector: unit(1), scopes: scopeA1, limit: 5 })).map((h) => h.id)).toEqual(['a1']);
    });

    it('reports points per catalog version', async () => {
      expect((await store.stats()).points).toBe(0);
      await store.upsert([
        point('s1', unit(1), { version: 2 }),
        point('s2', unit(0, 1), { version: 2 }),
        point('s3', unit(1, 1), { version: 1 }),
        point('s4', unit(1), { catalogId: CAT_B, version: 1 }),
      ]);
      await store.deleteResource(CAT_A, 2, 'res-s2');
      const stats = await store.stats();
      expect(stats).toMatchObject({ collection: store.collection, dims: CONTRACT_DIMS, points: 3 });
      expect(stats.versions).toEqual([
        { catalogId: CAT_A, version: 1, points: 1 },
        { catalogId: CAT_A, version: 2, points: 1 },
        { catalogId: CAT_B, version: 1, points: 1 },
      ]);
      if (stats.bytes !== undefined) expect(stats.bytes).toBeGreaterThan(0);
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

/**
 * The behaviour every VectorStoreFamily must have. `create(root)` opens a family stored under `root`; calling it
 * again with the same root must find every collection written before, of any width, without being told the widths.
 */
export function describeVectorStoreFamilyContract(
  name: string,
  create: (root: string) => VectorStoreFamily | Promise<VectorStoreFamily>,
  options: VectorContractOptions = {},
): void {
  describe(`VectorStoreFamily contract: ${name}`, () => {
    let root: string;
    let family: VectorStoreFamily;
    const WIDE = CONTRACT_DIMS_OTHER;

    /** Points of CAT_A v1 in both widths, and of other versions and catalogs around them. */
    async function writeBothWidths(f: VectorStoreFamily): Promise<void> {
      await f
        .open(CONTRACT_DIMS)
        .upsert([point('n1', unit(1)), point('n2', unit(1, 1)), point('n3', unit(0, 1), { version: 2 })]);
      await f
        .open(WIDE)
        .upsert([
          point('w1', unitOf(WIDE, 1)),
          point('w2', unitOf(WIDE, 0, 1)),
          point('w3', unitOf(WIDE, 0, 0, 1)),
          point('w4', unitOf(WIDE, 1, 1), { catalogId: CAT_B }),
        ]);
    }

    beforeEach(async () => {
      root = mkdtempSync(join(tmpdir(), 'gf-vector-family-'));
      family = await create(root);
    });
    afterEach(async () => {
      await family.close();
      await options.dispose?.(root);
      rmSync(root, { recursive: true, force: true });
    });

    it('opens one collection per width, the same one each time', async () => {
      const narrow = family.open(CONTRACT_DIMS);
      expect(narrow.dims).toBe(CONTRACT_DIMS);
      expect(family.open(CONTRACT_DIMS)).toBe(narrow);
      expect(family.open(WIDE).dims).toBe(WIDE);
      expect((await family.collections()).map((c) => c.dims).sort((a, b) => a - b)).toEqual([CONTRACT_DIMS, WIDE]);
    });

    it('deletes one page of one version from every width; a dry run counts it and deletes nothing', async () => {
      await writeBothWidths(family);
      expect(await family.deleteResource(CAT_A, 1, 'res-w1', true)).toBe(1);
      expect(await family.open(WIDE).countVersion(CAT_A, 1)).toBe(3);
      expect(await family.deleteResource(CAT_A, 1, 'res-w1', false)).toBe(1);
      expect(await family.open(WIDE).countVersion(CAT_A, 1)).toBe(2);
      expect(await family.deleteResource(CAT_A, 1, 'res-n1', false)).toBe(1);
      expect(await family.open(CONTRACT_DIMS).countVersion(CAT_A, 1)).toBe(1);
      expect(await family.deleteResource(CAT_A, 1, 'res-n1', false)).toBe(0);
      expect(await family.deleteResource(CAT_A, 2, 'res-n2', false)).toBe(0);
      expect(await family.open(WIDE).countVersion(CAT_B, 1)).toBe(1);
    });

    it('deletes a version from every width; a dry run counts what the delete removes', async () => {
      await writeBothWidths(family);
      await family.close();
      // A new family must find both widths on its own: a version written by an older model must not be missed.
      family = await create(root);
      expect((await family.collections()).map((c) => c.dims).sort((a, b) => a - b)).toEqual([CONTRACT_DIMS, WIDE]);
      const counted = await family.deleteVersion(CAT_A, 1, true);
      expect(counted).toBe(5);
      expect(await family.open(CONTRACT_DIMS).countVersion(CAT_A, 1)).toBe(2);
      expect(await family.open(WIDE).countVersion(CAT_A, 1)).toBe(3);
      expect(await family.deleteVersion(CAT_A, 1, false)).toBe(counted);
      expect(await family.open(CONTRACT_DIMS).countVersion(CAT_A, 1)).toBe(0);
      expect(await family.open(WIDE).countVersion(CAT_A, 1)).toBe(0);
      expect(await family.deleteVersion(CAT_A, 1, true)).toBe(0);
      expect(await family.deleteVersion(CAT_A, 1, false)).toBe(0);
      expect(await family.open(CONTRACT_DIMS).countVersion(CAT_A, 2)).toBe(1);
      expect(await family.open(WIDE).countVersion(CAT_B, 1)).toBe(1);
      const left = await family
        .open(WIDE)
        .search({ vector: unitOf(WIDE, 1), scopes: [{ catalogId: CAT_B, version: 1 }], limit: 5 });
      expect(left.map((h) => h.id)).toEqual(['w4']);
    });

    it('purges a catalog from every width and reports what every width holds', async () => {
      expect((await family.stats()).collections.reduce((a, c) => a + c.points, 0)).toBe(0);
      await writeBothWidths(family);
      await family.close();
      family = await create(root);
      const stats = await family.stats();
      expect(typeof stats.name).toBe('string');
      const byDims = new Map(stats.collections.map((c) => [c.dims, c]));
      expect(byDims.get(CONTRACT_DIMS)?.versions).toEqual([
        { catalogId: CAT_A, version: 1, points: 2 },
        { catalogId: CAT_A, version: 2, points: 1 },
      ]);
      expect(byDims.get(WIDE)?.versions).toEqual([
        { catalogId: CAT_A, version: 1, points: 3 },
        { catalogId: CAT_B, version: 1, points: 1 },
      ]);
      if (stats.bytes !== undefined) expect(stats.bytes).toBeGreaterThan(0);

      expect(await family.purge(CAT_A)).toBe(6);
      const after = await family.stats();
      expect(after.collections.flatMap((c) => c.versions)).toEqual([{ catalogId: CAT_B, version: 1, points: 1 }]);
      expect(await family.purge(CAT_A)).toBe(0);
    });
  });
}
