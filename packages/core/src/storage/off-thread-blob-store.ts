import { StageError } from '../errors.js';
import { SharedThread, startWorker, ThreadChannel } from '../worker-entry.js';
import type { BlobStore } from './blob-store.js';
import type { BlobPut, BlobWriterOp, BlobWriterReply, LocalFiles } from './blob-writer-protocol.js';

interface Waiting {
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * A LocalBlobStore whose writes run on a worker thread with synchronous system calls. From the event loop, a file
 * costs three or four hand-offs to the libuv pool (mkdir, open, write, close), each waking a pool thread, which on
 * a small VM costs more than the system call itself; a crawl writes two or three files per page. The puts of one
 * turn of the event loop go over in one message (a page's text, html and pictures), and each put resolves once its
 * file is on disk, as LocalBlobStore's does. Reads, listing and deletes run here on `local`. If the thread dies (an
 * extraction worker that crashed), the writes in flight and every later one are made here on `local` instead: a
 * crawl never loses its file layer to a failed thread.
 * Given a `thread` (a crawl lends its extraction worker's), the writer lives there: no V8 isolate of its own.
 */
export class OffThreadBlobStore implements BlobStore {
  readonly name: string;
  readonly local: LocalFiles;
  readonly #writer: ThreadChannel<BlobWriterOp, BlobWriterReply>;
  readonly #owned: boolean;
  #batch: Array<{ put: BlobPut; waiting: Waiting }> = [];
  #scheduled = false;
  readonly #inFlight = new Set<Promise<unknown>>();

  constructor(local: LocalFiles, options: { thread?: SharedThread | undefined } = {}) {
    this.name = `${local.name} (writes off-thread)`;
    this.local = local;
    this.#owned = options.thread === undefined;
    const thread =
      options.thread ?? new SharedThread(startWorker(import.meta.url, './blob-writer-worker', { role: 'blob-writer' }));
    this.#writer = new ThreadChannel(thread, 'blobs', 'output');
  }

  put(key: string, data: Uint8Array | string): Promise<void> {
    if (this.#writer.failure) return this.local.put(key, data);
    return new Promise<void>((resolve, reject) => {
      this.local.pathOf(key); // a bad key rejects here, before anything is sent
      // Bytes of its own (cloning a view of a larger buffer would copy all of that buffer), kept until the write is
      // done: if the thread dies meanwhile, they are written here.
      const bytes = typeof data === 'string' ? data : Uint8Array.prototype.slice.call(data);
      this.#batch.push({ put: { key, data: bytes }, waiting: { resolve, reject } });
      if (!this.#scheduled) {
        this.#scheduled = true;
        queueMicrotask(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#batch;
    this.#batch = [];
    if (batch.length === 0) return;
    const sent = this.#writer.send({ op: 'put', root: this.local.root, puts: batch.map((b) => b.put) }).then(
      (reply) => {
        const failed = new Map(reply.failures ?? []);
        batch.forEach(({ put, waiting }, i) => {
          const why = failed.get(i);
          if (why === undefined) waiting.resolve();
          else waiting.reject(new StageError('output', `${put.key}: ${why}`));
        });
      },
      (err: Error) => {
        for (const { put, waiting } of batch) {
          if (this.#writer.failure) this.local.put(put.key, put.data).then(waiting.resolve, waiting.reject);
          else waiting.reject(err);
        }
      },
    );
    this.#inFlight.add(sent);
    void sent.finally(() => this.#inFlight.delete(sent));
  }

  get(key: string): Promise<Buffer | undefined> {
    return this.local.get(key);
  }

  getText(key: string): Promise<string | undefined> {
    return this.local.getText(key);
  }

  exists(key: string): Promise<boolean> {
    return this.local.exists(key);
  }

  stat(prefix: string): Promise<{ objects: number; bytes: number }> {
    return this.local.stat(prefix);
  }

  deletePrefix(prefix: string): Promise<{ objects: number; bytes: number }> {
    return this.local.deletePrefix(prefix);
  }

  list(prefix: string): AsyncIterable<string> {
    return this.local.list(prefix);
  }

  /**
   * Waits for the writes already made, then ends the thread if it is ours (a lent thread goes back to its owner;
   * `local` stays open: it is not ours either).
   */
  async close(): Promise<void> {
    try {
      if (this.#scheduled) this.#flush();
      await Promise.allSettled([...this.#inFlight]);
    } finally {
      if (this.#owned) await this.#writer.thread.terminate();
    }
  }
}
