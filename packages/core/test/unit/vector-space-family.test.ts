import { randomUUID } from 'node:crypto';
import { SqliteVecFamily, type VectorPoint } from '@greenfinger/core/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../support/tmp.js';

const CAT = '11111111-1111-4111-8111-111111111111';

function point(dims: number, first: number): VectorPoint {
  const vector = new Float32Array(dims);
  vector[0] = first;
  vector[1] = 1 - first;
  const n = Math.hypot(...vector);
  const id = randomUUID();
  return {
    id,
    vector: vector.map((x) => x / n),
    payload: {
      resourceId: `res-${id}`,
      catalogId: CAT,
      catalogName: 'alpha',
      version: 1,
      catalogVersion: `${CAT}:1`,
      chunkIndex: 0,
      chunk: 'chunk',
      url: `http://127.0.0.1/${id}`,
      title: 'T',
      textPath: 'assets/t.txt',
      linkDensity: 0.1,
    },
  };
}

/**
 * An embedding endpoint's vectors go to `<collection>_<provider>-<model>_<dims>` (vectorSpace): a collection of its
 * own even at the local model's width, and the family of any provider still finds, counts and deletes them all.
 */
describe('sqlite-vec family: a collection per provider and model', () => {
  let tmp: TempDir | undefined;
  afterEach(() => tmp?.remove());

  it('same width, two providers: two collections; stats and purge from either family reach both', async () => {
    tmp = createTempDir('gf-vec-space-');
    const root = tmp.path;
    const local = new SqliteVecFamily({ root, collection: 'greenfinger_text' });
    const openai = new SqliteVecFamily({ root, collection: 'greenfinger_text', space: 'openai-bge-small' });
    try {
      expect(local.open(8).collection).toBe('greenfinger_text');
      expect(openai.open(8).collection).toBe('greenfinger_text_openai-bge-small');
      await local.open(8).upsert([point(8, 0.9)]);
      await openai.open(8).upsert([point(8, 0.2), point(8, 0.3)]);
      await openai.open(16).upsert([point(16, 0.5)]);
      const seen = (await local.stats()).collections.map((c) => [c.collection, c.dims, c.points]);
      expect(seen).toEqual([
        ['greenfinger_text', 8, 1],
        ['greenfinger_text_openai-bge-small', 8, 2],
        ['greenfinger_text_openai-bge-small', 16, 1],
      ]);
      // a search reads its own provider's collection only
      const hits = await openai
        .open(8)
        .search({ vector: point(8, 0.9).vector, scopes: [{ catalogId: CAT, version: 1 }], limit: 10 });
      expect(hits).toHaveLength(2);
      expect(await local.deleteVersion(CAT, 1, true)).toBe(4);
    } finally {
      await local.close();
      await openai.close();
    }
    const again = new SqliteVecFamily({ root, collection: 'greenfinger_text', space: 'ollama-nomic' });
    try {
      expect(await again.purge(CAT)).toBe(4);
      expect((await again.stats()).collections.every((c) => c.points === 0)).toBe(true);
    } finally {
      await again.close();
    }
  });
});
