import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CrawlerError,
  cosine,
  createEmbeddingClient,
  PooledEmbeddingClient,
  TransformersEmbeddingClient,
  WorkerEmbeddingClient,
} from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MODEL_DIR = fileURLToPath(new URL('../fixtures/models', import.meta.url));

describe('WorkerEmbeddingClient', () => {
  let inProcess: TransformersEmbeddingClient;
  let worker: WorkerEmbeddingClient;

  beforeAll(async () => {
    inProcess = await TransformersEmbeddingClient.load({ modelDir: MODEL_DIR, model: 'tiny-e5' });
    worker = await WorkerEmbeddingClient.start(
      { kind: 'transformers', modelDir: MODEL_DIR, model: 'tiny-e5' },
      { batchSize: 8 },
    );
  });
  afterAll(async () => {
    await worker.close();
    await inProcess.close();
  });

  it('loads the model in a worker thread and gives the same vectors as in-process', async () => {
    expect(worker.dims).toBe(16);
    expect(worker.model).toBe('tiny-e5');
    expect(worker.describe()).toMatch(/tiny-e5 .*in a worker thread$/);
    const texts = ['a web crawler fetches pages', 'cats and dogs are pets'];
    const fromWorker = await worker.embedDocuments(texts);
    const local = await inProcess.embedDocuments(texts);
    expect(fromWorker).toHaveLength(2);
    fromWorker.forEach((v, i) => {
      expect(v).toBeInstanceOf(Float32Array);
      expect(cosine(v, local[i] as Float32Array)).toBeCloseTo(1, 6);
    });
    expect(cosine(await worker.embedQuery('spider'), await inProcess.embedQuery('spider'))).toBeCloseTo(1, 6);
  });

  it('answers concurrent requests, batched together, each with its own vectors', async () => {
    const words = ['crawler', 'cat', 'bread', 'spider', 'dog', 'cheese', 'web', 'puppy', 'soup', 'link', 'vet', 'oven'];
    const [queries, docs] = await Promise.all([
      Promise.all(words.map((w) => worker.embedQuery(w))),
      Promise.all(words.map((w) => worker.embedDocuments([w, `${w} ${w}`]))),
    ]);
    const expected = await Promise.all(words.map((w) => inProcess.embedQuery(w)));
    for (const [i, v] of queries.entries()) expect(cosine(v, expected[i] as Float32Array)).toBeCloseTo(1, 6);
    for (const [i, pair] of docs.entries()) {
      expect(pair).toHaveLength(2);
      const [single] = await inProcess.embedDocuments([words[i] as string]);
      expect(cosine(pair[0] as Float32Array, single as Float32Array)).toBeCloseTo(1, 6);
    }
    expect(worker.queued).toBe(0);
  });

  it('refuses requests beyond its bounded queue', async () => {
    const small = await WorkerEmbeddingClient.start(
      { kind: 'transformers', modelDir: MODEL_DIR, model: 'tiny-e5' },
      { maxQueue: 2, batchSize: 1 },
    );
    try {
      const settled = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => small.embedQuery(`crawler ${i}`)));
      const rejected = settled.filter((s) => s.status === 'rejected');
      expect(rejected.length).toBeGreaterThan(0);
      expect(settled.filter((s) => s.status === 'fulfilled').length).toBeGreaterThanOrEqual(3);
      expect((rejected[0] as PromiseRejectedResult).reason).toBeInstanceOf(CrawlerError);
      expect(String((rejected[0] as PromiseRejectedResult).reason.message)).toContain('queue is full');
    } finally {
      await small.close();
    }
    await expect(small.embedQuery('late')).rejects.toBeInstanceOf(CrawlerError);
  });

  it('reports a model that cannot load instead of hanging', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gf-embed-worker-'));
    try {
      const err = await WorkerEmbeddingClient.start({ kind: 'transformers', modelDir: dir, model: 'absent' }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(CrawlerError);
      expect((err as Error).message).toContain('no ONNX model absent');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('createEmbeddingClient', () => {
  it('runs the local ONNX model in a worker by default', async () => {
    const client = await createEmbeddingClient({ modelDir: MODEL_DIR, textModel: 'tiny-e5' });
    try {
      expect(client).toBeInstanceOf(WorkerEmbeddingClient);
      expect(client.dims).toBe(16);
      expect(client.describe()).toContain('tiny-e5');
    } finally {
      await client.close();
    }
  });

  it('embeds documents in as many worker threads as settings say, with the same vectors in order', async () => {
    const single = await createEmbeddingClient({ modelDir: MODEL_DIR, textModel: 'tiny-e5' });
    const pooled = await createEmbeddingClient({ modelDir: MODEL_DIR, textModel: 'tiny-e5', embeddingWorkers: 2 });
    try {
      expect(pooled).toBeInstanceOf(PooledEmbeddingClient);
      const texts = Array.from({ length: 9 }, (_, i) => `page ${i} about crawling ${'spider '.repeat(i)}`);
      const [a, b] = await Promise.all([single.embedDocuments(texts), pooled.embedDocuments(texts)]);
      expect(b).toHaveLength(9);
      for (const [i, v] of b.entries()) expect(cosine(v, a[i] as Float32Array)).toBeCloseTo(1, 5);
      expect((pooled as PooledEmbeddingClient).size).toBe(2);
      expect(pooled.describe()).toContain('(2 of them for documents)');
      expect(cosine(await pooled.embedQuery('spider'), await single.embedQuery('spider'))).toBeCloseTo(1, 5);
    } finally {
      await Promise.all([single.close(), pooled.close()]);
    }
  });

  it('falls back to the bundled encoder in-process and says why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gf-embed-factory-'));
    const client = await createEmbeddingClient(
      { modelDir: dir, textModel: 'multilingual-e5-small' },
      { inProcess: true },
    );
    try {
      expect(client).not.toBeInstanceOf(WorkerEmbeddingClient);
      expect(client.model).toBe('use-lite-512');
      expect(client.dims).toBe(512);
      // run by onnxruntime-node when the build converted its graph (packages/core/scripts/use-lite-to-onnx.mjs)
      expect(client.describe()).toMatch(
        new RegExp(
          `^multilingual-e5-small not found in ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; using the bundled Universal Sentence Encoder lite \\(512-d, English(, run by onnxruntime-node)?\\) — put the model there for multilingual search$`,
        ),
      );
    } finally {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
