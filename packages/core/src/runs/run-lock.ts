import { mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { CrawlerError } from '../errors.js';

interface Holder {
  pid: number;
  host: string;
  since: string;
}

/** A lock as `status` sees it: who holds it, whether that process lives, and the progress it last wrote. */
export interface LockInfo extends Holder {
  catalogId: string;
  alive: boolean;
  progress?: Record<string, unknown>;
}

/**
 * One run per catalog on this data store: `system/locks/{catalogId}.lock` holds the pid of the process crawling it,
 * and `{catalogId}.progress.json` its latest counters (for `status`). A lock whose process is gone (killed) is taken
 * over, which is how state a killed process left is reset.
 */
export class RunLock {
  readonly file: string;
  readonly #progressFile: string;
  private constructor(file: string) {
    this.file = file;
    this.#progressFile = file.replace(/\.lock$/, '.progress.json');
  }

  static async acquire(systemDir: string, catalogId: string): Promise<RunLock> {
    const dir = join(systemDir, 'locks');
    try {
      await mkdir(dir, { recursive: true });
    } catch (err) {
      throw new CrawlerError('STORAGE', `cannot write to ${dir}`, {
        cause: err,
        fix: 'make the data directory writable, or choose another with --data / GF_DATA_STORE',
      });
    }
    const file = join(dir, `${catalogId}.lock`);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const handle = await open(file, 'wx');
        await handle.writeFile(JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }));
        await handle.close();
        return new RunLock(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = await readHolder(file);
      if (holder && isLive(holder) && holder.pid !== process.pid) {
        throw new CrawlerError(
          'CONFLICT',
          `catalog ${catalogId} is being crawled by process ${holder.pid} since ${holder.since}`,
          {
            fix: 'wait for it to finish, or stop it first: greenfinger pause --id ' + catalogId,
          },
        );
      }
      await rm(file, { force: true });
    }
    throw new CrawlerError('CONFLICT', `cannot take the run lock ${file}`, {
      fix: 'remove the file if no greenfinger process runs',
    });
  }

  /** The live process crawling a catalog, or undefined. */
  static async holder(systemDir: string, catalogId: string): Promise<Holder | undefined> {
    const holder = await readHolder(join(systemDir, 'locks', `${catalogId}.lock`));
    return holder && isLive(holder) ? holder : undefined;
  }

  /** Every lock on this data store; stale ones (their process is gone) are removed. */
  static async list(systemDir: string): Promise<LockInfo[]> {
    const dir = join(systemDir, 'locks');
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return [];
    }
    const out: LockInfo[] = [];
    for (const name of names.filter((n) => n.endsWith('.lock'))) {
      const catalogId = name.slice(0, -'.lock'.length);
      const holder = await readHolder(join(dir, name));
      if (!holder) continue;
      const alive = isLive(holder);
      let progress: Record<string, unknown> | undefined;
      try {
        progress = JSON.parse(await readFile(join(dir, `${catalogId}.progress.json`), 'utf8')) as Record<
          string,
          unknown
        >;
      } catch {
        progress = undefined;
      }
      if (!alive && holder.host === hostname()) {
        await rm(join(dir, name), { force: true });
        await rm(join(dir, `${catalogId}.progress.json`), { force: true });
      }
      out.push({ catalogId, ...holder, alive, ...(progress ? { progress } : {}) });
    }
    return out;
  }

  /** Record the run's latest counters for `status` (temp file + rename: a reader never sees half). */
  async writeProgress(progress: unknown): Promise<void> {
    const tmp = `${this.#progressFile}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(progress));
    await rename(tmp, this.#progressFile);
  }

  async release(): Promise<void> {
    await rm(this.#progressFile, { force: true });
    await rm(this.file, { force: true });
  }
}

async function readHolder(file: string): Promise<Holder | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Holder;
  } catch {
    return undefined;
  }
}

/** Alive when on this host and the pid answers; a lock from another host is taken as alive. */
function isLive(holder: Holder): boolean {
  if (holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
