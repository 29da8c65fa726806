import { opendir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** What a walk of one folder tree found. */
export interface TreeBytes {
  /** Bytes of the regular files under the folder, at any depth. */
  bytes: number;
  files: number;
  /** false when the walk ran out of its time budget: the figures count what it reached. */
  complete: boolean;
}

export interface TreeWalkOptions {
  /** Top-level entries of the folder left out (another store's own figures cover them). */
  skip?: readonly string[];
  /** Stop walking after this long. @default 2000 */
  budgetMs?: number;
}

/**
 * Sum the sizes of every file under `dir` (symbolic links not followed), within a time budget: a data root of a
 * million pages must not hold a request for minutes. A folder that vanishes meanwhile counts as empty.
 */
export async function treeBytes(dir: string, options: TreeWalkOptions = {}): Promise<TreeBytes> {
  const until = performance.now() + (options.budgetMs ?? 2000);
  const skip = new Set(options.skip ?? []);
  const out: TreeBytes = { bytes: 0, files: 0, complete: true };
  const stack: Array<{ path: string; top: boolean }> = [{ path: dir, top: true }];
  while (stack.length > 0) {
    const { path, top } = stack.pop() as { path: string; top: boolean };
    let handle: Awaited<ReturnType<typeof opendir>>;
    try {
      handle = await opendir(path, { bufferSize: 256 });
    } catch {
      continue;
    }
    for await (const entry of handle) {
      if (top && skip.has(entry.name)) continue;
      const full = join(path, entry.name);
      if (entry.isDirectory()) stack.push({ path: full, top: false });
      else if (entry.isFile()) {
        const s = await stat(full).catch(() => undefined);
        if (s) {
          out.bytes += s.size;
          out.files++;
        }
      }
      if (performance.now() > until) {
        out.complete = false;
        return out;
      }
    }
  }
  return out;
}

/**
 * {@link treeBytes} cached for `ttlMs`: requests within it share one walk (the one in flight, or its answer), so a
 * page that polls the figures does not walk the disk for each poll.
 */
export class TreeBytesCache {
  readonly #ttlMs: number;
  readonly #walks = new Map<string, { at: number; answer: Promise<TreeBytes> }>();

  constructor(ttlMs = 30_000) {
    this.#ttlMs = ttlMs;
  }

  get(dir: string, options: TreeWalkOptions = {}): Promise<TreeBytes> {
    const key = `${dir}\u0000${(options.skip ?? []).join('/')}`;
    const kept = this.#walks.get(key);
    if (kept && performance.now() - kept.at < this.#ttlMs) return kept.answer;
    const answer = treeBytes(dir, options);
    this.#walks.set(key, { at: performance.now(), answer });
    return answer;
  }
}
