import type { ChildProcess } from 'node:child_process';
import { StageError } from '../../errors.js';
import { forkWorkerProcess } from '../../worker-entry.js';
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
  /** V8 old-generation heap of the worker process, MiB; a document that needs more ends it (`unreadable`). @default 512 */
  memoryMb?: number | undefined;
  /**
   * An idle worker is stopped after this long, giving its memory back (documents are rare next to pages; the next
   * one starts a worker again, about 0.3 s). @default 60000
   */
  idleMs?: number | undefined;
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
  child: ChildProcess;
  ready: boolean;
  startTimer: NodeJS.Timeout | undefined;
  /** The end of what the process wrote to stderr: V8's reason when it aborts. */
  stderr: string;
  /**
   * V8 said it ran out of heap, seen as the stderr came: its FATAL ERROR line comes before a native stack trace that
   * can be longer than the tail kept (measured: 3–4 KB of stack after it, and a crash whose tail had lost it).
   */
  oom: boolean;
}

const OUT_OF_HEAP = /heap out of memory|Allocation failed/i;

/** Stderr kept of the worker process, for the reason of a crash. */
const STDERR_TAIL = 4096;

/** While it works the worker process keeps the crawl's process alive; idle it never does. */
function hold(child: ChildProcess, busy: boolean): void {
  const handles = [child, child.channel, child.stderr] as (
    | { ref?: () => void; unref?: () => void }
    | null
    | undefined
  )[];
  for (const h of handles) {
    if (busy) h?.ref?.();
    else h?.unref?.();
  }
}

/** Kill a worker process and wait (at most 5 s) for it to be gone. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGKILL');
  });
}

/** The line of a crashed process's stderr that says why: its last error line, else its last line. */
function reasonLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  return (
    [...lines]
      .reverse()
      .find((l) => /error|fatal/i.test(l))
      ?.trim() ??
    lines.pop()?.trim() ??
    ''
  );
}

const MIB = 1024 * 1024;
const mib = (bytes: number) => `${(bytes / MIB).toFixed(bytes < 10 * MIB ? 1 : 0)} MiB`;

/**
 * Parses documents (PDF, Word, text) in one worker process, so a hostile document cannot block or crash the crawl:
 * over `maxBytes` it is refused before any work, past `timeoutMs` the worker is killed and replaced, and a worker
 * that crashes (out of heap under `memoryMb`) fails only the document it was reading and is replaced. A process, not
 * a worker thread: a thread's heap cap is best-effort in V8, and a document that grows one huge array past it aborts
 * the whole crawl (measured: docs/libraries.md). Documents are queued and parsed one at a time, in order. The worker
 * starts on the first document and `close()` ends it. A parser a library user registered runs on the calling thread
 * (the worker cannot see it), under the same size cap and timeout (which there can only stop waiting).
 */
export class DocumentPool {
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly memoryMb: number;
  readonly idleMs: number;
  readonly #queue: Job[] = [];
  #slot: Slot | undefined;
  #running: Running | undefined;
  #nextId = 1;
  #closed = false;
  #started = 0;
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(options: DocumentPoolOptions = {}) {
    this.maxBytes = options.maxBytes ?? 50 * MIB;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.memoryMb = options.memoryMb ?? 512;
    this.idleMs = options.idleMs ?? 60_000;
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

  /** The worker process's pid, undefined before the first document and after a timeout, a crash or close. */
  get pid(): number | undefined {
    return this.#slot?.child.pid;
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
    const child = forkWorkerProcess(import.meta.url, './document-worker', { heapMb: this.memoryMb });
    this.#started++;
    const slot: Slot = { child, ready: false, startTimer: undefined, stderr: '', oom: false };
    // Held while it starts: a job waits for it, and the process must wait with the job.
    hold(child, true);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      const text = slot.stderr + chunk;
      if (OUT_OF_HEAP.test(text)) slot.oom = true;
      slot.stderr = text.slice(-STDERR_TAIL);
    });
    slot.startTimer = setTimeout(() => {
      this.#lose(slot, new StageError('document', `the document worker did not start within ${START_DEADLINE_MS} ms`));
    }, START_DEADLINE_MS);
    child.on('message', (m: DocumentWorkerMessage) => {
      if (this.#slot !== slot) return;
      if (m.type === 'ready') {
        slot.ready = true;
        clearTimeout(slot.startTimer);
        hold(child, false);
        this.#pump();
        return;
      }
      const running = this.#running;
      if (!running || running.id !== m.id) return;
      this.#running = undefined;
      clearTimeout(running.timer);
      hold(child, false);
      if (m.type === 'done') running.job.resolve(documentContent(m.doc, running.job.parser));
      else running.job.reject(new DocumentError('unreadable', m.message));
      this.#pump();
    });
    const ended = (err: Error | undefined, code: number | null, signal: NodeJS.Signals | null) => {
      if (this.#slot !== slot) return;
      const oom = slot.oom;
      const how = oom
        ? `out of memory, ${this.memoryMb} MiB heap`
        : err
          ? shortMessage(err)
          : signal
            ? `killed by ${signal}`
            : `exit code ${code}`;
      const why = !slot.ready
        ? new StageError('document', `the document worker failed to start (${how}): ${reasonLine(slot.stderr)}`, err)
        : oom
          ? new DocumentError(
              'unreadable',
              `reading it ran the document worker out of memory (${this.memoryMb} MiB heap)`,
            )
          : new DocumentError('unreadable', `the document worker crashed reading it (${how})`, err);
      this.#lose(slot, why);
    };
    child.on('error', (err) => ended(err, null, null));
    child.on('exit', (code, signal) => {
      // Let the rest of its stderr (V8's out-of-memory report) arrive before deciding why it ended.
      if (child.stderr && !child.stderr.readableEnded) child.stderr.once('close', () => ended(undefined, code, signal));
      else ended(undefined, code, signal);
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
    slot.child.kill('SIGKILL');
    const running = this.#running;
    this.#running = undefined;
    if (running) {
      clearTimeout(running.timer);
      running.job.reject(why);
    } else if (!slot.ready) this.#queue.shift()?.reject(why);
    this.#pump();
  }

  #pump(): void {
    clearTimeout(this.#idleTimer);
    if (this.#closed || this.#running) return;
    if (this.#queue.length === 0) {
      const slot = this.#slot;
      if (slot?.ready) {
        this.#idleTimer = setTimeout(() => {
          if (this.#slot !== slot || this.#running || this.#queue.length > 0) return;
          this.#slot = undefined;
          void stop(slot.child);
        }, this.idleMs);
        this.#idleTimer.unref();
      }
      return;
    }
    if (!this.#slot) this.#slot = this.#spawn();
    const slot = this.#slot;
    if (!slot.ready) return;
    const job = this.#queue.shift()!;
    const id = this.#nextId++;
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
    hold(slot.child, true);
    const message: DocumentJob = {
      id,
      parser: job.parser,
      bytes: job.bytes,
      url: job.url,
      contentType: job.contentType,
    };
    slot.child.send(message, (err) => {
      if (err && this.#slot === slot)
        this.#lose(
          slot,
          new DocumentError('unreadable', `could not send it to the document worker: ${shortMessage(err)}`, err),
        );
    });
  }

  /** Stop the worker process; the document it reads and those waiting are rejected. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#idleTimer);
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
      await stop(slot.child);
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
