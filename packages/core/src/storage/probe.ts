import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  openSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CrawlerError } from '../errors.js';
import { makeDirs } from './make-dirs.js';

/** Bytes the probe writes into each directory: enough that a full disk refuses it. */
const PROBE_BYTES = 16 * 1024;

/** What can go wrong writing a data root, and how to say it. */
function probeError(dir: string, root: string, err: unknown): CrawlerError {
  const code = (err as NodeJS.ErrnoException)?.code ?? 'error';
  const fix = `make ${root} writable, or choose another data directory with --data DIR (or GF_DATA_STORE)`;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new CrawlerError('STORAGE', `the data root ${root} is full: no space left writing ${dir} (${code})`, {
      cause: err,
      fix: `free some space on it, or choose another data directory with --data DIR (or GF_DATA_STORE)`,
    });
  }
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    return new CrawlerError('STORAGE', `the data root ${root} is not a directory (${dir}: ${code})`, {
      cause: err,
      fix: 'give --data a directory (it is created when missing), not a file',
    });
  }
  if (code === 'EROFS') {
    return new CrawlerError('STORAGE', `the data root ${root} is on a read-only file system (${code})`, {
      cause: err,
      fix,
    });
  }
  if (code === 'ENOENT') {
    const level = (err as NodeJS.ErrnoException).path ?? dir;
    return new CrawlerError('STORAGE', `the data root ${root} cannot be created: ${level} cannot be made (${code})`, {
      cause: err,
      fix: 'choose a data directory whose parent exists and can be written, with --data DIR (or GF_DATA_STORE)',
    });
  }
  return new CrawlerError('STORAGE', `the data root ${root} cannot be written: ${dir} (${code})`, { cause: err, fix });
}

/**
 * Check, before a run opens any store, that the data root can be written: `system/` and (unless `userDir` is false,
 * when another blob store holds the pages) `user/` are created, and a small file is written, flushed to disk and
 * removed in each. Synchronous and bounded: the root made level by level (`makeDirs`: a parent that answers ENOENT for
 * ever, as under /proc, fails at once), then one mkdir, one open, one write, one fsync and one unlink per directory.
 * @throws CrawlerError STORAGE with one line naming the data root, what is wrong (read-only, full, a file) and the fix
 */
export function probeDataRoot(root: string, options: { userDir?: boolean } = {}): void {
  const abs = resolve(root);
  try {
    const st = statSync(abs, { throwIfNoEntry: false });
    if (st && !st.isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
  } catch (err) {
    throw probeError(abs, abs, err);
  }
  const dirs = [join(abs, 'system'), ...(options.userDir === false ? [] : [join(abs, 'user')])];
  for (const dir of dirs) {
    const file = join(dir, `.write-probe-${process.pid}`);
    let fd: number | undefined;
    try {
      makeDirs(dir);
      fd = openSync(file, 'w');
      writeSync(fd, Buffer.alloc(PROBE_BYTES, 0x2e));
      fsyncSync(fd);
    } catch (err) {
      throw probeError(dir, abs, realCause(dir, err));
    } finally {
      if (fd !== undefined) closeSync(fd);
      try {
        if (fd !== undefined) unlinkSync(file);
      } catch {
        // removed by nobody else; a leftover probe file is harmless
      }
    }
  }
}

/**
 * Node's recursive mkdir reports ENOENT when a directory cannot be made on a read-only file system; access(2) on the
 * nearest directory that exists says why (EROFS, EACCES).
 */
function realCause(dir: string, err: unknown): unknown {
  if ((err as NodeJS.ErrnoException)?.code !== 'ENOENT') return err;
  for (let d = dirname(dir), i = 0; i < 64 && d !== dirname(d); d = dirname(d), i++) {
    if (!existsSync(d)) continue;
    try {
      accessSync(d, constants.W_OK);
    } catch (cause) {
      return cause;
    }
    return err;
  }
  return err;
}

/** Node's errno codes that mean "this store cannot be written now". */
const WRITE_ERRNO = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'EIO']);

/**
 * Whether an error means the disk under a store refused a write (full, read-only, gone, no permission): the errno
 * codes, SQLite's SQLITE_FULL / SQLITE_READONLY / SQLITE_IOERR, LevelDB's IO errors about space or permissions, and a
 * CrawlerError STORAGE wrapping one of them.
 */
export function isWriteFailure(err: unknown): boolean {
  let e: unknown = err;
  for (let i = 0; i < 5 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (WRITE_ERRNO.has(code)) return true;
      if (/^SQLITE_(FULL|READONLY|IOERR)/.test(code)) return true;
    }
    const message = (e as { message?: unknown }).message;
    if (
      typeof message === 'string' &&
      /no space left|read-only file system|ENOSPC|EROFS|database or disk is full/i.test(message)
    )
      return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
