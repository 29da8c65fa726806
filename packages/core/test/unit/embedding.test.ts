import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  chooseEmbeddingSpec,
  cosine,
  defaultPrefixes,
  findOnnxModel,
  linkDensityFactor,
  normalize,
} from '@greenfinger/core/internal';
import { afterAll, describe, expect, it } from 'vitest';

describe('embedding helpers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gf-embedding-unit-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('normalises to unit length and leaves a zero vector alone', () => {
    const v = normalize([3, 4]);
    expect(Array.from(v)).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    expect(Array.from(normalize([0, 0, 0]))).toEqual([0, 0, 0]);
    expect(cosine([1, 0], [0, 1])).toBe(0);
    expect(cosine([1, 1], [2, 2])).toBeCloseTo(1, 10);
    expect(cosine([1, 0], [-1, 0])).toBeCloseTo(-1, 10);
  });

  it('prefixes passages and queries only for e5 models', () => {
    expect(defaultPrefixes('multilingual-e5-small')).toEqual({ passage: 'passage: ', query: 'query: ' });
    expect(defaultPrefixes('all-MiniLM-L6-v2')).toEqual({ passage: '', query: '' });
  });

  it('finds model.onnx, else model_quantized.onnx', () => {
    mkdirSync(join(dir, 'full', 'onnx'), { recursive: true });
    writeFileSync(join(dir, 'full', 'onnx', 'model.onnx'), 'x');
    writeFileSync(join(dir, 'full', 'onnx', 'model_quantized.onnx'), 'x');
    mkdirSync(join(dir, 'quant', 'onnx'), { recursive: true });
    writeFileSync(join(dir, 'quant', 'onnx', 'model_quantized.onnx'), 'x');
    mkdirSync(join(dir, 'empty', 'onnx'), { recursive: true });
    expect(findOnnxModel(dir, 'full')?.dtype).toBe('fp32');
    expect(findOnnxModel(dir, 'quant')?.dtype).toBe('q8');
    expect(findOnnxModel(dir, 'empty')).toBeNull();
    expect(findOnnxModel(dir, 'missing')).toBeNull();
  });

  it('chooses the ONNX model when present, the bundled encoder otherwise, with the reason', () => {
    expect(chooseEmbeddingSpec({ modelDir: dir, textModel: 'quant' })).toEqual({
      kind: 'transformers',
      modelDir: dir,
      model: 'quant',
    });
    expect(chooseEmbeddingSpec({ modelDir: dir, textModel: 'multilingual-e5-small' }, null)).toEqual({
      kind: 'use-lite',
      reason: `multilingual-e5-small not found in ${dir}`,
    });
    // the bundled encoder runs from the graph the build converted, when it is there
    expect(chooseEmbeddingSpec({ modelDir: dir, textModel: 'multilingual-e5-small' }, '/m/use-lite-512.onnx')).toEqual({
      kind: 'use-lite-onnx',
      path: '/m/use-lite-512.onnx',
      reason: `multilingual-e5-small not found in ${dir}`,
    });
    expect(chooseEmbeddingSpec({ modelDir: dir, textModel: 'quant' }, '/m/use-lite-512.onnx').kind).toBe(
      'transformers',
    );
  });

  it('link density factor is 1.5 − density clamped to 0.5..1.5', () => {
    expect(linkDensityFactor(0)).toBe(1.5);
    expect(linkDensityFactor(0.4)).toBeCloseTo(1.1, 10);
    expect(linkDensityFactor(1)).toBe(0.5);
    expect(linkDensityFactor(-3)).toBe(1.5);
    expect(linkDensityFactor(Number.NaN)).toBe(1.5);
  });
});
