import { ConfigError } from '../errors.js';
import type { ContentDedupKind } from '../model.js';
import { Sha256ContentDedup } from './sha256-content-dedup.js';
import { SimhashContentDedup, type SimhashContentDedupOptions } from './simhash-content-dedup.js';
import type { ContentDedupFilter } from './url-filter.js';

/** Options of {@link createContentDedup}; only the simhash kind reads them. */
export type ContentDedupOptions = SimhashContentDedupOptions;

/**
 * Open the content dedup filter of the given kind on the LevelDB at `dir` (`DataLayout.contentDedupDir`).
 * @throws ConfigError for an unknown kind; CrawlerError CONFLICT / CORRUPT when the store cannot be opened.
 */
export async function createContentDedup(
  kind: ContentDedupKind,
  dir: string,
  options: ContentDedupOptions = {},
): Promise<ContentDedupFilter> {
  if (kind === 'sha256') return Sha256ContentDedup.open(dir);
  if (kind === 'simhash') return SimhashContentDedup.open(dir, options);
  throw new ConfigError('contentDedup', `unknown kind "${String(kind)}"`, 'use sha256 or simhash (GF_CONTENT_DEDUP)');
}
