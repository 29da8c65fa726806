export {
  type CharsetDetection,
  type CharsetSource,
  charsetFromContentType,
  decodeBody,
  detectCharset,
} from './charset.js';
export type * from './extractor.js';
export { HttpExtractor, type HttpExtractorOptions, isMarkupType } from './http-extractor.js';
export { HostPoliteness, type HostPolitenessOptions, type Release } from './politeness.js';
export { parseRetryAfter, type RetryOptions, withRetry } from './with-retry.js';
