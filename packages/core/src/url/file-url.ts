import { basename } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { normalizeFileUrl } from './normalize.js';

/** Whether a url (normalised or not) is a `file:` url: the file-system source. */
export function isFileUrl(url: string | URL): boolean {
  return /^file:/i.test(String(url).trimStart());
}

/**
 * The normal `file:` url of an absolute path (percent-encoded by node:url: spaces, `%`, `#`, `?`, unicode names);
 * `folder` gives it the trailing slash every folder url has.
 */
export function fileUrlOf(path: string, folder = false): string {
  const href = pathToFileURL(path).href;
  const url = normalizeFileUrl(new URL(folder && !href.endsWith('/') ? `${href}/` : href));
  if (url === undefined) throw new Error(`${path} has no local file url`);
  return url;
}

/** The path a local `file:` url names (percent-decoded), or undefined when it names none (`%2F` in a name, a host). */
export function filePathOf(url: string | URL): string | undefined {
  try {
    return fileURLToPath(url);
  } catch {
    return undefined;
  }
}

/** Whether a `file:` url names a folder: its path ends with `/`. */
export function isFolderUrl(url: string): boolean {
  return isFileUrl(url) && new URL(url).pathname.endsWith('/');
}

/**
 * A catalog name for a folder url: the folder's own name (`file:///srv/Team Docs/` → `Team Docs`), with characters a
 * catalog name cannot hold turned into `-`; `files` for the root folder.
 */
export function folderCatalogName(url: string): string {
  const path = filePathOf(url) ?? '';
  const name = basename(path.replace(/\/+$/, ''))
    .replace(/[^\p{L}\p{N} ._:-]+/gu, '-')
    .replace(/^[ -]+|[ -]+$/g, '')
    .slice(0, 100)
    .trim();
  return name === '' ? 'files' : name;
}
