import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import type { Settings } from '../config.js';
import { CrawlerError, type CrawlerErrorCode } from '../errors.js';
import { startWorker } from '../worker-entry.js';
import type { SearchRequest, SearchResponse } from './search-service.js';
import type { SearchAnswer, SearchJob } from './search-worker.js';

interface Thread {
  worker: Worker;
  /** Searches and answers go over this port (see search-worker.ts). */
  port: MessagePort;
  inFlight: number;
  failed: Error | undefined;
}

/**
 * Searches on worker threads, so a server's event loop stays free while they run: an index search is synchronous
 * SQLite work, and 32 of them in flight on the loop held every other request (`/v2/health`) behind them. Each thread
 * opens its own Greenfinger on the same settings (search reads files and the database, never the caller's memory);
 * a search goes to the thread with the fewest in flight. Threads start on first use and are kept out of the
 * process's liveness while idle.
 */
export class SearchPool {
  readonly #settings: Readonly<Settings>;
  readonly #size: number;
  readonly #threads: Thread[] = [];
  readonly #pending = new Map<
    number,
    { resolve: (r: SearchResponse) => void; reject: (e: Error) => void; thread: Thread }
  >();
  #next = 0;
  #closed = false;

  constructor(settings: Readonly<Settings>, size = 2) {
    this.#settings = settings;
    this.#size = Math.max(1, Math.floor(size));
  }

  /** Threads started so far. */
  get threads(): number {
    return this.#threads.length;
  }

  search(req: SearchRequest): Promise<SearchResponse> {
    if (this.#closed) return Promise.reject(new CrawlerError('STORAGE', 'the search threads are closed'));
    const thread = this.#pick();
    const id = this.#next++;
    return new Promise<SearchResponse>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, thread });
      thread.inFlight++;
      if (thread.inFlight === 1) {
        thread.worker.ref();
        thread.port.ref();
      }
      const job: SearchJob = { id, req };
      thread.port.postMessage(job);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(
      this.#threads.map(
        (t) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => void t.worker.terminate().then(() => resolve()), 5000);
            t.worker.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            t.port.postMessage({ close: true });
          }),
      ),
    );
    this.#threads.length = 0;
  }

  #pick(): Thread {
    const live = this.#threads.filter((t) => !t.failed);
    if (live.length < this.#size) {
      const thread = this.#start();
      this.#threads.push(thread);
      return thread;
    }
    return live.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
  }

  #start(): Thread {
    const worker = startWorker(import.meta.url, './search-worker', { settings: { ...this.#settings } });
    const { port1, port2 } = new MessageChannel();
    worker.postMessage({ searchPort: port2 }, [port2]);
    const thread: Thread = { worker, port: port1, inFlight: 0, failed: undefined };
    worker.unref();
    port1.unref();
    port1.on('message', (m: SearchAnswer) => {
      const p = this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id);
      if (--thread.inFlight === 0) {
        worker.unref();
        port1.unref();
      }
      if (m.response) p.resolve(m.response);
      else p.reject(rebuilt(m.error));
    });
    const fail = (err: Error) => {
      thread.failed ??= err;
      // A thread that failed takes its searches with it: each answers the failure (the next search starts another).
      for (const [id, p] of this.#pending) {
        if (p.thread !== thread) continue;
        p.reject(new CrawlerError('STORAGE', `a search thread stopped: ${err.message}`, { cause: err }));
        this.#pending.delete(id);
      }
      const i = this.#threads.indexOf(thread);
      if (i >= 0) this.#threads.splice(i, 1);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (!this.#closed) fail(new Error(`exited with code ${code}`));
    });
    return thread;
  }
}

/** The error a thread answered, as the caller would have seen it in-process (a CrawlerError keeps its code). */
function rebuilt(e: SearchAnswer['error']): Error {
  if (!e) return new Error('the search thread answered nothing');
  if (e.code) return new CrawlerError(e.code as CrawlerErrorCode, e.message, e.fix ? { fix: e.fix } : {});
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}
