import { crc32 } from 'node:zlib';

/** Width and height read from the first bytes of a PNG, GIF, JPEG or WebP; undefined when unknown. */
export function probeImageSize(b: Buffer): { width: number; height: number; ext: string } | undefined {
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47)
    return { width: b.readUInt32BE(16), height: b.readUInt32BE(20), ext: 'png' };
  if (b.length >= 10 && b.toString('latin1', 0, 3) === 'GIF')
    return { width: b.readUInt16LE(6), height: b.readUInt16LE(8), ext: 'gif' };
  if (b.length >= 30 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') {
    const kind = b.toString('latin1', 12, 16);
    if (kind === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3), ext: 'webp' };
    if (kind === 'VP8 ')
      return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff, ext: 'webp' };
    if (kind === 'VP8L') {
      const bits = b.readUInt32LE(21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1, ext: 'webp' };
    }
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let i = 2;
    let guard = 0;
    while (i + 9 < b.length && guard++ < 10_000) {
      if (b[i] !== 0xff) return undefined;
      const marker = b[i + 1] as number;
      const len = b.readUInt16BE(i + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7), ext: 'jpg' };
      }
      i += 2 + len;
    }
    return undefined;
  }
  if (b.length >= 5 && /^\s*<(\?xml|svg)/.test(b.toString('utf8', 0, Math.min(b.length, 256)))) {
    return undefined;
  }
  return undefined;
}

/** Why a picture's bytes are refused (the detail of `REJECTED_BAD_IMAGE`). */
export type BadImageReason = 'empty' | 'not-an-image' | 'bad-header' | 'truncated' | 'too-many-pixels';

/** Dimension limits of {@link checkImage} (GF_IMAGE_MAX_SIDE, GF_IMAGE_MAX_PIXELS). */
export interface ImageLimits {
  /** Longest side, in pixels. */
  maxSide: number;
  /** Width × height. */
  maxPixels: number;
}

/** A picture whose bytes hold up: its format, and its size when the format carries one in its header. */
export interface GoodImage {
  ok: true;
  /** File extension of the sniffed format: png, jpg, gif, webp, avif, bmp, ico, svg. */
  ext: string;
  /** Content type of the sniffed format (whatever the server called it). */
  contentType: string;
  width: number | undefined;
  height: number | undefined;
}

/** A picture refused, with the reason (report key detail) and one line saying why. */
export interface BadImage {
  ok: false;
  reason: BadImageReason;
  why: string;
}

const TYPE_BY_EXT: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
  svg: 'image/svg+xml',
};

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const MAX_CHUNKS = 2_000_000;

const bad = (reason: BadImageReason, why: string): BadImage => ({ ok: false, reason, why });

function sized(ext: string, width: number | undefined, height: number | undefined, limits: ImageLimits) {
  if (width !== undefined && height !== undefined) {
    if (!(width > 0 && height > 0)) return bad('bad-header', `${ext} header says ${width}×${height} px`);
    if (width > limits.maxSide || height > limits.maxSide) {
      return bad(
        'too-many-pixels',
        `${ext} header says ${width}×${height} px: more than ${limits.maxSide} px a side (GF_IMAGE_MAX_SIDE)`,
      );
    }
    if (width * height > limits.maxPixels) {
      return bad(
        'too-many-pixels',
        `${ext} header says ${width}×${height} px: more than ${limits.maxPixels} pixels (GF_IMAGE_MAX_PIXELS)`,
      );
    }
  }
  return { ok: true as const, ext, contentType: TYPE_BY_EXT[ext]!, width, height };
}

/** PNG: IHDR first with a good CRC, then whole chunks up to IEND, with image data on the way. */
function checkPng(b: Buffer, limits: ImageLimits): GoodImage | BadImage {
  if (b.length < 33) return bad('truncated', `PNG of ${b.length} bytes ends inside its header`);
  if (b.readUInt32BE(8) !== 13 || b.toString('latin1', 12, 16) !== 'IHDR') {
    return bad('bad-header', 'PNG does not start with its IHDR chunk');
  }
  if (crc32(b.subarray(12, 29)) >>> 0 !== b.readUInt32BE(29)) return bad('bad-header', 'PNG IHDR fails its CRC');
  const width = b.readUInt32BE(16);
  const height = b.readUInt32BE(20);
  let off = 33;
  let data = false;
  for (let n = 0; n < MAX_CHUNKS; n++) {
    if (off + 12 > b.length) break;
    const len = b.readUInt32BE(off);
    const type = b.toString('latin1', off + 4, off + 8);
    if (len > 0x7fffffff) return bad('bad-header', `PNG chunk ${JSON.stringify(type)} claims ${len} bytes`);
    if (off + 12 + len > b.length) break;
    if (type === 'IDAT') data = true;
    if (type === 'IEND') {
      if (!data) return bad('truncated', 'PNG has no image data (IDAT) before IEND');
      return sized('png', width, height, limits);
    }
    off += 12 + len;
  }
  return bad('truncated', `PNG of ${b.length} bytes ends before its IEND chunk`);
}

