import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** LevelDB's write-ahead log format (db/log_format.h): 32 KiB blocks of records, each `crc32c(4) length(2) type(1)`. */
const BLOCK = 32768;
const HEADER = 7;
/** FULL, FIRST, MIDDLE, LAST. */
const MAX_TYPE = 4;
const MASK_DELTA = 0xa282ead8;

const TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[n] = c;
  }
  return t;
})();

/** CRC-32C (Castagnoli) of buf[start, end). */
function crc32c(buf: Buffer, start: number, end: number): number {
  let c = -1;
  for (let i = start; i < end; i++) c = (TABLE[(c ^ (buf[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/** LevelDB stores the CRC masked (util/crc32c.h). */
function unmask(masked: number): number {
  const rot = (masked - MASK_DELTA) >>> 0;
  return ((rot >>> 17) | (rot << 15)) >>> 0;
}

/** Whether a well-formed record with a matching CRC starts at `at`. */
function recordAt(buf: Buffer, at: number): boolean {
  const left = BLOCK - (at % BLOCK);
  if (left < HEADER || at + HEADER > buf.length) return false;
  const type = buf[at + 6] as number;
  const length = buf.readUInt16LE(at + 4);
  if (type < 1 || type > MAX_TYPE || HEADER + length > left || at + HEADER + length > buf.length) return false;
  return unmask(buf.readUInt32LE(at)) === crc32c(buf, at + 6, at + HEADER + length);
}

/** Whether any valid record starts after `from`: a crash only ever cuts the end of a log, never its middle. */
function recordAfter(buf: Buffer, from: number): boolean {
  for (let at = from; at + HEADER <= buf.length; at++) if (recordAt(buf, at)) return true;
  return false;
}

/**
 * Damage in one LevelDB write-ahead log, found the way LevelDB's reader walks it but without its leniency: LevelDB
 * (with paranoid checks off, and classic-level cannot turn them on) drops a record that fails its CRC and, in the
 * last block of the file, takes a record whose length runs past the end for a write cut short by a crash — so
 * random bytes over a length field silently lose every record after them. Here a record that fails its CRC, has an
 * unknown type or crosses its block is damage, and a record running past the end of the file is a crash's cut
 * only when no valid record follows it.
 * @returns what is wrong, or undefined when the log is sound (a cut end included)
 */
export function logDamage(buf: Buffer): string | undefined {
  let at = 0;
  while (at < buf.length) {
    const left = BLOCK - (at % BLOCK);
    if (left < HEADER) {
      at += left;
      continue;
    }
    if (at + HEADER > buf.length) return undefined;
    const length = buf.readUInt16LE(at + 4);
    const type = buf[at + 6] as number;
    if (type === 0 && length === 0) {
      // Zero-filled space (a preallocated block): LevelDB skips the rest of the block.
      at += left;
      continue;
    }
    if (at + HEADER + length > buf.length && HEADER + length <= left) {
      return recordAfter(buf, at + 1)
        ? `a record at byte ${at} claims ${length} bytes past the end of the log, and records follow it`
        : undefined;
    }
    if (type < 1 || type > MAX_TYPE || HEADER + length > left) {
      return `a malformed record at byte ${at} (type ${type}, length ${length})`;
    }
    if (unmask(buf.readUInt32LE(at)) !== crc32c(buf, at + 6, at + HEADER + length)) {
      return `a record at byte ${at} fails its checksum`;
    }
    at += HEADER + length;
  }
  return undefined;
}

/** Damage in the write-ahead logs (`NNNNNN.log`) of a LevelDB directory, checked before LevelDB opens it. */
export async function levelLogDamage(dir: string): Promise<string | undefined> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => /^\d+\.log$/.test(n)).sort();
  } catch {
    return undefined;
  }
  for (const name of names) {
    const buf = await readFile(join(dir, name)).catch(() => undefined);
    const damage = buf ? logDamage(buf) : undefined;
    if (damage) return `its write-ahead log ${name} is damaged: ${damage}`;
  }
  return undefined;
}
