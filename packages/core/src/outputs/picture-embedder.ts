import type { EmbeddingClient } from '../embeddings/embedding-client.js';
import { fileNameWords, pictureRecordId } from '../index/fts-pictures.js';
import type { SearchIndex } from '../index/search-index.js';
import type { CrawledPage } from './output-channel.js';

/** Where picture vectors go: the index that holds the picture records. */
export type PictureVectorSink = Required<Pick<SearchIndex, 'upsertPictureVectors'>>;

/** What the vector layer does with the pictures of the pages it is given (see VectorOutputOptions.pictures). */
export interface PicturesStep {
  /** Queues the pictures of a page (each once per run). */
  add(page: CrawledPage): void;
  /** Embeds and stores everything queued. */
  flush(): Promise<void>;
  /** Drops what is queued: the run is stopping. */
  abandon(): void;
}

interface PendingPicture {
  catalogId: string;
  id: string;
  version: number;
  text: string;
}

/**
 * The meaning of each kept picture, for pictures search: its alt text, caption, file name words and the title of the
 * first page that shows it, embedded once per run by the vector layer's model (the first page that shows a picture
 * decides its text; the words ranking reads every page's) and stored beside the picture's record. Runs in the
 * background of the page vectors, in batches; a failed batch is counted and the run goes on (replay --layers vector
 * writes them again).
 */
export class PictureEmbedder implements PicturesStep {
  readonly #client: EmbeddingClient;
  readonly #sink: PictureVectorSink;
  readonly #batchSize: number;
  readonly #seen = new Set<string>();
  #queue: PendingPicture[] = [];
  #running: Promise<void> | undefined;
  #halted = false;
  #embedded = 0;
  #failed = 0;
  #lastError: string | undefined;

  constructor(client: EmbeddingClient, sink: PictureVectorSink, options: { batchSize?: number } = {}) {
    this.#client = client;
    this.#sink = sink;
    this.#batchSize = options.batchSize ?? 32;
  }

  /** Queues the pictures of a page not embedded yet in this run. */
  add(page: CrawledPage): void {
    if (this.#halted || page.images.length === 0) return;
    const { catalogId, version, title } = page.resource;
    for (const img of page.images) {
      const id = pictureRecordId(catalogId, version, img.row.id);
      if (this.#seen.has(id)) continue;
      this.#seen.add(id);
      const text = [img.alt, img.surroundingText, fileNameWords(img.row.url).name, title]
        .map((t) => t.replace(/\s+/g, ' ').trim())
        .filter(Boolean)
        .join('\n');
      if (text) this.#queue.push({ catalogId, id, version, text });
    }
    if (this.#queue.length >= this.#batchSize) this.#kick();
  }

  #kick(): void {
    if (this.#running || this.#halted) return;
    this.#running = this.#run().finally(() => {
      this.#running = undefined;
    });
  }

  async #run(): Promise<void> {
    let guard = 0;
    while (!this.#halted && this.#queue.length > 0 && guard++ < 1_000_000) {
      const batch = this.#queue.splice(0, this.#batchSize);
      try {
        const vectors = await this.#client.embedDocuments(batch.map((p) => p.text));
        if (this.#halted) return;
        const byCatalog = new Map<string, Array<{ id: string; version: number; vector: Float32Array }>>();
        for (const [i, p] of batch.entries()) {
          const list = byCatalog.get(p.catalogId) ?? [];
          list.push({ id: p.id, version: p.version, vector: vectors[i] as Float32Array });
          byCatalog.set(p.catalogId, list);
        }
        for (const [catalogId, list] of byCatalog) await this.#sink.upsertPictureVectors(catalogId, list);
        this.#embedded += batch.length;
      } catch (err) {
        this.#failed += batch.length;
        this.#lastError = err instanceof Error ? err.message : String(err);
      }
    }
  }

  /** Embeds and stores everything queued. */
  async flush(): Promise<void> {
    let guard = 0;
    while (!this.#halted && (this.#queue.length > 0 || this.#running) && guard++ < 1_000_000) {
      this.#kick();
      await this.#running;
    }
  }

  /** Drops what is queued (the run is stopping); a batch being embedded is dropped when its vectors come. */
  abandon(): void {
    this.#halted = true;
    this.#queue = [];
  }

  /** Pictures embedded and stored, pictures failed, and the last error. */
  counts(): { embedded: number; failed: number; lastError?: string } {
    return {
      embedded: this.#embedded,
      failed: this.#failed,
      ...(this.#lastError ? { lastError: this.#lastError } : {}),
    };
  }
}
