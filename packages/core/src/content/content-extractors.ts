import { ConfigError } from '../errors.js';
import { Registry } from '../registry.js';
import type { ContentExtractor } from './content-extractor.js';
import { HtmlContentExtractor } from './html-content-extractor.js';
import { ReadabilityContentExtractor } from './readability-extractor.js';

/** Content extractors by name: `html` (the default, one SAX pass) and `readability` (Mozilla Readability on linkedom). */
export const contentExtractors = {
  html: () => new HtmlContentExtractor(),
  readability: () => new ReadabilityContentExtractor(),
} satisfies Record<string, () => ContentExtractor>;

export type ContentExtractorName = keyof typeof contentExtractors;

/**
 * The open registry of content extractors a catalog names in `contentExtractor`. The built-in ones run on the
 * extraction worker threads (each thread builds its own); one a library user registers runs on the calling thread,
 * since a worker thread cannot see what was registered after it loaded.
 */
export const contentExtractorRegistry = new Registry<() => ContentExtractor>('--content-extractor', contentExtractors);

/** Whether a content extractor name is a built-in one (available on the worker threads). */
export function isBuiltInContentExtractor(name: string): name is ContentExtractorName {
  return Object.hasOwn(contentExtractors, name);
}

/** Build a content extractor by name; an unknown name throws ConfigError listing the known ones. */
export function createContentExtractor(name: string): ContentExtractor {
  if (!contentExtractorRegistry.has(name)) {
    throw new ConfigError(
      'contentExtractor',
      `unknown content extractor "${name}"`,
      `use one of: ${contentExtractorRegistry.names().join(', ')}`,
    );
  }
  return contentExtractorRegistry.get(name)();
}
