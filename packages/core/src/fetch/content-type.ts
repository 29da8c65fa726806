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
