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

/** File signatures of binaries that servers are known to label as html (offset 0 unless given). */
const BINARY_SIGNATURES: readonly { bytes: readonly number[]; at?: number }[] = [
  { bytes: [0x89, 0x50, 0x4e, 0x47] }, // PNG
  { bytes: [0xff, 0xd8, 0xff] }, // JPEG
  { bytes: [0x47, 0x49, 0x46, 0x38] }, // GIF8
  { bytes: [0x52, 0x49, 0x46, 0x46] }, // RIFF (WebP, WAV, AVI)
  { bytes: [0x49, 0x49, 0x2a, 0x00] }, // TIFF, little-endian
  { bytes: [0x4d, 0x4d, 0x00, 0x2a] }, // TIFF, big-endian
  { bytes: [0x00, 0x00, 0x01, 0x00] }, // ICO
  { bytes: [0x66, 0x74, 0x79, 0x70], at: 4 }, // ftyp: MP4, MOV, HEIC, AVIF
  { bytes: [0x1a, 0x45, 0xdf, 0xa3] }, // Matroska, WebM
  { bytes: [0x4f, 0x67, 0x67, 0x53] }, // OggS
  { bytes: [0x49, 0x44, 0x33] }, // ID3 (MP3)
  { bytes: [0x25, 0x50, 0x44, 0x46] }, // %PDF
  { bytes: [0x50, 0x4b, 0x03, 0x04] }, // ZIP (docx, xlsx, epub, jar, …)
  { bytes: [0x1f, 0x8b] }, // gzip (a body still compressed)
  { bytes: [0x28, 0xb5, 0x2f, 0xfd] }, // zstd
  { bytes: [0x42, 0x5a, 0x68] }, // bzip2
  { bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] }, // xz
  { bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c] }, // 7z
  { bytes: [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07] }, // RAR
  { bytes: [0x77, 0x4f, 0x46, 0x46] }, // wOFF
  { bytes: [0x77, 0x4f, 0x46, 0x32] }, // wOF2
  { bytes: [0x00, 0x61, 0x73, 0x6d] }, // WebAssembly
  { bytes: [0x7f, 0x45, 0x4c, 0x46] }, // ELF
  { bytes: [0xca, 0xfe, 0xba, 0xbe] }, // Java class, Mach-O fat
  { bytes: [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66] }, // "SQLite f"
];

/** How many leading bytes the control-byte count reads. */
const SNIFF_BYTES = 4096;

/**
 * The share of control bytes above which a body is binary. Random or compressed bytes hold about 10.5 % of them
 * (27 of 256 values), text none; a page with a stray NUL or two stays far below.
 */
const CONTROL_SHARE = 0.05;

/** Fewer control bytes than this never make a body binary, however short it is (one stray NUL in a tiny page). */
const CONTROL_MIN = 4;

/**
 * WHATWG MIME sniffing's "binary data bytes": the C0 controls text never holds (tab, line feed, form feed, carriage
 * return and escape are text).
 */
function isControl(b: number): boolean {
  return b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f);
}

/**
 * Whether a body labelled as a page is really a binary: a known file signature at its start, or control bytes making
 * at least 5 % (and at least 4) of its first 4 KB. One stray NUL in a broken page is not a binary: browsers show such
 * pages, and so the crawl saves them. A UTF-16 body (which starts with a byte-order mark) is text.
 */
export function looksBinary(body: Uint8Array): boolean {
  if (BINARY_SIGNATURES.some(({ bytes, at = 0 }) => bytes.every((b, i) => body[at + i] === b))) return true;
  const utf16 = (body[0] === 0xfe && body[1] === 0xff) || (body[0] === 0xff && body[1] === 0xfe);
  if (utf16) return false;
  const end = Math.min(body.length, SNIFF_BYTES);
  let controls = 0;
  for (let i = 0; i < end; i++) if (isControl(body[i] as number)) controls++;
  return controls >= CONTROL_MIN && controls >= end * CONTROL_SHARE;
}
