import { StageError } from '../errors.js';
import { SharedThread, startWorker, ThreadChannel } from '../worker-entry.js';
import type { SqliteFtsIndexOptions } from './fts-options.js';
import type { IndexWriterOp, IndexWriterReply } from './index-writer-protocol.js';
import type {
  FtsOptimizeStats,
  IndexImage,
  IndexStats,
  PictureHit,
  PictureLikeQuery,
  PictureLikeResult,
  PictureQuery,
  PictureResult,
  SearchIndex,
  WordsQuery,
  WordsResult,
} from './search-index.js';

/**
 * A SearchIndex whose upserts run on a worker thread with its own connection to the same index files (SQLite in
 * WAL mode: the worker writes while this thread's connection keeps answering searches). Tokenising and writing
 * the full text of every page is a large share of a crawl's CPU; off the event loop it overlaps with fetching.
 * Everything but upsert goes to `reader`, the index this thread searches with. Given a `thread` (a crawl lends
 * its extraction worker's), the writer lives there instead of on a thread of its own: one V8 isolate fewer.
 */
export class OffThreadIndex implements SearchIndex {
  readonly name: string;
  readonly #reader: SearchIndex;
  readonly #writer: ThreadChannel<IndexWriterOp, IndexWriterReply>;
  /** Whether the thread is ours to end on close(). */
  readonly #owned: boolean;

  /**
   * `options` open the writer's SqliteFtsIndex (the same files as `reader`; its champion-list settings are the ones
   * optimize() builds with).
   */
  constructor(reader: SearchIndex, options: SqliteFtsIndexOptions & { thread?: SharedThread | undefined }) {
    this.name = `${reader.name} (writes off-thread)`;
    this.#reader = reader;
    this.#owned = options.thread === undefined;
    const thread =
      options.thread ??
      new SharedThread(startWorker(import.meta.url, './index-writer-worker', { role: 'index-writer' }));
    this.#writer = new ThreadChannel(thread, 'index', 'index');
    // Messages are served in the order they are sent, so every request finds the writer open; a failure to
    // open is given again as the error of each later request.
    const { thread: _, ...writerOptions } = options;
    this.#writer.send({ op: 'open', options: writerOptions }).catch(() => undefined);
  }

  async upsert(docs: Parameters<SearchIndex['upsert']>[0]): Promise<void> {
    if (docs.length > 0) await this.#writer.send({ op: 'upsert', docs });
  }

  deleteVersion(catalogId: string, version: number): Promise<number> {
    return this.#reader.deleteVersion(catalogId, version);
  }

  countVersion(catalogId: string, version: number): Promise<number> {
    return this.#reader.countVersion(catalogId, version);
  }

  deleteResource(catalogId: string, version: number, resourceId: string, dryRun?: boolean): Promise<number> {
    return this.#reader.deleteResource(catalogId, version, resourceId, dryRun);
  }

  /** Both connections let go of the catalog's files: the writer's first, then the reader removes them. */
  async purge(catalogId: string): Promise<void> {
    await this.#writer.send({ op: 'purge', catalogId });
    await this.#reader.purge(catalogId);
  }

  search(query: WordsQuery): Promise<WordsResult> {
    return this.#reader.search(query);
  }

  searchPictures(query: PictureQuery): Promise<PictureResult> {
    if (!this.#reader.searchPictures) return Promise.resolve({ results: [], total: 0 });
    return this.#reader.searchPictures(query);
  }

  upsertPictureVectors(
    catalogId: string,
    vectors: Array<{ id: string; version: number; vector: Float32Array }>,
  ): Promise<void> {
    return this.#reader.upsertPictureVectors?.(catalogId, vectors) ?? Promise.resolve();
  }

  pictureVectorCount(scopes: Array<{ catalogId: string; version: number }>): Promise<number> {
    return this.#reader.pictureVectorCount?.(scopes) ?? Promise.resolve(0);
  }

  searchPicturesByVector(query: {
    vector: Float32Array;
    scopes: Array<{ catalogId: string; version: number }>;
    size: number;
  }): Promise<PictureHit[]> {
    return this.#reader.searchPicturesByVector?.(query) ?? Promise.resolve([]);
  }

  upsertPictureImageVectors(
    catalogId: string,
    model: string,
    vectors: Array<{ id: string; version: number; vector: Float32Array }>,
  ): Promise<void> {
    return this.#reader.upsertPictureImageVectors?.(catalogId, model, vectors) ?? Promise.resolve();
  }

  pictureImageVectorCount(scopes: Array<{ catalogId: string; version: number }>, model?: string): Promise<number> {
    return this.#reader.pictureImageVectorCount?.(scopes, model) ?? Promise.resolve(0);
  }

  searchPicturesByImageVector(query: {
    vector: Float32Array;
    model: string;
    scopes: Array<{ catalogId: string; version: number }>;
    size: number;
  }): Promise<PictureHit[]> {
    return this.#reader.searchPicturesByImageVector?.(query) ?? Promise.resolve([]);
  }

  picturesLike(query: PictureLikeQuery): Promise<PictureLikeResult> {
    if (!this.#reader.picturesLike) {
      return Promise.resolve({ source: null, by: null, results: [], total: 0, vectors: 0 });
    }
    return this.#reader.picturesLike(query);
  }

  picturesOfPages(pages: Array<{ catalogId: string; id: string }>): Promise<Map<string, IndexImage[]>> {
    if (!this.#reader.picturesOfPages) return Promise.resolve(new Map());
    return this.#reader.picturesOfPages(pages);
  }

  /** The reader's: both connections see the same files. */
  stats(): Promise<IndexStats> {
    return this.#reader.stats();
  }

  /**
   * Runs on the writer's thread, after the writes already sent: merging the index and building the champion
   * lists of a large version take seconds to minutes, which the event loop here never waits on.
   */
  async optimize(catalogId: string, version: number): Promise<FtsOptimizeStats> {
    const reply = await this.#writer.send({ op: 'optimize', catalogId, version });
    if (!reply.stats) throw new StageError('index', 'the index writer answered optimize without its statistics');
    return reply.stats;
  }

  /**
   * Finishes the writes already sent and closes the writer's connection, then ends the thread if it is ours (a
   * lent thread goes back to its owner; the reader stays open: it is not ours either).
   */
  async close(): Promise<void> {
    try {
      await this.#writer.send({ op: 'close' });
    } finally {
      if (this.#owned) await this.#writer.thread.terminate();
    }
  }
}
