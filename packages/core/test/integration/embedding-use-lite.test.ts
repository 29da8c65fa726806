import { cosine, UseLiteEmbeddingClient, WorkerEmbeddingClient } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

describe('UseLiteEmbeddingClient (Universal Sentence Encoder lite shipped in npm, offline)', () => {
  let client: UseLiteEmbeddingClient;
  beforeAll(async () => {
    client = await UseLiteEmbeddingClient.load();
  });
  afterAll(async () => {
    await client.close();
  });

  it('gives 512-d unit vectors', async () => {
    const vectors = await client.embedDocuments(['A web crawler downloads pages.', '', 'Bonjour']);
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v.length).toBe(512);
      expect(Math.hypot(...v)).toBeCloseTo(1, 4);
    }
    expect(client.describe()).toContain('Universal Sentence Encoder lite');
  });

  it('places a crawler nearer a spider than pets', async () => {
    const crawler = await client.embedQuery('A web crawler visits every page of a website.');
    const [spider, pets] = await client.embedDocuments([
      'The spider program follows links and downloads web pages.',
      'Cats and dogs are popular family pets.',
    ]);
    const near = cosine(crawler, spider as Float32Array);
    const far = cosine(crawler, pets as Float32Array);
    expect(near).toBeGreaterThan(far + 0.15);
  });

  it('runs in a worker thread too', async () => {
    const worker = await WorkerEmbeddingClient.start({ kind: 'use-lite' });
    try {
      expect(worker.dims).toBe(512);
      const [a] = await worker.embedDocuments(['A web crawler downloads pages.']);
      const [b] = await client.embedDocuments(['A web crawler downloads pages.']);
      expect(cosine(a as Float32Array, b as Float32Array)).toBeCloseTo(1, 4);
    } finally {
      await worker.close();
    }
  });
});
