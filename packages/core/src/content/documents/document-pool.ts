import { StageError } from '../../errors.js';
import { SharedThread, startWorker } from '../../worker-entry.js';
import { checkedDocument, type DocumentContent, documentContent } from './document-content.js';
import { DocumentError } from './document-error.js';
import { type DocumentJob, type DocumentWorkerMessage, shortMessage } from './document-job.js';
import { documentKind, documentParser, isBuiltInDocumentParser } from './document-parsers.js';
import { mediaTypeOf } from './document-text.js';

/** Options of {@link DocumentPool}. */
export interface DocumentPoolOptions {
  /** A document larger than this is refused (`too-large`) before any parsing. GF_DOCUMENT_MAX_MB. @default 50 MiB */
  maxBytes?: number | undefined;
  /**
   * Time one document may take on the worker; past it the worker is terminated and replaced (`timeout`).
   * GF_DOCUMENT_TIMEOUT_MS. @default 30000
   */
  timeoutMs?: number | undefined;
  /** V8 old-generation heap of the worker, MiB; a document that needs more crashes it (`unreadable`). @default 512 */
  memoryMb?: number | undefined;
}

/** How long a fresh worker may take to load its libraries before the job waiting for it fails. */
const START_DEADLINE_MS = 60_000;

interface Job {
  parser: string;
  bytes: Uint8Array;
  url: string;
  contentType: string;
  resolve: (content: DocumentContent) => void;
  reject: (err: Error) => void;
}

interface Running {
  id: number;
  job: Job;
  timer: NodeJS.Timeout;
}

interface Slot {
  thread: SharedThread;
  ready: boolean;
  startTimer: NodeJS.Timeout | undefined;
}

const MIB = 1024 * 1024;
const mib = (bytes: number) => `${(bytes / MIB).toFixed(bytes < 10 * MIB ? 1 : 0)} MiB`;

/**
 * Parses documents (PDF, Word, text) on one worker thread, so a hostile document cannot block or crash the crawl:
 * over `maxBytes` it is refused before any work, past `timeoutMs` its worker is terminated and replaced, and a
 * worker that crashes (out of memory under `memoryMb`) fails only the document it was reading and is replaced.
 * Documents are queued and parsed one at a time, in order. The worker starts on the first document and `close()`
 * ends it. A parser a library user registered runs on the calling thread (the worker cannot see it), under the same
 * size cap and timeout (which there can only stop waiting, not stop the parser).
 */
export class DocumentPool {
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly memoryMb: number;
  readonly #queue: Job[] = [];
  #slot: Slot | undefined;
  #running: Running | undefined;
  #nextId = 1;
  #closed = false;
  #started = 0;

  constructor(options: DocumentPoolOptions = {}) {
    this.maxBytes = options.maxBytes ?? 50 * MIB;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.memoryMb = options.memoryMb ?? 512;
    if (!(this.maxBytes > 0) || !(this.timeoutMs > 0) || !(this.memoryMb >= 16)) {
      throw new TypeError(
        `DocumentPool: maxBytes and timeoutMs must be positive and memoryMb at least 16, got ${this.maxBytes}, ${this.timeoutMs}, ${this.memoryMb}`,
      );
    }
  }

