import { availableParallelism } from 'node:os';
import { ConfigError, StageError } from '../errors.js';
import { SharedThread, startWorker } from '../worker-entry.js';
import type { ExtractedContent } from './content-extractor.js';
import { type ExtractJob, type ExtractReply, runExtractJob } from './extract-worker.js';

/** Options of {@link ExtractPool}. */
export interface ExtractPoolOptions {
  /**
   * Worker threads; 0 extracts inline on the calling thread. @default cores − 1, at least 1: the calling thread
   * fetches, commits and indexes, and one worker per other core keeps up with it (profiled on 2 cores: two
   * workers sat idle 80–87% of the time, at ~25 MB each; one gave the same wall time and less memory).
   */
  workers?: number | undefined;
  /** Jobs waiting for a worker before `extract` itself waits (backpressure). @default 4 × workers */
  maxQueue?: number | undefined;
}

/** Per-call options of {@link ExtractPool.extract}. */
export interface ExtractCallOptions {
  /** Content-Type of a Buffer body, for charset detection. */
  contentType?: string | undefined;
  /**
   * Hand a Buffer's memory to the worker instead of copying it (only when it owns its whole ArrayBuffer).
   * The Buffer is empty afterwards, so use it only when the bytes are not needed again. @default false
   */
  transfer?: boolean | undefined;
  /** Convert the page's article to Markdown too, on the worker (`ExtractedContent.markdown`). @default false */
  markdown?: boolean | undefined;
}

interface Task {
  job: ExtractJob;
  transfer: ArrayBuffer[];
  resolve: (c: ExtractedContent) => void;
  reject: (e: unknown) => void;
}

interface Slot {
  thread: SharedThread;
  /** Jobs sent to this worker and not answered yet, in the order sent (it answers in that order). */
  tasks: Map<number, Task>;
}

/**
 * Jobs sent to a worker ahead of its answers: one it works on and one waiting in its port, so it starts the next
 * page the moment it finishes one instead of idling until this thread — often busy fetching and writing — has read
 * its answer and sent more (profiled on a handbook crawl: the worker sat idle half the time while pages queued
 * ~30 ms for it).
 */
const JOBS_PER_WORKER = 2;

function rebuildError(e: { name: string; message: string; field?: string | undefined }): Error {
  if (e.name === 'ConfigError' && e.field) {
    return new ConfigError(e.field, e.message.replace(`${e.field}: `, ''));
  }
  return new StageError('extract', e.message);
}

/**
 * Runs content extraction (CPU-bound) on worker threads so the event loop keeps fetching. Jobs go to the
 * least busy worker, up to JOBS_PER_WORKER each; at most `maxQueue` more wait, after which `extract` waits for room.
 * A crashed worker fails the jobs it held and is replaced. `close()` terminates the workers and rejects what is still queued.
 */
export class ExtractPool {
  readonly workers: number;
  private readonly maxQueue: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private readonly roomWaiters: (() => void)[] = [];
  private nextId = 1;
  private closed = false;

  constructor(options: ExtractPoolOptions = {}) {
    const workers = options.workers ?? Math.max(1, availableParallelism() - 1);
    if (!Number.isInteger(workers) || workers < 0 || workers > 64) {
      throw new ConfigError('GF_WORKERS', `must be an integer 0..64, got ${workers}`, 'use 0 to extract inline');
    }
    this.workers = workers;
    this.maxQueue = Math.max(1, options.maxQueue ?? 4 * Math.max(1, workers));
    for (let i = 0; i < workers; i++) this.slots.push(this.spawn());
  }

