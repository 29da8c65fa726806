import { resolve } from 'node:path';
import { findImageModel, IMAGE_MODELS, TransformersImageEmbeddingClient } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePng } from '../support/png.js';

// The image model's contract: it runs when GF_MODEL_DIR (default ./models) holds one of the image models Greenfinger
// knows (IMAGE_MODELS), and is reported skipped otherwise. Never a stand-in model.
const modelDir = resolve(process.env.GF_MODEL_DIR ?? 'models');
const model = Object.keys(IMAGE_MODELS).find((m) => findImageModel(modelDir, m) !== null);
const why = model ? '' : ` (no image model in ${modelDir}: greenfinger models pull --image on a machine with internet)`;

describe.skipIf(!model)(`image embeddings${why}`, () => {
  let client: TransformersImageEmbeddingClient;
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] as number), 0);

  beforeAll(async () => {
    client = await TransformersImageEmbeddingClient.load({ modelDir, model: model as string });
  }, 300_000);
  afterAll(async () => {
    await client?.close();
  });

  it('puts pictures and texts in one space of unit vectors', async () => {
    const [red, blue] = await client.embedImages([
      encodePng(224, 224, () => [230, 20, 20]),
      encodePng(224, 224, () => [20, 20, 230]),
    ]);
    const redText = await client.embedText('a plain red square');
    const blueText = await client.embedText('a plain blue square');
    for (const v of [red, blue, redText, blueText]) {
      expect(v?.length).toBe(client.dims);
      expect(Math.abs(dot(v as Float32Array, v as Float32Array) - 1)).toBeLessThan(1e-3);
    }
    expect(dot(red as Float32Array, redText)).toBeGreaterThan(dot(red as Float32Array, blueText));
    expect(dot(blue as Float32Array, blueText)).toBeGreaterThan(dot(blue as Float32Array, redText));
  });
});
