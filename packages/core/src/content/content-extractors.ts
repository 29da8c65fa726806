import { ConfigError } from '../errors.js';
import type { ContentExtractor } from './content-extractor.js';
import { HtmlContentExtractor } from './html-content-extractor.js';
import { ReadabilityContentExtractor } from './readability-extractor.js';

/** Content extractors by name: `html` (the default, one SAX pass) and `readability` (Mozilla Readability on linkedom). */
export const contentExtractors = {
  html: () => new HtmlContentExtractor(),
  readability: () => new ReadabilityContentExtractor(),
} satisfies Record<string, () => ContentExtractor>;

export type ContentExtractorName = keyof typeof contentExtractors;

/** Build a content extractor by name; an unknown name throws ConfigError listing the known ones. */
export function createContentExtractor(name: string): ContentExtractor {
  const factory = (contentExtractors as Record<string, (() => ContentExtractor) | undefined>)[name];
  if (!Object.hasOwn(contentExtractors, name) || !factory) {
    throw new ConfigError(
      'contentExtractor',
      `unknown content extractor "${name}"`,
      `use one of: ${Object.keys(contentExtractors).join(', ')}`,
    );
  }
  return factory();
}
