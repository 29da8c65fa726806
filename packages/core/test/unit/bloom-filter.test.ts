import { BloomFilter, sha256Hex } from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

describe('BloomFilter', () => {
  it('is sized from expected items and false-positive rate', () => {
    const bloom = new BloomFilter({ expectedItems: 100_000, falsePositiveRate: 0.01 });
    expect(bloom.bits).toBeGreaterThanOrEqual(958_505);
    expect(bloom.bits).toBeLessThan(958_505 + 64);
    expect(bloom.hashes).toBe(7);
    expect(bloom.configuredFalsePositiveRate).toBe(0.01);
    expect(bloom.fill).toBe(0);
  });

  it('never forgets, and at capacity measures close to the configured false-positive rate', () => {
    const bloom = new BloomFilter({ expectedItems: 100_000, falsePositiveRate: 0.01 });
    for (let i = 0; i < 100_000; i++) bloom.add(sha256Hex(`in ${i}`));
    for (let i = 0; i < 100_000; i++) {
      if (!bloom.mightContain(sha256Hex(`in ${i}`))) throw new Error(`false negative for item ${i}`);
    }
    let falsePositives = 0;
    for (let i = 0; i < 100_000; i++) if (bloom.mightContain(sha256Hex(`out ${i}`))) falsePositives++;
    const measured = falsePositives / 100_000;
    expect(measured).toBeLessThan(0.02);
    expect(measured).toBeGreaterThan(0.002);
    expect(bloom.count).toBe(100_000);
    expect(bloom.fill).toBeGreaterThan(0.45);
    expect(bloom.fill).toBeLessThan(0.55);
    expect(bloom.estimatedFalsePositiveRate).toBeGreaterThan(0.005);
    expect(bloom.estimatedFalsePositiveRate).toBeLessThan(0.02);
  });

  it('hashes keys that are not hex digests', () => {
    const bloom = new BloomFilter({ expectedItems: 1000, falsePositiveRate: 0.001 });
    bloom.add('https://example.com/a');
    expect(bloom.mightContain('https://example.com/a')).toBe(true);
    let hits = 0;
    for (let i = 0; i < 1000; i++) if (bloom.mightContain(`https://example.com/b${i}`)) hits++;
    expect(hits).toBeLessThan(5);
  });

  it('rejects a false-positive rate outside (0, 1)', () => {
    expect(() => new BloomFilter({ falsePositiveRate: 0 })).toThrow(RangeError);
    expect(() => new BloomFilter({ falsePositiveRate: 1.5 })).toThrow(RangeError);
  });
});
