import type { EmbeddingClient } from '../embeddings/embedding-client.js';
import { ids } from '../ids.js';
import type { VectorPoint, VectorStore } from '../vector/vector-store.js';
import type { CrawledPage, OutputChannel } from './output-channel.js';
import type { PicturesStep } from './picture-embedder.js';

/**
 * Which chunks are embedded first:
 * - `first-chunk`: the first chunk of every page before the other chunks of any page, so every page is searchable by
 *   meaning after one embedding each; the rest of its chunks follow (the final vectors are the same);
 * - `page`: page by page, every chunk of a page before the next page.
 */
export type EmbeddingOrder = 'first-chunk' | 'page';

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
   * room, so fetching goes on at full speed while embeddings catch up; and the chunks after a page's first are read
   * back from its file when their turn comes. Without it, write() waits for room and those chunks wait in memory.
   */
  loadText?: ((page: CrawledPage) => Promise<string | undefined>) | undefined;
  /** @default 'first-chunk' */
  order?: EmbeddingOrder | undefined;
  /**
   * Embeds the pictures of the pages too (once each per run), for pictures search: their caption meaning
   * (PictureEmbedder) and, for a `text+image` catalog, their bytes (PictureImageEmbedder).
   */
  pictures?: PicturesStep | undefined;
}

/** What the vector layer has done so far: the embedding progress of a run. */
export interface VectorProgress {
  /** Pages given to the layer. */
  pages: number;
  /** Pages whose first chunk has its vector (or that have no text to embed): meaning search finds them. */
  embedded: number;
  /** Pages every chunk of which is through, stored or failed: the ones the durable listener was told of. */
  complete: number;
  /** Pages one of whose chunks could not be embedded or stored. */
  failed: number;
  /** Chunks embedded and stored. */
  chunks: number;
  /** Milliseconds spent waiting for the embedder. */
  embedMs: number;
}

/** One page on its way through the layer. */
interface PageState {
  /** The page without its text, html and pictures (the text is read back, or held in `later`). */
  page: CrawledPage;
  /** Chunks the page has, as last counted. */
  total: number;
  /** Chunks not through yet (embedded and stored, or failed). */
  left: number;
  failed: boolean;
}

interface PendingChunk {
  state: PageState;
  index: number;
  text: string;
}

/** A page whose chunks after the first are still to come: held in memory, or read back from its file. */
interface LaterPage {
  state: PageState;
  chunks?: PendingChunk[];
}

const stripped = (page: CrawledPage): CrawledPage => ({ ...page, text: '', html: undefined, images: [] });

/**
 * What is embedded for a chunk: the chunk, after the page's title when it is not the first chunk (which starts with
 * it). A page's title says what it is about better than its twelfth chunk does, so every chunk carries it; the
 * payload keeps the chunk alone, for the passage a result shows.
 */
const embeddedText = (c: PendingChunk): string =>
  c.index === 0 || !c.state.page.resource.title ? c.text : `${c.state.page.resource.title}\n\n${c.text}`;

/**
 * The vector layer: pages are chunked, chunks embedded in batches (the client runs off the event loop) and upserted
 * with a payload that carries the page. By default the first chunk of every page goes before the other chunks of
 * any page (see {@link EmbeddingOrder}). A page is reported durable once all of its chunks are through, so a crash
 * before that redoes the page (point ids are deterministic: writing a page again replaces its points). Memory is
 * bounded: with `loadText`, pages past `maxQueued` and the later chunks of every page are read back from the files;
 * without it, write() waits while `maxQueued` chunks are held.
 */
