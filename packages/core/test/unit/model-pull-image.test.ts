import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findImageModel, IMAGE_MODELS, pullModel } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, listen } from '../support/loopback.js';

/** `models pull --image`: an image model's files from a model source on loopback, into GF_MODEL_DIR/<model>/. */
describe('pulling an image model', () => {
  let server: Server;
  let source = '';
  const asked: string[] = [];
  let dir: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      asked.push(req.url ?? '');
      if (req.url?.includes('/missing/')) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(`bytes of ${req.url}`);
    });
    source = `http://127.0.0.1:${await listen(server)}`;
    dir = mkdtempSync(join(tmpdir(), 'gf-pull-image-'));
  });
  afterAll(async () => {
    if (server) await closeServer(server);
    rmSync(dir, { recursive: true, force: true });
  });

  const settings = () => ({ modelDir: dir, textModel: 'multilingual-e5-small', modelSource: source });

  it('downloads both towers, the processor and the tokenizer, then finds the model in place', async () => {
    const model = 'clip-vit-base-patch32';
    const pulled = await pullModel(settings(), { imageModel: model });
    expect(pulled.already).toBe(false);
    expect(pulled.files.map((f) => f.file)).toEqual(IMAGE_MODELS[model]?.files);
    expect(asked).toContain(`/Xenova/${model}/resolve/main/onnx/vision_model_quantized.onnx`);
    expect(findImageModel(dir, model)).toEqual({ dtype: 'q8' });
    expect((await pullModel(settings(), { imageModel: model })).already).toBe(true);
    // The text model was not touched.
    expect(readdirSync(dir)).toEqual([model]);
  });

  it('refuses a name it does not know in one line naming the ones it does', async () => {
    await expect(pullModel(settings(), { imageModel: 'resnet' })).rejects.toThrow(
      /knows the image models clip-vit-base-patch32, siglip-base-patch16-224, not resnet/,
    );
  });

  it('keeps nothing of a pull the source refuses, and says where to place the folder', async () => {
    const missing = { ...settings(), modelSource: `${source}/missing` };
    await expect(pullModel(missing, { imageModel: 'siglip-base-patch16-224' })).rejects.toMatchObject({
      message: expect.stringMatching(/answered 404/),
      fix: expect.stringMatching(/place its transformers.js folder at .*siglip-base-patch16-224\/ \(config.json/),
    });
    expect(existsSync(join(dir, 'siglip-base-patch16-224'))).toBe(false);
    expect(existsSync(join(dir, 'siglip-base-patch16-224.partial'))).toBe(false);
  });
});
