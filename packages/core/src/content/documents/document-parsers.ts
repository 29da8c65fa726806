import { ConfigError } from '../../errors.js';
import { Registry } from '../../registry.js';
import type { DocumentContentParser } from './document-parser.js';
import { mediaTypeOf, urlExtension } from './document-text.js';
import { DocxDocumentParser } from './docx-parser.js';
import { PdfDocumentParser } from './pdf-parser.js';
import { TextDocumentParser } from './text-parser.js';

/**
 * The built-in document parsers by name: `pdf` (pdf.js), `docx` (Word, read from its zip), `text` (plain text,
 * Markdown, CSV). Each loads its library on its first document, so naming them costs nothing.
 */
export const documentParsers = {
  pdf: () => new PdfDocumentParser(),
  docx: () => new DocxDocumentParser(),
  text: () => new TextDocumentParser(),
} satisfies Record<string, () => DocumentContentParser>;

export type DocumentParserName = keyof typeof documentParsers;

/**
 * The open registry of document parsers. The built-in ones run on the document worker thread (document-pool.ts);
 * one a library user registers (or a built-in name registered anew) runs on the calling thread, since the worker
 * cannot see what was registered after it loaded. `documentKind` asks them in registration order.
 */
export const documentParserRegistry = new Registry<() => DocumentContentParser>('documentParser', documentParsers);

/** Whether `name` is still the built-in parser of that name (so the document worker can run it). */
export function isBuiltInDocumentParser(name: string): name is DocumentParserName {
  return (
    Object.hasOwn(documentParsers, name) &&
    documentParserRegistry.has(name) &&
    documentParserRegistry.get(name) === documentParsers[name as DocumentParserName]
  );
}

const instances = new WeakMap<() => DocumentContentParser, DocumentContentParser>();

/** The parser registered under `name` (one instance per factory). @throws ConfigError listing the known names */
export function documentParser(name: string): DocumentContentParser {
  if (!documentParserRegistry.has(name)) {
    throw new ConfigError(
      'documentParser',
      `unknown document parser "${name}"`,
      `use one of: ${documentParserRegistry.names().join(', ')}`,
    );
  }
  const factory = documentParserRegistry.get(name);
  let parser = instances.get(factory);
  if (!parser) {
    parser = factory();
    instances.set(factory, parser);
  }
  return parser;
}

/** Media types that say nothing about the bytes: the url's extension decides. */
const GENERIC_TYPES = new Set([
  '',
  'application/octet-stream',
  'binary/octet-stream',
  'application/unknown',
  'application/x-download',
  'application/download',
  'application/force-download',
]);

/** The extension a document's original bytes are kept under, by media type, then by url extension. */
const STORED_EXTENSION: Readonly<Record<string, string>> = {
  'application/pdf': '.pdf',
  'application/x-pdf': '.pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': '.docx',
  'text/plain': '.txt',
  'text/markdown': '.md',
  'text/x-markdown': '.md',
  'text/csv': '.csv',
  '.pdf': '.pdf',
  '.docx': '.docx',
  '.txt': '.txt',
  '.text': '.txt',
  '.md': '.md',
  '.markdown': '.md',
  '.csv': '.csv',
};

/** What {@link documentKind} answers: the parser that reads a document and the extension its bytes are kept under. */
export interface DocumentKindOf {
  parser: string;
  extension: string;
}

interface Found {
  name: string;
  parser: DocumentContentParser;
}

/** The first registered parser (in registration order) that `reads` the answer. */
function find(reads: (p: DocumentContentParser) => boolean): Found | undefined {
  for (const name of documentParserRegistry.names()) {
    const parser = documentParser(name);
    if (reads(parser)) return { name, parser };
  }
  return undefined;
}

/**
 * Which parser reads an answer, and the extension to keep its original bytes under (`.pdf`, `.docx`, `.txt`, `.md`,
 * `.csv`); undefined when it is not a document (html, xhtml, xml, pictures, anything no parser reads).
 * The media type decides; a missing or generic one (`application/octet-stream`, `binary/octet-stream`, …) and a
 * `file:` url (whose type is only a guess from its name) go by the url path's extension. `text/plain` for a `.md`
 * or `.csv` url is kept as `.md` / `.csv`: raw file hosts send every text file as text/plain.
 */
export function documentKind(contentType: string, url: string): DocumentKindOf | undefined {
  const type = mediaTypeOf(contentType);
  const extension = urlExtension(url);
  const isFile = url.startsWith('file:');
  let found: Found | undefined;
  if ((isFile || GENERIC_TYPES.has(type)) && extension) found = find((p) => p.extensions.includes(extension));
  if (!found && !GENERIC_TYPES.has(type)) found = find((p) => p.mediaTypes.includes(type));
  if (!found) return undefined;
  const { name, parser } = found;
  const byUrl = parser.extensions.includes(extension) ? (STORED_EXTENSION[extension] ?? extension) : undefined;
  const stored =
    (type === 'text/plain' || isFile || GENERIC_TYPES.has(type) ? byUrl : undefined) ??
    (parser.mediaTypes.includes(type) ? STORED_EXTENSION[type] : undefined) ??
    byUrl ??
    parser.extensions[0] ??
    '';
  return { parser: name, extension: stored };
}

/** The media types the registered parsers read, lower case (the fetch layer accepts these as documents). */
export function documentMediaTypes(): string[] {
  const types = new Set<string>();
  for (const name of documentParserRegistry.names()) for (const t of documentParser(name).mediaTypes) types.add(t);
  return [...types];
}

/** The url extensions the registered parsers read when the type says nothing (with the dot). */
export function documentParserExtensions(): string[] {
  const exts = new Set<string>();
  for (const name of documentParserRegistry.names()) for (const e of documentParser(name).extensions) exts.add(e);
  return [...exts];
}
