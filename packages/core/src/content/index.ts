export type * from './content-extractor.js';
export {
  type ContentExtractorName,
  contentExtractorRegistry,
  contentExtractors,
  createContentExtractor,
  isBuiltInContentExtractor,
} from './content-extractors.js';
export { type ExtractCallOptions, ExtractPool, type ExtractPoolOptions } from './extract-pool.js';
export { contentFromScan, HtmlContentExtractor, type HtmlContentExtractorOptions } from './html-content-extractor.js';
export {
  type BlockNode,
  largestSrcsetCandidate,
  type PageScan,
  scanHtml,
  type TextSegment,
  trimText,
  weightedLength,
} from './html-scan.js';
export { ReadabilityContentExtractor } from './readability-extractor.js';
