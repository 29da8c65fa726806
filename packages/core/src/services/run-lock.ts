import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { CrawlerError } from '../errors.js';

/**
 * One run per catalog on this data store: `system/locks/{catalogId}.lock` holds the pid of the process crawling it.
 * A lock whose process is gone (killed) is taken over, which is how state a killed process left is reset.
 */
export class RunLock {
  readonly file: string;
  private constructor(file: string) {
    this.file = file;
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
      if (holder && holder.host === hostname() && isAlive(holder.pid) && holder.pid !== process.pid) {
        throw new CrawlerError(
          'CONFLICT',
          `catalog ${catalogId} is being crawled by process ${holder.pid} since ${holder.since}`,
          {
            fix: 'wait for it to finish, or stop it (Ctrl-C / pause) first',
          },
        );
      }
      await rm(file, { force: true });
    }
    throw new CrawlerError('CONFLICT', `cannot take the run lock ${file}`, {
      fix: 'remove the file if no greenfinger process runs',
    });
  }

  async release(): Promise<void> {
    await rm(this.file, { force: true });
  }
}

async function readHolder(file: string): Promise<{ pid: number; host: string; since: string } | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as { pid: number; host: string; since: string };
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
