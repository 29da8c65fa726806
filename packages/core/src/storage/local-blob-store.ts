import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { CrawlerError } from '../errors.js';
import type { SharedThread } from '../worker-entry.js';
import type { BlobStore } from './blob-store.js';
import { makeDirs, makeDirsAsync } from './make-dirs.js';
import { OffThreadBlobStore } from './off-thread-blob-store.js';

/** The file layer on the local file system, rooted at `user/`. Keys are relative paths with `/`. */
export class LocalBlobStore implements BlobStore {
  readonly name = 'local';
  readonly root: string;
  readonly #dirs = new Set<string>();
  readonly #making = new Map<string, Promise<void>>();

  constructor(root: string) {
    this.root = root;
  }

  /** The file of a key; throws for a key that is absolute or climbs out of the root. */
  pathOf(key: string): string {
    if (key.startsWith('/') || key.split('/').includes('..')) {
      throw new CrawlerError('BAD_INPUT', `blob key must be relative and stay inside user/: ${key}`);
    }
    return join(this.root, key);
  }

  /**
   * Makes a file's directory once per store. The writes of one page (text, html, pictures) share directories and run
   * together: they wait for one mkdir instead of each making it (an EEXIST and a stat each), and a directory whose
   * parent this store made is made with one mkdir instead of a recursive one that starts with a failed attempt.
   */
  #ensureDir(dir: string): Promise<void> {
    if (this.#dirs.has(dir)) return Promise.resolve();
    let making = this.#making.get(dir);
    if (!making) {
      const parent = dirname(dir);
      // A parent known to this store may have been removed since (deletePrefix through another store on the root).
      const make = this.#dirs.has(parent)
        ? mkdir(dir).then(
            () => undefined,
            (err: unknown) => (code(err) === 'ENOENT' ? makeDirsAsync(dir) : existing(err)),
          )
        : makeDirsAsync(dir);
      making = make.then(
        () => {
          this.#made(dir);
          this.#making.delete(dir);
        },
        (err: unknown) => {
          this.#making.delete(dir);
          throw dirError(dir, err);
        },
      );
      this.#making.set(dir, making);
    }
    return making;
  }

  async put(key: string, data: Uint8Array | string): Promise<void> {
    const path = this.pathOf(key);
    const dir = dirname(path);
    await this.#ensureDir(dir);
    try {
      await writeFile(path, data);
    } catch (err) {
      // The directory went away since it was made (deletePrefix through another store on the same root).
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw writeError(path, err);
      this.#dirs.delete(dir);
      await this.#ensureDir(dir);
      await writeFile(path, data).catch((e: unknown) => {
        throw writeError(path, e);
      });
    }
  }

  /**
   * put() with synchronous system calls, for a thread whose whole job is writing (OffThreadBlobStore's): no hand-off
   * to the libuv pool per mkdir, open, write and close.
   */
  putSync(key: string, data: Uint8Array | string): void {
    const path = this.pathOf(key);
    const dir = dirname(path);
    const ensureDir = (): void => {
      if (this.#dirs.has(dir)) return;
      try {
        if (this.#dirs.has(dirname(dir))) {
          try {
            mkdirSync(dir);
          } catch (err) {
            if (code(err) === 'ENOENT') makeDirs(dir);
            else existing(err);
          }
        } else makeDirs(dir);
      } catch (err) {
        throw dirError(dir, err);
      }
      this.#made(dir);
    };
    ensureDir();
    try {
      writeFileSync(path, data);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw writeError(path, err);
      this.#dirs.delete(dir);
      ensureDir();
      try {
        writeFileSync(path, data);
      } catch (e) {
        throw writeError(path, e);
      }
    }
  }

  /** A directory is there, and so is every directory above it. */
  #made(dir: string): void {
    for (let d = dir; d.length > this.root.length && !this.#dirs.has(d); d = dirname(d)) this.#dirs.add(d);
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.pathOf(key));
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
      await stat(this.pathOf(key));
      return true;
    } catch {
      return false;
    }
  }

  async stat(prefix: string): Promise<{ objects: number; bytes: number }> {
    let objects = 0;
    let bytes = 0;
    for await (const key of this.list(prefix)) {
      const s = await stat(this.pathOf(key));
      objects++;
      bytes += s.size;
    }
    return { objects, bytes };
  }

  async deletePrefix(prefix: string): Promise<{ objects: number; bytes: number }> {
    const counted = await this.stat(prefix);
    await rm(this.pathOf(prefix), { recursive: true, force: true });
    for (const dir of this.#dirs) if (dir.startsWith(this.pathOf(prefix))) this.#dirs.delete(dir);
    return counted;
  }

  async *list(prefix: string): AsyncIterable<string> {
    const base = this.pathOf(prefix);
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

  /**
   * With a lent thread, a writer whose puts run on that thread with synchronous system calls (one hand-off per file
   * instead of three or four to the libuv pool); without one, this store itself.
   */
  openWriter(options: { thread?: SharedThread | undefined }): BlobStore {
    return options.thread ? new OffThreadBlobStore(this, { thread: options.thread }) : this;
  }

  async close(): Promise<void> {
    this.#dirs.clear();
  }
}

/** mkdir of a directory that is already there (made by another process, or by a store on the same root) is fine. */
function existing(err: unknown): void {
  if (code(err) !== 'EEXIST') throw err;
}

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

function dirError(dir: string, cause: unknown): CrawlerError {
  return new CrawlerError('STORAGE', `cannot create directory ${dir}: ${(cause as Error).message}`, {
    cause,
    fix: 'make the data directory writable or choose another with --data / GF_DATA_STORE',
  });
}

function writeError(path: string, cause: unknown): CrawlerError {
  return new CrawlerError('STORAGE', `cannot write ${path}: ${(cause as Error).message}`, {
    cause,
    fix: 'free disk space or make the data directory writable (--data / GF_DATA_STORE)',
  });
}
