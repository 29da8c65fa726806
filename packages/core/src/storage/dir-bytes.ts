import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Bytes of the files directly in `dir` (0 when it is gone), for a store family's stats. */
export function bytesIn(dir: string): number {
  let bytes = 0;
  try {
    for (const f of readdirSync(dir, { withFileTypes: true })) {
      if (f.isFile()) bytes += statSync(join(dir, f.name), { throwIfNoEntry: false })?.size ?? 0;
    }
  } catch {
    // removed meanwhile
  }
  return bytes;
}
