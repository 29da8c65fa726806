import { fnv1a64, hammingDistance, simhash64 } from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

describe('fnv1a64', () => {
  it('matches the reference vectors', () => {
    expect(fnv1a64('')).toBe('cbf29ce484222325');
    expect(fnv1a64('a')).toBe('af63dc4c8601ec8c');
    expect(fnv1a64('foobar')).toBe('85944171f73967e8');
  });
});

describe('hammingDistance', () => {
  it('counts differing bits across both halves', () => {
    expect(hammingDistance('0000000000000000', '0000000000000000')).toBe(0);
    expect(hammingDistance('0000000000000000', 'ffffffffffffffff')).toBe(64);
    expect(hammingDistance('8000000000000001', '0000000000000000')).toBe(2);
    expect(hammingDistance('00000000f0000000', '0000000000000000')).toBe(4);
    expect(hammingDistance('0123456789abcdef', '0123456789abcdee')).toBe(1);
  });
});

describe('simhash64', () => {
  const sentence = (n: number): string =>
    Array.from(
      { length: n },
      (_, i) => ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta'][(i * i + 3 * i) % 7],
    )
      .concat(Array.from({ length: n }, (_, i) => `term${i % 97}`))
      .join(' ');

  it('is 16 hex characters and ignores case, punctuation and spacing', () => {
    const a = simhash64('The quick brown fox jumps over the lazy dog.');
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(simhash64('the QUICK brown, fox   jumps over the lazy dog')).toBe(a);
  });

  it('keeps a small edit close and a different text far', () => {
    const base = sentence(400);
    const words = base.split(' ');
    words[100] = 'changed';
    const edited = words.join(' ');
    const near = hammingDistance(simhash64(base), simhash64(edited));
    const far = hammingDistance(
      simhash64(base),
      simhash64('An entirely different text about gardening and birds '.repeat(40)),
    );
    expect(near).toBeLessThanOrEqual(3);
    expect(far).toBeGreaterThan(10);
  });

  it('hashes texts of fewer than three words by their words', () => {
    expect(simhash64('hello')).toBe(fnv1a64('hello'));
    expect(simhash64('')).toBe('0000000000000000');
  });
});
