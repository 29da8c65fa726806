import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type usearchTypes from 'usearch';

/** usearch, loaded on first use: a crawl without vectors never pays for its native module (~2 MB resident). */
let usearchModule: typeof usearchTypes | undefined;
function usearch(): typeof usearchTypes {
  usearchModule ??= createRequire(import.meta.url)('usearch') as typeof usearchTypes;
  return usearchModule;
}

/** A usearch HNSW index over one partition; keys are `points.rowid`. */
export type AnnIndex = InstanceType<typeof usearchTypes.Index>;

/** One `.usearch` file of a partition; `w` is its watermark (it holds the partition's rows with rowid ≤ w). */
export interface AnnFile {
  name: string;
  w: number;
}

/**
 * usearch crashes the process (SIGSEGV, heap corruption) on a truncated or damaged file, so every file ends
 * with this trailer and is checked before usearch sees it: magic, length of the usearch bytes, watermark,
 * width, CRC-32 of the usearch bytes. usearch ignores bytes after its own.
 */
const MAGIC = Buffer.from('GF-ANN-1', 'latin1');
const TRAILER = 32;
const CHUNK = 8 * 1024 * 1024;
const FILE_RE = /^(.+)\.(\d+)\.usearch$/;
/** A `.tmp` left by a process that died while saving is removed by the next save after this long. */
const STALE_TMP_MS = 60 * 60 * 1000;
/** `/proc/self/fd/N` lets usearch open exactly the inode that was checked, even if the name moves meanwhile. */
const PROC_FD = existsSync('/proc/self/fd');

/**
 * A fresh index: cosine, i8 (see docs/search.md for the f16/i8 measurements), M = 16. ef 256 at search: on the
 * 100k-page search bench, recall@10 against exact was 0.86 at ef 64, 0.90 at 128 and 0.935 at 256, for
 * ~1 ms more (the index is also opened from files, so this is the reader's setting too).
 */
export function createAnnIndex(dims: number): AnnIndex {
  const { Index, MetricKind, ScalarKind } = usearch();
  return new Index({
    dimensions: dims,
    metric: MetricKind.Cos,
    quantization: ScalarKind.I8,
    connectivity: 16,
    expansion_add: 128,
    expansion_search: 256,
    multi: false,
  });
}

/** `catalogId:version` → `<catalogId>_<version>`, safe as a file name. */
export function annStem(catalogVersion: string): string {
  const cut = catalogVersion.lastIndexOf(':');
  return `${encodeURIComponent(catalogVersion.slice(0, cut))}_${catalogVersion.slice(cut + 1)}`;
}

/** The `.usearch` files of every partition under `dir`, newest (highest watermark) first. */
export function listAnnFiles(dir: string): Map<string, AnnFile[]> {
  const byStem = new Map<string, AnnFile[]>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return byStem;
  }
  for (const name of names) {
    const m = FILE_RE.exec(name);
    if (!m?.[1] || !m[2]) continue;
    const files = byStem.get(m[1]) ?? [];
    files.push({ name, w: Number(m[2]) });
    byStem.set(m[1], files);
  }
  for (const files of byStem.values()) files.sort((a, b) => b.w - a.w);
  return byStem;
}

/**
 * Writes `index` as `<stem>.<w>.usearch`: usearch's bytes plus the trailer into a `.tmp`, then a rename, so a
 * reader sees a whole file or none. Older files of the partition are removed afterwards.
 */
export function saveAnnFile(index: AnnIndex, dir: string, stem: string, w: number, dims: number): string {
  mkdirSync(dir, { recursive: true });
  const name = `${stem}.${w}.usearch`;
  const tmp = join(dir, `${name}.${process.pid}.tmp`);
  try {
    index.save(tmp);
    const fd = openSync(tmp, 'r+');
    try {
      const length = fstatSync(fd).size;
      const crc = crcOfSync(fd, length);
      writeSync(fd, trailer(length, w, dims, crc), 0, TRAILER, length);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, join(dir, name));
  } catch (err) {
    removeQuietly(tmp);
    throw err;
  }
  const prefix = `${stem}.`;
  const now = Date.now();
  for (const other of readdirSync(dir)) {
    if (!other.startsWith(prefix) || other === name) continue;
    const m = FILE_RE.exec(other);
    if (m && m[1] === stem && Number(m[2]) < w) removeQuietly(join(dir, other));
    else if (isTmpOf(other, stem) && isStale(join(dir, other), now)) removeQuietly(join(dir, other));
  }
  return name;
}

/** Removes every file of one partition (its `.usearch` files and any `.tmp`). */
export function removeAnnFiles(dir: string, stem: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const prefix = `${stem}.`;
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = FILE_RE.exec(name);
    if (m ? m[1] === stem : isTmpOf(name, stem)) removeQuietly(join(dir, name));
  }
}