/** JPEG: the marker segments up to the first scan, a frame header (SOF) among them, an EOI after the scan. */
function checkJpeg(b: Buffer, limits: ImageLimits): GoodImage | BadImage {
  let i = 2;
  let width: number | undefined;
  let height: number | undefined;
  for (let n = 0; n < MAX_CHUNKS; n++) {
    if (i + 4 > b.length) return bad('truncated', `JPEG of ${b.length} bytes ends before its first scan`);
    if (b[i] !== 0xff) return bad('bad-header', `JPEG has no marker at byte ${i}`);
    const marker = b[i + 1] as number;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (marker === 0xd9) return bad('truncated', 'JPEG ends (EOI) before any scan');
    const len = b.readUInt16BE(i + 2);
    if (len < 2) return bad('bad-header', `JPEG segment ${marker.toString(16)} has length ${len}`);
    if (marker === 0xda) {
      if (width === undefined || height === undefined) return bad('bad-header', 'JPEG scan before any frame header');
      const eoi = b.lastIndexOf(Buffer.from([0xff, 0xd9]));
      if (eoi < i + 2 + len) return bad('truncated', `JPEG of ${b.length} bytes has no end of image (EOI) marker`);
      return sized('jpg', width, height, limits);
    }
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) {
      if (i + 9 > b.length) return bad('truncated', 'JPEG ends inside its frame header');
      height = b.readUInt16BE(i + 5);
      width = b.readUInt16BE(i + 7);
      if (width === 0 || height === 0) return bad('bad-header', `JPEG frame header says ${width}×${height} px`);
    }
    i += 2 + len;
  }
  return bad('bad-header', 'JPEG has too many segments');
}

function checkGif(b: Buffer, limits: ImageLimits): GoodImage | BadImage {
  if (b.length < 14) return bad('truncated', `GIF of ${b.length} bytes ends inside its header`);
  let end = b.length - 1;
  while (end > 13 && b[end] === 0) end--;
  if (b[end] !== 0x3b) return bad('truncated', `GIF of ${b.length} bytes has no trailer`);
  return sized('gif', b.readUInt16LE(6), b.readUInt16LE(8), limits);
}

function checkWebp(b: Buffer, limits: ImageLimits): GoodImage | BadImage {
  if (b.length < 30) return bad('truncated', `WebP of ${b.length} bytes ends inside its header`);
  const riff = b.readUInt32LE(4);
  if (riff + 8 > b.length) return bad('truncated', `WebP declares ${riff + 8} bytes, ${b.length} arrived`);
  const kind = b.toString('latin1', 12, 16);
  if (kind === 'VP8X') return sized('webp', 1 + b.readUIntLE(24, 3), 1 + b.readUIntLE(27, 3), limits);
  if (kind === 'VP8 ') {
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a)
      return bad('bad-header', 'WebP VP8 frame has no start code');
    return sized('webp', b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff, limits);
  }
  if (kind === 'VP8L') {
    if (b[20] !== 0x2f) return bad('bad-header', 'WebP VP8L stream has no signature');
    const bits = b.readUInt32LE(21);
    return sized('webp', (bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1, limits);
  }
  return bad('bad-header', `WebP with an unknown first chunk ${JSON.stringify(kind)}`);
}

/** AVIF (ISO-BMFF): whole top-level boxes, and the image size from its 'ispe' property. */
function checkAvif(b: Buffer, limits: ImageLimits): GoodImage | BadImage {
  let off = 0;
  for (let n = 0; n < MAX_CHUNKS && off < b.length; n++) {
    if (off + 8 > b.length) return bad('truncated', `AVIF of ${b.length} bytes ends inside a box header`);
    let size = b.readUInt32BE(off);
    if (size === 1) {
      if (off + 16 > b.length) return bad('truncated', 'AVIF ends inside a box header');
      size = Number(b.readBigUInt64BE(off + 8));
    } else if (size === 0) size = b.length - off;
    if (size < 8) return bad('bad-header', `AVIF box of ${size} bytes`);
    if (off + size > b.length) return bad('truncated', `AVIF box declares ${size} bytes past the end of the file`);
    off += size;
  }
  const ispe = b.indexOf('ispe', 0, 'latin1');
  if (ispe < 4 || ispe + 16 > b.length) return bad('bad-header', 'AVIF has no image size (ispe) property');
  return sized('avif', b.readUInt32BE(ispe + 8), b.readUInt32BE(ispe + 12), limits);
}

