import { createHash } from 'node:crypto';

/** Options of {@link BloomFilter}. */
export interface BloomFilterOptions {
  /** Items the filter is sized for; past that the false-positive rate climbs. @default 1_000_000 */
  expectedItems?: number;
  /** Wanted false-positive rate at `expectedItems`, between 0 and 1 exclusive. @default 0.01 */
  falsePositiveRate?: number;
}

const HEX_KEY = /^[0-9a-fA-F]{16}/;

/**
 * A Bloom filter sized from expected items and false-positive rate, using double hashing
 * (Kirsch–Mitzenmacher) on two 32-bit words. A key that is already a hex digest (such as a url's sha256)
 * is used as it is; any other string is hashed with sha256 first.
 */
export class BloomFilter {
  /** Bits in the filter. */
  readonly bits: number;
  /** Hash functions per item. */
  readonly hashes: number;
  readonly expectedItems: number;
  /** The false-positive rate the filter was sized for. */
  readonly configuredFalsePositiveRate: number;
  readonly #words: Uint32Array;
  #setBits = 0;
  #added = 0;

  constructor(options: BloomFilterOptions = {}) {
    const n = Math.max(1, Math.ceil(options.expectedItems ?? 1_000_000));
    const p = options.falsePositiveRate ?? 0.01;
    if (!(p > 0 && p < 1)) throw new RangeError(`falsePositiveRate must be between 0 and 1 exclusive, got ${p}`);
    this.expectedItems = n;
    this.configuredFalsePositiveRate = p;
    const m = Math.ceil((-n * Math.log(p)) / (Math.LN2 * Math.LN2));
    this.bits = Math.max(64, Math.ceil(m / 32) * 32);
    this.hashes = Math.min(30, Math.max(1, Math.round((this.bits / n) * Math.LN2)));
    this.#words = new Uint32Array(this.bits / 32);
  }

  /** Items added (counting repeats). */
  get count(): number {
    return this.#added;
  }

  /** Fraction of bits set, 0..1. */
  get fill(): number {
    return this.#setBits / this.bits;
  }

  /** The false-positive rate expected at the current fill: fill^hashes. */
  get estimatedFalsePositiveRate(): number {
    return this.fill ** this.hashes;
  }

  add(key: string): void {
    const [h1, h2] = hashPair(key);
    const m = this.bits;
    const words = this.#words;
    for (let i = 0; i < this.hashes; i++) {
      const bit = (h1 + i * h2 + (i * i * i - i) / 6) % m;
      const w = bit >>> 5;
      const mask = 1 << (bit & 31);
      const old = words[w] as number;
      if ((old & mask) === 0) {
        words[w] = old | mask;
        this.#setBits++;
      }
    }
    this.#added++;
  }

  /** False means certainly absent; true means probably present. */
  mightContain(key: string): boolean {
    const [h1, h2] = hashPair(key);
    const m = this.bits;
    const words = this.#words;
    for (let i = 0; i < this.hashes; i++) {
      const bit = (h1 + i * h2 + (i * i * i - i) / 6) % m;
      if (((words[bit >>> 5] as number) & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

function hashPair(key: string): [number, number] {
  const hex = HEX_KEY.test(key) ? key : createHash('sha256').update(key).digest('hex');
  return [Number.parseInt(hex.slice(0, 8), 16), Number.parseInt(hex.slice(8, 16), 16)];
}
