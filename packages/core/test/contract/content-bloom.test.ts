import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LevelContentStore } from '../../src/dedup/level-content-store.js';
import { Sha256ContentDedup } from '../../src/dedup/sha256-content-dedup.js';
import { SimhashContentDedup } from '../../src/dedup/simhash-content-dedup.js';

const CAT = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

/** A page of about 300 words, its own words from `seed` on (so two seeds share no 3-shingle). */
function page(seed: number): string {
  return Array.from({ length: 300 }, (_, i) => `w${seed}x${i % 97}y${(i * 7) % 13}`).join(' ');
}

/** Issue 26 item 6: a Bloom filter per version in front of the content-dedup store. */
describe('the content Bloom filter', () => {
  let dir: string;
  beforeEach(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'gf-content-bloom-')), 'content');
  });
  afterEach(async () => {
    await rm(join(dir, '..'), { recursive: true, force: true });
  });

  it('sha256: a new text is recorded without a read, a duplicate is still found, across a reopen', async () => {
    const store = await LevelContentStore.open(dir, { expectedItems: 500 });
    const dedup = new Sha256ContentDedup(store);
    const texts = Array.from({ length: 2000 }, (_, i) => `page ${i} ${'text '.repeat(i % 50)}`);
    for (const [i, t] of texts.entries()) expect(await dedup.checkAndRecord(CAT, 1, t, `r${i}`)).toBeUndefined();
    // 200 pages repeat an earlier text (10 %): each is found, none is missed.
    for (let i = 0; i < 200; i++) {
      expect(await dedup.checkAndRecord(CAT, 1, texts[i * 10] as string, `d${i}`)).toBe(`r${i * 10}`);
    }
    const { asked, skipped } = store.bloomStats();
    expect(asked).toBe(2200);
    // The filter outgrew its 500 and was rebuilt larger; at most ~1 % of new texts read the store anyway.
    expect(skipped).toBeGreaterThanOrEqual(1960);
    expect(skipped).toBeLessThanOrEqual(2000);
    console.info(
      `content bloom, sha256: ${asked} records (2000 new, 200 duplicates), ${skipped} store reads saved (${((100 * skipped) / asked).toFixed(1)} %)`,
    );
    await dedup.close();

    // Reopened: the filter is rebuilt from the stored keys, so a known text is still a duplicate.
    const again = await LevelContentStore.open(dir);
    const reopened = new Sha256ContentDedup(again);
    expect(await reopened.checkAndRecord(CAT, 1, texts[1999] as string, 'x')).toBe('r1999');
    expect(await reopened.checkAndRecord(CAT, 1, 'a text never seen', 'y')).toBeUndefined();
    expect(again.bloomStats()).toEqual({ asked: 2, skipped: 1 });
    // Forgotten, then recorded again: the filter still says "maybe", the store says no, so it is new.
    await reopened.forget(CAT, 1, texts[5] as string);
    expect(await reopened.checkAndRecord(CAT, 1, texts[5] as string, 'z')).toBeUndefined();
    // A cleared version forgets its filter too.
    await reopened.clearVersion(CAT, 1);
    expect(await reopened.checkAndRecord(CAT, 1, texts[7] as string, 'w')).toBeUndefined();
    // Another version has a filter of its own.
    expect(await reopened.checkAndRecord(CAT, 2, texts[7] as string, 'v')).toBeUndefined();
    await reopened.close();
  });

  it('simhash: a band no text fell in is not scanned; a near-duplicate is still found', async () => {
    const store = await LevelContentStore.open(dir);
    const dedup = new SimhashContentDedup(store, { maxDistance: 3 });
    const n = 300;
    for (let i = 0; i < n; i++) expect(await dedup.checkAndRecord(CAT, 1, page(i), `r${i}`)).toBeUndefined();
    // The same page with one word changed: near-same text, found through a band.
    const near = page(42).replace('w42x5y9', 'changed');
    expect(await dedup.checkAndRecord(CAT, 1, near, 'd')).toBe('r42');
    const { asked, skipped } = store.bloomStats();
    // Four bands per new text; the near-duplicate stops at the band that finds it.
    expect(asked).toBeGreaterThan(n * 4);
    expect(asked).toBeLessThanOrEqual((n + 1) * 4);
    // 300 texts over 4 bands of 65,536 values: nearly every band of a new text is empty.
    expect(skipped).toBeGreaterThan(n * 4 * 0.9);
    console.info(
      `content bloom, simhash: ${n + 1} records, ${asked} band scans asked, ${skipped} saved (${((100 * skipped) / asked).toFixed(1)} %)`,
    );
    await dedup.close();
  });
});
