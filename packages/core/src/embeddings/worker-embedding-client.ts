import type { Worker } from 'node:worker_threads';
import { CrawlerError } from '../errors.js';
import { startWorker } from '../worker-entry.js';
import type { EmbeddingClient } from './embedding-client.js';
import type { EmbeddingSpec } from './embedding-spec.js';
import type { WorkerReply, WorkerRequest } from './embedding-worker.js';

export interface WorkerEmbeddingOptions {
  /** Most texts sent to the worker in one message (requests waiting together are merged). @default 64 */
  batchSize?: number;
  /** Requests allowed to wait; one more is refused with an EMBEDDING error. @default 1024 */
  maxQueue?: number;
  /** Time allowed for the worker to load its model. @default 120000 */
  startTimeoutMs?: number;
}

interface Pending {
  op: 'documents' | 'query';
  texts: string[];
  resolve: (vectors: Float32Array[]) => void;
  reject: (err: Error) => void;
}

/**
 * Runs an embedding client in a worker thread, so model inference never blocks the event loop. The worker
 * loads the model itself from a serialisable spec. Requests queue (bounded) and those waiting together are
 * sent as one batch; vectors come back as transferred buffers.
 */
export class WorkerEmbeddingClient implements EmbeddingClient {
  readonly provider: string;
  readonly model: string;
  readonly dims: number;
  readonly #description: string;
  readonly #worker: Worker;
  readonly #batchSize: number;
  readonly #maxQueue: number;
  readonly #queue: Pending[] = [];
  #inFlight: { id: number; parts: Pending[] } | undefined;
  #nextId = 1;
  #failure: Error | undefined;
  #closing: Promise<void> | undefined;

  private constructor(worker: Worker, ready: Extract<WorkerReply, { op: 'ready' }>, options: WorkerEmbeddingOptions) {
    this.#worker = worker;
    this.provider = ready.provider;
    this.model = ready.model;
    this.dims = ready.dims;
    this.#description = `${ready.description}, in a worker thread`;
    this.#batchSize = Math.max(1, options.batchSize ?? 64);
    this.#maxQueue = Math.max(1, options.maxQueue ?? 1024);
    worker.on('message', (reply: WorkerReply) => this.#onReply(reply));
    worker.on('error', (err) =>
      this.#fail(new CrawlerError('EMBEDDING', `the embedding worker crashed: ${err.message}`, { cause: err })),
    );
    worker.on('exit', (code) => {
      if (!this.#closing) this.#fail(new CrawlerError('EMBEDDING', `the embedding worker exited (code ${code})`));
    });
    worker.unref();
  }

  /** Starts the worker and waits until its model is loaded. */
  static async start(spec: EmbeddingSpec, options: WorkerEmbeddingOptions = {}): Promise<WorkerEmbeddingClient> {
    const worker = startWorker(import.meta.url, './embedding-worker', { spec });
    const timeoutMs = options.startTimeoutMs ?? 120_000;
    const ready = await new Promise<Extract<WorkerReply, { op: 'ready' }>>((resolve, reject) => {
      const timer = setTimeout(
        () => done(new CrawlerError('EMBEDDING', `the embedding worker did not load its model in ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onMessage = (reply: WorkerReply): void => {
        if (reply.op === 'ready') done(undefined, reply);
        else if (reply.op === 'failed') done(new CrawlerError('EMBEDDING', reply.message));
      };
      const onError = (err: Error): void =>
        done(new CrawlerError('EMBEDDING', `the embedding worker failed to start: ${err.message}`, { cause: err }));
      const onExit = (code: number): void =>
        done(new CrawlerError('EMBEDDING', `the embedding worker exited while loading (code ${code})`));
      function done(err?: Error, reply?: Extract<WorkerReply, { op: 'ready' }>): void {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (reply) resolve(reply);
        else reject(err);
      }
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
    }).catch(async (err: unknown) => {
      await worker.terminate();
      throw err;
    });
    return new WorkerEmbeddingClient(worker, ready, options);
  }

  embedDocuments(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    return this.#enqueue('documents', texts);
  }

  async embedQuery(text: string): Promise<Float32Array> {
    return (await this.#enqueue('query', [text]))[0] as Float32Array;
  }

  describe(): string {
    return this.#description;
  }

  /** Requests waiting, not counting the batch being embedded. */
  get queued(): number {
    return this.#queue.length;
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #shutdown(): Promise<void> {
    const err = new CrawlerError('EMBEDDING', 'the embedding client was closed');
    for (const p of this.#queue.splice(0)) p.reject(err);
    if (this.#inFlight) {
      for (const p of this.#inFlight.parts) p.reject(err);
      this.#inFlight = undefined;
    }
    if (this.#failure) {
      await this.#worker.terminate();
      return;
    }
    this.#worker.ref();
    const closed = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5000);
      this.#worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    this.#worker.postMessage({ id: 0, op: 'close' } satisfies WorkerRequest);
    await closed;
    await this.#worker.terminate();
  }

  #enqueue(op: 'documents' | 'query', texts: string[]): Promise<Float32Array[]> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#closing) return Promise.reject(new CrawlerError('EMBEDDING', 'the embedding client was closed'));
    if (this.#queue.length >= this.#maxQueue) {
      return Promise.reject(
        new CrawlerError('EMBEDDING', `the embedding queue is full (${this.#maxQueue} requests waiting)`, {
          fix: 'embedding is slower than the crawl: wait for pending requests, or lower the crawl threads',
        }),
      );
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ op, texts, resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    if (this.#inFlight || this.#queue.length === 0) return;
    const first = this.#queue.shift() as Pending;
    const parts = [first];
    let count = first.texts.length;
    while (this.#queue.length > 0) {
      const next = this.#queue[0] as Pending;
      if (next.op !== first.op || count + next.texts.length > this.#batchSize) break;
      parts.push(this.#queue.shift() as Pending);
      count += next.texts.length;
    }
    const id = this.#nextId++;
    this.#inFlight = { id, parts };
    this.#worker.ref();
    this.#worker.postMessage({ id, op: first.op, texts: parts.flatMap((p) => p.texts) } satisfies WorkerRequest);
  }

  #onReply(reply: WorkerReply): void {
    if (!('id' in reply) || !this.#inFlight || reply.id !== this.#inFlight.id) return;
    const { parts } = this.#inFlight;
    this.#inFlight = undefined;
    if (reply.op === 'vectors') {
      let at = 0;
      for (const p of parts) {
        p.resolve(reply.vectors.slice(at, at + p.texts.length));
        at += p.texts.length;
      }
    } else if (reply.op === 'error') {
      const err = new CrawlerError('EMBEDDING', `embedding failed in the worker: ${reply.message}`);
      for (const p of parts) p.reject(err);
    }
    if (this.#queue.length === 0) this.#worker.unref();
    this.#pump();
  }

  #fail(err: Error): void {
    this.#failure ??= err;
    for (const p of this.#queue.splice(0)) p.reject(err);
    if (this.#inFlight) {
      for (const p of this.#inFlight.parts) p.reject(err);
      this.#inFlight = undefined;
    }
  }
}
