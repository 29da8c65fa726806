import type { Worker } from 'node:worker_threads';
import { StageError } from '../errors.js';
import { startWorker } from '../worker-entry.js';
import type { IndexWriterOp, IndexWriterReply, IndexWriterRequest } from './index-writer-worker.js';
import type { SearchIndex, WordsQuery, WordsResult } from './search-index.js';

/**
 * A SearchIndex whose upserts run on a worker thread with its own connection to the same index files (SQLite in
 * WAL mode: the worker writes while this thread's connection keeps answering searches). Tokenising and writing
 * the full text of every page is a large share of a crawl's CPU; off the event loop it overlaps with fetching.
 * Everything but upsert goes to `reader`, the index this thread searches with.
 */
export class OffThreadIndex implements SearchIndex {
  readonly name: string;
  readonly #reader: SearchIndex;
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  #next = 0;
  #failure: Error | undefined;

  constructor(reader: SearchIndex, options: { root: string; prefix: string }) {
    this.name = `${reader.name} (writes off-thread)`;
    this.#reader = reader;
    this.#worker = startWorker(import.meta.url, './index-writer-worker', options);
    this.#worker.on('message', (reply: IndexWriterReply) => {
      const p = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      if (reply.error) p?.reject(new StageError('index', reply.error));
      else p?.resolve();
    });
    const fail = (err: Error) => {
      this.#failure = new StageError('index', `the index writer thread stopped: ${err.message}`, err);
      for (const p of this.#pending.values()) p.reject(this.#failure);
      this.#pending.clear();
    };
    this.#worker.on('error', fail);
    this.#worker.on('exit', (code) => {
      if (this.#pending.size > 0) fail(new Error(`exit code ${code}`));
    });
  }

  #send(req: IndexWriterOp): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#next++;
    return new Promise<void>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ ...req, id } satisfies IndexWriterRequest);
    });
  }

  upsert(docs: Parameters<SearchIndex['upsert']>[0]): Promise<void> {
    return docs.length === 0 ? Promise.resolve() : this.#send({ op: 'upsert', docs });
  }

  deleteVersion(catalogId: string, version: number): Promise<number> {
    return this.#reader.deleteVersion(catalogId, version);
  }

  countVersion(catalogId: string, version: number): Promise<number> {
    return this.#reader.countVersion(catalogId, version);
  }

  /** Both connections let go of the catalog's files: the writer's first, then the reader removes them. */
  async purge(catalogId: string): Promise<void> {
    await this.#send({ op: 'purge', catalogId });
    await this.#reader.purge(catalogId);
  }

  search(query: WordsQuery): Promise<WordsResult> {
    return this.#reader.search(query);
  }

  /** Finishes the writes already sent, then stops the thread (the reader stays open: it is not ours). */
  async close(): Promise<void> {
    try {
      await this.#send({ op: 'close' });
    } finally {
      await this.#worker.terminate();
    }
  }
}
