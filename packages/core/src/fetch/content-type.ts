/**
 * What a Content-Type is to the crawler, decided in one place for the extractor and the engine:
 * - `page`: html or xhtml, or no type at all (a server that names none is usually serving a page) — the engine
 *   extracts it; anything else is REJECTED_NOT_MARKUP;
 * - `text`: other text/* and xml (robots.txt, sitemaps, feeds) — the extractor still reads and decodes the body for
 *   the callers that want it (robots, sitemaps, replay), but it is not a page;
 * - `other`: binaries — a page fetch abandons the body after the headers.
 */
export type ContentKind = 'page' | 'text' | 'other';

/** The kind of a Content-Type header value (parameters such as `; charset=` are ignored). */
export function contentKind(contentType: string): ContentKind {
  const t = contentType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  if (t === '' || t === 'text/html' || t === 'application/xhtml+xml') return 'page';
  if (t.startsWith('text/') || t.endsWith('/xml') || t.endsWith('+xml') || t.endsWith('/html')) return 'text';
  return 'other';
}

/** Whether an answer is a page the crawl extracts (html, xhtml, or no Content-Type). */
export function isPageType(contentType: string): boolean {
  return contentKind(contentType) === 'page';
}

/** Whether a body is markup or text worth reading and decoding (a page, or text/xml). A missing type counts. */
export function isMarkupType(contentType: string): boolean {
  return contentKind(contentType) !== 'other';
}

/** File signatures of binaries that servers are known to label as html. */
const BINARY_SIGNATURES: readonly (readonly number[])[] = [
  [0x89, 0x50, 0x4e, 0x47], // PNG
  [0xff, 0xd8, 0xff], // JPEG
  [0x47, 0x49, 0x46, 0x38], // GIF
  [0x25, 0x50, 0x44, 0x46], // %PDF
  [0x50, 0x4b, 0x03, 0x04], // ZIP (docx, xlsx, jar, …)
  [0x1f, 0x8b], // gzip (a body still compressed)
  [0x7f, 0x45, 0x4c, 0x46], // ELF
  [0x52, 0x49, 0x46, 0x46], // RIFF (WebP, WAV, AVI)
];

/** How many leading bytes the binary sniff reads. */
const SNIFF_BYTES = 512;

/**
 * Whether a body labelled as a page is really a binary: a known file signature at its start, or a NUL byte among
 * its first 512 bytes (text never has one, UTF-16 aside, which starts with a byte-order mark). The WHATWG MIME
 * sniffing rule for "binary data bytes", narrowed to what html never contains.
 */
export function looksBinary(body: Uint8Array): boolean {
  if (BINARY_SIGNATURES.some((sig) => sig.every((b, i) => body[i] === b))) return true;
  const utf16 = (body[0] === 0xfe && body[1] === 0xff) || (body[0] === 0xff && body[1] === 0xfe);
  if (utf16) return false;
  const end = Math.min(body.length, SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (body[i] === 0) return true;
  return false;
}
