export type * from './content-extractor.js';
export {
  type ContentExtractorName,
  contentExtractorRegistry,
  contentExtractors,
  createContentExtractor,
  isBuiltInContentExtractor,
} from './content-extractors.js';
export { CSV_CELL_SEPARATOR, csvText, parseCsv } from './documents/csv-text.js';
export { checkedDocument, type DocumentContent, documentContent } from './documents/document-content.js';
export { DOCUMENT_FAILURE_REASONS, DocumentError, type DocumentFailureReason } from './documents/document-error.js';
export type { DocumentContentParser, ParsedDocument } from './documents/document-parser.js';
export {
  type DocumentKindOf,
  type DocumentParserName,
  documentKind,
  documentMediaTypes,
  documentParser,
  documentParserExtensions,
  documentParserRegistry,
  documentParsers,
  isBuiltInDocumentParser,
} from './documents/document-parsers.js';
export { DocumentPool, type DocumentPoolOptions } from './documents/document-pool.js';
export { MAX_DOCUMENT_LINKS, MAX_DOCUMENT_TEXT } from './documents/document-text.js';
export { DOCX_MEDIA_TYPE, DocxDocumentParser } from './documents/docx-parser.js';
export { type MarkdownText, markdownText } from './documents/markdown-text.js';
export { MAX_PDF_PAGES, PdfDocumentParser } from './documents/pdf-parser.js';
export { TextDocumentParser, type TextFlavour, textFlavour } from './documents/text-parser.js';
export { type ExtractCallOptions, ExtractPool, type ExtractPoolOptions } from './extract-pool.js';
export { contentFromScan, HtmlContentExtractor, type HtmlContentExtractorOptions } from './html-content-extractor.js';
export {
  type ArticleOptions,
  articleHtml,
  articleMarkdown,
  htmlToMarkdown,
  MARKDOWN_MAX_HTML_CHARS,
} from './html-markdown.js';
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
export { shortTextDiff } from './text-diff.js';
export {
  compareText,
  normalizedChecksum,
  normalizeVolatile,
  ONLY_VOLATILE,
  type TextChange,
} from './volatile-text.js';
