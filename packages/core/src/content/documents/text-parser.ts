import { decodeBody } from '../../fetch/charset.js';
import { csvText } from './csv-text.js';
import type { DocumentContentParser, ParsedDocument } from './document-parser.js';
import {
  bareUrls,
  capText,
  DocumentLinks,
  fileTitle,
  MAX_DOCUMENT_TEXT,
  mediaTypeOf,
  tidyText,
  urlExtension,
} from './document-text.js';
import { markdownText } from './markdown-text.js';

/** The three flavours of text the `text` parser reads. */
export type TextFlavour = 'plain' | 'markdown' | 'csv';

const FLAVOUR_BY_TYPE: Readonly<Record<string, TextFlavour>> = {
  'text/plain': 'plain',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/csv': 'csv',
};

const FLAVOUR_BY_EXTENSION: Readonly<Record<string, TextFlavour>> = {
  '.txt': 'plain',
  '.text': 'plain',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.csv': 'csv',
};

/** A plain-text title is its first line when shorter than this. */
const MAX_PLAIN_TITLE = 120;

/**
 * Which flavour a text document is: its media type, except that `text/plain` (what many servers, raw file hosts
 * among them, send for every text file) and a type that says nothing defer to a `.md`, `.markdown` or `.csv` url.
 */
export function textFlavour(contentType: string, url: string): TextFlavour {
  const type = mediaTypeOf(contentType);
  const byType = FLAVOUR_BY_TYPE[type];
  const byExtension = FLAVOUR_BY_EXTENSION[urlExtension(url)];
  if (byType && byType !== 'plain') return byType;
  return byExtension ?? byType ?? 'plain';
}

/**
 * The `text` parser: plain text, Markdown and CSV. The bytes are decoded as the crawl decodes pages (byte order
 * mark, the Content-Type charset, else UTF-8, falling back to windows-1252 for bytes that are not UTF-8).
 */
export class TextDocumentParser implements DocumentContentParser {
  readonly name = 'text';
  readonly mediaTypes = Object.freeze(Object.keys(FLAVOUR_BY_TYPE));
  readonly extensions = Object.freeze(Object.keys(FLAVOUR_BY_EXTENSION));

  async parse(bytes: Uint8Array, url: string, contentType: string): Promise<ParsedDocument> {
    const decoded = decodeBody(bytes, contentType);
    // A NUL is never in a text file: these are the bytes of something else (a binary sent as text/plain).
    if (decoded.text.slice(0, 8192).includes('\u0000')) {
      throw new Error('the text holds NUL characters: it is binary, not text');
    }
    const metadata: Record<string, string> = { charset: decoded.charset };
    if (decoded.fallbackFrom !== undefined) metadata.charsetFallbackFrom = decoded.fallbackFrom;
    // Markup stripping and CSV cells shrink text, but never past half: more than twice the text cap is never kept,
    // so it is not processed either (a 50 MiB file of empty lines would otherwise become 50 million array slots).
    let source = decoded.text;
    let cut = false;
    if (source.length > 2 * MAX_DOCUMENT_TEXT) {
      source = source.slice(0, 2 * MAX_DOCUMENT_TEXT);
      cut = true;
    }
    const flavour = textFlavour(contentType, url);
    metadata.format = flavour;
    const links = new DocumentLinks(url);
    let title: string;
    let text: string;
    let lang = '';
    if (flavour === 'markdown') {
      const md = markdownText(source);
      for (const l of md.links) links.add(l);
      title = md.title;
      text = md.text;
      lang = md.lang;
    } else if (flavour === 'csv') {
      text = csvText(source);
      for (const l of bareUrls(text)) links.add(l);
      title = fileTitle(url);
    } else {
      text = source;
      for (const l of bareUrls(text)) links.add(l);
      const first =
        text
          .split('\n')
          .find((l) => l.trim())
          ?.trim() ?? '';
      title = first.length < MAX_PLAIN_TITLE ? first : '';
    }
    const capped = capText(tidyText(text));
    if (capped.truncated || cut) metadata.truncated = 'true';
    return { title, text: capped.text, links: links.list(), metadata, lang };
  }
}
