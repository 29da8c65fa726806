import { ConfigError, CrawlerError } from '../errors.js';
import type { EmbeddingClient } from './embedding-client.js';
import { DEFAULT_RETRY, fetchPost, type PostJson, postWithRetry, type RetryPolicy } from './embedding-retry.js';
import { normalize } from './normalize.js';

/** The embedding endpoints spoken over HTTP. */
export type HttpEmbeddingProvider = 'ollama' | 'openai';

/** How one provider is asked: its path under the base url, and how its answer is read. */
interface Protocol {
  path: string;
  /** The vectors of one answer, in input order. */
  read(answer: unknown, inputs: number): number[][];
}

const PROTOCOLS: Record<HttpEmbeddingProvider, Protocol> = {
  // ollama ≥ 0.3: POST /api/embed {model, input: [...]} → {embeddings: [[...], ...]}
  ollama: {
    path: '/api/embed',
    read(answer) {
      const embeddings = (answer as { embeddings?: unknown }).embeddings;
      if (!Array.isArray(embeddings)) throw new Error('no "embeddings" array in the answer');
      return embeddings as number[][];
    },
  },
  // OpenAI and every compatible server (vLLM, TEI, LM Studio, llama.cpp): POST {base}/embeddings {model, input}
  // → {data: [{embedding, index}, ...]}; the order is the `index`, not the array's.
  openai: {
    path: '/embeddings',
    read(answer, inputs) {
      const data = (answer as { data?: unknown }).data;
      if (!Array.isArray(data)) throw new Error('no "data" array in the answer');
      const out: number[][] = new Array(inputs);
      data.forEach((item: { embedding?: unknown; index?: unknown }, i) => {
        const at = typeof item.index === 'number' ? item.index : i;
        if (!Array.isArray(item.embedding)) throw new Error(`data[${i}] has no "embedding" array`);
        out[at] = item.embedding as number[];
      });
      return out;
    },
  },
};

export interface HttpEmbeddingOptions {
  provider: HttpEmbeddingProvider;
  /** The base url: `http://host:11434` (ollama), `http://host/v1` (openai). */
  url: string;
  model: string;
  apiKey?: string | undefined;
  /** Texts per request. @default 32 */
  batchSize?: number;
  retry?: Partial<RetryPolicy>;
  /** Injected by tests; Node's fetch otherwise. */
  post?: PostJson;
  sleep?: (ms: number) => Promise<void>;
  onRetry?: (attempt: number, waitMs: number, why: string) => void;
}

/** The endpoint url of a provider under a base url (a trailing slash of the base is dropped). */
export function embeddingEndpoint(provider: HttpEmbeddingProvider, base: string): string {
  return `${base.replace(/\/+$/, '')}${PROTOCOLS[provider].path}`;
}

/**
 * An EmbeddingClient over an ollama or OpenAI-compatible endpoint: documents go in batches of `batchSize`, each
 * request retried on 429/5xx/timeouts with bounded backoff (embedding-retry.ts), every vector normalised to unit
 * length. The width is read from the endpoint's first answer: `connect` embeds one probe text, so a wrong url stops
 * the caller at start, in one line naming GF_EMBEDDING_URL, and `dims` is known before any collection is opened.
 */
export class HttpEmbeddingClient implements EmbeddingClient {
  readonly provider: HttpEmbeddingProvider;
  readonly model: string;
  readonly endpoint: string;
  #dims = 0;
  readonly #o: HttpEmbeddingOptions;
  readonly #policy: RetryPolicy;
  /** Requests sent (retries included). */
  requests = 0;

  private constructor(options: HttpEmbeddingOptions) {
    this.#o = options;
    this.provider = options.provider;
    this.model = options.model;
    this.endpoint = embeddingEndpoint(options.provider, options.url);
    this.#policy = { ...DEFAULT_RETRY, ...options.retry };
  }

  /** A client whose width is known: one probe text embedded, connection failures not retried. */
  static async connect(options: HttpEmbeddingOptions): Promise<HttpEmbeddingClient> {
    const client = new HttpEmbeddingClient(options);
    const [probe] = await client.#request(['width probe'], true);
    client.#dims = (probe as Float32Array).length;
    return client;
  }

