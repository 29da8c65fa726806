import { ConfigError } from '../errors.js';
import type { Catalog } from '../model.js';
import { normalizeUrl } from '../url/normalize.js';

/** catalog.url parsed once, for the two scope acceptors. */
export function catalogScopeUrl(catalog: Catalog): URL {
  const normalized = normalizeUrl(catalog.url);
  if (normalized === undefined) {
    throw new ConfigError(
      '--url',
      `catalog "${catalog.name}" has url "${catalog.url}", which is not an http(s) url`,
      'give a full http(s) url such as https://example.com/',
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
