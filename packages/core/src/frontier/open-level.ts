import { writeFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { CrawlerError } from '../errors.js';
import { levelLogDamage } from './level-log-check.js';

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
    markCorrupt(dir, `LevelDB found damage while ${doing}: ${deepestMessage(err)}`);
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

/** LevelDB settings a store may change from the defaults of {@link openLevel}. */
export interface LevelTuning {
  /** Bytes of writes held in memory before they are sorted into a table file. @default 4 MiB (LevelDB's) */
  writeBufferSize?: number;
}

/**
 * Open a LevelDB store with string keys and values, creating the directory.
 * @throws CrawlerError CONFLICT when another process holds it, CORRUPT when it cannot be read.
 */
export async function openLevel(
  dir: string,
  label: LevelStoreLabel,
  tuning: LevelTuning = {},
): Promise<ClassicLevel<string, string>> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw levelError(err, dir, label, 'creating the directory');
  }
  const marked = await readFile(join(dir, CORRUPT_MARK), 'utf8').catch(() => undefined);
  if (marked !== undefined) {
    throw new CrawlerError(
      'CORRUPT',
      `${label.what} at ${dir} is corrupt (${marked.trim() || 'found damaged before'})`,
      {
        fix: label.corruptFix,
      },
    );
  }
  // Before LevelDB opens it: opening replays the log, drops what it cannot read, and deletes the log.
  const logDamage = await levelLogDamage(dir);
  if (logDamage !== undefined) {
    markCorrupt(dir, logDamage);
    throw new CrawlerError('CORRUPT', `${label.what} at ${dir} is corrupt (${logDamage})`, { fix: label.corruptFix });
  }
  // Built only now: a ClassicLevel opens itself on the next tick (deferred open), which would replay and drop the
  // damaged log the checks above refuse, and leave a handle writing into a store the caller was told is corrupt.
  // Small caches: these stores are read by key or by short ranges, and every MB here is RSS in each crawl.
  const db = new ClassicLevel<string, string>(dir, {
    keyEncoding: 'utf8',
    valueEncoding: 'utf8',
    cacheSize: 2 * 1024 * 1024,
    ...(tuning.writeBufferSize === undefined ? {} : { writeBufferSize: tuning.writeBufferSize }),
  });
  try {
    await db.open();
  } catch (err) {
    throw levelError(err, dir, label, 'opening');
  }
  const damage = await recoveryDamage(dir);
  if (damage !== undefined) {
    await db.close().catch(() => undefined);
    markCorrupt(dir, damage);
    throw new CrawlerError('CORRUPT', `${label.what} at ${dir} is corrupt (${damage})`, { fix: label.corruptFix });
  }
  return db;
}

/**
 * A file left in a store found damaged: LevelDB repairs what it can while opening (it drops the damaged records of
 * its write-ahead log and carries on), so a second open would find nothing wrong. The mark keeps it refused until
 * the store is deleted, as the fix says.
 */
export const CORRUPT_MARK = 'GREENFINGER-CORRUPT';

/**
 * Leave the mark (best effort: a read-only store cannot take it, and is refused again by the same check). Written
 * synchronously, so it is on disk when the error reaches the caller (nothing is left writing behind it).
 */
export function markCorrupt(dir: string, why: string): void {
  try {
    writeFileSync(join(dir, CORRUPT_MARK), `${why}\n`);
  } catch {
    // read-only or gone: the same check refuses the store again
  }
}

/**
 * What LevelDB dropped while opening: with paranoid checks off (classic-level offers no way to turn them on),
 * a write-ahead log record failing its CRC is skipped and only written to the store's info log (`LOG`, started
 * afresh by every open) as "dropping N bytes; Corruption: …" or "Ignoring error …". A log torn at its end by a
 * crash is not reported there, so any such line is damage.
 */
async function recoveryDamage(dir: string): Promise<string | undefined> {
  const log = await readFile(join(dir, 'LOG'), 'utf8').catch(() => '');
  const dropped = /([^\s/]+\.log): dropping (\d+) bytes; (.*)$/m.exec(log);
  if (dropped) {
    return `LevelDB dropped ${dropped[2]} bytes of ${dropped[1]} while opening it: ${dropped[3]?.trim()}`;
  }
  const ignored = /Ignoring error (.*)$/m.exec(log);
  if (ignored) return `LevelDB ignored an error while opening it: ${ignored[1]?.trim()}`;
  return undefined;
}

/** The first key after every key that starts with `prefix` (prefix ends in a separator character). */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
