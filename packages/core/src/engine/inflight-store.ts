import { mkdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FetchResult } from '../fetch/extractor.js';

/**
 * A write-ahead record of each fetched answer until the page's outcome is committed
 * (`system/inflight/{catalogId}/v{n}/{urlHash}`). After a crash, a page that was fetched but not yet
 * committed is handled again from this record instead of being requested a second time.
 */
export class InflightStore {
  readonly dir: string;
  #ready: Promise<unknown> | undefined;

  constructor(dir: string) {
    this.dir = dir;
  }

  async save(hash: string, result: FetchResult): Promise<void> {
    this.#ready ??= mkdir(this.dir, { recursive: true });
    await this.#ready;
    const { body, text: _text, ...meta } = result;
    const header = Buffer.from(JSON.stringify(meta), 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32BE(header.length, 0);
    await writeFile(join(this.dir, hash), Buffer.concat([len, header, body]));
  }

  /** The recorded answer, without `text` (the caller decodes the body again). */
  async load(hash: string): Promise<Omit<FetchResult, 'text'> | undefined> {
    let raw: Buffer;
    try {
      raw = await readFile(join(this.dir, hash));
    } catch {
      return undefined;
    }
    try {
      const n = raw.readUInt32BE(0);
      const meta = JSON.parse(raw.subarray(4, 4 + n).toString('utf8')) as Omit<FetchResult, 'text' | 'body'>;
      return { ...meta, body: raw.subarray(4 + n) };
    } catch {
      return undefined; // torn write at the moment of a crash: fetch again
    }
  }

  async remove(hashes: string[]): Promise<void> {
    await Promise.all(hashes.map((h) => unlink(join(this.dir, h)).catch(() => undefined)));
  }

  async clear(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
    this.#ready = undefined;
  }
}
