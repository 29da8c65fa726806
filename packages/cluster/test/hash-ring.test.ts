import { describe, expect, it } from 'vitest';
import { HashRing } from '../src/run/hash-ring.js';

describe('HashRing', () => {
  const keys = Array.from({ length: 20_000 }, (_, i) => HashRing.crawlKey('c', 0, `http://h/p${i}`));

  it('routes a key to the same node every time', () => {
    const ring = new HashRing(['a', 'b', 'c']);
    expect(ring.owner(keys[5] as string)).toBe(ring.owner(keys[5] as string));
  });

  it('spreads keys roughly evenly', () => {
    const ring = new HashRing(['a', 'b', 'c']);
    const counts = new Map<string, number>();
    for (const k of keys) counts.set(ring.owner(k), (counts.get(ring.owner(k)) ?? 0) + 1);
    for (const node of ['a', 'b', 'c']) {
      const share = (counts.get(node) ?? 0) / keys.length;
      expect(share).toBeGreaterThan(0.25);
      expect(share).toBeLessThan(0.42);
    }
  });

  it('moves only the keys of a removed node', () => {
    const ring = new HashRing(['a', 'b', 'c']);
    const before = keys.map((k) => ring.owner(k));
    ring.remove('c');
    const after = keys.map((k) => ring.owner(k));
    for (let i = 0; i < keys.length; i++) {
      if (before[i] !== 'c') expect(after[i]).toBe(before[i]);
      else expect(after[i]).not.toBe('c');
    }
  });

  it('refuses to route on an empty ring', () => {
    expect(() => new HashRing().owner('x')).toThrow(/no nodes/);
  });
});
