import { CrawlerError } from '../errors.js';
import type { EmbeddingClient } from './embedding-client.js';

/**
 * Several clients of the same model (each in its own worker thread) used as one: a batch of documents is split
 * into one contiguous slice per client and the slices are embedded at once, so the model uses every core instead
 * of one. Vectors come back in input order. Queries go to the first client. The clients after the first are
 * started by `more` on the first batch of documents, so a process that only searches loads the model once.
 */
export class PooledEmbeddingClient implements EmbeddingClient {
  readonly provider: string;
  readonly model: string;
  readonly dims: number;
  readonly #first: EmbeddingClient;
  readonly #more: (() => Promise<EmbeddingClient[]>) | undefined;
  #clients: EmbeddingClient[];
  #starting: Promise<void> | undefined;
  #closed = false;

  readonly #limit: number;

  /** `limit`: how many clients `more` brings the pool to, for describe(). */
  constructor(first: EmbeddingClient, more?: () => Promise<EmbeddingClient[]>, limit = 1) {
    this.#first = first;
    this.#limit = limit;
    this.#more = more;
    this.#clients = [first];
    this.provider = first.provider;
    this.model = first.model;
    this.dims = first.dims;
  }

  /** Clients started so far. */
  get size(): number {
    return this.#clients.length;
  }

  #startMore(): Promise<void> {
    this.#starting ??= (async () => {
      const more = this.#more ? await this.#more() : [];
      for (const c of more) {
        if (c.model !== this.model || c.dims !== this.dims) {
          await Promise.all(more.map((x) => x.close()));
          throw new CrawlerError('EMBEDDING', `pooled clients loaded ${c.model} (${c.dims}-d), not ${this.model}`);
        }
      }
      if (this.#closed) await Promise.all(more.map((x) => x.close()));
      else this.#clients = [this.#first, ...more];
    })();
    return this.#starting;
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    if (texts.length > 1) await this.#startMore();
    const clients = this.#clients;
    const n = Math.min(clients.length, texts.length);
    const per = Math.ceil(texts.length / n);
    const parts: Promise<Float32Array[]>[] = [];
    for (let i = 0; i < n; i++) {
      const slice = texts.slice(i * per, (i + 1) * per);
      if (slice.length > 0) parts.push((clients[i] as EmbeddingClient).embedDocuments(slice));
    }
    const out = (await Promise.all(parts)).flat();
    if (out.length !== texts.length)
      throw new CrawlerError(
        'EMBEDDING',
        `the embedding pool returned ${out.length} vectors for ${texts.length} texts`,
      );
    return out;
  }

  embedQuery(text: string): Promise<Float32Array> {
    return this.#first.embedQuery(text);
  }

  describe(): string {
    const d = this.#first.describe();
    return this.#more && this.#limit > 1 ? `${d} (${this.#limit} of them for documents)` : d;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#starting?.catch(() => {});
    await Promise.all(this.#clients.map((c) => c.close()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
