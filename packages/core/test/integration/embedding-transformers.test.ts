import { cpSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CrawlerError,
  chunkText,
  cosine,
  ids,
  SqliteVecStore,
  TransformersEmbeddingClient,
  type VectorPoint,
  VectorSearcher,
} from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MODEL_DIR = fileURLToPath(new URL('../fixtures/models', import.meta.url));
const norm = (v: Float32Array): number => Math.hypot(...v);

describe('TransformersEmbeddingClient with a tiny local ONNX model', () => {
  let client: TransformersEmbeddingClient;
  const tmp = mkdtempSync(join(tmpdir(), 'gf-embed-tf-'));

  beforeAll(async () => {
    client = await TransformersEmbeddingClient.load({ modelDir: MODEL_DIR, model: 'tiny-e5' });
  });
  afterAll(async () => {
    await client.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('reads the width from the model output and returns unit vectors, one per text', async () => {
    expect(client.dims).toBe(16);
    expect(client.model).toBe('tiny-e5');
    expect(client.provider).toBe('local');
    const vectors = await client.embedDocuments(['a web crawler fetches pages', 'cats and dogs', 'bread and cheese']);
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(16);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    expect(client.describe()).toContain('tiny-e5 (16-d, local ONNX');
  });

  it('puts similar texts closer than dissimilar ones', async () => {
    const [crawler, spider, pets] = await client.embedDocuments([
      'the crawler downloads every page of the site',
      'a spider fetches links from a website',
      'my cat and dog are lovely pets',
    ]);
    expect(cosine(crawler as Float32Array, spider as Float32Array)).toBeGreaterThan(
      cosine(crawler as Float32Array, pets as Float32Array) + 0.3,
    );
  });

  it('uses the e5 query and passage prefixes', async () => {
    const query = await client.embedQuery('web crawler');
    const [passage] = await client.embedDocuments(['web crawler']);
    expect(cosine(query, passage as Float32Array)).toBeLessThan(0.99999);
    const plain = await TransformersEmbeddingClient.load({
      modelDir: MODEL_DIR,
      model: 'tiny-e5',
      prefixes: { passage: '', query: '' },
    });
    try {
      const q2 = await plain.embedQuery('web crawler');
      const [p2] = await plain.embedDocuments(['web crawler']);
      expect(cosine(q2, p2 as Float32Array)).toBeCloseTo(1, 5);
    } finally {
      await plain.close();
    }
  });

  it('embeds more texts than one batch, in order', async () => {
    const texts = Array.from({ length: 37 }, (_, i) => (i % 2 ? 'cats and dogs' : 'web crawler'));
    const vectors = await client.embedDocuments(texts);
    expect(vectors).toHaveLength(37);
    expect(cosine(vectors[0] as Float32Array, vectors[36] as Float32Array)).toBeCloseTo(1, 5);
    expect(cosine(vectors[1] as Float32Array, vectors[35] as Float32Array)).toBeCloseTo(1, 5);
    expect(cosine(vectors[0] as Float32Array, vectors[1] as Float32Array)).toBeLessThan(0.9);
  });

  it('accepts onnx/model_quantized.onnx', async () => {
    cpSync(join(MODEL_DIR, 'tiny-e5'), join(tmp, 'tiny-e5'), { recursive: true });
    renameSync(join(tmp, 'tiny-e5', 'onnx', 'model.onnx'), join(tmp, 'tiny-e5', 'onnx', 'model_quantized.onnx'));
    const quantized = await TransformersEmbeddingClient.load({ modelDir: tmp, model: 'tiny-e5' });
    try {
      expect(quantized.describe()).toContain('model_quantized.onnx');
      const [a] = await quantized.embedDocuments(['web crawler']);
      const [b] = await client.embedDocuments(['web crawler']);
      expect(cosine(a as Float32Array, b as Float32Array)).toBeCloseTo(1, 5);
    } finally {
      await quantized.close();
    }
  });

  it('says where to put the model when it is missing, without downloading', async () => {
    const err = await TransformersEmbeddingClient.load({ modelDir: tmp, model: 'multilingual-e5-small' }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CrawlerError);
    expect((err as CrawlerError).code).toBe('EMBEDDING');
    expect((err as CrawlerError).toLine()).toContain(join(tmp, 'multilingual-e5-small'));
  });

  it('drives meaning search: one hit per page, detail pages above listings, scoped to the version', async () => {
    const catalogId = '0190a0b0-0000-7000-8000-0000000000c1';
    const store = new SqliteVecStore({ root: join(tmp, 'vector'), collection: 'greenfinger_text', dims: client.dims });
    try {
      const pages = [
        {
          id: 'article',
          version: 1,
          density: 0.05,
          text: 'The web crawler fetches a page. The spider follows every link of the site. '.repeat(6),
        },
        { id: 'listing', version: 1, density: 0.95, text: 'web crawler links page site index '.repeat(3) },
        { id: 'pets', version: 1, density: 0.1, text: 'Cats and dogs are pets. A kitten and a puppy visit the vet.' },
        { id: 'unpublished', version: 2, density: 0, text: 'web crawler spider fetches pages' },
      ];
      const points: VectorPoint[] = [];
      for (const p of pages) {
        const chunks = chunkText(p.text, { chunkSize: 120, overlap: 20 });
        const vectors = await client.embedDocuments(chunks);
        chunks.forEach((chunk, i) => {
          points.push({
            id: ids.textPoint(catalogId, p.version, `${p.id}-resource`.padEnd(12, 'x'), i),
            vector: vectors[i] as Float32Array,
            payload: {
              resourceId: p.id,
              catalogId,
              catalogName: 'fixture',
              version: p.version,
              catalogVersion: `${catalogId}:${p.version}`,
              chunkIndex: i,
              chunk,
              url: `http://127.0.0.1/${p.id}`,
              title: p.id,
              textPath: `assets/${p.id}.txt`,
              linkDensity: p.density,
            },
          });
        });
      }
      expect(points.filter((p) => p.payload.resourceId === 'article').length).toBeGreaterThan(2);
      await store.upsert(points);
      const searcher = new VectorSearcher({ store, embedder: client });
      const scopes = [{ catalogId, version: 1 }];
      const r = await searcher.search({ q: 'web crawler', scopes, size: 10 });
      expect(r.results.map((h) => h.resourceId)).toEqual(['article', 'listing', 'pets']);
      expect(r.nextOffset).toBeNull();
      const raw = await searcher.search({ q: 'web crawler', scopes, size: 10, preferDetailPages: false });
      const rawScore = (id: string): number => raw.results.find((h) => h.resourceId === id)?.score ?? Number.NaN;
      const preferredScore = (id: string): number => r.results.find((h) => h.resourceId === id)?.score ?? Number.NaN;
      expect(preferredScore('article') / rawScore('article')).toBeCloseTo(1.45, 5);
      expect(preferredScore('listing') / rawScore('listing')).toBeCloseTo(0.55, 5);
      const second = await searcher.search({ q: 'web crawler', scopes, size: 1, offset: 1 });
      expect(second.results.map((h) => h.resourceId)).toEqual(['listing']);
      expect(second.nextOffset).toBe(2);
      await expect(searcher.search({ q: 'web crawler', scopes, size: 1, offset: 1001 })).rejects.toBeInstanceOf(
        CrawlerError,
      );
    } finally {
      await store.close();
    }
  });
});
