/*
 * What every document parser needs: the caps that bound a document's text and links, link resolution, bare urls,
 * and the one tidy-up of the text (line endings, trailing spaces, at most one blank line between paragraphs).
 */

/** Characters of text kept from one document; past it the text ends and metadata.truncated says so. */
export const MAX_DOCUMENT_TEXT = 8 * 1024 * 1024;

/** Links kept from one document. */
export const MAX_DOCUMENT_LINKS = 10_000;

const LINK_SCHEMES = new Set(['http:', 'https:', 'file:']);

/** `raw` resolved against the document's url, when it is an http, https or file url; undefined otherwise. */
export function resolveDocumentLink(raw: string, base: string): string | undefined {
  const trimmed = raw.trim();
  if (!trimmed || trimmed.startsWith('#')) return undefined;
  let url: URL;
  try {
    url = new URL(trimmed, base);
  } catch {
    return undefined;
  }
  if (!LINK_SCHEMES.has(url.protocol)) return undefined;
  url.hash = '';
  return url.href;
}

/** Absolute links in the order first met, without repeats, at most MAX_DOCUMENT_LINKS. */
export class DocumentLinks {
  readonly #base: string;
  readonly #seen = new Set<string>();

  constructor(base: string) {
    this.#base = base;
  }

  /** Resolve and keep `raw` (ignored when not an http, https or file url, a repeat, or past the cap). */
  add(raw: string): void {
    if (this.#seen.size >= MAX_DOCUMENT_LINKS) return;
    const url = resolveDocumentLink(raw, this.#base);
    if (url) this.#seen.add(url);
  }

  list(): string[] {
    return [...this.#seen];
  }
}

const BARE_URL = /\bhttps?:\/\/[^\s<>"'`{}|\\^[\]]+/gi;

/** The http(s) urls written out in plain text, without the punctuation that ends a sentence around them. */
export function bareUrls(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(BARE_URL)) {
    let url = m[0].replace(/[.,;:!?*_~]+$/, '');
    // A closing parenthesis belongs to the url only when it opened one: (see https://x.test/a_(b)).
    while (url.endsWith(')') && (url.match(/\(/g)?.length ?? 0) < (url.match(/\)/g)?.length ?? 0)) {
      url = url.slice(0, -1).replace(/[.,;:!?]+$/, '');
    }
    out.push(url);
    if (out.length >= MAX_DOCUMENT_LINKS) break;
  }
  return out;
}

/** Unix line endings, no trailing spaces, no more than one blank line in a row, no blank start or end. */
export function tidyText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\f\v\u00a0]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** `text` cut at MAX_DOCUMENT_TEXT characters, and whether it was. */
export function capText(text: string): { text: string; truncated: boolean } {
  if (text.length <= MAX_DOCUMENT_TEXT) return { text, truncated: false };
  return { text: text.slice(0, MAX_DOCUMENT_TEXT), truncated: true };
}

/** The file name at the end of a url's path, percent-decoded, without its extension ('' when there is none). */
export function fileTitle(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url;
  }
  const last = path.split('/').filter(Boolean).pop() ?? '';
  let name = last;
  try {
    name = decodeURIComponent(last);
  } catch {
    // keep it percent-encoded
  }
  return name.replace(/\.[A-Za-z0-9]{1,8}$/, '').trim();
}

/** The lower-case extension (with the dot) of a url's path, or ''. */
export function urlExtension(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url.split(/[?#]/)[0] ?? '';
  }
  const m = /\.([A-Za-z0-9]{1,8})$/.exec(path);
  return m ? `.${m[1]!.toLowerCase()}` : '';
}

/** A Content-Type's media type, lower case, without parameters ('' when none). */
export function mediaTypeOf(contentType: string | undefined | null): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}
