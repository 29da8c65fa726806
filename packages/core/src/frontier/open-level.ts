import { mkdir } from 'node:fs/promises';
import { ClassicLevel } from 'classic-level';
import { CrawlerError } from '../errors.js';

/** What a store is, for error messages: the label and how to get rid of a broken copy. */
export interface LevelStoreLabel {
  /** e.g. "frontier store". */
  what: string;
  /** What to do when the store is corrupt, e.g. "delete it and crawl this version again". */
  corruptFix: string;
}

/** The code of a LevelDB error, looking through `cause` (open failures wrap the real one). */
function levelCode(err: unknown): string | undefined {
  let e: unknown = err;
  let code: string | undefined;
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const c = (e as { code?: unknown }).code;
    if (typeof c === 'string' && c !== 'LEVEL_DATABASE_NOT_OPEN') return c;
    if (typeof c === 'string') code = c;
    e = (e as { cause?: unknown }).cause;
  }
  return code;
}

/** The message of the innermost cause (LevelDB wraps the real reason). */
function deepestMessage(err: unknown): string {
  let e: unknown = err;
  let message = err instanceof Error ? err.message : String(err);
  for (let i = 0; i < 4 && e instanceof Error; i++) {
    message = e.message;
    e = e.cause;
  }
  return message;
}

/** Map a LevelDB failure to a CrawlerError naming the directory and the fix. */
export function levelError(err: unknown, dir: string, label: LevelStoreLabel, doing: string): CrawlerError {
  const code = levelCode(err);
  if (code === 'LEVEL_LOCKED') {
    return new CrawlerError('CONFLICT', `${label.what} at ${dir} is locked: another greenfinger process holds it`, {
      cause: err,
      fix: 'stop that process (or wait for it to finish), then run again',
    });
  }
  if (code === 'LEVEL_CORRUPTION') {
    return new CrawlerError('CORRUPT', `${label.what} at ${dir} is corrupt`, { cause: err, fix: label.corruptFix });
  }
  const detail = deepestMessage(err);
  // An IO error while opening an existing store that is not about space or permissions means its files are
  // damaged (a truncated CURRENT or MANIFEST, a missing table file).
  if (
    code === 'LEVEL_IO_ERROR' &&
    doing === 'opening' &&
    !/no space|permission|read-only|EACCES|ENOSPC|EROFS/i.test(detail)
  ) {
    return new CrawlerError('CORRUPT', `${label.what} at ${dir} is damaged and cannot be read (${detail})`, {
      cause: err,
      fix: label.corruptFix,
    });
  }
  return new CrawlerError('STORAGE', `${label.what} at ${dir}: ${doing} failed: ${detail}`, {
    cause: err,
    fix: 'check the disk (space, permissions) and run again',
  });
}

/**
 * Open a LevelDB store with string keys and values, creating the directory.
 * @throws CrawlerError CONFLICT when another process holds it, CORRUPT when it cannot be read.
 */
export async function openLevel(dir: string, label: LevelStoreLabel): Promise<ClassicLevel<string, string>> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw levelError(err, dir, label, 'creating the directory');
  }
  // Small caches: these stores are read by key or by short ranges, and every MB here is RSS in each crawl.
  const db = new ClassicLevel<string, string>(dir, {
    keyEncoding: 'utf8',
    valueEncoding: 'utf8',
    cacheSize: 2 * 1024 * 1024,
  });
  try {
    await db.open();
  } catch (err) {
    throw levelError(err, dir, label, 'opening');
  }
  return db;
}

/** The first key after every key that starts with `prefix` (prefix ends in a separator character). */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
