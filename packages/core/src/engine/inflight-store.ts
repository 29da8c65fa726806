import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writev } from 'node:fs';
import { join } from 'node:path';
import type { FetchResult } from '../fetch/extractor.js';

/**
 * A write-ahead log of every answer fetched during a run (`system/inflight/{catalogId}/v{n}/wal.log`), appended
 * the moment the answer arrives. After a crash, a page (or picture) that was fetched but not yet committed is
 * handled again from its record instead of being requested a second time.
 *
 * One append-only file, not a file per answer: creating and deleting a small file per page cost more than
 * fetching it on this kind of machine (about 0.5 ms per create), while an append is a write into the page cache.
 * The log is deleted when a run ends with nothing outstanding.
 *
 * Appends are group-committed off the event loop: while one write is in the libuv pool, records that arrive
 * wait and go out together in the next `writev`. On this VM's disk a synchronous append of a page cost ~0.35 ms
 * of main-thread time (1.7 s of a handbook crawl's profile); now the main thread only queues the buffers.
 *
 * Record: u32 record length, 64 bytes url hash, u32 header length, JSON header, body.
 */
export class InflightStore {
  readonly dir: string;
  readonly file: string;
  #fd: number | undefined;
  /** Records waiting for the write in progress to finish. */
  #queue: Array<{ buffers: Buffer[]; resolve: () => void; reject: (err: Error) => void }> = [];
  #writing = false;
  #failure: Error | undefined;
  /** Records of an earlier, interrupted run, by url hash: offset and length of header + body. */
  #earlier: Map<string, { header: Buffer; body: Buffer }> | undefined;

  constructor(dir: string) {
    this.dir = dir;
    this.file = join(dir, 'wal.log');
    if (existsSync(this.file)) this.#earlier = readLog(this.file);
  }

  /** Once the promise resolves, the record is in the file (the page cache): it survives the process being killed. */
  save(hash: string, result: FetchResult): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#fd === undefined) {
      mkdirSync(this.dir, { recursive: true });
      this.#fd = openSync(this.file, 'a');
    }
    const { body, text: _text, ...meta } = result;
    const header = Buffer.from(JSON.stringify(meta), 'utf8');
    const head = Buffer.alloc(4 + 64 + 4);
    head.writeUInt32BE(64 + 4 + header.length + body.length, 0);
    head.write(hash.padEnd(64, ' ').slice(0, 64), 4, 'latin1');
    head.writeUInt32BE(header.length, 68);
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ buffers: [head, header, body], resolve, reject });
      if (!this.#writing) this.#flush();
    });
  }

  /** Writes everything queued in one writev (continuing after a short write), then the next group. */
  #flush(): void {
    const fd = this.#fd;
    const group = this.#queue.splice(0);
    if (group.length === 0 || fd === undefined) {
      this.#writing = false;
      return;
    }
    this.#writing = true;
    const buffers = group.flatMap((g) => g.buffers).filter((b) => b.length > 0);
    const done = (err: Error | null): void => {
      if (err) {
        this.#failure = new Error(`cannot append to the write-ahead log ${this.file}: ${err.message}`);
        for (const g of group) g.reject(this.#failure);
        for (const g of this.#queue.splice(0)) g.reject(this.#failure);
        this.#writing = false;
        return;
      }
      for (const g of group) g.resolve();
      this.#flush();
    };
    const write = (): void => {
      if (buffers.length === 0) {
        done(null);
        return;
      }
      writev(fd, buffers, (err, written) => {
        if (err) {
          done(err);
          return;
        }
        let rest = written;
        while (buffers.length > 0 && rest >= (buffers[0] as Buffer).length) rest -= (buffers.shift() as Buffer).length;
        if (buffers.length === 0) {
          done(null);
          return;
        }
        buffers[0] = (buffers[0] as Buffer).subarray(rest);
        write();
      });
    };
    write();
  }

  /** Resolves when every record saved so far is written. */
  #drained(): Promise<void> {
    if (!this.#writing && this.#queue.length === 0) return Promise.resolve();
    // An empty record queued behind the write in progress: it resolves when everything before it is written.
    return new Promise<void>((resolve) => this.#queue.push({ buffers: [], resolve, reject: () => resolve() }));
  }

  /** Whether an interrupted run recorded an answer for this url. */
  has(hash: string): boolean {
    return this.#earlier?.has(hash) === true;
  }

  /** The answer an interrupted run recorded for this url, without `text` (the caller decodes the body again). */
  async load(hash: string): Promise<Omit<FetchResult, 'text'> | undefined> {
    const rec = this.#earlier?.get(hash);
    if (!rec) return undefined;
    try {
      const meta = JSON.parse(rec.header.toString('utf8')) as Omit<FetchResult, 'text' | 'body'>;
      return { ...meta, body: rec.body };
    } catch {
      return undefined;
    }
  }

  /** Close the log; with `discard` (nothing outstanding) delete it. */
  async close(discard: boolean): Promise<void> {
    await this.#drained();
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    this.#earlier = undefined;
    if (discard) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Every whole record of a log; a torn last record (the crash itself) is ignored. */
function readLog(file: string): Map<string, { header: Buffer; body: Buffer }> {
  const raw = readFileSync(file);
  const out = new Map<string, { header: Buffer; body: Buffer }>();
  let at = 0;
  let guard = 0;
  while (at + 72 <= raw.length && guard++ < 10_000_000) {
    const len = raw.readUInt32BE(at);
    if (len < 68 || at + 4 + len > raw.length) break;
    const hash = raw.toString('latin1', at + 4, at + 68).trimEnd();
    const headerLen = raw.readUInt32BE(at + 68);
    if (68 + headerLen > len) break;
    const header = raw.subarray(at + 72, at + 72 + headerLen);
    const body = raw.subarray(at + 72 + headerLen, at + 4 + len);
    out.set(hash, { header, body });
    at += 4 + len;
  }
  return out;
}