  /** Extract the content of a page (a string, or bytes decoded with the detected charset). */
  async extract(
    html: string | Buffer,
    url: string,
    extractorName = 'html',
    options: ExtractCallOptions = {},
  ): Promise<ExtractedContent> {
    if (this.closed) throw new StageError('extract', 'the extraction pool is closed; create a new ExtractPool');
    if (this.workers === 0) {
      return runExtractJob({
        html,
        url,
        extractor: extractorName,
        contentType: options.contentType,
        markdown: options.markdown,
      });
    }
    while (this.queue.length >= this.maxQueue) {
      await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
      if (this.closed) throw new StageError('extract', 'the extraction pool was closed while waiting');
    }
    const transfer: ArrayBuffer[] = [];
    let payload: string | Uint8Array = html;
    if (typeof html !== 'string') {
      const buf = html.buffer;
      if (
        options.transfer &&
        buf instanceof ArrayBuffer &&
        html.byteOffset === 0 &&
        html.byteLength === buf.byteLength
      ) {
        transfer.push(buf);
        payload = new Uint8Array(buf);
      } else {
        // One copy into memory of its own, handed over: cloning a view would copy it again on the way.
        const copy = new Uint8Array(html.byteLength);
        copy.set(html);
        transfer.push(copy.buffer);
        payload = copy;
      }
    }
    const job: ExtractJob = {
      id: this.nextId++,
      html: payload,
      url,
      extractor: extractorName,
      contentType: options.contentType,
      markdown: options.markdown,
    };
    return new Promise<ExtractedContent>((resolve, reject) => {
      this.queue.push({ job, transfer, resolve, reject });
      this.dispatch();
    });
  }

  /** Jobs waiting for a worker. */
  get queued(): number {
    return this.queue.length;
  }

  /**
   * The first worker's thread, for another component of the run to share (the index writer: one V8 isolate
   * fewer). Its messages carry their own channel, so extraction never sees them. Undefined when extraction runs
   * inline. Close the borrower before this pool: close() ends the thread.
   */
  lendThread(): SharedThread | undefined {
    return this.slots[0]?.thread;
  }

  /** Jobs sent to workers and not answered yet. */
  get running(): number {
    return this.slots.reduce((n, s) => n + s.tasks.size, 0);
  }

  private spawn(): Slot {
    const thread = new SharedThread(startWorker(import.meta.url, './extract-worker'));
    const slot: Slot = { thread, tasks: new Map() };
    thread.on(undefined, (reply: ExtractReply) => {
      const task = slot.tasks.get(reply.id);
      if (!task) return;
      slot.tasks.delete(reply.id);
      thread.release();
      if (reply.ok) task.resolve(reply.content);
      else task.reject(rebuildError(reply.error));
      this.dispatch();
    });
    const fail = (err: unknown) => {
      const tasks = [...slot.tasks.values()];
      slot.tasks.clear();
      for (const task of tasks) {
        thread.release();
        task.reject(new StageError('extract', `extraction worker failed: ${(err as Error)?.message ?? err}`, err));
      }
      if (this.closed) return;
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots[i] = this.spawn();
      this.dispatch();
    };
    thread.onFailure((err, exited) => {
      if (!exited) fail(err);
      else if (!this.closed && this.slots.includes(slot)) fail(err);
    });
    return slot;
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot: Slot | undefined;
      for (const s of this.slots)
        if (s.tasks.size < JOBS_PER_WORKER && (!slot || s.tasks.size < slot.tasks.size)) slot = s;
      if (!slot) break;
      const task = this.queue.shift()!;
      slot.tasks.set(task.job.id, task);
      slot.thread.hold();
      slot.thread.post(task.job, task.transfer);
    }
    while (this.roomWaiters.length > 0 && this.queue.length < this.maxQueue) this.roomWaiters.shift()!();
  }

  /** Stop the workers; queued and running jobs are rejected. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const err = new StageError('extract', 'the extraction pool was closed');
    for (const t of this.queue.splice(0)) t.reject(err);
    for (const w of this.roomWaiters.splice(0)) w();
    const slots = this.slots.splice(0);
    for (const s of slots) {
      for (const task of s.tasks.values()) task.reject(err);
      s.tasks.clear();
    }
    await Promise.all(slots.map((s) => s.thread.terminate()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
