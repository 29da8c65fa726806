import { statSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { filePathOf, fileUrlOf } from './file-url.js';
import { normalizeFileUrl, normalizeUrl } from './normalize.js';

const FIX = 'give a full http(s) url such as https://example.com/';
const FIX_FILE = 'give a local folder as file:///path/to/folder/ (or its absolute path /path/to/folder)';

/**
 * A local folder or file the user named, as a `file:` url in normal form: `file:///abs/path` or a plain absolute
 * path `/abs/path`. A path that is a folder on disk gets its trailing slash (`file:///srv/docs` →
 * `file:///srv/docs/`); nothing else is checked on disk, so a url of a file since deleted can still be looked up.
 */
function parseUserFileUrl(text: string, field: string): string {
  let url: URL;
  try {
    url = text.startsWith('/') ? new URL(fileUrlOf(text)) : new URL(text);
  } catch (cause) {
    throw new ConfigError(field, `"${text}" is not a valid file url`, FIX_FILE, cause);
  }
  if (url.host !== '') {
    throw new ConfigError(
      field,
      `"${text}" names the machine "${url.host}": only a local folder can be crawled`,
      `${FIX_FILE}; mount the share and crawl its local path`,
    );
  }
  const normalized = normalizeFileUrl(url);
  const path = normalized === undefined ? undefined : filePathOf(normalized);
  if (normalized === undefined || path === undefined) {
    throw new ConfigError(field, `"${text}" names no local path (an encoded "/" in a name?)`, FIX_FILE);
  }
  if (normalized.endsWith('/')) return normalized;
  try {
    return statSync(path).isDirectory() ? `${normalized}/` : normalized;
  } catch {
    return normalized;
  }
}

/**
 * Checks a url a user typed (CLI flag, API field) and returns its normal form.
 * Adds nothing silently: `example.com` (no scheme) is refused, not guessed into `http://example.com/`.
 * A local folder is given as `file:///abs/folder/` or as its absolute path `/abs/folder` (the file-system source);
 * `file://host/…` (another machine) and relative paths are refused.
 *
 * @param input the text as given
 * @param field the option it came from, named in the error (e.g. `--url`)
 * @throws ConfigError naming `field`, for a malformed, non-http(s) or host-less url, or a non-local file url
 */
export function parseUserUrl(input: string, field: string): string {
  const text = input.trim();
  if (text === '') throw new ConfigError(field, 'is empty', FIX);
  if (text.startsWith('/') || /^file:/i.test(text)) return parseUserFileUrl(text, field);
  if (/^\.\.?\//.test(text)) {
    throw new ConfigError(field, `"${text}" is a relative path`, `${FIX_FILE}, or ${FIX.replace(/^give /, '')}`);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch (cause) {
    throw new ConfigError(field, `"${text}" is not a valid url`, FIX, cause);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(
      field,
      `"${text}" uses ${url.protocol} but only http and https (or file: for a local folder) can be crawled`,
      FIX,
    );
  }
  if (url.hostname === '' || !/^https?:\/\/[^/?#\\]/i.test(text)) {
    throw new ConfigError(field, `"${text}" has no host after http:// or https://`, FIX);
  }
  const normalized = normalizeUrl(text);
  if (normalized === undefined) throw new ConfigError(field, `"${text}" is not a crawlable url`, FIX);
  return normalized;
}
