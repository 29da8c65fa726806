import { existsSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { CrawlerError } from '../errors.js';
import { normalize } from './normalize.js';

/**
 * The image models Greenfinger knows, by folder name under GF_MODEL_DIR (the transformers.js layout: config.json,
 * preprocessor_config.json, tokenizer.json, tokenizer_config.json, onnx/vision_model*.onnx and onnx/text_model*.onnx),
 * with the repository a machine with internet takes them from (`<GF_MODEL_SOURCE>/<repo>/resolve/main/<file>`).
 */
export const IMAGE_MODELS: Readonly<Record<string, { repo: string; family: 'clip' | 'siglip'; files: string[] }>> =
  Object.freeze({
    'clip-vit-base-patch32': {
      repo: 'Xenova/clip-vit-base-patch32',
      family: 'clip',
      files: [
        'config.json',
        'preprocessor_config.json',
        'tokenizer.json',
        'tokenizer_config.json',
        'onnx/vision_model_quantized.onnx',
        'onnx/text_model_quantized.onnx',
      ],
    },
    'siglip-base-patch16-224': {
      repo: 'Xenova/siglip-base-patch16-224',
      family: 'siglip',
      files: [
        'config.json',
        'preprocessor_config.json',
        'tokenizer.json',
        'tokenizer_config.json',
        'onnx/vision_model_quantized.onnx',
        'onnx/text_model_quantized.onnx',
      ],
    },
  });

/** The image model's two ONNX towers in a folder, full precision first; null when either is missing. */
export function findImageModel(modelDir: string, model: string): { dtype: 'fp32' | 'q8' } | null {
  const onnx = join(modelDir, model, 'onnx');
  const both = (suffix: string) =>
    existsSync(join(onnx, `vision_model${suffix}.onnx`)) && existsSync(join(onnx, `text_model${suffix}.onnx`));
  if (both('')) return { dtype: 'fp32' };
  if (both('_quantized')) return { dtype: 'q8' };
  return null;
}

/** Pictures and texts in one vector space: a picture's vector, and a query's by the model's text tower. */
export interface ImageEmbeddingClient {
  readonly model: string;
  readonly dims: number;
  /** One unit vector per picture (the bytes of a PNG, JPEG, GIF or WebP file). */
  embedImages(images: Uint8Array[]): Promise<Float32Array[]>;
  /** A text's unit vector, comparable by cosine with the pictures'. */
  embedText(text: string): Promise<Float32Array>;
  close(): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: transformers.js models and processors are untyped callables here
type Callable = any;

/**
 * A local CLIP or SigLIP model run through transformers.js (onnxruntime-node), never downloaded: the vision tower
 * embeds pictures, the text tower queries; both outputs are L2-normalised. CLIP answers `image_embeds` /
 * `text_embeds` (the projections); SigLIP `pooler_output`, its text padded to the model's length as it was trained.
 */
export class TransformersImageEmbeddingClient implements ImageEmbeddingClient {
  readonly model: string;
  readonly dims: number;
  readonly #family: 'clip' | 'siglip';
  readonly #t: Callable;
  readonly #processor: Callable;
  readonly #tokenizer: Callable;
  readonly #vision: Callable;
  readonly #text: Callable;
  #closed = false;

  private constructor(model: string, family: 'clip' | 'siglip', parts: Callable, dims: number) {
    this.model = model;
    this.#family = family;
    this.#t = parts.t;
    this.#processor = parts.processor;
    this.#tokenizer = parts.tokenizer;
    this.#vision = parts.vision;
    this.#text = parts.text;
    this.dims = dims;
  }

  /** Loads both towers from `<modelDir>/<model>/` and learns the width from one text. */
  static async load(options: { modelDir: string; model: string }): Promise<TransformersImageEmbeddingClient> {
    const modelDir = resolve(options.modelDir);
    const model = options.model;
    const found = findImageModel(modelDir, model);
    if (!found) {
      throw new CrawlerError('EMBEDDING', `no image model ${model} in ${modelDir}`, {
        fix: `put its transformers.js folder at ${join(modelDir, model)}/ (onnx/vision_model.onnx and onnx/text_model.onnx or their _quantized forms), or run greenfinger models pull on a machine with internet`,
      });
    }
    const family = IMAGE_MODELS[model]?.family ?? (/siglip/i.test(model) ? 'siglip' : 'clip');
    try {
      const t = await import('@huggingface/transformers');
      t.env.allowRemoteModels = false;
      t.env.allowLocalModels = true;
      t.env.localModelPath = modelDir.endsWith(sep) ? modelDir : `${modelDir}${sep}`;
      const opts = { dtype: found.dtype, device: 'cpu' as const, local_files_only: true };
      const Vision = family === 'siglip' ? t.SiglipVisionModel : t.CLIPVisionModelWithProjection;
      const Text = family === 'siglip' ? t.SiglipTextModel : t.CLIPTextModelWithProjection;
      const parts = {
        t,
        processor: await t.AutoProcessor.from_pretrained(model, { local_files_only: true }),
        tokenizer: await t.AutoTokenizer.from_pretrained(model, { local_files_only: true }),
        vision: await Vision.from_pretrained(model, opts),
        text: await Text.from_pretrained(model, opts),
      };
      const probe = new TransformersImageEmbeddingClient(model, family, parts, 0);
      const dims = (await probe.embedText('a picture')).length;
      return new TransformersImageEmbeddingClient(model, family, parts, dims);
    } catch (err) {
      if (err instanceof CrawlerError) throw err;
      throw new CrawlerError(
        'EMBEDDING',
        `cannot load the image model ${model} from ${modelDir}: ${(err as Error).message}`,
        {
          cause: err,
          fix: 'the folder needs config.json, preprocessor_config.json, tokenizer.json, tokenizer_config.json and both ONNX towers (transformers.js layout)',
        },
      );
    }
  }

  async embedImages(images: Uint8Array[]): Promise<Float32Array[]> {
    this.#open();
    const out: Float32Array[] = [];
    for (const bytes of images) {
      const image = await this.#t.RawImage.fromBlob(new Blob([Buffer.from(bytes)]));
      const inputs = await this.#processor(image);
      const output = await this.#vision(inputs);
      out.push(normalize((this.#family === 'siglip' ? output.pooler_output : output.image_embeds).data));
    }
    return out;
  }

  async embedText(text: string): Promise<Float32Array> {
    this.#open();
    const inputs =
      this.#family === 'siglip'
        ? this.#tokenizer([text], { padding: 'max_length', truncation: true })
        : this.#tokenizer([text], { padding: true, truncation: true });
    const output = await this.#text(inputs);
    return normalize((this.#family === 'siglip' ? output.pooler_output : output.text_embeds).data);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([this.#vision?.dispose?.(), this.#text?.dispose?.()]);
  }

  #open(): void {
    if (this.#closed) throw new CrawlerError('EMBEDDING', `the image model ${this.model} is closed`);
  }
}
