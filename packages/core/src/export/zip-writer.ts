import { createHash, type Hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { CrawlerError } from '../errors.js';
import type { ByteSink } from './byte-sink.js';

/** What one finished zip entry holds: its size and its sha256 (`sha256:<hex>`, the WACZ datapackage's form). */
export interface ZipEntryInfo {
  name: string;
  bytes: number;
  hash: string;
}

interface CentralRecord {
  name: Buffer;
  crc: number;
  size: number;
  offset: number;
}

const LIMIT = 0xffff_ffff;
/** Bit 3: sizes and CRC follow the data (a data descriptor); bit 11: the name is UTF-8. */
const FLAGS = 0x0008 | 0x0800;

/**
 * A zip archive written front to back onto a stream, entries stored (not compressed: a WACZ keeps its WARC
 * byte-addressable, and a WARC's records are gzipped already). Each entry's size and CRC follow its data, so an
 * entry streams without being held. No ZIP64: an archive or entry past 4 GiB is refused with a clear error.
 */
export class ZipWriter {
  readonly #sink: ByteSink;
  readonly #central: CentralRecord[] = [];
  readonly #time: number;
  readonly #date: number;
  #open: ZipEntryWriter | undefined;

  constructor(sink: ByteSink, modified = new Date()) {
    this.#sink = sink;
    this.#time = (modified.getHours() << 11) | (modified.getMinutes() << 5) | Math.floor(modified.getSeconds() / 2);
    this.#date =
      ((Math.max(1980, modified.getFullYear()) - 1980) << 9) | ((modified.getMonth() + 1) << 5) | modified.getDate();
  }

  /** Start an entry; write its bytes with `write`, then `end` it before the next one begins. */
  async begin(name: string): Promise<ZipEntryWriter> {
    if (this.#open) throw new Error(`zip entry ${this.#open.name} is still open`);
    const encoded = Buffer.from(name, 'utf8');
    const offset = this.#sink.bytes;
    tooLarge(offset);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(FLAGS, 6);
    header.writeUInt16LE(0, 8);
    header.writeUInt16LE(this.#time, 10);
    header.writeUInt16LE(this.#date, 12);
    header.writeUInt16LE(encoded.length, 26);
    await this.#sink.write(Buffer.concat([header, encoded]));
    const entry = new ZipEntryWriter(name, this.#sink, async (crc, size) => {
      const descriptor = Buffer.alloc(16);
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc, 4);
      descriptor.writeUInt32LE(size, 8);
      descriptor.writeUInt32LE(size, 12);
      await this.#sink.write(descriptor);
      this.#central.push({ name: encoded, crc, size, offset });
      this.#open = undefined;
    });
    this.#open = entry;
    return entry;
  }

  /** One whole entry at once (a small file: an index, a manifest). */
  async add(name: string, data: Uint8Array | string): Promise<ZipEntryInfo> {
    const entry = await this.begin(name);
    await entry.write(data);
    return entry.end();
  }

  /** Write the central directory and its end record; the stream is left open. */
  async finish(): Promise<void> {
    if (this.#open) throw new Error(`zip entry ${this.#open.name} is still open`);
    const start = this.#sink.bytes;
    for (const r of this.#central) {
      const h = Buffer.alloc(46);
      h.writeUInt32LE(0x02014b50, 0);
      h.writeUInt16LE((3 << 8) | 20, 4);
      h.writeUInt16LE(20, 6);
      h.writeUInt16LE(FLAGS, 8);
      h.writeUInt16LE(0, 10);
      h.writeUInt16LE(this.#time, 12);
      h.writeUInt16LE(this.#date, 14);
      h.writeUInt32LE(r.crc, 16);
      h.writeUInt32LE(r.size, 20);
      h.writeUInt32LE(r.size, 24);
      h.writeUInt16LE(r.name.length, 28);
      h.writeUInt32LE((0o100644 << 16) >>> 0, 38);
      h.writeUInt32LE(r.offset, 42);
      await this.#sink.write(Buffer.concat([h, r.name]));
    }
    const size = this.#sink.bytes - start;
    tooLarge(this.#sink.bytes);
    if (this.#central.length > 0xffff) {
      throw new CrawlerError(
        'BAD_INPUT',
        `a zip of ${this.#central.length} files needs ZIP64, which this writer lacks`,
        {
          fix: 'export fewer files into one archive (one version, or the jsonl or warc format)',
        },
      );
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.#central.length, 8);
    end.writeUInt16LE(this.#central.length, 10);
    end.writeUInt32LE(size, 12);
    end.writeUInt32LE(start, 16);
    await this.#sink.write(end);
  }
}

/** One entry being written: its bytes counted, CRC'd and hashed as they pass. */
export class ZipEntryWriter {
  readonly name: string;
  readonly #sink: ByteSink;
  readonly #close: (crc: number, size: number) => Promise<void>;
  readonly #hash: Hash = createHash('sha256');
  #crc = 0;
  /** Bytes of this entry so far: the offset the next write starts at. */
  bytes = 0;

  constructor(name: string, sink: ByteSink, close: (crc: number, size: number) => Promise<void>) {
    this.name = name;
    this.#sink = sink;
    this.#close = close;
  }

  async write(data: Uint8Array | string): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    this.#crc = crc32(bytes, this.#crc);
    this.#hash.update(bytes);
    this.bytes += bytes.length;
    tooLarge(this.bytes);
    await this.#sink.write(bytes);
  }

  async end(): Promise<ZipEntryInfo> {
    await this.#close(this.#crc >>> 0, this.bytes);
    return { name: this.name, bytes: this.bytes, hash: `sha256:${this.#hash.digest('hex')}` };
  }
}

function tooLarge(bytes: number): void {
  if (bytes <= LIMIT) return;
  throw new CrawlerError('BAD_INPUT', 'the archive passed 4 GiB, past what a zip without ZIP64 can address', {
    fix: 'export the warc format instead (no size limit), or a smaller version',
  });
}
