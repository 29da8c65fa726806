import type { ExtractedContent } from '../content-extractor.js';
import type { ParsedDocument } from './document-parser.js';

/** A document as the crawl keeps it: the content a page's extraction gives, what it says about itself, who read it. */
export interface DocumentContent extends ExtractedContent {
  /** Author, subject, keywords, created, modified, pages, …: every value a string. */
  metadata: Record<string, string>;
  /** The registry name of the parser that read it (`pdf`, `docx`, `text`, or a library user's). */
  parser: string;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * A parser's answer with every field of the right type (a library user's parser may return less): strings stay,
 * anything else becomes ''; links keep their strings; metadata keeps its string and number values as strings.
 */
export function checkedDocument(doc: unknown): ParsedDocument {
  const d = (doc ?? {}) as Partial<Record<keyof ParsedDocument, unknown>>;
  const metadata: Record<string, string> = {};
  if (d.metadata && typeof d.metadata === 'object') {
    for (const [k, v] of Object.entries(d.metadata)) {
      if (typeof v === 'string' || typeof v === 'number') metadata[k] = String(v);
    }
  }
  return {
    title: text(d.title).trim(),
    text: text(d.text),
    links: Array.isArray(d.links) ? d.links.filter((l): l is string => typeof l === 'string') : [],
    metadata,
    lang: text(d.lang).trim(),
  };
}

/**
 * The content of a parsed document, shaped as a page's: its links (no anchor text, never nofollow), no pictures, no
 * canonical, no robots directives, no link density; the description is the document's subject or description.
 */
export function documentContent(doc: ParsedDocument, parser: string): DocumentContent {
  return {
    title: doc.title,
    text: doc.text,
    linkDensity: 0,
    links: doc.links.map((url) => ({ url, text: '', nofollow: false })),
    images: [],
    lang: doc.lang,
    canonical: null,
    robots: { noindex: false, nofollow: false },
    description: doc.metadata.subject ?? doc.metadata.description ?? '',
    metadata: doc.metadata,
    parser,
  };
}
