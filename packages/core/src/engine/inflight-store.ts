import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
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
 * Record: u32 record length, 64 bytes url hash, u32 header length, JSON header, body.
 */
export class InflightStore {
  readonly dir: string;
  readonly file: string;
  #fd: number | undefined;
  /** Records of an earlier, interrupted run, by url hash: offset and length of header + body. */
  #earlier: Map<string, { header: Buffer; body: Buffer }> | undefined;

  constructor(dir: string) {
    this.dir = dir;
    this.file = join(dir, 'wal.log');
    if (existsSync(this.file)) this.#earlier = readLog(this.file);
  }

  /** Appended synchronously: once it returns, the record survives the process being killed. */
  async save(hash: string, result: FetchResult): Promise<void> {
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
    writeSync(this.#fd, Buffer.concat([head, header, body]));
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
