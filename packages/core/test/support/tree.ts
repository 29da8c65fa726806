import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * sha256 of every file under a directory, by relative path — to prove that something wrote nothing. Left out: the
 * record database (its reads are not the question; compare its row counts instead), SQLite's `-shm` files (the
 * shared-memory read marks every reader updates) and empty `-wal` files, which SQLite creates when a connection
 * opens a WAL database (e.g. a crawl wrote the index from another thread, so a later count opens it here first).
 */
export function fileTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (!/greenfinger\.db|-shm$/.test(e.name) && !(e.name.endsWith('-wal') && statSync(full).size === 0))
        out[relative(dir, full)] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  walk(dir);
  return out;
}
