import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConfigError,
  type ContentDedupFilter,
  type CrawlerError,
  createContentDedup,
  DataLayout,
  hammingDistance,
  LevelUrlFilter,
  MemoryUrlFilter,
  SimhashContentDedup,
  simhash64,
  urlHash,
} from '@greenfinger/core/internal';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeUrlFilterContract } from './dedup-contract.js';

const CAT = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describeUrlFilterContract('MemoryUrlFilter', async () => {
  const filter = new MemoryUrlFilter();
  return { open: async () => filter, dispose: async () => undefined };
});

describeUrlFilterContract(
  'LevelUrlFilter',
  async () => {
    const root = await mkdtemp(join(tmpdir(), 'gf-dedup-'));
    const dir = new DataLayout(root).urlDedupDir;
    return {
      open: () => LevelUrlFilter.open(dir),
      reopen: () => LevelUrlFilter.open(dir),
      dispose: () => rm(root, { recursive: true, force: true }),
    };
  },
  { durable: true },
);

describe('LevelUrlFilter', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'gf-dedup-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('rebuilds a larger Bloom filter when a version outgrows it, staying exact', async () => {
    const dir = new DataLayout(root).urlDedupDir;
    await using filter = await LevelUrlFilter.open(dir, { expectedItems: 100, falsePositiveRate: 0.01 });
    const hashes = Array.from({ length: 2000 }, (_, i) => urlHash(`https://example.com/${i}`));
    expect(await filter.has(CAT, 1, hashes[0] as string)).toBe(false);
    const small = await filter.stats(CAT, 1);
    await filter.markAll(CAT, 1, hashes);
    expect(await filter.has(CAT, 1, hashes[1999] as string)).toBe(true);
    const grown = await filter.stats(CAT, 1);
    expect(grown.bits).toBeGreaterThan(small.bits * 10);
    expect(grown.items).toBe(2000);
    expect(grown.configuredFalsePositiveRate).toBe(0.01);
    expect(grown.estimatedFalsePositiveRate).toBeLessThan(0.02);
    const absent = await Promise.all(
      Array.from({ length: 2000 }, (_, i) => filter.has(CAT, 1, urlHash(`https://example.org/${i}`))),
    );
    expect(absent.some(Boolean)).toBe(false);
  });

  it('a second open is a CONFLICT naming the directory', async () => {
    const dir = new DataLayout(root).urlDedupDir;
    await using _first = await LevelUrlFilter.open(dir);
    const err = await LevelUrlFilter.open(dir).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONFLICT' });
    expect((err as CrawlerError).message).toContain(dir);
  });

  it('rejects a false-positive rate outside (0, 1)', async () => {
    await expect(LevelUrlFilter.open(join(root, 'x'), { falsePositiveRate: 1 })).rejects.toBeInstanceOf(ConfigError);
  });
});

/** Deterministic text of `n` words from a 300-word vocabulary. */
function text(seed: number, n: number): string {
  let s = seed >>> 0;
  const next = (): number => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return Array.from({ length: n }, () => `w${Math.floor(next() * 300).toString(36)}x`).join(' ');
}

/** `base` with `changes` words replaced at deterministic positions. */
function edit(base: string, seed: number, changes: number): string {
  const words = base.split(' ');
  for (let k = 0; k < changes; k++) words[(seed * 7919 + k * 104_729) % words.length] = `changed${k}`;
  return words.join(' ');
}

