import { inflateRawSync } from 'node:zlib';

/** Caps of {@link readZip}: a zip bomb stops at the first of them instead of filling the heap. */
export interface ZipLimits {
  /** Entries in the central directory. @default 10000 */
  maxEntries?: number | undefined;
  /** Bytes one entry may inflate to. @default 64 MiB */
  maxEntryBytes?: number | undefined;
}

/** The files of a zip archive, inflated on demand. */
export interface ZipArchive {
  /** Entry names in central-directory order. */
  readonly names: readonly string[];
  /** The bytes of one entry, or undefined when there is none of that name. @throws Error past the caps or when corrupt */
  read(name: string): Buffer | undefined;
  /** An entry as UTF-8 text (a byte order mark dropped). */
  text(name: string): string | undefined;
}

interface Entry {
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/**
 * Read a zip archive's central directory (PKWARE APPNOTE 4.3: the end record, then one header per entry); entries
 * are stored (0) or deflated (8) and inflated with node:zlib under a byte cap. Zip64 and encrypted entries are
 * refused: an office document never needs them. @throws Error naming what is wrong
 */
export function readZip(bytes: Uint8Array, limits: ZipLimits = {}): ZipArchive {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const maxEntries = limits.maxEntries ?? 10_000;
  const maxEntryBytes = limits.maxEntryBytes ?? 64 * 1024 * 1024;
  // The end record is the last 22 bytes plus a comment of at most 65535 bytes.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip archive (no end of central directory record)');
  const count = buf.readUInt16LE(eocd + 10);
  const dirSize = buf.readUInt32LE(eocd + 12);
  const dirOffset = buf.readUInt32LE(eocd + 16);
  if (count === 0xffff || dirOffset === 0xffffffff) throw new Error('zip64 archives are not supported');
  if (count > maxEntries) throw new Error(`the zip archive has ${count} entries, more than ${maxEntries}`);
  if (dirOffset + dirSize > eocd) throw new Error('the zip central directory lies outside the file (truncated?)');
  const entries = new Map<string, Entry>();
  let p = dirOffset;
  for (let n = 0; n < count; n++) {
    if (p + 46 > eocd || buf.readUInt32LE(p) !== CENTRAL) throw new Error('corrupt zip central directory');
    const flags = buf.readUInt16LE(p + 8);
    const nameLength = buf.readUInt16LE(p + 28);
    const extraLength = buf.readUInt16LE(p + 30);
    const commentLength = buf.readUInt16LE(p + 32);
    const name = buf.toString(flags & 0x800 ? 'utf8' : 'latin1', p + 46, p + 46 + nameLength);
    if (!(flags & 1)) {
      entries.set(name, {
        method: buf.readUInt16LE(p + 10),
        compressedSize: buf.readUInt32LE(p + 20),
        size: buf.readUInt32LE(p + 24),
        localOffset: buf.readUInt32LE(p + 42),
      });
    }
    p += 46 + nameLength + extraLength + commentLength;
  }
  const read = (name: string): Buffer | undefined => {
    const e = entries.get(name);
    if (!e) return undefined;
    const o = e.localOffset;
    if (o + 30 > buf.length || buf.readUInt32LE(o) !== LOCAL) throw new Error(`corrupt zip entry ${name}`);
    const start = o + 30 + buf.readUInt16LE(o + 26) + buf.readUInt16LE(o + 28);
    const end = start + e.compressedSize;
    if (end > buf.length) throw new Error(`zip entry ${name} runs past the end of the file (truncated?)`);
    const packed = buf.subarray(start, end);
    if (e.method === 0) {
      if (packed.length > maxEntryBytes) throw new Error(`zip entry ${name} is over ${maxEntryBytes} bytes`);
      return packed;
    }
    if (e.method !== 8) throw new Error(`zip entry ${name} uses compression method ${e.method}`);
    try {
      return inflateRawSync(packed, { maxOutputLength: maxEntryBytes });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new Error(`zip entry ${name} inflates past ${Math.round(maxEntryBytes / 1024 / 1024)} MiB`);
      }
      throw new Error(`zip entry ${name} does not inflate: ${(err as Error).message}`);
    }
  };
  return {
    names: [...entries.keys()],
    read,
    text(name) {
      const b = read(name);
      if (!b) return undefined;
      const s = b.toString('utf8');
      return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
    },
  };
}
