import type { EmbeddingClient } from '../embeddings/embedding-client.js';
import { ids } from '../ids.js';
import type { VectorPoint, VectorStore } from '../vector/vector-store.js';
import type { CrawledPage, OutputChannel } from './output-channel.js';

export interface VectorOutputOptions {
  /** Splits a page's text into chunks. */
  chunk: (text: string) => string[];
  /** Chunks per embedding call. @default 32 */
  batchSize?: number;
  /** Chunks held in memory waiting for embedding. @default 512 */
  maxQueued?: number;
  /**
   * Reads a page's text back from the file layer. When given, write() never waits for the embedder: past
   * `maxQueued`, a page is kept as a reference (no text in memory) and embedded from its file once the queue has
   * room, so fetching goes on at full speed while embeddings catch up. Without it, write() waits for room.
   */
  loadText?: ((page: CrawledPage) => Promise<string | undefined>) | undefined;
}

interface PendingChunk {
  page: CrawledPage;
  index: number;
  text: string;
  last: boolean;
}

/**
 * The vector layer: pages are chunked, chunks embedded in batches (the client runs off the event loop) and
 * upserted with a payload that carries the page. The queue is bounded: when embeddings fall behind, write()
 * waits, so fetching never runs unboundedly ahead of the embedder.
 */
export class VectorOutputChannel implements OutputChannel {
  readonly layer = 'vector' as const;
  readonly #client: EmbeddingClient;
  readonly #store: VectorStore;
  readonly #chunk: (text: string) => string[];
  readonly #batchSize: number;
  readonly #maxQueued: number;
  #queue: PendingChunk[] = [];
  /** Pages written while the queue was full, without their text (read back from the files when there is room). */
  #overflow: CrawledPage[] = [];
  readonly #loadText: VectorOutputOptions['loadText'];
  #running: Promise<void> | undefined;
  #waiters: Array<() => void> = [];
  #written = 0;
  #failed = 0;
  #chunks = 0;
  #embedMs = 0;
  #lastError: string | undefined;
  #listener: ((resourceId: string, ok: boolean) => void) | undefined;
  /** Pages one of whose chunk batches failed, until their last chunk is through. */
  #failedPages = new Set<string>();

  constructor(client: EmbeddingClient, store: VectorStore, options: VectorOutputOptions) {
    this.#client = client;
    this.#store = store;
    this.#chunk = options.chunk;
    this.#batchSize = options.batchSize ?? 32;
    this.#maxQueued = options.maxQueued ?? 512;
    this.#loadText = options.loadText;
  }

  async write(page: CrawledPage): Promise<void> {
    if (this.#loadText && (this.#queue.length >= this.#maxQueued || this.#overflow.length > 0)) {
      this.#overflow.push({ ...page, text: '', html: undefined, images: [] });
      this.#kick();
      return;
    }
    this.#enqueue(page);
    let guard = 0;
    while (!this.#loadText && this.#queue.length >= this.#maxQueued && guard++ < 1_000_000) {
      this.#kick();
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    if (this.#queue.length >= this.#batchSize) this.#kick();
  }

  /** Chunk a page into the queue (a page with no text is done at once). */
  #enqueue(page: CrawledPage): void {
    const chunks = this.#chunk(`${page.resource.title}\n\n${page.text}`.trim());
    if (chunks.length === 0) {
      this.#written++;
      this.#listener?.(page.resource.id, true);
      return;
    }
    chunks.forEach((text, index) => {
      this.#queue.push({ page, index, text, last: index === chunks.length - 1 });
    });
  }

  /** Move overflowed pages back into the queue, reading their text from the files, while there is room. */
  async #refill(): Promise<void> {
    let guard = 0;
    while (this.#overflow.length > 0 && this.#queue.length < this.#maxQueued / 2 && guard++ < 100_000) {
      const page = this.#overflow.shift() as CrawledPage;
      const text = await this.#loadText?.(page);
      if (text === undefined) {
        this.#failed++;
        this.#lastError = `the text of ${page.resource.url} could not be read back from ${page.resource.textPath}`;
        this.#listener?.(page.resource.id, false);
        continue;
      }
      this.#enqueue({ ...page, text });
    }
  }

  #kick(): void {
    if (this.#running) return;
    this.#running = this.#run().finally(() => {
      this.#running = undefined;
    });
  }

  async #run(): Promise<void> {
    let guard = 0;
    while ((this.#queue.length > 0 || this.#overflow.length > 0) && guard++ < 10_000_000) {
      await this.#refill();
      if (this.#queue.length === 0) continue;
      const batch = this.#queue.splice(0, this.#batchSize);
      this.#release();
      const started = performance.now();
      try {
        const vectors = await this.#client.embedDocuments(batch.map((c) => c.text));
        this.#embedMs += performance.now() - started;
        const points: VectorPoint[] = batch.map((c, i) => {
          const { resource, catalog } = c.page;
          return {
            id: ids.textPoint(resource.catalogId, resource.version, resource.id, c.index),
            vector: vectors[i] as Float32Array,
            payload: {
              resourceId: resource.id,
              catalogId: resource.catalogId,
              catalogName: catalog.name,
              version: resource.version,
              catalogVersion: `${resource.catalogId}:${resource.version}`,
              chunkIndex: c.index,
              chunk: c.text,
              url: resource.url,
              title: resource.title,
              textPath: resource.textPath,
              linkDensity: resource.linkDensity,
            },
          };
        });
        await this.#store.upsert(points);
        this.#chunks += points.length;
      } catch (err) {
        for (const c of batch) this.#failedPages.add(c.page.resource.id);
        this.#lastError = err instanceof Error ? err.message : String(err);
      }
      for (const c of batch.filter((x) => x.last)) {
        const id = c.page.resource.id;
        const ok = !this.#failedPages.delete(id);
        if (ok) this.#written++;
        else this.#failed++;
        this.#listener?.(id, ok);
      }
    }
  }

  #release(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  async flush(): Promise<void> {
    let guard = 0;
    while ((this.#queue.length > 0 || this.#overflow.length > 0 || this.#running) && guard++ < 1_000_000) {
      this.#kick();
      await this.#running;
    }
    this.#release();
  }

  setDurableListener(listener: (resourceId: string, ok: boolean) => void): void {
    this.#listener = listener;
  }

  async deleteVersion(catalogId: string, version: number, dryRun: boolean): Promise<{ count: number; bytes: number }> {
    const count = dryRun
      ? await this.#store.countVersion(catalogId, version)
      : await this.#store.deleteVersion(catalogId, version);
    return { count, bytes: 0 };
  }

  counts(): { written: number; failed: number; lastError?: string } {
    return { written: this.#written, failed: this.#failed, ...(this.#lastError ? { lastError: this.#lastError } : {}) };
  }

  /** Embedding cost: chunks embedded and milliseconds spent waiting for the embedder. */
  cost(): { chunks: number; embedMs: number } {
    return { chunks: this.#chunks, embedMs: this.#embedMs };
  }

  async close(): Promise<void> {
    await this.flush();
  }
}
