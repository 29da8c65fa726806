import { randomBytes } from 'node:crypto';
import { type BigIntStats, statSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CrawlerError } from '../errors.js';

/**
 * The vectors of a published version still being written (or left incomplete by a stop or a crash, until resume
 * completes them): its pages, how many have a vector — meaning search finds those — and how many have all of theirs.
 */
export interface EmbeddingState {
  version: number;
  pages: number;
  embedded: number;
  complete: number;
}

/** What search may read of one catalog. Lives in `user/index/catalogs.json`, never in the database. */
export interface PublishedCatalog {
  catalogId: string;
  name: string;
  url: string;
  /** The catalog's category (`settings.cat`): what search's `cat` filter matches. Absent in a record written before. */
  cat?: string | undefined;
  /** The version words search reads (and meaning search, unless `meaningVersion` says otherwise); -1 = nothing yet. */
  searchVersion: number;
  /**
   * The version meaning search reads when it is not `searchVersion`: the previous complete version, kept while the
   * vectors of a rebuilt `searchVersion` are still being written. Absent = `searchVersion`.
   */
  meaningVersion?: number | undefined;
  /** Present while the vectors of a published version are incomplete (see {@link EmbeddingState}). */
  embedding?: EmbeddingState | undefined;
  /** Versions kept on disk (for browsing older versions), ascending. */
  versions: number[];
  updatedAt?: string | undefined;
}

/** The version meaning search reads of a published catalog. */
export function meaningVersionOf(c: Pick<PublishedCatalog, 'searchVersion' | 'meaningVersion'>): number {
  return c.meaningVersion ?? c.searchVersion;
}

interface RegistryFile {
  format: 1;
  catalogs: PublishedCatalog[];
}

/**
 * The tiny, self-contained record of what search may read: catalog id, name, url and the published version.
 * Search takes its scopes from here, so it keeps answering with the database gone. Every write replaces the
 * file atomically (temp file + rename), so a reader never sees half a file.
 */
export class PublishedCatalogs {
  readonly file: string;
  readonly #dir: string;
  #writing: Promise<unknown> = Promise.resolve();
  /** The file's text as last read, and the stat it was read under (see #read). */
  #cached: { stamp: string; raw: string } | undefined;

  /** @param indexRoot the `user/index` directory (DataLayout.indexRoot). */
  constructor(indexRoot: string) {
    this.#dir = indexRoot;
    this.file = join(indexRoot, 'catalogs.json');
  }

  /** Adds or replaces the record of a catalog (keyed by catalogId). */
  async publish(catalog: PublishedCatalog): Promise<PublishedCatalog> {
    if (!catalog.catalogId) {
      throw new CrawlerError('BAD_INPUT', 'a published catalog needs its catalogId', { fix: 'pass the catalog id' });
    }
    if (!Number.isInteger(catalog.searchVersion) || catalog.searchVersion < -1) {
      throw new CrawlerError(
        'BAD_INPUT',
        `searchVersion ${catalog.searchVersion} of catalog ${catalog.name} is not a version`,
        {
          fix: 'use -1 (nothing published) or a version number from 0',
        },
      );
    }
    const meaning = catalog.meaningVersion;
    if (meaning !== undefined && (!Number.isInteger(meaning) || meaning < 0)) {
      throw new CrawlerError('BAD_INPUT', `meaningVersion ${meaning} of catalog ${catalog.name} is not a version`, {
        fix: 'leave it out (meaning search then reads searchVersion) or give a version number from 0',
      });
    }
    const record: PublishedCatalog = {
      catalogId: catalog.catalogId,
      name: catalog.name,
      url: catalog.url,
      ...(catalog.cat ? { cat: catalog.cat } : {}),
      searchVersion: catalog.searchVersion,
      ...(meaning !== undefined && meaning !== catalog.searchVersion ? { meaningVersion: meaning } : {}),
      ...(catalog.embedding ? { embedding: { ...catalog.embedding } } : {}),
      versions: [...new Set(catalog.versions)].sort((a, b) => a - b),
      updatedAt: catalog.updatedAt ?? new Date().toISOString(),
    };
    await this.#update((list) => [...list.filter((c) => c.catalogId !== record.catalogId), record]);
    return record;
  }

