import { closeSync, openSync, write, writeSync } from 'node:fs';
import pino, { type Logger } from 'pino';
import { envLogLevel } from '../config.js';

/** Lines held while a write is in flight; past it new lines are dropped (and counted). */
const MAX_PENDING_BYTES = 4 * 1024 * 1024;

/**
 * A log file that can never hold the process: lines are appended asynchronously, and when the disk refuses a write
 * (full, read-only, gone) the file is given up and later lines are dropped. pino's own file destination (sonic-boom)
 * flushes synchronously at exit and retries a failed write every 100 ms for ever: on a full disk a crawl that had
 * already ended could not exit, and blocked in that loop it never ran its SIGTERM handler.
 */
export class LogFile {
  readonly path: string;
  #fd: number | undefined;
  #pending: string[] = [];
  #pendingBytes = 0;
  #writing = false;
  #dropped = 0;
  #failure: NodeJS.ErrnoException | undefined;
  readonly #onExit = () => this.flushOnce();

  constructor(path: string) {
    this.path = path;
    this.#fd = openSync(path, 'a');
    process.once('exit', this.#onExit);
  }

  /** Lines dropped because the file failed or writes fell too far behind. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Why the file was given up, if it was. */
  get failure(): NodeJS.ErrnoException | undefined {
    return this.#failure;
  }

  write(line: string): boolean {
    if (this.#fd === undefined || this.#pendingBytes > MAX_PENDING_BYTES) {
      this.#dropped++;
      return true;
    }
    this.#pending.push(line);
    this.#pendingBytes += line.length;
    if (!this.#writing) this.#next();
    return true;
  }

  #next(): void {
    const fd = this.#fd;
    if (fd === undefined || this.#pending.length === 0) {
      this.#writing = false;
      return;
    }
    this.#writing = true;
    const chunk = Buffer.from(this.#pending.join(''));
    this.#pending = [];
    this.#pendingBytes = 0;
    write(fd, chunk, 0, chunk.length, null, (err) => {
      if (err) this.#giveUp(err);
      this.#next();
    });
  }

  #giveUp(err: NodeJS.ErrnoException): void {
    this.#failure ??= err;
    this.#dropped += this.#pending.length + 1;
    this.#pending = [];
    this.#pendingBytes = 0;
    const fd = this.#fd;
    this.#fd = undefined;
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // already gone
      }
    }
  }

  /** At exit: one synchronous attempt at what is still held; a failure drops it. */
  flushOnce(): void {
    const fd = this.#fd;
    if (fd === undefined || this.#pending.length === 0) return;
    try {
      writeSync(fd, this.#pending.join(''));
    } catch (err) {
      this.#giveUp(err as NodeJS.ErrnoException);
      return;
    }
    this.#pending = [];
    this.#pendingBytes = 0;
  }

  close(): void {
    process.off('exit', this.#onExit);
    this.flushOnce();
    const fd = this.#fd;
    this.#fd = undefined;
    if (fd !== undefined) closeSync(fd);
  }
}

/** A pino logger writing JSON lines to `path` through a {@link LogFile} (the same options as `createLogger`). */
export function createFileLogger(path: string, options: { level?: string } = {}): Logger {
  const level = options.level ?? envLogLevel() ?? 'info';
  return pino(
    { level, base: { pid: process.pid }, redact: ['password', '*.password', 'databaseUrl'] },
    new LogFile(path),
  );
}