  get dims(): number {
    return this.#dims;
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    const size = Math.max(1, this.#o.batchSize ?? 32);
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += size) out.push(...(await this.#request(texts.slice(i, i + size), false)));
    return out;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    return (await this.#request([text], false))[0] as Float32Array;
  }

  describe(): string {
    return `${this.provider} ${this.model} at ${this.endpoint} (${this.#dims}-d, width read from its answer)`;
  }

  async close(): Promise<void> {}

  async #request(input: string[], probe: boolean): Promise<Float32Array[]> {
    if (input.length === 0) return [];
    const headers: Record<string, string> = this.#o.apiKey ? { authorization: `Bearer ${this.#o.apiKey}` } : {};
    const text = await postWithRetry(this.endpoint, { model: this.model, input }, headers, {
      policy: this.#policy,
      failFastOnConnect: probe,
      post: (...args) => {
        this.requests++;
        return (this.#o.post ?? fetchPost)(...args);
      },
      sleep: this.#o.sleep,
      onRetry: this.#o.onRetry,
    });
    let vectors: number[][];
    try {
      vectors = PROTOCOLS[this.provider].read(JSON.parse(text), input.length);
    } catch (err) {
      throw new CrawlerError(
        'EMBEDDING',
        `${this.endpoint} did not answer as ${this.provider} does: ${(err as Error).message}`,
        {
          fix: `GF_EMBEDDING_PROVIDER=${this.provider} expects ${this.provider === 'ollama' ? '{embeddings}' : '{data: [{embedding, index}]}'}`,
          cause: err,
        },
      );
    }
    if (vectors.length !== input.length || vectors.some((v) => !Array.isArray(v))) {
      throw new CrawlerError(
        'EMBEDDING',
        `${this.endpoint} answered ${vectors.length} vectors for ${input.length} texts`,
      );
    }
    const width = this.#dims || (vectors[0] as number[]).length;
    if (width === 0) throw new CrawlerError('EMBEDDING', `${this.endpoint} answered an empty vector`);
    for (const v of vectors) {
      if (v.length !== width) {
        throw new CrawlerError('EMBEDDING', `${this.endpoint} answered a ${v.length}-d vector, not ${width}-d`, {
          fix: 'the model behind GF_EMBEDDING_MODEL changed: a new width is a new collection, restart the process',
        });
      }
    }
    return vectors.map((v) => normalize(v));
  }
}

/**
 * The HTTP client the settings name, connected (its width known).
 * @throws ConfigError naming GF_EMBEDDING_URL or GF_EMBEDDING_MODEL when one is missing, or nothing answers
 */
export async function connectHttpEmbedding(settings: {
  embeddingProvider: HttpEmbeddingProvider;
  embeddingUrl?: string | undefined;
  embeddingModel?: string | undefined;
  embeddingApiKey?: string | undefined;
  embeddingBatch?: number | undefined;
  embeddingTimeoutMs?: number | undefined;
  embeddingRetries?: number | undefined;
}): Promise<HttpEmbeddingClient> {
  const provider = settings.embeddingProvider;
  const example = provider === 'ollama' ? 'http://127.0.0.1:11434' : 'http://127.0.0.1:8000/v1';
  if (!settings.embeddingUrl) {
    throw new ConfigError('GF_EMBEDDING_URL', `is required with GF_EMBEDDING_PROVIDER=${provider}`, `e.g. ${example}`);
  }
  if (!settings.embeddingModel) {
    throw new ConfigError(
      'GF_EMBEDDING_MODEL',
      `is required with GF_EMBEDDING_PROVIDER=${provider}`,
      provider === 'ollama' ? 'e.g. nomic-embed-text' : 'the model name the endpoint serves',
    );
  }
  return HttpEmbeddingClient.connect({
    provider,
    url: settings.embeddingUrl,
    model: settings.embeddingModel,
    apiKey: settings.embeddingApiKey,
    batchSize: settings.embeddingBatch,
    retry: {
      ...(settings.embeddingTimeoutMs !== undefined && { timeoutMs: settings.embeddingTimeoutMs }),
      ...(settings.embeddingRetries !== undefined && { retries: settings.embeddingRetries }),
    },
  });
}