  /** Forgets a catalog (its search disappears). Returns whether it was there. */
  async remove(catalogId: string): Promise<boolean> {
    let found = false;
    await this.#update((list) => {
      found = list.some((c) => c.catalogId === catalogId);
      return list.filter((c) => c.catalogId !== catalogId);
    });
    return found;
  }

  /** Every catalog, sorted by name. */
  async list(): Promise<PublishedCatalog[]> {
    return (await this.#read()).sort((a, b) => a.name.localeCompare(b.name) || a.catalogId.localeCompare(b.catalogId));
  }

  /** By id first, then by name (case-insensitive); null when neither matches. */
  async resolve(idOrName: string): Promise<PublishedCatalog | null> {
    const list = await this.#read();
    return (
      list.find((c) => c.catalogId === idOrName) ??
      list.find((c) => c.name === idOrName) ??
      list.find((c) => c.name.toLowerCase() === idOrName.toLowerCase()) ??
      null
    );
  }

  /** The `catalogId:searchVersion` scopes of every published catalog, or of the ones named. */
  async scopes(idsOrNames?: string[]): Promise<Array<{ catalogId: string; version: number }>> {
    const chosen = idsOrNames?.length
      ? (await Promise.all(idsOrNames.map((n) => this.resolve(n)))).filter((c): c is PublishedCatalog => c !== null)
      : await this.list();
    return chosen
      .filter((c) => c.searchVersion >= 0)
      .map((c) => ({ catalogId: c.catalogId, version: c.searchVersion }));
  }

  /**
   * Every search reads the list, so the text is kept and read again only when the file's stat changed: a read of
   * the file goes through the thread pool a crawl writes its files with. A file changed less than a second before
   * it was read is read again each time (two replacements within the clock's step could share a stat).
   */
  async #read(): Promise<PublishedCatalog[]> {
    const readAt = Date.now();
    let st: BigIntStats;
    try {
      const found = statSync(this.file, { bigint: true, throwIfNoEntry: false });
      if (!found) return [];
      st = found;
    } catch (err) {
      throw new CrawlerError('STORAGE', `cannot read ${this.file}: ${(err as Error).message}`, { cause: err });
    }
    const stamp = `${st.ino}:${st.mtimeNs}:${st.ctimeNs}:${st.size}`;
    let raw = this.#cached?.stamp === stamp ? this.#cached.raw : undefined;
    if (raw === undefined) {
      try {
        raw = await readFile(this.file, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw new CrawlerError('STORAGE', `cannot read ${this.file}: ${(err as Error).message}`, { cause: err });
      }
      // Stat before read: a replacement in between leaves a stale stamp, which the next read sees changed.
      this.#cached = readAt - Number(st.mtimeMs) > 1000 ? { stamp, raw } : undefined;
    }
    try {
      const parsed = JSON.parse(raw) as RegistryFile;
      if (!Array.isArray(parsed.catalogs)) throw new Error('no catalogs array');
      return parsed.catalogs;
    } catch (err) {
      throw new CrawlerError('CORRUPT', `${this.file} is not a catalog registry: ${(err as Error).message}`, {
        cause: err,
        fix: 'delete the file and publish the catalogs again (the shell re-publishes them on start)',
      });
    }
  }

  #update(change: (list: PublishedCatalog[]) => PublishedCatalog[]): Promise<void> {
    const next = this.#writing.then(async () => {
      const list = change(await this.#read());
      const body: RegistryFile = { format: 1, catalogs: list };
      await mkdir(this.#dir, { recursive: true });
      const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        await writeFile(tmp, `${JSON.stringify(body, null, 2)}\n`);
        await rename(tmp, this.file);
      } catch (err) {
        await rm(tmp, { force: true });
        throw new CrawlerError('STORAGE', `cannot write ${this.file}: ${(err as Error).message}`, {
          cause: err,
          fix: 'check that the data directory is writable',
        });
      }
    });
    this.#writing = next.catch(() => undefined);
    return next;
  }
}