/**
 * Loads a file into RAM (writable: the writer keeps adding to it). Returns undefined when the file is gone,
 * damaged or not of this width — never hands usearch a file whose trailer and CRC do not match.
 */
export function loadAnnFileSync(path: string, dims: number, w: number): AnnIndex | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(TRAILER);
    if (size < TRAILER || readSync(fd, head, 0, TRAILER, size - TRAILER) !== TRAILER) return undefined;
    const length = checkTrailer(head, size, dims, w);
    if (length === undefined || crcOfSync(fd, length) !== head.readUInt32LE(28)) return undefined;
    return openChecked(PROC_FD ? `/proc/self/fd/${fd}` : path, dims, 'load');
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Memory-maps a file read-only (a reader: no copy in RAM, the page cache is shared with other processes).
 * Resolves undefined when the file is damaged; rejects with ENOENT when it disappeared before it was opened.
 */
export async function viewAnnFile(path: string, dims: number, w: number): Promise<AnnIndex | undefined> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const head = Buffer.alloc(TRAILER);
    if (size < TRAILER || (await fh.read(head, 0, TRAILER, size - TRAILER)).bytesRead !== TRAILER) return undefined;
    const length = checkTrailer(head, size, dims, w);
    if (length === undefined) return undefined;
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, length));
    let crc = 0;
    for (let pos = 0; pos < length; ) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, length - pos), pos);
      if (bytesRead === 0) return undefined;
      crc = crc32(buf.subarray(0, bytesRead), crc);
      pos += bytesRead;
    }
    if (crc !== head.readUInt32LE(28)) return undefined;
    try {
      return openChecked(PROC_FD ? `/proc/self/fd/${fh.fd}` : path, dims, 'view');
    } catch {
      return undefined;
    }
  } finally {
    await fh.close();
  }
}

function openChecked(path: string, dims: number, how: 'load' | 'view'): AnnIndex | undefined {
  const index = createAnnIndex(dims);
  if (how === 'load') index.load(path);
  else index.view(path);
  return index.dimensions() === dims ? index : undefined;
}

function trailer(length: number, w: number, dims: number, crc: number): Buffer {
  const t = Buffer.alloc(TRAILER);
  MAGIC.copy(t, 0);
  t.writeBigUInt64LE(BigInt(length), 8);
  t.writeBigUInt64LE(BigInt(w), 16);
  t.writeUInt32LE(dims, 24);
  t.writeUInt32LE(crc, 28);
  return t;
}

/** The length of the usearch bytes when the trailer fits this file, width and watermark. */
function checkTrailer(t: Buffer, size: number, dims: number, w: number): number | undefined {
  if (!t.subarray(0, 8).equals(MAGIC)) return undefined;
  const length = Number(t.readBigUInt64LE(8));
  if (length + TRAILER !== size || length < 64) return undefined;
  if (Number(t.readBigUInt64LE(16)) !== w || t.readUInt32LE(24) !== dims) return undefined;
  return length;
}

function crcOfSync(fd: number, length: number): number {
  const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, length)));
  let crc = 0;
  for (let pos = 0; pos < length; ) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, length - pos), pos);
    if (n === 0) throw new Error(`short read at ${pos} of ${length}`);
    crc = crc32(buf.subarray(0, n), crc);
    pos += n;
  }
  return crc;
}

/** `<stem>.<w>.usearch.<pid>.tmp`, written by `saveAnnFile`. */
function isTmpOf(name: string, stem: string): boolean {
  return name.startsWith(`${stem}.`) && /^\d+\.usearch\.\d+\.tmp$/.test(name.slice(stem.length + 1));
}

function isStale(path: string, now: number): boolean {
  try {
    return now - statSync(path).mtimeMs > STALE_TMP_MS;
  } catch {
    return false;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone, or not ours to remove: a leftover file is harmless (see docs/search.md)
  }
}

/** Positions of the `count` rows of `matrix` (i8, `dims` wide) nearest to `query` by cosine, exactly. */
export function exactNearest(matrix: Int8Array, query: Int8Array, dims: number, count: number): BigUint64Array {
  const { exactSearch, MetricKind } = usearch();
  return exactSearch(matrix, query, dims, count, MetricKind.Cos, 1).keys;
}

/** Removes one file; a file that is already gone is fine. */
export function removeAnnFile(dir: string, name: string): void {
  removeQuietly(join(dir, name));
}

/** Size and modification time: tells a damaged file from a new one written under the same name. */
export function annFileSignature(dir: string, name: string): string {
  try {
    const st = statSync(join(dir, name));
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return '';
  }
}