describe('content dedup', () => {
  let root: string;
  let dir: string;
  const open: ContentDedupFilter[] = [];
  const make = async (kind: 'sha256' | 'simhash', options = {}): Promise<ContentDedupFilter> => {
    const filter = await createContentDedup(kind, dir, options);
    open.push(filter);
    return filter;
  };
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'gf-content-'));
    dir = new DataLayout(root).contentDedupDir;
  });
  afterEach(async () => {
    for (const filter of open.splice(0)) await filter.close();
    await rm(root, { recursive: true, force: true });
  });

  describe.each(['sha256', 'simhash'] as const)('check (%s)', (kind) => {
    it('answers what checkAndRecord would, and records nothing', async () => {
      const dedup = await make(kind);
      const long = text(7, 2000);
      for (const body of ['short text', long]) {
        expect(await dedup.check(CAT, 1, body)).toBeUndefined();
        // Nothing was recorded by the check: the first to record it is still "new".
        expect(await dedup.checkAndRecord(CAT, 1, body, 'r1')).toBeUndefined();
        expect(await dedup.check(CAT, 1, body)).toBe('r1');
        expect(await dedup.check(CAT, 2, body)).toBeUndefined();
      }
      if (kind === 'simhash') expect(await dedup.check(CAT, 1, edit(long, 7, 3))).toBe('r1');
    });
  });

  describe('sha256', () => {
    it('finds the same text, whitespace aside, and names the resource holding it', async () => {
      const dedup = await make('sha256');
      expect(dedup.kind).toBe('sha256');
      expect(dedup.fingerprint('a  b\n c ')).toBe(dedup.fingerprint('a b c'));
      expect(dedup.fingerprint('a b c')).toHaveLength(64);
      expect(await dedup.checkAndRecord(CAT, 1, 'Hello   world.\n', 'r1')).toBeUndefined();
      expect(await dedup.checkAndRecord(CAT, 1, ' Hello world. ', 'r2')).toBe('r1');
      expect(await dedup.checkAndRecord(CAT, 1, 'Hello world!', 'r3')).toBeUndefined();
    });

    it('counts the same resource recording its text again as new', async () => {
      const dedup = await make('sha256');
      expect(await dedup.checkAndRecord(CAT, 1, 'same', 'r1')).toBeUndefined();
      expect(await dedup.checkAndRecord(CAT, 1, 'same', 'r1')).toBeUndefined();
      expect(await dedup.checkAndRecord(CAT, 1, 'same', 'r2')).toBe('r1');
    });

    it('keeps versions apart; forget and clearVersion drop fingerprints', async () => {
      const dedup = await make('sha256');
      await dedup.checkAndRecord(CAT, 1, 'one', 'r1');
      await dedup.checkAndRecord(CAT, 1, 'two', 'r2');
      expect(await dedup.checkAndRecord(CAT, 10, 'one', 'r9')).toBeUndefined();
      await dedup.forget(CAT, 1, 'one');
      expect(await dedup.checkAndRecord(CAT, 1, 'one', 'r3')).toBeUndefined();
      await dedup.clearVersion(CAT, 1);
      expect(await dedup.checkAndRecord(CAT, 1, 'two', 'r4')).toBeUndefined();
      expect(await dedup.checkAndRecord(CAT, 10, 'one', 'r5')).toBe('r9');
    });

    it('two identical pages arriving at once yield exactly one "new"', async () => {
      const dedup = await make('sha256');
      const results = await Promise.all(
        Array.from({ length: 25 }, (_, i) => dedup.checkAndRecord(CAT, 1, 'the same body', `r${i}`)),
      );
      expect(results.filter((r) => r === undefined)).toHaveLength(1);
      expect(new Set(results.filter((r) => r !== undefined)).size).toBe(1);
    });

    it('survives reopening', async () => {
      const first = await createContentDedup('sha256', dir);
      await first.checkAndRecord(CAT, 1, 'kept', 'r1');
      await first.close();
      const again = await make('sha256');
      expect(await again.checkAndRecord(CAT, 1, 'kept', 'r2')).toBe('r1');
    });
  });

  describe('simhash', () => {
    it('detects a near-duplicate with a few words changed', async () => {
      const dedup = await make('simhash');
      const base = text(11, 2000);
      const near = edit(base, 11, 3);
      expect(near).not.toBe(base);
      expect(hammingDistance(dedup.fingerprint(base), dedup.fingerprint(near))).toBeLessThanOrEqual(3);
      expect(hammingDistance(dedup.fingerprint(base), dedup.fingerprint(near))).toBeGreaterThan(0);
      expect(await dedup.checkAndRecord(CAT, 1, base, 'r1')).toBeUndefined();
      expect(await dedup.checkAndRecord(CAT, 1, near, 'r2')).toBe('r1');
    });

    it('catches most 3-word edits of long texts and never confuses different texts', async () => {
      const dedup = await make('simhash');
      for (let seed = 1; seed <= 30; seed++) await dedup.checkAndRecord(CAT, 2, text(seed, 2000), `base${seed}`);
      let near = 0;
      let confused = 0;
      for (let seed = 1; seed <= 30; seed++) {
        if ((await dedup.checkAndRecord(CAT, 2, edit(text(seed, 2000), seed, 3), `near${seed}`)) === `base${seed}`)
          near++;
        if ((await dedup.checkAndRecord(CAT, 2, text(seed + 1000, 2000), `other${seed}`)) !== undefined) confused++;
      }
      expect(near).toBeGreaterThanOrEqual(20);
      expect(confused).toBe(0);
    });

    it('does not take a different text for a duplicate', async () => {
      const dedup = await make('simhash');
      const a = text(1, 800);
      const b = text(2, 800);
      expect(hammingDistance(simhash64(a), simhash64(b))).toBeGreaterThan(3);
      expect(await dedup.checkAndRecord(CAT, 1, a, 'r1')).toBeUndefined();
      expect(await dedup.checkAndRecord(CAT, 1, b, 'r2')).toBeUndefined();
      expect(await dedup.checkAndRecord(CAT, 1, a, 'r3')).toBe('r1');
    });

    it('falls back to exact sha256 for short texts', async () => {
      const dedup = await make('simhash', { minLength: 200 });
      expect(dedup.fingerprint('short text here')).toHaveLength(64);
      expect(dedup.fingerprint(text(3, 100))).toHaveLength(16);
      expect(await dedup.checkAndRecord(CAT, 1, 'short text here', 'r1')).toBeUndefined();
      expect(await dedup.checkAndRecord(CAT, 1, 'short  text here', 'r2')).toBe('r1');
      expect(await dedup.checkAndRecord(CAT, 1, 'short text there', 'r3')).toBeUndefined();
    });

    it('keeps versions apart; forget and clearVersion drop fingerprints', async () => {
      const dedup = await make('simhash');
      const a = text(5, 1000);
      const b = text(6, 1000);
      await dedup.checkAndRecord(CAT, 1, a, 'r1');
      await dedup.checkAndRecord(CAT, 1, b, 'r2');
      expect(await dedup.checkAndRecord(CAT, 10, a, 'r9')).toBeUndefined();
      await dedup.forget(CAT, 1, a);
      expect(await dedup.checkAndRecord(CAT, 1, a, 'r3')).toBeUndefined();
      await dedup.clearVersion(CAT, 1);
      expect(await dedup.checkAndRecord(CAT, 1, b, 'r4')).toBeUndefined();
      expect(await dedup.checkAndRecord(CAT, 10, a, 'r5')).toBe('r9');
    });

    it('near-duplicates arriving at once yield exactly one "new"', async () => {
      const dedup = await make('simhash');
      const base = text(11, 2000);
      const variants = [base, edit(base, 11, 3), base, edit(base, 11, 3)];
      const results = await Promise.all(variants.map((t, i) => dedup.checkAndRecord(CAT, 1, t, `r${i}`)));
      expect(results.filter((r) => r === undefined)).toHaveLength(1);
    });

    it('refuses a distance the four bands cannot guarantee', async () => {
      await expect(SimhashContentDedup.open(dir, { maxDistance: 4 })).rejects.toBeInstanceOf(ConfigError);
    });
  });

  it('createContentDedup refuses an unknown kind', async () => {
    await expect(createContentDedup('md5' as 'sha256', dir)).rejects.toBeInstanceOf(ConfigError);
  });
});
