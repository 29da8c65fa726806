import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  chunkText,
  cosine,
  loadEmbeddingClient,
  USE_LITE_ONNX_PATH,
  UseLiteEmbeddingClient,
  UseLiteOnnxEmbeddingClient,
  WorkerEmbeddingClient,
} from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

/** Real English text: this repository's own docs, cut the way the pipeline cuts pages. */
function realChunks(count: number): string[] {
  const files = [join(root, 'README.md'), ...readdirSync(join(root, 'docs')).map((f) => join(root, 'docs', f))]
    .filter((f) => f.endsWith('.md'))
    .sort();
  const out: string[] = [];
  for (const f of files) {
    out.push(...chunkText(readFileSync(f, 'utf8')).slice(0, 6));
    if (out.length >= count) break;
  }
  return out.slice(0, count);
}

describe('UseLiteOnnxEmbeddingClient (the bundled encoder converted to ONNX at build time)', () => {
  let onnx: UseLiteOnnxEmbeddingClient;
  let tfjs: UseLiteEmbeddingClient;
  beforeAll(async () => {
    // `pnpm run build` writes it; a test run from a fresh checkout builds it here (the converter is deterministic)
    if (!existsSync(USE_LITE_ONNX_PATH)) {
      const r = spawnSync(process.execPath, [join(root, 'packages/core/scripts/use-lite-to-onnx.mjs')], {
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`use-lite-to-onnx failed: ${r.stderr}`);
    }
    [onnx, tfjs] = await Promise.all([UseLiteOnnxEmbeddingClient.load(), UseLiteEmbeddingClient.load()]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([onnx?.close(), tfjs?.close()]);
  });

  it('gives the TF.js vectors on real text (cosine ≥ 0.999 per chunk)', async () => {
    const texts = [...realChunks(120), '', 'Bonjour', 'A web crawler downloads pages.', 'x'.repeat(3000)];
    const [a, b] = await Promise.all([onnx.embedDocuments(texts), tfjs.embedDocuments(texts)]);
    expect(a).toHaveLength(texts.length);
    const cosines = a.map((v, i) => cosine(v, b[i] as Float32Array));
    for (const v of a) {
      expect(v.length).toBe(512);
      expect(Math.hypot(...v)).toBeCloseTo(1, 4);
    }
    expect(Math.min(...cosines)).toBeGreaterThanOrEqual(0.999);
    expect(onnx.model).toBe(tfjs.model);
  }, 120_000);

  it('answers a query the same way', async () => {
    const q = 'How do I read a file line by line?';
    expect(cosine(await onnx.embedQuery(q), await tfjs.embedQuery(q))).toBeGreaterThanOrEqual(0.999);
    expect(onnx.describe()).toContain('ONNX');
  });

  it('runs in a worker thread, and falls back to TF.js when its graph cannot load', async () => {
    const worker = await WorkerEmbeddingClient.start({ kind: 'use-lite-onnx', path: USE_LITE_ONNX_PATH });
    try {
      expect(worker.describe()).toContain('onnxruntime-node');
      const [v] = await worker.embedDocuments(['A web crawler downloads pages.']);
      const [w] = await tfjs.embedDocuments(['A web crawler downloads pages.']);
      expect(cosine(v as Float32Array, w as Float32Array)).toBeGreaterThanOrEqual(0.999);
    } finally {
      await worker.close();
    }
    const fallback = await loadEmbeddingClient({ kind: 'use-lite-onnx', path: join(root, 'no-such.onnx') });
    try {
      expect(fallback).toBeInstanceOf(UseLiteEmbeddingClient);
      expect(fallback.describe()).toContain('the ONNX graph did not load');
    } finally {
      await fallback.close();
    }
  }, 120_000);
});
