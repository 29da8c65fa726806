import { TextDecoder } from 'node:util';

/** Where a charset was found. */
export type CharsetSource = 'header' | 'bom' | 'meta' | 'xml' | 'default';

/** The charset a body is decoded with, how it was found, and an unsupported label met on the way. */
export interface CharsetDetection {
  /** WHATWG encoding name, e.g. 'utf-8', 'shift_jis', 'windows-1252'. */
  charset: string;
  source: CharsetSource;
  /** A declared label TextDecoder does not know (decoding fell back to the next clue or utf-8). */
  unknownLabel?: string | undefined;
}

const SNIFF_BYTES = 2048;
const decoders = new Map<string, TextDecoder | null>();

function decoderFor(label: string): TextDecoder | null {
  const key = label.trim().toLowerCase();
  let d = decoders.get(key);
  if (d === undefined) {
    try {
      d = new TextDecoder(key);
    } catch {
      d = null;
    }
    if (decoders.size > 256) decoders.clear();
    decoders.set(key, d);
  }
  return d;
}

/** The `charset` parameter of a Content-Type header, or '' when absent. */
export function charsetFromContentType(contentType: string | undefined | null): string {
  if (!contentType) return '';
  const m = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType);
  return m?.[2] ?? '';
}

function bomCharset(body: Uint8Array): string | null {
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body.length >= 2 && body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body.length >= 2 && body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return null;
}

const META_CHARSET = /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([\w.:-]+)/i;
const XML_DECL = /^\s*<\?xml\b[^>]*?\bencoding\s*=\s*["']([\w.:-]+)["']/i;

/**
 * Find a body's charset, in the order browsers use: byte order mark (it wins over everything, as in the
 * WHATWG encoding sniffing algorithm), Content-Type charset, `<meta charset>` / `<meta http-equiv>` in the
 * first 2 KiB, the XML declaration, then utf-8. A label TextDecoder does not support is recorded and skipped.
 */
export function detectCharset(body: Uint8Array, contentType?: string | null): CharsetDetection {
  let unknownLabel: string | undefined;
  const bom = bomCharset(body);
  if (bom) return { charset: bom, source: 'bom' };
  const fromHeader = charsetFromContentType(contentType);
  if (fromHeader) {
    const d = decoderFor(fromHeader);
    if (d) return { charset: d.encoding, source: 'header' };
    unknownLabel = fromHeader;
  }
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, SNIFF_BYTES)).toString('latin1');
  const meta = META_CHARSET.exec(head)?.[1];
  if (meta) {
    const d = decoderFor(meta);
    // A meta tag can only be read because the page is ASCII-compatible, so it cannot really be utf-16.
    if (d) return { charset: d.encoding.startsWith('utf-16') ? 'utf-8' : d.encoding, source: 'meta', unknownLabel };
    unknownLabel ??= meta;
  }
  const xml = XML_DECL.exec(head)?.[1];
  if (xml) {
    const d = decoderFor(xml);
    if (d) return { charset: d.encoding.startsWith('utf-16') ? 'utf-8' : d.encoding, source: 'xml', unknownLabel };
    unknownLabel ??= xml;
  }
  return { charset: 'utf-8', source: 'default', unknownLabel };
}

// Node 20's TextDecoder decodes windows-1252 (and its labels latin1, iso-8859-1, ascii) as ISO-8859-1, leaving
// 0x80–0x9F as C1 controls; browsers map them to these characters.
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
const C1 = /[\u0080-\u009f]/g;

function decodeWindows1252(body: Uint8Array): string {
  const s = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1');
  return s.replace(C1, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!);
}

const fatalDecoders = new Map<string, TextDecoder | null>();

