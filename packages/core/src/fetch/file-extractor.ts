import type { Dirent, Stats } from 'node:fs';
import { type FileHandle, open, opendir, realpath, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { FetchError } from '../errors.js';
import { filePathOf, fileUrlOf } from '../url/file-url.js';
import { normalizeFileUrl } from '../url/normalize.js';
import { decodeBody, detectCharset } from './charset.js';
import { contentKind } from './content-type.js';
import type { Extractor, FetchOptions, FetchResult } from './extractor.js';
import { FOLDER_TYPE, fileContentType } from './file-types.js';

/** Options of {@link FileExtractor}. */
export interface FileExtractorOptions {
  /** Body cap in bytes (GF_MAX_BODY_BYTES); `FetchOptions.maxBytes` overrides it per request. */
  maxBodyBytes: number;
  /**
   * The folder (or file) the catalog covers. A url whose real path (symlinks resolved) leaves it answers 403, and a
   * listing leaves out the symlinks pointing outside it. Without it symlinks are followed anywhere (loops aside).
   */
  root?: string | undefined;
  /** Entries listed per folder; past it the rest are dropped with a warning. @default 100000 */
  maxEntries?: number | undefined;
  /** Folders resolved when a symlinked folder is checked for a loop (the depth of the path it sits on). @default 256 */
  maxLoopCheckDepth?: number | undefined;
  log?: Logger | undefined;
}

/** The default of {@link FileExtractorOptions.maxEntries}. */
export const MAX_FOLDER_ENTRIES = 100_000;

/** How much is read from a file at a time. */
const CHUNK_BYTES = 1 << 20;

/** The errno codes of a path that is not there: a 404. */
const MISSING = new Set(['ENOENT', 'ENOTDIR', 'ENAMETOOLONG']);
/** The errno codes of a path the crawler may not read: a 403. */
const DENIED = new Set(['EACCES', 'EPERM']);
/** The errno codes worth another attempt (the process ran out of descriptors for a moment, a busy device). */
const RETRYABLE = new Set(['EMFILE', 'ENFILE', 'EAGAIN', 'EBUSY', 'EINTR']);

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** An http-like answer without a body: what the engine's status stage reads for a file that cannot be served. */
function statusOnly(finalUrl: string, status: number, started: number, headers: Record<string, string> = {}) {
  return {
    finalUrl,
    redirects: [],
    status,
    contentType: '',
    charset: '',
    headers,
    body: Buffer.alloc(0),
    etag: null,
    lastModified: null,
    elapsedMs: performance.now() - started,
  } satisfies FetchResult;
}

/** `"<size>-<mtimeMs>"`: changes whenever the file's length or modification time does (to the millisecond). */
export function fileEtag(st: Pick<Stats, 'size' | 'mtimeMs'>): string {
  return `"${st.size}-${Math.trunc(st.mtimeMs)}"`;
}

/**
 * Conditional request (RFC 9110 §13.2.2): an If-None-Match (the stored etag) decides alone when given; otherwise
 * If-Modified-Since holds when the file was not modified after it (HTTP dates have whole seconds).
 */
function unmodified(options: FetchOptions, etag: string, mtimeMs: number): boolean {
  if (options.etag) return options.etag === etag;
  if (!options.lastModified) return false;
  const since = Date.parse(options.lastModified);
  return Number.isFinite(since) && Math.floor(mtimeMs / 1000) * 1000 <= since;
}

function isInside(real: string, root: string): boolean {
  return real === root || real.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/**
 * The file-system source's fetcher: a `file:` url answered like an http request, so the crawl runs the same
 * pipeline over a folder as over a site.
 *
 * - a regular file: 200, its bytes (under the cap, else FetchError `too-large`), the content type of its extension,
 *   `lastModified` its mtime as an HTTP date, `etag` `"<size>-<mtimeMs>"`; 304 with an empty body when the request's
 *   etag (or, without one, its If-Modified-Since) says the stored copy is current. As for http, a page fetch
 *   (`pagesOnly`) reads only html and a plain fetch only markup or text: other bodies are left unread.
 * - a folder: 200, `inode/directory`, and on a GET (never a HEAD) `children`: the urls of its entries, folders with
 *   a trailing slash, sorted, dot-files left out, symlinks leaving the root or looping back left out, at most
 *   `maxEntries`. A folder url without its trailing slash answers 301 to the url with it (followed inside the fetch
 *   when the request allows redirects).
 * - missing 404, not readable 403, a symlink out of the root 403, a symlink loop 508, a fifo, socket or device 403
 *   (never opened: a fifo would block the read).
 * - HEAD: the same status and metadata, no body.
 */
export class FileExtractor implements Extractor {
  readonly name = 'file';
  readonly #maxBodyBytes: number;
  readonly #root: string | undefined;
  readonly #maxEntries: number;
  readonly #maxLoopCheckDepth: number;
  readonly #log: Logger | undefined;
  #realRoot: Promise<string | undefined> | undefined;

  constructor(options: FileExtractorOptions) {
    this.#maxBodyBytes = options.maxBodyBytes;
    this.#root = options.root;
    this.#maxEntries = Math.max(1, options.maxEntries ?? MAX_FOLDER_ENTRIES);
    this.#maxLoopCheckDepth = Math.max(1, options.maxLoopCheckDepth ?? 256);
    this.#log = options.log;
  }

  async fetch(url: string, options: FetchOptions = {}): Promise<FetchResult> {
    const started = performance.now();
    if (options.signal?.aborted) {
      throw new FetchError(`fetch of ${url} was cancelled`, { reason: 'aborted', retryable: false });
    }
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    const finalUrl = parsed ? normalizeFileUrl(parsed) : undefined;
    const path = finalUrl ? filePathOf(finalUrl) : undefined;
    if (!finalUrl || path === undefined) {
      throw new FetchError(`cannot fetch ${url}: not a local file url (file:///path)`, {
        reason: 'invalid-url',
        retryable: false,
      });
    }
    let st: Stats;
    let real: string;
    try {
      st = await stat(path);
      real = await realpath(path);
    } catch (err) {
      return this.#failure(err, url, finalUrl, started);
    }
    const root = await this.#rootReal();
    if (root !== undefined && !isInside(real, root)) {
      this.#log?.debug({ url: finalUrl, real }, 'refused: a symlink leaving the catalog folder');
      return statusOnly(finalUrl, 403, started, { 'x-refused': `resolves to ${real}, outside ${root}` });
    }
    if (st.isDirectory()) return this.#folder(finalUrl, path, real, st, options, started);
    if (!st.isFile()) return statusOnly(finalUrl, 403, started, { 'x-refused': 'not a regular file' });
    if (finalUrl.endsWith('/')) return statusOnly(finalUrl, 404, started);
    return this.#file(finalUrl, path, options, started);
  }

  async #folder(
    url: string,
    path: string,
    real: string,
    st: Stats,
    options: FetchOptions,
    started: number,
  ): Promise<FetchResult> {
    if (!url.endsWith('/')) {
      const target = `${url}/`;
      if ((options.maxRedirects ?? 1) === 0) {
        return statusOnly(url, 301, started, { location: target });
      }
      const answer = await this.#folder(target, path, real, st, options, started);
      return { ...answer, redirects: [url] };
    }
    const etag = fileEtag(st);
    const lastModified = st.mtime.toUTCString();
    const result: FetchResult = {
      finalUrl: url,
      redirects: [],
      status: 200,
      contentType: FOLDER_TYPE,
      charset: '',
      headers: { 'content-type': FOLDER_TYPE, 'last-modified': lastModified, etag },
      body: Buffer.alloc(0),
      etag,
      lastModified,
      elapsedMs: 0,
    };
    if (options.method !== 'HEAD') {
      try {
        result.children = await this.#list(url, path, real, options.signal);
      } catch (err) {
        return this.#failure(err, url, url, started);
      }
    }
    result.elapsedMs = performance.now() - started;
    return result;
  }

  /** The entries of a folder as urls, bounded, sorted; see the class comment for what is left out. */
  async #list(url: string, path: string, real: string, signal: AbortSignal | undefined): Promise<string[]> {
    const children: string[] = [];
    let more = false;
    const dir = await opendir(path, { bufferSize: 256 });
    try {
      for await (const entry of dir) {
        if (entry.name.startsWith('.')) continue;
        if (children.length >= this.#maxEntries) {
          more = true;
          break;
        }
        if (signal?.aborted) break;
        const child = await this.#child(entry, path, real);
        if (child !== undefined) children.push(fileUrlOf(join(path, entry.name), child === 'folder'));
      }
    } finally {
      // Breaking out of the loop closes the handle; a finished loop has closed it too.
      await dir.close().catch(() => undefined);
    }
    if (more) {
      this.#log?.warn(
        { url, listed: this.#maxEntries },
        `folder has more than ${this.#maxEntries} entries: the rest are not crawled`,
      );
    }
    return children.sort();
  }

  /** What an entry is to the listing: a file, a folder, or left out (undefined). */
  async #child(entry: Dirent, folder: string, folderReal: string): Promise<'file' | 'folder' | undefined> {
    if (entry.isFile()) return 'file';
    if (entry.isDirectory()) return 'folder';
    if (!entry.isSymbolicLink()) return undefined;
    const linkPath = join(folder, entry.name);
    let st: Stats;
    let target: string;
    try {
      st = await stat(linkPath);
      target = await realpath(linkPath);
    } catch {
      return undefined; // dangling, a loop of links, or unreadable
    }
    const root = await this.#rootReal();
    if (root !== undefined && !isInside(target, root)) {
      this.#log?.debug({ link: linkPath, target }, 'symlink leaving the catalog folder not listed');
      return undefined;
    }
    if (st.isFile()) return 'file';
    if (!st.isDirectory()) return undefined;
    if (await this.#loops(target, folder, folderReal)) {
      this.#log?.debug({ link: linkPath, target }, 'symlink back to a folder above it not listed');
      return undefined;
    }
    return 'folder';
  }

  /**
   * Whether a symlinked folder's target is the folder it sits in or one above it on the path it was reached by:
   * listing it would repeat that folder under ever longer urls.
   */
  async #loops(target: string, folder: string, folderReal: string): Promise<boolean> {
    if (isInside(folderReal, target)) return true;
    let dir = folder;
    for (let i = 0; i < this.#maxLoopCheckDepth; i++) {
      const up = dirname(dir);
      if (up === dir) return false;
      dir = up;
      const real = await realpath(dir).catch(() => undefined);
      if (real === target) return true;
    }
    return true;
  }

  async #file(url: string, path: string, options: FetchOptions, started: number): Promise<FetchResult> {
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (err) {
      return this.#failure(err, url, url, started);
    }
    try {
      // The open file's own metadata: the file may have been replaced since the stat.
      const st = await handle.stat();
      if (!st.isFile()) return statusOnly(url, 403, started, { 'x-refused': 'not a regular file' });
      const contentType = fileContentType(path);
      const etag = fileEtag(st);
      const lastModified = st.mtime.toUTCString();
      const headers = {
        'content-type': contentType,
        'content-length': String(st.size),
        'last-modified': lastModified,
        etag,
      };
      const base = { finalUrl: url, redirects: [], contentType, headers, etag, lastModified };
      const empty = { ...base, charset: '', body: Buffer.alloc(0) };
      if (unmodified(options, etag, st.mtimeMs)) {
        return { ...empty, status: 304, elapsedMs: performance.now() - started };
      }
      const kind = contentKind(contentType);
      const markup = kind !== 'other';
      const documentCap = options.document?.(contentType, url);
      const wanted = options.binary || documentCap !== undefined || (options.pagesOnly ? kind === 'page' : markup);
      if (options.method === 'HEAD' || !wanted) {
        return { ...empty, status: 200, elapsedMs: performance.now() - started };
      }
      const cap = documentCap ?? options.maxBytes ?? this.#maxBodyBytes;
      if (st.size > cap) throw tooLarge(url, `${st.size} bytes`, cap);
      const body = await readCapped(handle, cap, url, options.signal);
      const result: FetchResult = { ...base, status: 200, charset: '', body, elapsedMs: 0 };
      if (markup && options.decode === false) {
        result.charset = detectCharset(body, contentType).charset;
      } else if (markup) {
        const decoded = decodeBody(body, contentType);
        result.charset = decoded.charset;
        result.text = decoded.text;
      }
      result.elapsedMs = performance.now() - started;
      return result;
    } catch (err) {
      if (err instanceof FetchError) throw err;
      return this.#failure(err, url, url, started);
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  /** An errno as an answer (404, 403, 508) or, for anything else, a FetchError. */
  #failure(err: unknown, asked: string, url: string, started: number): FetchResult {
    const code = codeOf(err);
    if (MISSING.has(code)) return statusOnly(url, 404, started);
    if (DENIED.has(code)) return statusOnly(url, 403, started, { 'x-refused': 'permission denied' });
    if (code === 'ELOOP') return statusOnly(url, 508, started, { 'x-refused': 'a loop of symlinks' });
    const what = err instanceof Error ? err.message : String(err);
    throw new FetchError(`cannot read ${asked}: ${what}`, {
      reason: 'network',
      retryable: RETRYABLE.has(code),
      cause: err,
    });
  }

  #rootReal(): Promise<string | undefined> {
    if (this.#root === undefined) return Promise.resolve(undefined);
    this.#realRoot ??= realpath(this.#root).catch(() => this.#root);
    return this.#realRoot;
  }

  async close(): Promise<void> {}

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function tooLarge(url: string, size: string, cap: number): FetchError {
  return new FetchError(`body of ${url} too large: ${size}, cap ${cap}; raise GF_MAX_BODY_BYTES to keep it`, {
    reason: 'too-large',
    retryable: false,
  });
}

/** Read an open file to its end, at most `cap` bytes (a file growing while it is read past it is too large). */
async function readCapped(handle: FileHandle, cap: number, url: string, signal: AbortSignal | undefined) {
  const chunks: Buffer[] = [];
  let size = 0;
  // Bounded: every turn reads at least one byte or ends, and more than cap + 1 bytes are never read.
  for (;;) {
    if (signal?.aborted) throw new FetchError(`fetch of ${url} was cancelled`, { reason: 'aborted', retryable: false });
    const want = Math.min(CHUNK_BYTES, cap + 1 - size);
    const chunk = Buffer.allocUnsafe(want);
    const { bytesRead } = await handle.read(chunk, 0, want, size);
    if (bytesRead === 0) break;
    size += bytesRead;
    if (size > cap) throw tooLarge(url, `more than ${cap} bytes`, cap);
    chunks.push(bytesRead === want ? chunk : chunk.subarray(0, bytesRead));
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
}
