import { inflateSync } from 'node:zlib';

/** Pixels, 4 bytes a pixel (red, green, blue, alpha), rows top to bottom. */
export interface DecodedImage {
  width: number;
  height: number;
  rgba: Uint8Array;
}

/** Largest picture decoded for a thumbnail (pixels): past it the url is shown instead. */
const MAX_PIXELS = 16_000_000;

/**
 * A PNG's pixels, for the sixel thumbnail (a terminal that speaks sixel needs pixels, and the stored picture is a
 * file). Every colour type and bit depth of PNG 1.2 without interlacing; an interlaced or damaged file throws.
 */
export function decodePng(bytes: Uint8Array): DecodedImage {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 8 || buf.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let width = 0;
  let height = 0;
  let depth = 0;
  let colour = 0;
  let interlace = 0;
  let palette: Buffer | null = null;
  let alphas: Buffer | null = null;
  const idat: Buffer[] = [];
  for (let at = 8; at + 8 <= buf.length; ) {
    const len = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    const data = buf.subarray(at + 8, at + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      depth = data[8]!;
      colour = data[9]!;
      interlace = data[12]!;
    } else if (type === 'PLTE') palette = data;
    else if (type === 'tRNS') alphas = data;
    else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    at += 12 + len;
  }
  if (width < 1 || height < 1 || width * height > MAX_PIXELS) throw new Error(`PNG of ${width}×${height}`);
  if (interlace !== 0) throw new Error('interlaced PNG');
  const channels = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[colour];
  if (!channels || ![1, 2, 4, 8, 16].includes(depth)) throw new Error(`PNG colour type ${colour}, depth ${depth}`);
  if (colour === 3 && !palette) throw new Error('palette PNG without PLTE');
  const bitsPerPixel = channels * depth;
  const bpp = Math.max(1, bitsPerPixel >> 3);
  const stride = Math.ceil((width * bitsPerPixel) / 8);
  const raw = inflateSync(Buffer.concat(idat));
  if (raw.length < (stride + 1) * height) throw new Error('PNG data too short');
  const rows = unfilter(raw, stride, height, bpp);
  const rgba = new Uint8Array(width * height * 4);
  const max = (1 << Math.min(depth, 8)) - 1;
  for (let y = 0; y < height; y++) {
    const row = rows.subarray(y * stride, (y + 1) * stride);
    for (let x = 0; x < width; x++) {
      const sample = (c: number): number => {
        if (depth === 16) return row[(x * channels + c) * 2]!;
        if (depth === 8) return row[x * channels + c]!;
        const bit = (x * channels + c) * depth;
        return (row[bit >> 3]! >> (8 - depth - (bit & 7))) & max;
      };
      const o = (y * width + x) * 4;
      if (colour === 3) {
        const i = sample(0);
        rgba[o] = palette![i * 3] ?? 0;
        rgba[o + 1] = palette![i * 3 + 1] ?? 0;
        rgba[o + 2] = palette![i * 3 + 2] ?? 0;
        rgba[o + 3] = alphas && i < alphas.length ? alphas[i]! : 255;
        continue;
      }
      const scale = depth < 8 ? 255 / max : 1;
      const grey = colour === 0 || colour === 4;
      const r = Math.round(sample(0) * scale);
      rgba[o] = r;
      rgba[o + 1] = grey ? r : Math.round(sample(1) * scale);
      rgba[o + 2] = grey ? r : Math.round(sample(2) * scale);
      rgba[o + 3] = colour === 4 ? sample(1) : colour === 6 ? sample(3) : 255;
    }
  }
  return { width, height, rgba };
}

/** Undo the PNG row filters (none, sub, up, average, Paeth): the rows' bytes without their filter bytes. */
function unfilter(raw: Buffer, stride: number, height: number, bpp: number): Uint8Array {
  const out = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const src = y * (stride + 1) + 1;
    const dst = y * stride;
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? out[dst + i - bpp]! : 0;
      const b = y > 0 ? out[dst - stride + i]! : 0;
      const c = i >= bpp && y > 0 ? out[dst - stride + i - bpp]! : 0;
      let p = 0;
      if (filter === 1) p = a;
      else if (filter === 2) p = b;
      else if (filter === 3) p = (a + b) >> 1;
      else if (filter === 4) {
        const pa = Math.abs(b - c);
        const pb = Math.abs(a - c);
        const pc = Math.abs(a + b - 2 * c);
        p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else if (filter !== 0) throw new Error(`PNG filter ${filter}`);
      out[dst + i] = (raw[src + i]! + p) & 0xff;
    }
  }
  return out;
}
