import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { ftsExtensionFile } from '../config.js';

/**
 * Greenfinger's SQLite extension (`native/gf_fts.c`, built by `scripts/build-native.mjs` as part of the build): the
 * `gf_pairs` tokenizer of the word-pair table (fts-pairs.ts). Loaded into every connection that opens an index file.
 * GF_FTS_EXTENSION names another file (a packaged build; config.ts reads it); read once, when this module loads.
 */
export const FTS_EXTENSION_PATH =
  ftsExtensionFile() ?? fileURLToPath(new URL('../../native/build/gf_fts.so', import.meta.url));

let problem: string | undefined;

/**
 * Loads the extension into `db`; false (and `ftsExtensionProblem()` says why) when it is not built or does not
 * load, in which case the index works as before without the word-pair table.
 */
export function loadFtsExtension(db: Database.Database): boolean {
  if (problem !== undefined) return false;
  if (!existsSync(FTS_EXTENSION_PATH)) {
    problem =
      `${FTS_EXTENSION_PATH} is not built: run the build (scripts/setup.sh, or pnpm run build) with a C compiler ` +
      'installed (Debian: apt-get install gcc)';
    return false;
  }
  try {
    db.loadExtension(FTS_EXTENSION_PATH);
    return true;
  } catch (err) {
    problem = `${FTS_EXTENSION_PATH} does not load (${(err as Error).message}): rebuild it with node packages/core/scripts/build-native.mjs --force`;
    return false;
  }
}

/** Why the extension is not available in this process, or undefined when it is (or has not been tried). */
export function ftsExtensionProblem(): string | undefined {
  return problem;
}
