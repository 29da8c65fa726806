export { AdaptiveExtractor } from './adaptive-extractor.js';
export { BrowserExtractor, type BrowserExtractorOptions, CHROMIUM_ARGS } from './browser-extractor.js';
export {
  type CharsetDetection,
  type CharsetSource,
  charsetFromContentType,
  type DecodedBody,
  decodeBody,
  detectCharset,
} from './charset.js';
export { type ContentKind, contentKind, isMarkupType, isPageType, looksBinary } from './content-type.js';
export type * from './extractor.js';
export { FileExtractor, type FileExtractorOptions, fileEtag, MAX_FOLDER_ENTRIES } from './file-extractor.js';
export { FileRenderMemory, type FileRenderMemoryOptions } from './file-render-memory.js';
export { FILE_TYPES, FOLDER_TYPE, fileContentType, UNKNOWN_FILE_TYPE } from './file-types.js';
export { AdaptivePace, MAX_PAUSE_MS } from './host-pace.js';
export { HttpExtractor, type HttpExtractorOptions } from './http-extractor.js';
export { observedExtractor } from './observed-extractor.js';
export {
  type HostAnswer,
  type HostPaceControl,
  HostPoliteness,
  type HostPolitenessOptions,
  type HostRate,
  type HostReadiness,
  type PaceObserver,
  type Pacer,
  type Release,
  type Reservation,
} from './politeness.js';
export {
  adviseRender,
  DEFAULT_RENDER_POLICY,
  isPatternRecord,
  noRenderMemory,
  observe as observeRender,
  type PatternRecord,
  type RenderMemory,
  type RenderObservation,
  type RenderPolicy,
} from './render-memory.js';
export { renderPattern } from './render-pattern.js';
export {
  createRenderingDetector,
  RENDER_REASONS,
  type RenderDecision,
  type RenderingDetector,
  type RenderingDetectorOptions,
  type RenderReason,
} from './rendering-detector.js';
export { parseRetryAfter, type RetryOptions, withRetry } from './with-retry.js';