  /**
   * Read a document: the parser `documentKind(contentType, url)` names, on the worker (built-in parsers) or here.
   * @throws DocumentError `too-large`, `timeout` or `unreadable` (not a document, the parser threw, the worker crashed)
   * @throws StageError when the pool is closed
   */
  async parse(bytes: Uint8Array, url: string, contentType: string): Promise<DocumentContent> {
    if (this.#closed) throw new StageError('document', 'the document pool is closed; create a new DocumentPool');
    if (bytes.byteLength > this.maxBytes) {
      throw new DocumentError(
        'too-large',
        `${mib(bytes.byteLength)} is over the ${mib(this.maxBytes)} document cap (GF_DOCUMENT_MAX_MB)`,
      );
    }
    const kind = documentKind(contentType, url);
    if (!kind) {
      throw new DocumentError(
        'unreadable',
        `no document parser reads ${mediaTypeOf(contentType) || 'an untyped answer'} at ${url}`,
      );
    }
    if (!isBuiltInDocumentParser(kind.parser)) return this.#parseHere(kind.parser, bytes, url, contentType);
    return new Promise<DocumentContent>((resolve, reject) => {
      this.#queue.push({ parser: kind.parser, bytes, url, contentType, resolve, reject });
      this.#pump();
    });
  }

  /** Documents waiting for the worker (not counting the one it reads). */
  get queued(): number {
    return this.#queue.length;
  }

  /** Whether the worker is reading a document now. */
  get busy(): boolean {
    return this.#running !== undefined;
  }

  /** The worker's thread id, undefined before the first document and after a timeout, a crash or close. */
  get threadId(): number | undefined {
    return this.#slot?.thread.worker.threadId;
  }

  /** Workers started so far (the first, then one per timeout or crash). */
  get workersStarted(): number {
    return this.#started;
  }

  async #parseHere(name: string, bytes: Uint8Array, url: string, contentType: string): Promise<DocumentContent> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new DocumentError(
              'timeout',
              `${name} was still parsing after ${this.timeoutMs} ms (GF_DOCUMENT_TIMEOUT_MS)`,
            ),
          ),
        this.timeoutMs,
      );
    });
    try {
      const parsing = Promise.resolve().then(() => documentParser(name).parse(bytes, url, contentType));
      return documentContent(checkedDocument(await Promise.race([parsing, timeout])), name);
    } catch (err) {
      if (err instanceof DocumentError) throw err;
      throw new DocumentError('unreadable', shortMessage(err), err);
    } finally {
      clearTimeout(timer);
    }
  }

  #spawn(): Slot {
    const thread = new SharedThread(
      startWorker(import.meta.url, './document-worker', undefined, {
        resourceLimits: { maxOldGenerationSizeMb: this.memoryMb, stackSizeMb: 4 },
      }),
    );
    this.#started++;
    const slot: Slot = { thread, ready: false, startTimer: undefined };
    // Held while it starts: a job waits for it, and the process must wait with the job.
    thread.hold();
    slot.startTimer = setTimeout(() => {
      this.#lose(slot, new StageError('document', `the document worker did not start within ${START_DEADLINE_MS} ms`));
    }, START_DEADLINE_MS);
    thread.on(undefined, (m: DocumentWorkerMessage) => {
      if (this.#slot !== slot) return;
      if (m.type === 'ready') {
        slot.ready = true;
        clearTimeout(slot.startTimer);
        thread.release();
        this.#pump();
        return;
      }
      const running = this.#running;
      if (!running || running.id !== m.id) return;
      this.#running = undefined;
      clearTimeout(running.timer);
      thread.release();
      if (m.type === 'done') running.job.resolve(documentContent(m.doc, running.job.parser));
      else running.job.reject(new DocumentError('unreadable', m.message));
      this.#pump();
    });
    thread.onFailure((err) => {
      if (this.#slot !== slot) return;
      const oom = (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
      const why = oom
        ? new DocumentError(
            'unreadable',
            `reading it ran the document worker out of memory (${this.memoryMb} MiB heap)`,
            err,
          )
        : slot.ready
          ? new DocumentError('unreadable', `the document worker crashed reading it: ${shortMessage(err)}`, err)
          : new StageError('document', `the document worker failed to start: ${shortMessage(err)}`, err);
      this.#lose(slot, why);
    });
    return slot;
  }

  /**
   * The worker is gone (timed out, crashed, never started): the document it was reading — or, when it never
   * started, the first one waiting — fails with `why`; the next document starts a fresh worker.
   */
  #lose(slot: Slot, why: Error): void {
    if (this.#slot !== slot) return;
    this.#slot = undefined;
    clearTimeout(slot.startTimer);
    slot.thread.terminate().catch(() => undefined);
    const running = this.#running;
    this.#running = undefined;
    if (running) {
      clearTimeout(running.timer);
      running.job.reject(why);
    } else if (!slot.ready) this.#queue.shift()?.reject(why);
    this.#pump();
  }

  #pump(): void {
    if (this.#closed || this.#running || this.#queue.length === 0) return;
    if (!this.#slot) this.#slot = this.#spawn();
    const slot = this.#slot;
    if (!slot.ready) return;
    const job = this.#queue.shift()!;
    const id = this.#nextId++;
    // A copy of its own, handed over to the worker (the caller keeps its bytes, e.g. to store them).
    const copy = new Uint8Array(job.bytes.byteLength);
    copy.set(job.bytes);
    const timer = setTimeout(() => {
      this.#lose(
        slot,
        new DocumentError(
          'timeout',
          `${job.parser} was still parsing after ${this.timeoutMs} ms (GF_DOCUMENT_TIMEOUT_MS); its worker was stopped`,
        ),
      );
    }, this.timeoutMs);
    this.#running = { id, job, timer };
    slot.thread.hold();
    const message: DocumentJob = { id, parser: job.parser, bytes: copy, url: job.url, contentType: job.contentType };
    slot.thread.post(message, [copy.buffer]);
  }

  /** Stop the worker; the document it reads and those waiting are rejected. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const err = new StageError('document', 'the document pool was closed');
    for (const job of this.#queue.splice(0)) job.reject(err);
    const running = this.#running;
    this.#running = undefined;
    if (running) {
      clearTimeout(running.timer);
      running.job.reject(err);
    }
    const slot = this.#slot;
    this.#slot = undefined;
    if (slot) {
      clearTimeout(slot.startTimer);
      await slot.thread.terminate();
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
