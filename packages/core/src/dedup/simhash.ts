/**
 * 64-bit simhash over word 3-shingles, with FNV-1a 64 as the shingle hash.
 * Fingerprints are 16 lower-case hex characters.
 */

const encoder = new TextEncoder();
const WORD = /[\p{L}\p{N}]+/gu;

/** FNV-1a 64 of the UTF-8 bytes of `text`, as 16 hex characters. */
export function fnv1a64(text: string): string {
  const [hi, lo] = fnv1a64Words(encoder.encode(text));
  return hex32(hi) + hex32(lo);
}

/** FNV-1a 64 in 16-bit limbs: returns the high and low 32-bit words. */
function fnv1a64Words(bytes: Uint8Array): [number, number] {
  let v0 = 0x2325;
  let v1 = 0x8422;
  let v2 = 0x9ce4;
  let v3 = 0xcbf2;
  for (let i = 0; i < bytes.length; i++) {
    v0 ^= bytes[i] as number;
    const t0 = v0 * 0x1b3;
    let t1 = v1 * 0x1b3;
    let t2 = v2 * 0x1b3 + (v0 << 8);
    const t3 = v3 * 0x1b3 + (v1 << 8);
    t1 += t0 >>> 16;
    v0 = t0 & 0xffff;
    t2 += t1 >>> 16;
    v1 = t1 & 0xffff;
    v3 = (t3 + (t2 >>> 16)) & 0xffff;
    v2 = t2 & 0xffff;
  }
  return [((v3 << 16) | v2) >>> 0, ((v1 << 16) | v0) >>> 0];
}

function hex32(n: number): string {
  return n.toString(16).padStart(8, '0');
}

/** Lower-cased words (letters and digits) of a text. */
export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/**
 * The simhash of a text: each word 3-shingle (or each word, for fewer than three) votes on 64 bits.
 * @returns 16 hex characters.
 */
export function simhash64(text: string): string {
  const ws = words(text);
  const shingles: string[] = [];
  if (ws.length < 3) shingles.push(...ws);
  else for (let i = 0; i + 2 < ws.length; i++) shingles.push(`${ws[i]} ${ws[i + 1]} ${ws[i + 2]}`);
  const votes = new Int32Array(64);
  for (const s of shingles) {
    const [hi, lo] = fnv1a64Words(encoder.encode(s));
    for (let b = 0; b < 32; b++) {
      votes[b] = (votes[b] as number) + ((hi >>> (31 - b)) & 1 ? 1 : -1);
      votes[32 + b] = (votes[32 + b] as number) + ((lo >>> (31 - b)) & 1 ? 1 : -1);
    }
  }
  let hi = 0;
  let lo = 0;
  for (let b = 0; b < 32; b++) {
    if ((votes[b] as number) > 0) hi |= 1 << (31 - b);
    if ((votes[32 + b] as number) > 0) lo |= 1 << (31 - b);
  }
  return hex32(hi >>> 0) + hex32(lo >>> 0);
}

function popcount32(n: number): number {
  let x = n - ((n >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/** Bits that differ between two 64-bit fingerprints given as 16 hex characters. */
export function hammingDistance(a: string, b: string): number {
  const x = Number.parseInt(a.slice(0, 8), 16) ^ Number.parseInt(b.slice(0, 8), 16);
  const y = Number.parseInt(a.slice(8, 16), 16) ^ Number.parseInt(b.slice(8, 16), 16);
  return popcount32(x) + popcount32(y);
}