/** A decoder that throws on bytes invalid in its charset (`fatal`); null for labels TextDecoder does not know. */
function fatalDecoderFor(charset: string): TextDecoder | null {
  let d = fatalDecoders.get(charset);
  if (d === undefined) {
    try {
      d = new TextDecoder(charset, { fatal: true });
    } catch {
      d = null;
    }
    if (fatalDecoders.size > 256) fatalDecoders.clear();
    fatalDecoders.set(charset, d);
  }
  return d;
}

function decodesCleanly(decoder: TextDecoder, body: Uint8Array): string | undefined {
  try {
    return decoder.decode(body);
  } catch {
    return undefined;
  }
}

/**
 * Length of the well-formed UTF-8 sequence starting at `i` (WHATWG / Unicode table 3-7: no overlongs, no
 * surrogates, nothing past U+10FFFF), or 0 when the byte there does not start one.
 */
function utf8SequenceAt(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (j: number, lo = 0x80, hi = 0xbf) => j < b.length && b[j]! >= lo && b[j]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(i + 1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const lo = c === 0xe0 ? 0xa0 : 0x80;
    const hi = c === 0xed ? 0x9f : 0xbf;
    return cont(i + 1, lo, hi) && cont(i + 2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const lo = c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xf4 ? 0x8f : 0xbf;
    return cont(i + 1, lo, hi) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

/**
 * UTF-8 where the bytes are well-formed UTF-8, windows-1252 for every byte that is not: a latin-1 page labelled
 * utf-8 reads as windows-1252 throughout (its high bytes are almost never valid UTF-8), and a UTF-8 page with a
 * few stray latin-1 bytes keeps its UTF-8 text. Never produces U+FFFD.
 */
function decodeUtf8OrWindows1252(body: Uint8Array): string {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const parts: string[] = [];
  let runStart = 0;
  let i = 0;
  while (i < buf.length) {
    const n = utf8SequenceAt(buf, i);
    if (n > 0) {
      i += n;
      continue;
    }
    if (i > runStart) parts.push(buf.toString('utf8', runStart, i));
    const c = buf[i]!;
    parts.push(c >= 0x80 && c <= 0x9f ? CP1252_HIGH[c - 0x80]! : String.fromCharCode(c));
    i++;
    runStart = i;
  }
  if (runStart < buf.length) parts.push(buf.toString('utf8', runStart));
  const text = parts.join('');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** What {@link decodeBody} returns: the detection, the text, and the fallback taken when the bytes did not fit. */
export interface DecodedBody extends CharsetDetection {
  text: string;
  /**
   * Set when the bytes were not valid in the charset found (declared, sniffed or the utf-8 default): that charset.
   * `charset` is then the one actually used — `utf-8` when the bytes are valid UTF-8, else `windows-1252` (UTF-8
   * sequences kept where they are well-formed), as browsers and mature crawlers do.
   */
  fallbackFrom?: string | undefined;
}

/**
 * Decode a body with {@link detectCharset}; a BOM is stripped. Bytes that are not valid in the charset found are
 * never turned into U+FFFD: the body is decoded as UTF-8 if it is valid UTF-8, else as windows-1252 (see
 * {@link DecodedBody.fallbackFrom}).
 */
export function decodeBody(body: Uint8Array, contentType?: string | null): DecodedBody {
  const detection = detectCharset(body, contentType);
  if (detection.charset === 'windows-1252') return { ...detection, text: decodeWindows1252(body) };
  const strict = fatalDecoderFor(detection.charset) ?? fatalDecoderFor('utf-8')!;
  const text = decodesCleanly(strict, body);
  if (text !== undefined) return { ...detection, text };
  const declared = detection.charset;
  if (declared !== 'utf-8') {
    const asUtf8 = decodesCleanly(fatalDecoderFor('utf-8')!, body);
    if (asUtf8 !== undefined) return { ...detection, charset: 'utf-8', fallbackFrom: declared, text: asUtf8 };
  }
  return { ...detection, charset: 'windows-1252', fallbackFrom: declared, text: decodeUtf8OrWindows1252(body) };
}
