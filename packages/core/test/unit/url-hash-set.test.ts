import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UrlHashSet } from '../../src/services/url-hash-set.js';

const hash = (n: number) => createHash('sha256').update(`https://example.com/p/${n}`).digest('hex');

describe('UrlHashSet', () => {
  // The test's timeout is the deadline against a set gone quadratic; how fast it is belongs to bench/.
  it('answers exactly for 100,000 held and 100,000 absent hashes, in 32 to 64 bytes a url', async () => {
    const n = 100_000;
    async function* batches() {
      for (let i = 0; i < n; i += 4096) yield Array.from({ length: Math.min(4096, n - i) }, (_, j) => hash(i + j));
    }
    const set = await UrlHashSet.from(batches());
    let held = 0;
    for (let i = 0; i < n; i++) if (set.has(hash(i))) held++;
    let absent = 0;
    for (let i = n; i < 2 * n; i++) if (!set.has(hash(i))) absent++;
    expect(held).toBe(n);
    expect(absent).toBe(n);
    expect(set.size).toBe(n);
    expect(set.bytes).toBeGreaterThanOrEqual(n * 32);
    expect(set.bytes).toBeLessThanOrEqual(n * 64);
  }, 30_000);

  it('counts a hash added twice once; upper-case hex is the same hash; the all-zero hash is held apart', () => {
    const set = new UrlHashSet();
    set.add(hash(1));
    set.add(hash(1));
    set.add(hash(2).toUpperCase());
    expect(set.size).toBe(2);
    expect(set.has(hash(2))).toBe(true);
    const zero = '0'.repeat(64);
    expect(set.has(zero)).toBe(false);
    set.add(zero);
    set.add(zero);
    expect(set.has(zero)).toBe(true);
    expect(set.size).toBe(3);
    expect(set.has(hash(3))).toBe(false);
  });

  it('refuses what is not a sha256 in hex', () => {
    const set = new UrlHashSet();
    expect(() => set.add('https://example.com/')).toThrow(/not a sha256 in hex/);
    expect(() => set.has('abc')).toThrow(TypeError);
  });
});
