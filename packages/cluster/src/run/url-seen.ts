import { createHash } from 'node:crypto';

/**
 * Buckets of the run's seen set for a page limit: about 200 urls a bucket at the limit, so every bucket stays an
 * intset (Redis keeps a set of at most 512 integers as a packed array of 8-byte values).
 */
export function seenBuckets(maxPages: number): number {
  const wanted = Math.ceil(Math.max(1, maxPages) / 200);
  let n = 16;
  while (n < wanted && n < 16_384) n *= 2;
  return n;
}

/**
 * Where a url sits in the run's seen set: a 63-bit integer from the hash of `catalogId|version|url` (stored as an
 * integer, 8 bytes in an intset) and its bucket. Two urls colliding on 63 bits — about 1 in 10^12 for 5,000 urls —
 * would leave the second unfetched.
 */
export function seenMember(key: string, buckets: number): { bucket: number; member: string } {
  const h = createHash('md5').update(key).digest().readBigUInt64BE(0) & 0x7fff_ffff_ffff_ffffn;
  return { bucket: Number(h % BigInt(buckets)), member: h.toString() };
}
