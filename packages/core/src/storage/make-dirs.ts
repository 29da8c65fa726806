import { mkdirSync, statSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** How many levels above a directory `makeDirs` creates at most (a path deeper than this is refused). */
const MAX_LEVELS = 256;

const codeOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException)?.code;

/**
 * `mkdir -p`, one level at a time: one mkdir when the parent exists (the usual case), else the parent first, then
 * this one again. Use it wherever a data root or a folder under it is created: Node's own `mkdirSync(dir, { recursive:
 * true })` never returns when a parent answers ENOENT for ever (any path under `/proc`), spinning inside the call where
 * no signal handler runs. Here such a level fails once, with its errno.
 * @throws the errno error of the first level that cannot be made (ENOENT, EACCES, EROFS, ENOTDIR; EEXIST for a file)
 */
export function makeDirs(dir: string): void {
  const abs = resolve(dir);
  const missing: string[] = [];
  for (let d = abs; missing.length <= MAX_LEVELS; d = dirname(d)) {
    try {
      mkdirSync(d);
    } catch (err) {
      if (codeOf(err) === 'EEXIST' && statSync(d).isDirectory()) break;
      if (codeOf(err) !== 'ENOENT' || dirname(d) === d) throw err;
      missing.push(d);
      continue;
    }
    break;
  }
  if (missing.length > MAX_LEVELS) throw tooDeep(abs);
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d);
    } catch (err) {
      if (!(codeOf(err) === 'EEXIST' && statSync(d).isDirectory())) throw err;
    }
  }
}

/** {@link makeDirs} off the event loop's thread (fs/promises). */
export async function makeDirsAsync(dir: string): Promise<void> {
  const abs = resolve(dir);
  const missing: string[] = [];
  for (let d = abs; missing.length <= MAX_LEVELS; d = dirname(d)) {
    try {
      await mkdir(d);
    } catch (err) {
      if (codeOf(err) === 'EEXIST' && (await stat(d)).isDirectory()) break;
      if (codeOf(err) !== 'ENOENT' || dirname(d) === d) throw err;
      missing.push(d);
      continue;
    }
    break;
  }
  if (missing.length > MAX_LEVELS) throw tooDeep(abs);
  for (const d of missing.reverse()) {
    try {
      await mkdir(d);
    } catch (err) {
      if (!(codeOf(err) === 'EEXIST' && (await stat(d)).isDirectory())) throw err;
    }
  }
}

function tooDeep(dir: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENAMETOOLONG: more than ${MAX_LEVELS} missing levels above ${dir}`), {
    code: 'ENAMETOOLONG',
    path: dir,
  });
}
