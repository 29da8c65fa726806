import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { CrawlerError } from '../errors.js';

/**
 * SQLite's own check of a database file (`PRAGMA quick_check`: every b-tree page, record and index entry, without
 * comparing indexes to their tables), read-only, on a connection of its own. A missing file passes.
 * @param what e.g. "full-text index" — for the message
 * @param fix what to do with a damaged copy
 * @throws CrawlerError CORRUPT naming the file, the first problem SQLite found and the fix
 */
export function checkSqliteFile(file: string, what: string, fix: string): void {
  if (!existsSync(file)) return;
  let db: Database.Database | undefined;
  let problems: string[];
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    problems = (db.pragma('quick_check(5)') as Array<{ quick_check: string }>)
      .flatMap((r) => r.quick_check.split('\n'))
      .map((line) => line.trim())
      .filter((line) => line !== '' && line !== 'ok' && !line.startsWith('***'));
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    // Busy or locked is not damage: the check is skipped, the store's own open reports real trouble.
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return;
    problems = [(err as Error).message];
  } finally {
    db?.close();
  }
  if (problems.length > 0) {
    const more = problems.length > 1 ? ` and ${problems.length - 1} more` : '';
    throw new CrawlerError('CORRUPT', `${what} ${file} is corrupt (SQLite quick_check: ${problems[0]}${more})`, {
      fix,
    });
  }
}
