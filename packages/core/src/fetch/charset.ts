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

/** Decode a body with {@link detectCharset}; invalid bytes become U+FFFD, a BOM is stripped. */
export function decodeBody(body: Uint8Array, contentType?: string | null): CharsetDetection & { text: string } {
  const detection = detectCharset(body, contentType);
  if (detection.charset === 'windows-1252') return { ...detection, text: decodeWindows1252(body) };
  const decoder = decoderFor(detection.charset) ?? decoderFor('utf-8')!;
  return { ...detection, text: decoder.decode(body) };
}
