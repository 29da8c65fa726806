import { existsSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { FeatureExtractionPipeline } from '@huggingface/transformers';
import { CrawlerError } from '../errors.js';
import type { EmbeddingClient } from './embedding-client.js';
import { normalize } from './normalize.js';

export interface TransformersEmbeddingOptions {
  /** GF_MODEL_DIR: folder holding `<model>/{config.json,tokenizer.json,tokenizer_config.json,onnx/model.onnx}`. */
  modelDir: string;
  /** GF_TEXT_MODEL: the model's folder name, e.g. `multilingual-e5-small`. */
  model: string;
  /** Texts per model call. @default 16 */
  batchSize?: number;
  /**
   * Prefixes put before passages and queries. @default `passage: ` / `query: ` when the model name contains
   * `e5` (those models were trained with them), none otherwise.
   */
  prefixes?: { passage: string; query: string } | undefined;
}

/** The ONNX file of a model folder: `onnx/model.onnx`, else `onnx/model_quantized.onnx`; null when neither. */
export function findOnnxModel(modelDir: string, model: string): { file: string; dtype: 'fp32' | 'q8' } | null {
  const onnx = join(modelDir, model, 'onnx');
  if (existsSync(join(onnx, 'model.onnx'))) return { file: join(onnx, 'model.onnx'), dtype: 'fp32' };
  if (existsSync(join(onnx, 'model_quantized.onnx'))) return { file: join(onnx, 'model_quantized.onnx'), dtype: 'q8' };
  return null;
}

/** e5 models expect `passage: ` / `query: ` before the text. */
export function defaultPrefixes(model: string): { passage: string; query: string } {
  return /e5/i.test(model) ? { passage: 'passage: ', query: 'query: ' } : { passage: '', query: '' };
}

/**
 * A local ONNX text model run through transformers.js (onnxruntime-node), never downloaded: remote models are
 * switched off and the model is read from GF_MODEL_DIR. Mean pooling over the attention mask, then L2
 * normalisation; the width is read from the model's output.
 */
export class TransformersEmbeddingClient implements EmbeddingClient {
  readonly provider = 'local';
  readonly model: string;
  readonly dims: number;
  readonly #extractor: FeatureExtractionPipeline;
  readonly #file: string;
  readonly #batchSize: number;
  readonly #prefixes: { passage: string; query: string };
  #closed = false;

  private constructor(
    model: string,
    dims: number,
    extractor: FeatureExtractionPipeline,
    file: string,
    batchSize: number,
    prefixes: { passage: string; query: string },
  ) {
    this.model = model;
    this.dims = dims;
    this.#extractor = extractor;
    this.#file = file;
    this.#batchSize = batchSize;
    this.#prefixes = prefixes;
  }

  /** Loads the model (and runs it once to learn its width). */
  static async load(options: TransformersEmbeddingOptions): Promise<TransformersEmbeddingClient> {
    const modelDir = resolve(options.modelDir);
    const found = findOnnxModel(modelDir, options.model);
    if (!found) {
      throw new CrawlerError('EMBEDDING', `no ONNX model ${options.model} in ${modelDir}`, {
        fix: `put the model at ${join(modelDir, options.model)}/{config.json,tokenizer.json,tokenizer_config.json,onnx/model.onnx}`,
      });
    }
    let extractor: FeatureExtractionPipeline;
    try {
      const { env, pipeline } = await import('@huggingface/transformers');
      env.allowRemoteModels = false;
      env.allowLocalModels = true;
      env.localModelPath = modelDir.endsWith(sep) ? modelDir : `${modelDir}${sep}`;
      extractor = await pipeline('feature-extraction', options.model, {
        dtype: found.dtype,
        device: 'cpu',
        local_files_only: true,
      });
    } catch (err) {
      throw new CrawlerError(
        'EMBEDDING',
        `cannot load the text model ${options.model} from ${modelDir}: ${(err as Error).message}`,
        {
          cause: err,
          fix: 'the folder needs config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx (transformers.js layout)',
        },
      );
    }
    const prefixes = options.prefixes ?? defaultPrefixes(options.model);
    const probe = await run(extractor, ['dimensions']);
    const dims = probe[0]?.length ?? 0;
    if (dims === 0) {
      await extractor.dispose();
      throw new CrawlerError('EMBEDDING', `the text model ${options.model} returned an empty vector`, {
        fix: 'use a feature-extraction model whose output is last_hidden_state [batch, tokens, width]',
      });
    }
    return new TransformersEmbeddingClient(
      options.model,
      dims,
      extractor,
      found.file,
      options.batchSize ?? 16,
      prefixes,
    );
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    return this.#embed(texts.map((t) => this.#prefixes.passage + t));
  }

  async embedQuery(text: string): Promise<Float32Array> {
    return (await this.#embed([this.#prefixes.query + text]))[0] as Float32Array;
  }

  describe(): string {
    return `text embeddings: ${this.model} (${this.dims}-d, local ONNX ${this.#file})`;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#extractor.dispose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #embed(texts: string[]): Promise<Float32Array[]> {
    if (this.#closed) throw new CrawlerError('EMBEDDING', `the text model ${this.model} is closed`);
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.#batchSize) {
      out.push(...(await run(this.#extractor, texts.slice(i, i + this.#batchSize))));
    }
    return out;
  }
}

async function run(extractor: FeatureExtractionPipeline, texts: string[]): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  const tensor = await extractor(texts, { pooling: 'mean', normalize: true });
  const [rows, width] = tensor.dims as [number, number];
  const data = tensor.data as Float32Array;
  const out: Float32Array[] = [];
  for (let r = 0; r < rows; r++) out.push(normalize(data.subarray(r * width, (r + 1) * width)));
  tensor.dispose?.();
  return out;
}