export class VectorOutputChannel implements OutputChannel {
  readonly layer = 'vector' as const;
  readonly #client: EmbeddingClient;
  readonly #store: VectorStore;
  readonly #chunk: (text: string) => string[];
  readonly #batchSize: number;
  readonly #maxQueued: number;
  readonly #order: EmbeddingOrder;
  readonly #loadText: VectorOutputOptions['loadText'];
  readonly #pictures: PicturesStep | undefined;
  /** First chunks (in `page` order: every chunk), in the order the pages came. */
  #firsts: PendingChunk[] = [];
  /** Pages written while the queue was full, without their text (read back from the files when there is room). */
  #overflow: CrawledPage[] = [];
  /** Pages whose first chunk is queued or through and whose other chunks are still to come. */
  #later: LaterPage[] = [];
  /** Later chunks read back (or taken from `#later`), waiting for their batch. */
  #current: PendingChunk[] = [];
  /** Chunks held in `#later` (no loadText). */
  #heldLater = 0;
  /** Pages chunked and not complete yet. */
  readonly #live = new Set<PageState>();
  /** The batch being embedded now. */
  #inFlight: PendingChunk[] = [];
  #running: Promise<void> | undefined;
  /** The upsert of the batch in flight, once its vectors came. */
  #upserting: Promise<void> | undefined;
  #waiters: Array<() => void> = [];
  #firstWaiters: Array<(through: boolean) => void> = [];
  #halted = false;
  #markHalted!: () => void;
  /** Settles when the layer is abandoned: a flush waiting for a batch the model still has stops waiting. */
  readonly #haltedSignal = new Promise<void>((resolve) => {
    this.#markHalted = resolve;
  });
  #pages = 0;
  #embedded = 0;
  #complete = 0;
  #written = 0;
  #failed = 0;
  #chunks = 0;
  #embedMs = 0;
  #lastError: string | undefined;
  #listener: ((resourceId: string, ok: boolean) => void) | undefined;

  constructor(client: EmbeddingClient, store: VectorStore, options: VectorOutputOptions) {
    this.#client = client;
    this.#store = store;
    this.#chunk = options.chunk;
    this.#batchSize = options.batchSize ?? 32;
    this.#maxQueued = options.maxQueued ?? 512;
    this.#order = options.order ?? 'first-chunk';
    this.#loadText = options.loadText;
    this.#pictures = options.pictures;
  }

  async write(page: CrawledPage): Promise<void> {
    // Stopped: the page stays owed (its journal entry), and the next run writes it from its file.
    if (this.#halted) return;
    this.#pages++;
    this.#pictures?.add(page);
    if (this.#loadText && (this.#firsts.length >= this.#maxQueued || this.#overflow.length > 0)) {
      this.#overflow.push(stripped(page));
      this.#kick();
      return;
    }
    this.#enqueue(page);
    this.#kick();
    let guard = 0;
    while (!this.#loadText && !this.#halted && this.#held() >= this.#maxQueued && guard++ < 1_000_000) {
      this.#kick();
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Chunks held in memory, waiting. */
  #held(): number {
    return this.#firsts.length + this.#current.length + this.#heldLater;
  }

  /** Chunk a page into the queues (a page with no text is done at once). */
  #enqueue(page: CrawledPage): void {
    const chunks = this.#chunk(`${page.resource.title}\n\n${page.text}`.trim());
    if (chunks.length === 0) {
      this.#embedded++;
      this.#complete++;
      this.#written++;
      this.#listener?.(page.resource.id, true);
      return;
    }
    const state: PageState = { page: stripped(page), total: chunks.length, left: chunks.length, failed: false };
    this.#live.add(state);
    const pending = chunks.map((text, index) => ({ state, index, text }));
    if (this.#order === 'page') {
      this.#firsts.push(...pending);
      return;
    }
    this.#firsts.push(pending[0] as PendingChunk);
    if (pending.length === 1) return;
    if (this.#loadText) this.#later.push({ state });
    else {
      this.#later.push({ state, chunks: pending.slice(1) });
      this.#heldLater += pending.length - 1;
    }
  }

  /** Move overflowed pages back into the queue, reading their text from the files, while there is room. */
  async #refill(): Promise<void> {
    let guard = 0;
    while (
      !this.#halted &&
      this.#overflow.length > 0 &&
      this.#firsts.length < this.#maxQueued / 2 &&
      guard++ < 100_000
    ) {
      const page = this.#overflow.shift() as CrawledPage;
      const text = await this.#loadText?.(page);
      if (this.#halted) return;
      if (text === undefined) {
        this.#failed++;
        this.#complete++;
        this.#lastError = unreadable(page);
        this.#listener?.(page.resource.id, false);
        continue;
      }
      this.#enqueue({ ...page, text });
    }
  }

  /** Fill `#current` with the later chunks of the next pages (read back from their files), up to a batch. */
  async #loadLater(): Promise<void> {
    let guard = 0;
    while (!this.#halted && this.#current.length < this.#batchSize && this.#later.length > 0 && guard++ < 100_000) {
      const { state, chunks } = this.#later.shift() as LaterPage;
      if (chunks) {
        this.#current.push(...chunks);
        this.#heldLater -= chunks.length;
        continue;
      }
      const text = await this.#loadText?.(state.page);
      if (this.#halted) return;
      if (text === undefined) {
        state.failed = true;
        this.#lastError = unreadable(state.page);
        this.#through(state, state.total - 1);
        continue;
      }
      const again = this.#chunk(`${state.page.resource.title}\n\n${text}`.trim());
      // The file holds the text the page was written with; should its chunks count differently, they count as now.
      const fewer = state.total - Math.max(1, again.length);
      state.total -= fewer;
      this.#through(state, fewer);
      for (let index = 1; index < again.length; index++) {
        this.#current.push({ state, index, text: again[index] as string });
      }
    }
  }

  #kick(): void {
    if (this.#running || this.#halted) return;
    this.#running = this.#run().finally(() => {
      this.#running = undefined;
    });
  }

  #hasWork(): boolean {
    return this.#firsts.length > 0 || this.#overflow.length > 0 || this.#later.length > 0 || this.#current.length > 0;
  }

  async #run(): Promise<void> {
    let guard = 0;
    while (!this.#halted && this.#hasWork() && guard++ < 10_000_000) {
      await this.#refill();
      let batch: PendingChunk[];
      if (this.#firsts.length > 0) batch = this.#firsts.splice(0, this.#batchSize);
      else {
        await this.#loadLater();
        batch = this.#current.splice(0, this.#batchSize);
      }
      this.#release();
      if (this.#halted || batch.length === 0) {
        this.#tellFirsts();
        continue;
      }
      this.#inFlight = batch;
      await this.#embed(batch);
      this.#inFlight = [];
      this.#tellFirsts();
    }
    this.#tellFirsts();
  }

  async #embed(batch: PendingChunk[]): Promise<void> {
    const started = performance.now();
    let ok = false;
    try {
      const vectors = await this.#client.embedDocuments(batch.map(embeddedText));
      // Abandoned while the model worked: nothing is stored, the pages stay owed.
      if (this.#halted) return;
      this.#embedMs += performance.now() - started;
      const points: VectorPoint[] = batch.map((c, i) => {
        const { resource, catalog } = c.state.page;
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
      this.#upserting = this.#store.upsert(points);
      await this.#upserting;
      this.#chunks += points.length;
      ok = true;
    } catch (err) {
      if (this.#halted) return;
      this.#lastError = err instanceof Error ? err.message : String(err);
    } finally {
      this.#upserting = undefined;
    }
    for (const c of batch) {
      if (!ok) c.state.failed = true;
      else if (c.index === 0) this.#embedded++;
      this.#through(c.state, 1);
    }
  }

  /** `n` more chunks of a page are through; the page is reported once its last one is. */
  #through(state: PageState, n: number): void {
    state.left -= n;
    if (state.left > 0 || !this.#live.delete(state)) return;
    this.#complete++;
    if (state.failed) this.#failed++;
    else this.#written++;
    this.#listener?.(state.page.resource.id, !state.failed);
  }

  /** First chunks waiting or being embedded (in `page` order: every chunk). */
  #firstsPending(): boolean {
    return (
      this.#firsts.length > 0 ||
      this.#overflow.length > 0 ||
      this.#inFlight.some((c) => c.index === 0 || this.#order === 'page')
    );
  }

  #tellFirsts(): void {
    if (this.#firstsPending() && !this.#halted) return;
    const waiters = this.#firstWaiters;
    this.#firstWaiters = [];
    for (const w of waiters) w(!this.#halted);
  }

  #release(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  /**
   * Resolves once every page written so far has its first chunk through (embedded and stored, or failed): from then
   * on meaning search finds every one of them. Pages written later are not waited for. False when the layer was
   * abandoned first.
   */
  async firstChunksWritten(): Promise<boolean> {
    if (this.#halted) return false;
    if (!this.#firstsPending()) return true;
    this.#kick();
    return new Promise<boolean>((resolve) => this.#firstWaiters.push(resolve));
  }

  async flush(): Promise<void> {
    let guard = 0;
    while (!this.#halted && (this.#hasWork() || this.#running) && guard++ < 1_000_000) {
      this.#kick();
      await Promise.race([this.#running, this.#haltedSignal]);
    }
    await this.#upserting?.catch(() => undefined);
    this.#release();
    await this.#pictures?.flush();
  }

  /**
   * Stop embedding (the run is stopping): what is queued is dropped unreported, so those pages stay owed — their
   * journal entries — and the next run writes them from their files. A batch the model is embedding now is dropped
   * when its vectors come; one being stored is waited for. Pages written after this are dropped the same way.
   */
  async abandon(): Promise<void> {
    this.#halted = true;
    this.#markHalted();
    this.#pictures?.abandon();
    this.#firsts = [];
    this.#overflow = [];
    this.#later = [];
    this.#current = [];
    this.#heldLater = 0;
    this.#release();
    this.#tellFirsts();
    await this.#upserting?.catch(() => undefined);
    this.#live.clear();
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

  /** Pages given, pages searchable by meaning, pages complete, chunks stored (see {@link VectorProgress}). */
  progress(): VectorProgress {
    return {
      pages: this.#pages,
      embedded: this.#embedded,
      complete: this.#complete,
      failed: this.#failed,
      chunks: this.#chunks,
      embedMs: this.#embedMs,
    };
  }

  /** Embedding cost: chunks embedded and milliseconds spent waiting for the embedder. */
  cost(): { chunks: number; embedMs: number } {
    return { chunks: this.#chunks, embedMs: this.#embedMs };
  }

  async close(): Promise<void> {
    await this.flush();
  }
}

function unreadable(page: CrawledPage): string {
  return `the text of ${page.resource.url} could not be read back from ${page.resource.textPath}`;
}