function checkBmp(b: Buffer, limits: ImageLimits): GoodImage | BadImage {
  if (b.length < 26) return bad('truncated', `BMP of ${b.length} bytes ends inside its header`);
  const declared = b.readUInt32LE(2);
  if (declared > b.length) return bad('truncated', `BMP declares ${declared} bytes, ${b.length} arrived`);
  return sized('bmp', Math.abs(b.readInt32LE(18)), Math.abs(b.readInt32LE(22)), limits);
}

function checkIco(b: Buffer, limits: ImageLimits): GoodImage | BadImage {
  if (b.length < 22) return bad('truncated', `ICO of ${b.length} bytes ends inside its directory`);
  const count = b.readUInt16LE(4);
  if (count === 0) return bad('bad-header', 'ICO holds no image');
  const size = b.readUInt32LE(14);
  const at = b.readUInt32LE(18);
  if (at + size > b.length) return bad('truncated', `ICO image declares ${at + size} bytes, ${b.length} arrived`);
  return sized('ico', b[6] || 256, b[7] || 256, limits);
}

const HTML_START = /^\s*(<!--[\s\S]*?-->\s*)*<(!doctype\s+html|html|head|body|title|meta|script|p|div)\b/i;

function checkSvg(b: Buffer, limits: ImageLimits): GoodImage | BadImage | undefined {
  const head = b.toString('utf8', 0, Math.min(b.length, 4096)).replace(/^\ufeff/, '');
  if (!/^\s*<(\?xml|svg|!--|!doctype\s+svg)/i.test(head)) return undefined;
  const svg = head.search(/<svg[\s>]/i);
  const html = head.search(/<(html|body)[\s>]/i);
  if (svg < 0 || (html >= 0 && html < svg)) return undefined;
  const tail = b.toString('utf8', Math.max(0, b.length - 1024));
  if (!/<\/svg\s*>|<svg[^>]*\/>/i.test(tail) && !/<svg[^>]*\/>/i.test(head)) {
    return bad('truncated', `SVG of ${b.length} bytes has no closing </svg>`);
  }
  return sized('svg', undefined, undefined, limits);
}

/**
 * Check a picture from its bytes before it is kept: a known signature (PNG, JPEG, GIF, WebP, AVIF, BMP, ICO, SVG;
 * what the server called it does not matter), a header that decodes, the whole file there (PNG up to IEND, JPEG
 * up to EOI after its scan, GIF to its trailer, WebP / AVIF / BMP / ICO as long as they declare), and sane
 * dimensions (`limits`). The size cap is the fetch's (GF_IMAGE_MAX_BYTES).
 */
export function checkImage(b: Buffer, limits: ImageLimits): GoodImage | BadImage {
  if (b.length === 0) return bad('empty', 'the answer has no body');
  if (b.length >= 8 && b.subarray(0, 8).equals(PNG_SIGNATURE)) return checkPng(b, limits);
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return checkJpeg(b, limits);
  const magic = b.toString('latin1', 0, Math.min(b.length, 12));
  if (magic.startsWith('GIF87a') || magic.startsWith('GIF89a')) return checkGif(b, limits);
  if (magic.startsWith('RIFF') && magic.slice(8, 12) === 'WEBP') return checkWebp(b, limits);
  if (magic.slice(4, 8) === 'ftyp' && /^(avif|avis)$/.test(b.toString('latin1', 8, 12))) return checkAvif(b, limits);
  if (magic.startsWith('BM') && b.length >= 26 && b.readUInt32LE(14) >= 12) return checkBmp(b, limits);
  if (b.length >= 6 && b.readUInt32BE(0) === 0x00000100) return checkIco(b, limits);
  const svg = checkSvg(b, limits);
  if (svg) return svg;
  const text = b.toString('utf8', 0, Math.min(b.length, 1024));
  const looks = HTML_START.test(text) ? ': the bytes are HTML' : '';
  return bad('not-an-image', `no PNG, JPEG, GIF, WebP, AVIF, BMP, ICO or SVG signature${looks}`);
}

const EXT_BY_TYPE: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/jpg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'image/avif': 'avif',
  'image/bmp': 'bmp',
  'image/x-icon': 'ico',
  'image/vnd.microsoft.icon': 'ico',
};

/** File extension for an image from its sniffed format, its content type, or its url. */
export function imageExtension(contentType: string, url: string, sniffed?: string): string {
  if (sniffed) return sniffed;
  const byType = EXT_BY_TYPE[contentType.split(';')[0]?.trim().toLowerCase() ?? ''];
  if (byType) return byType;
  const m = /\.([a-z0-9]{2,5})$/i.exec(new URL(url).pathname);
  return m?.[1]?.toLowerCase() ?? 'bin';
}
