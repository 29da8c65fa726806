import { ConfigError } from '../errors.js';
import type { Catalog } from '../model.js';
import { normalizeUrl } from '../url/normalize.js';

/**
 * catalog.url parsed once, for the two scope acceptors. A catalog of a folder has a `file:` url: its host is empty,
 * so only `file:` urls share its domain, and its path is the folder's.
 */
export function catalogScopeUrl(catalog: Catalog): URL {
  const normalized = normalizeUrl(catalog.url, undefined, { file: true });
  if (normalized === undefined) {
    throw new ConfigError(
      '--url',
      `catalog "${catalog.name}" has url "${catalog.url}", which is neither an http(s) url nor a local file: url`,
      'give a full http(s) url such as https://example.com/, or a folder as file:///path/to/folder/',
    );
  }
  return new URL(normalized);
}

/** Parses a candidate url, or undefined when it is not one. */
export function tryParseUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}
