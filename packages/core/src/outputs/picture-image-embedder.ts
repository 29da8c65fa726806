import type { Logger } from 'pino';
import type { ImageEmbeddingClient } from '../embeddings/transformers-image-embedding-client.js';
import { pictureRecordId } from '../index/fts-pictures.js';
import type { SearchIndex } from '../index/search-index.js';
import type { CrawledPage } from './output-channel.js';
import type { PicturesStep } from './picture-embedder.js';

/** Where image vectors go: the index that holds the picture records. */
export type PictureImageVectorSink = Required<Pick<SearchIndex, 'upsertPictureImageVectors'>>;

/** The picture formats an image model reads (transformers.js decodes them with sharp); others are skipped. */
const READABLE = /^image\/(?:png|jpe?g|gif|webp|bmp|tiff|avif)$/i;

/** Bytes held in memory for queued pictures before the others are read back from their files when their turn comes. */
const HELD_BYTES = 32 * 1024 * 1024;

interface PendingImage {
  catalogId: string;
  id: string;
  version: number;
  /** The stored file (under `user/`), read back when the bytes are not held. */
  path: string;
  bytes?: Buffer | undefined;
}

/**
 * What each kept picture shows, for pictures search by image (catalog `contentMode` `text+image`): its stored bytes
 * embedded by the image model's vision tower once per run (whatever number of pages show it), stored beside the
 * picture's record with the model's name. Runs in the background of the page vectors, in batches; the bytes a page
 * fetched are used while little is queued, else the picture is read back from its file; a picture that fails (one
 * the model cannot decode, a file gone) is counted and the run goes on — replay --layers vector writes them again.
 */
export class PictureImageEmbedder implements PicturesStep {
  readonly #client: ImageEmbeddingClient;
  readonly #sink: PictureImageVectorSink;
  readonly #read: (path: string) => Promise<Buffer | undefined>;
  readonly #batchSize: number;
  readonly #log: Logger | undefined;
  readonly #seen = new Set<string>();
  #queue: PendingImage[] = [];
  #held = 0;
  #running: Promise<void> | undefined;
  #halted = false;
  #embedded = 0;
  #failed = 0;
  #skipped = 0;
  /** Failures the log was told of. */
  #reported = 0;
  #lastError: string | undefined;

  constructor(
    client: ImageEmbeddingClient,
    sink: PictureImageVectorSink,
    read: (path: string) => Promise<Buffer | undefined>,
    options: { batchSize?: number; log?: Logger } = {},
  ) {
    this.#client = client;
    this.#sink = sink;
    this.#read = read;
    this.#batchSize = options.batchSize ?? 8;
    this.#log = options.log;
  }

  /** The model that embeds the pictures. */
  get model(): string {
    return this.#client.model;
  }

  /** Queues the pictures of a page not embedded yet in this run (those in a format the model reads). */
  add(page: CrawledPage): void {
    if (this.#halted || page.images.length === 0) return;
    const { catalogId, version } = page.resource;
    for (const img of page.images) {
      const id = pictureRecordId(catalogId, version, img.row.id);
      if (this.#seen.has(id)) continue;
      this.#seen.add(id);
      if (!READABLE.test(img.row.contentType)) {
        this.#skipped++;
        continue;
      }
      const hold = img.bytes && this.#held + img.bytes.length <= HELD_BYTES;
      if (hold) this.#held += img.bytes?.length ?? 0;
      this.#queue.push({ catalogId, id, version, path: img.row.path, ...(hold ? { bytes: img.bytes } : {}) });
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
      for (const p of batch) this.#held -= p.bytes?.length ?? 0;
      // One picture at a time (the model reads them one by one anyway): a picture it cannot decode, or a file gone,
      // fails alone.
      const done: Array<{ p: PendingImage; vector: Float32Array }> = [];
      for (const p of batch) {
        try {
          const b = p.bytes ?? (await this.#read(p.path));
          if (!b) throw new Error(`the picture ${p.path} could not be read back from its file`);
          const [vector] = await this.#client.embedImages([b]);
          if (!vector) throw new Error(`the image model gave no vector for ${p.path}`);
          done.push({ p, vector });
        } catch (err) {
          this.#fail(1, err);
        }
        if (this.#halted) return;
      }
      const byCatalog = new Map<string, Array<{ id: string; version: number; vector: Float32Array }>>();
      for (const { p, vector } of done) {
        const list = byCatalog.get(p.catalogId) ?? [];
        list.push({ id: p.id, version: p.version, vector });
        byCatalog.set(p.catalogId, list);
      }
      for (const [catalogId, list] of byCatalog) {
        try {
          await this.#sink.upsertPictureImageVectors(catalogId, this.#client.model, list);
          this.#embedded += list.length;
        } catch (err) {
          this.#fail(list.length, err);
        }
      }
    }
  }

  #fail(n: number, err: unknown): void {
    this.#failed += n;
    this.#lastError = err instanceof Error ? err.message : String(err);
  }

  /** Embeds and stores everything queued; says in the log what failed since it last did. */
  async flush(): Promise<void> {
    let guard = 0;
    while (!this.#halted && (this.#queue.length > 0 || this.#running) && guard++ < 1_000_000) {
      this.#kick();
      await this.#running;
    }
    if (this.#failed > this.#reported) {
      this.#reported = this.#failed;
      this.#log?.warn({ model: this.#client.model, ...this.counts() }, 'pictures the image model could not embed');
    }
  }

  /** Drops what is queued (the run is stopping); a batch being embedded is dropped when its vectors come. */
  abandon(): void {
    this.#halted = true;
    this.#queue = [];
    this.#held = 0;
  }

  /** Pictures embedded and stored, pictures failed, pictures skipped (a format the model cannot read), last error. */
  counts(): { embedded: number; failed: number; skipped: number; lastError?: string } {
    return {
      embedded: this.#embedded,
      failed: this.#failed,
      skipped: this.#skipped,
      ...(this.#lastError ? { lastError: this.#lastError } : {}),
    };
  }
}

/** Several picture steps as one (the caption meaning and the image vectors of the same pages). */
export function allPictures(steps: ReadonlyArray<PicturesStep | undefined>): PicturesStep | undefined {
  const list = steps.filter((s): s is PicturesStep => s !== undefined);
  if (list.length <= 1) return list[0];
  return {
    add: (page) => {
      for (const s of list) s.add(page);
    },
    flush: async () => {
      await Promise.all(list.map((s) => s.flush()));
    },
    abandon: () => {
      for (const s of list) s.abandon();
    },
  };
}
