import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { CrawlerError } from '../errors.js';
import type { BlobStore } from './blob-store.js';

/** The file layer on the local file system, rooted at `user/`. Keys are relative paths with `/`. */
export class LocalBlobStore implements BlobStore {
  readonly name = 'local';
  readonly root: string;
  readonly #dirs = new Set<string>();

  constructor(root: string) {
    this.root = root;
  }

  #path(key: string): string {
    if (key.startsWith('/') || key.split('/').includes('..')) {
      throw new CrawlerError('BAD_INPUT', `blob key must be relative and stay inside user/: ${key}`);
    }
    return join(this.root, key);
  }

  async #ensureDir(dir: string): Promise<void> {
    if (this.#dirs.has(dir)) return;
    try {
      await mkdir(dir, { recursive: true });
    } catch (err) {
      throw new CrawlerError('STORAGE', `cannot create directory ${dir}`, {
        cause: err,
        fix: 'make the data directory writable or choose another with --data / GF_DATA_STORE',
      });
    }
    this.#dirs.add(dir);
  }

  async put(key: string, data: Uint8Array | string): Promise<void> {
    const path = this.#path(key);
    await this.#ensureDir(dirname(path));
    await writeFile(path, data);
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.#path(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async getText(key: string): Promise<string | undefined> {
    const buf = await this.get(key);
    return buf?.toString('utf8');
  }

  async exists(key: string): Promise<boolean> {
    try {
      await stat(this.#path(key));
      return true;
    } catch {
      return false;
    }
  }

  async stat(prefix: string): Promise<{ objects: number; bytes: number }> {
    let objects = 0;
    let bytes = 0;
    for await (const key of this.list(prefix)) {
      const s = await stat(this.#path(key));
      objects++;
      bytes += s.size;
    }
    return { objects, bytes };
  }

  async deletePrefix(prefix: string): Promise<{ objects: number; bytes: number }> {
    const counted = await this.stat(prefix);
    await rm(this.#path(prefix), { recursive: true, force: true });
    for (const dir of this.#dirs) if (dir.startsWith(this.#path(prefix))) this.#dirs.delete(dir);
    return counted;
  }

  async *list(prefix: string): AsyncIterable<string> {
    const base = this.#path(prefix);
    let s: Awaited<ReturnType<typeof stat>>;
    try {
      s = await stat(base);
    } catch {
      return;
    }
    if (s.isFile()) {
      yield prefix;
      return;
    }
    const stack = [base];
    let guard = 0;
    while (stack.length > 0 && guard++ < 10_000_000) {
      const dir = stack.pop() as string;
      const entries = await readdir(dir, { withFileTypes: true });
      for (const e of entries) {
        const full = join(dir, e.name);
        if (e.isDirectory()) stack.push(full);
        else if (e.isFile()) yield relative(this.root, full).split(sep).join('/');
      }
    }
  }

  async close(): Promise<void> {
    this.#dirs.clear();
  }
}
