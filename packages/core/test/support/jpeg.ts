import type { Rgb } from './png.js';

const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
  35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47,
  55, 62, 63,
];

/** ITU T.81 Annex K.3, table K.3 (luminance DC) and K.5 (luminance AC). */
const DC_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
const DC_VALS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const AC_BITS = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d];
const AC_VALS = [
  0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14,
  0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09,
  0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a,
  0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65,
  0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88,
  0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9,
  0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca,
  0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea,
  0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
];
const QUANT = 6;

type Code = { code: number; length: number };

function huffmanCodes(bits: number[], vals: number[]): Map<number, Code> {
  const codes = new Map<number, Code>();
  let code = 0;
  let k = 0;
  for (let length = 1; length <= 16; length++) {
    for (let i = 0; i < (bits[length - 1] ?? 0); i++) codes.set(vals[k++] ?? 0, { code: code++, length });
    code <<= 1;
  }
  return codes;
}

const DC_CODES = huffmanCodes(DC_BITS, DC_VALS);
const AC_CODES = huffmanCodes(AC_BITS, AC_VALS);
const COS = Array.from({ length: 8 }, (_, x) =>
  Array.from({ length: 8 }, (_, u) => Math.cos(((2 * x + 1) * u * Math.PI) / 16)),
);

class BitWriter {
  readonly bytes: number[] = [];
  private acc = 0;
  private n = 0;
  write(value: number, length: number): void {
    for (let i = length - 1; i >= 0; i--) {
      this.acc = (this.acc << 1) | ((value >> i) & 1);
      if (++this.n === 8) this.flushByte();
    }
  }
  private flushByte(): void {
    this.bytes.push(this.acc);
    if (this.acc === 0xff) this.bytes.push(0);
    this.acc = 0;
    this.n = 0;
  }
  finish(): number[] {
    while (this.n !== 0) this.write(1, 1);
    return this.bytes;
  }
}

function sizeOf(v: number): number {
  let a = Math.abs(v);
  let s = 0;
  while (a > 0) {
    s++;
    a >>= 1;
  }
  return s;
}

function put(w: BitWriter, table: Map<number, Code>, symbol: number): void {
  const c = table.get(symbol);
  if (!c) throw new Error(`jpeg: no Huffman code for symbol ${symbol}`);
  w.write(c.code, c.length);
}

function encodeBlock(w: BitWriter, block: Float64Array, previousDc: number): number {
  const coeff = new Int32Array(64);
  for (let v = 0; v < 8; v++) {
    for (let u = 0; u < 8; u++) {
      let sum = 0;
      for (let y = 0; y < 8; y++) {
        for (let x = 0; x < 8; x++) sum += (block[y * 8 + x] ?? 0) * COS[x]![u]! * COS[y]![v]!;
      }
      const cu = u === 0 ? Math.SQRT1_2 : 1;
      const cv = v === 0 ? Math.SQRT1_2 : 1;
      coeff[v * 8 + u] = Math.round((0.25 * cu * cv * sum) / QUANT);
    }
  }
  const dc = coeff[0]!;
  const diff = dc - previousDc;
  const ds = sizeOf(diff);
  put(w, DC_CODES, ds);
  if (ds > 0) w.write(diff >= 0 ? diff : diff + (1 << ds) - 1, ds);
  let run = 0;
  for (let k = 1; k < 64; k++) {
    const v = coeff[ZIGZAG[k]!]!;
    if (v === 0) {
      run++;
      continue;
    }
    while (run > 15) {
      put(w, AC_CODES, 0xf0);
      run -= 16;
    }
    const s = sizeOf(v);
    put(w, AC_CODES, (run << 4) | s);
    w.write(v >= 0 ? v : v + (1 << s) - 1, s);
    run = 0;
  }
  if (run > 0) put(w, AC_CODES, 0x00);
  return dc;
}

function segment(marker: number, body: number[]): number[] {
  const length = body.length + 2;
  return [0xff, marker, length >> 8, length & 0xff, ...body];
}

/** Encode a baseline (SOF0) YCbCr 4:4:4 JFIF JPEG whose pixels come from `pixel(x, y)`. */
export function encodeJpeg(width: number, height: number, pixel: (x: number, y: number) => Rgb): Buffer {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1 || width > 65535) {
    throw new TypeError(`encodeJpeg: width and height must be positive integers, got ${width}×${height}`);
  }
  const planes = [0, 1, 2].map(() => new Float64Array(width * height));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [r, g, b] = pixel(x, y);
      const i = y * width + x;
      planes[0]![i] = 0.299 * r + 0.587 * g + 0.114 * b - 128;
      planes[1]![i] = -0.168736 * r - 0.331264 * g + 0.5 * b;
      planes[2]![i] = 0.5 * r - 0.418688 * g - 0.081312 * b;
    }
  }
  const w = new BitWriter();
  const dc = [0, 0, 0];
  const block = new Float64Array(64);
  for (let by = 0; by < height; by += 8) {
    for (let bx = 0; bx < width; bx += 8) {
      for (let c = 0; c < 3; c++) {
        const plane = planes[c]!;
        for (let y = 0; y < 8; y++) {
          const sy = Math.min(by + y, height - 1);
          for (let x = 0; x < 8; x++) block[y * 8 + x] = plane[sy * width + Math.min(bx + x, width - 1)]!;
        }
        dc[c] = encodeBlock(w, block, dc[c]!);
      }
    }
  }
  const components = [1, 2, 3].flatMap((id) => [id, 0x11, 0]);
  return Buffer.from([
    0xff,
    0xd8,
    ...segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    ...segment(0xdb, [0, ...new Array<number>(64).fill(QUANT)]),
    ...segment(0xc0, [8, height >> 8, height & 0xff, width >> 8, width & 0xff, 3, ...components]),
    ...segment(0xc4, [0x00, ...DC_BITS, ...DC_VALS, 0x10, ...AC_BITS, ...AC_VALS]),
    ...segment(0xda, [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0]),
    ...w.finish(),
    0xff,
    0xd9,
  ]);
}

/** Width and height from a JPEG's start-of-frame marker; undefined when not a JPEG. */
export function readJpegSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined;
  let i = 2;
  while (i + 9 < bytes.length) {
    if (bytes[i] !== 0xff) return undefined;
    const marker = bytes[i + 1]!;
    const length = bytes.readUInt16BE(i + 2);
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) return { height: bytes.readUInt16BE(i + 5), width: bytes.readUInt16BE(i + 7) };
    if (marker === 0xda || marker === 0xd9) return undefined;
    i += 2 + length;
  }
  return undefined;
}
