import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { DocumentContentParser, ParsedDocument } from './document-parser.js';
import { DocumentLinks, MAX_DOCUMENT_TEXT, tidyText } from './document-text.js';
import { PdfPageText, type PdfTextRun } from './pdf-text-layout.js';

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

/** Pages read for text; a longer document keeps its first pages (metadata.pages says how many it has). */
export const MAX_PDF_PAGES = 5000;

/** A title taken from the first line of the text is cut to this many characters. */
const MAX_LINE_TITLE = 160;

let loading: Promise<{ pdfjs: Pdfjs; dataDir: string }> | undefined;

/**
 * pdf.js (pdfjs-dist's legacy build, the one for Node) with its worker module preloaded: it then runs in the calling
 * thread, which is the document worker thread. Loaded once, on the first PDF (or by the worker when it starts).
 */
export function loadPdfjs(): Promise<{ pdfjs: Pdfjs; dataDir: string }> {
  loading ??= (async () => {
    const worker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
    const dataDir = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
    return { pdfjs, dataDir };
  })();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/** A PDF date (D:YYYYMMDDHHmmSS+hh'mm') as ISO 8601, or the string as it is when it does not parse. */
function pdfDate(pdfjs: Pdfjs, value: unknown): string {
  if (typeof value !== 'string' || !value.trim()) return '';
  const date = pdfjs.PDFDateString.toDateObject(value);
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : value.trim();
}

const str = (v: unknown) => (typeof v === 'string' ? v.replace(/\u0000/g, '').trim() : '');

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0]?.trim() ?? '';
  if (line.length <= MAX_LINE_TITLE) return line;
  const cut = line.slice(0, MAX_LINE_TITLE);
  return cut.slice(0, cut.lastIndexOf(' ') > 0 ? cut.lastIndexOf(' ') : MAX_LINE_TITLE);
}

/**
 * The `pdf` parser, on pdf.js 5 (the newest that runs on Node 20; docs/libraries.md has the measurements): the text
 * page by page (lines and paragraphs from where the runs sit, pdf-text-layout.ts), the Info dictionary (XMP as a
 * fallback for the title and language) as title and metadata, URI link annotations as links. No script runs
 * (`isEvalSupported: false`), no font is installed, nothing is fetched.
 */
export class PdfDocumentParser implements DocumentContentParser {
  readonly name = 'pdf';
  readonly mediaTypes = Object.freeze(['application/pdf', 'application/x-pdf']);
  readonly extensions = Object.freeze(['.pdf']);

  async parse(bytes: Uint8Array, url: string): Promise<ParsedDocument> {
    const { pdfjs, dataDir } = await loadPdfjs();
    const task = pdfjs.getDocument({
      // pdf.js takes the buffer over (and may detach it): give it a copy of its own.
      data: new Uint8Array(bytes),
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      useWasm: false,
      isImageDecoderSupported: false,
      isOffscreenCanvasSupported: false,
      stopAtErrors: false,
      verbosity: pdfjs.VerbosityLevel.ERRORS,
      cMapUrl: join(dataDir, 'cmaps/'),
      cMapPacked: true,
      standardFontDataUrl: join(dataDir, 'standard_fonts/'),
    });
    let doc: Awaited<typeof task.promise>;
    try {
      doc = await task.promise;
    } catch (err) {
      await task.destroy().catch(() => {});
      if ((err as Error)?.name === 'PasswordException') throw new Error('the PDF is encrypted with a password');
      throw new Error(`not a readable PDF: ${(err as Error)?.message ?? err}`);
    }
    try {
      const { info, metadata: xmp } = (await doc.getMetadata()) as unknown as {
        info: Record<string, unknown>;
        metadata: { get(name: string): unknown } | null;
      };
      const links = new DocumentLinks(url);
      const pages: string[] = [];
      let chars = 0;
      let truncated = false;
      const last = Math.min(doc.numPages, MAX_PDF_PAGES);
      for (let n = 1; n <= last && !truncated; n++) {
        const page = await doc.getPage(n);
        const text = new PdfPageText();
        const reader = page.streamTextContent().getReader();
        // Past the cap the rest of the page is read and dropped, not cancelled: pdf.js waits forever for a
        // cancelled text stream when the document is destroyed (measured on a decompression bomb). The pool's
        // timeout bounds how long that takes.
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          if (truncated) continue;
          for (const item of (value as { items: unknown[] }).items) {
            if (typeof (item as PdfTextRun).str === 'string') text.add(item as PdfTextRun);
          }
          if (chars + text.chars > MAX_DOCUMENT_TEXT) truncated = true;
        }
        chars += text.chars;
        pages.push(text.text());
        for (const a of (await page.getAnnotations({ intent: 'display' })) as Record<string, unknown>[]) {
          if (a.subtype !== 'Link') continue;
          const target = str(a.unsafeUrl) || str(a.url);
          if (target) links.add(target);
        }
        page.cleanup();
      }
      if (doc.numPages > MAX_PDF_PAGES) truncated = true;
      const text = tidyText(pages.join('\n\n')).slice(0, MAX_DOCUMENT_TEXT);
      const metadata: Record<string, string> = {};
      const put = (key: string, value: string) => {
        if (value) metadata[key] = value;
      };
      put('author', str(info.Author));
      put('subject', str(info.Subject));
      put('keywords', str(info.Keywords));
      put('creator', str(info.Creator));
      put('producer', str(info.Producer));
      put('created', pdfDate(pdfjs, info.CreationDate));
      put('modified', pdfDate(pdfjs, info.ModDate));
      put('pages', String(doc.numPages));
      put('pdfVersion', str(info.PDFFormatVersion));
      if (truncated) metadata.truncated = 'true';
      const title = str(info.Title) || str(xmp?.get('dc:title')) || firstLine(text);
      const lang = str(info.Language) || str(xmp?.get('dc:language'));
      return { title, text, links: links.list(), metadata, lang };
    } finally {
      await doc.destroy();
    }
  }
}
