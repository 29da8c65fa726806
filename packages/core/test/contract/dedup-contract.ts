import { type ExistingUrlPathFilter, urlHash } from '@greenfinger/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/** One url filter under test; `reopen` is given by durable implementations only. */
export interface UrlFilterHarness {
  open(): Promise<ExistingUrlPathFilter>;
  reopen?: () => Promise<ExistingUrlPathFilter>;
  dispose(): Promise<void>;
}

const CAT = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const OTHER = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c';
const h = (n: number): string => urlHash(`https://example.com/p/${n}`);

/**
 * The ExistingUrlPathFilter contract, run against every implementation.
 * With `durable`, also the reopen test (the harness must then give `reopen`).
 */
export function describeUrlFilterContract(
  name: string,
  factory: () => Promise<UrlFilterHarness>,
  options: { durable?: boolean } = {},
): void {
  describe(`ExistingUrlPathFilter contract: ${name}`, () => {
    let harness: UrlFilterHarness;
    let filter: ExistingUrlPathFilter;
    beforeEach(async () => {
      harness = await factory();
      filter = await harness.open();
    });
    afterEach(async () => {
      await filter.close().catch(() => undefined);
      await harness.dispose();
    });

    it('answers false until marked, true after', async () => {
      expect(await filter.has(CAT, 1, h(1))).toBe(false);
      await filter.mark(CAT, 1, h(1));
      expect(await filter.has(CAT, 1, h(1))).toBe(true);
      expect(await filter.has(CAT, 1, h(2))).toBe(false);
    });

    it('markAll marks every hash; marking twice is harmless', async () => {
      await filter.markAll(CAT, 1, [h(1), h(2), h(3)]);
      await filter.markAll(CAT, 1, [h(3), h(4)]);
      await filter.markAll(CAT, 1, []);
      for (const n of [1, 2, 3, 4]) expect(await filter.has(CAT, 1, h(n))).toBe(true);
      expect(await filter.has(CAT, 1, h(5))).toBe(false);
    });

    it('keeps catalogs and versions apart (v1 is not a prefix of v10)', async () => {
      await filter.mark(CAT, 1, h(1));
      await filter.mark(CAT, 10, h(10));
      expect(await filter.has(CAT, 10, h(1))).toBe(false);
      expect(await filter.has(CAT, 2, h(1))).toBe(false);
      expect(await filter.has(OTHER, 1, h(1))).toBe(false);
      expect(await filter.has(CAT, 1, h(10))).toBe(false);
      expect(await filter.has(CAT, 10, h(10))).toBe(true);
    });

    it('clearVersion forgets that version only', async () => {
      await filter.markAll(CAT, 1, [h(1), h(2)]);
      await filter.markAll(CAT, 10, [h(1), h(2)]);
      await filter.mark(OTHER, 1, h(1));
      expect(await filter.has(CAT, 1, h(1))).toBe(true);
      await filter.clearVersion(CAT, 1);
      expect(await filter.has(CAT, 1, h(1))).toBe(false);
      expect(await filter.has(CAT, 1, h(2))).toBe(false);
      expect(await filter.has(CAT, 10, h(1))).toBe(true);
      expect(await filter.has(OTHER, 1, h(1))).toBe(true);
      await filter.mark(CAT, 1, h(2));
      expect(await filter.has(CAT, 1, h(2))).toBe(true);
    });

    it('forgetAll forgets those urls of that version only; they can be marked again', async () => {
      await filter.markAll(CAT, 1, [h(1), h(2), h(3)]);
      await filter.markAll(CAT, 10, [h(1)]);
      await filter.forgetAll(CAT, 1, [h(1), h(3), h(9)]);
      await filter.forgetAll(CAT, 1, []);
      expect(await filter.has(CAT, 1, h(1))).toBe(false);
      expect(await filter.has(CAT, 1, h(2))).toBe(true);
      expect(await filter.has(CAT, 1, h(3))).toBe(false);
      expect(await filter.has(CAT, 10, h(1))).toBe(true);
      await filter.forgetAll(OTHER, 7, [h(1)]);
      await filter.mark(CAT, 1, h(1));
      expect(await filter.has(CAT, 1, h(1))).toBe(true);
    });

    it('answers exactly for 5,000 marked and 5,000 absent hashes', async () => {
      const marked = Array.from({ length: 5000 }, (_, i) => h(i));
      for (let i = 0; i < marked.length; i += 1000) await filter.markAll(CAT, 2, marked.slice(i, i + 1000));
      const present = await Promise.all(marked.map((x) => filter.has(CAT, 2, x)));
      expect(present.every(Boolean)).toBe(true);
      const absent = await Promise.all(Array.from({ length: 5000 }, (_, i) => filter.has(CAT, 2, h(i + 5000))));
      expect(absent.some(Boolean)).toBe(false);
    });

    if (!options.durable) return;

    it('keeps marks across close and reopen', async () => {
      if (!harness.reopen) throw new Error(`${name}: a durable harness must give reopen()`);
      await filter.markAll(CAT, 1, [h(1), h(2)]);
      await filter.mark(CAT, 3, h(3));
      await filter.close();
      filter = await harness.reopen();
      expect(await filter.has(CAT, 1, h(1))).toBe(true);
      expect(await filter.has(CAT, 1, h(2))).toBe(true);
      expect(await filter.has(CAT, 1, h(3))).toBe(false);
      expect(await filter.has(CAT, 3, h(3))).toBe(true);
    });

    it('a forgotten url stays forgotten across close and reopen', async () => {
      if (!harness.reopen) throw new Error(`${name}: a durable harness must give reopen()`);
      await filter.markAll(CAT, 1, [h(1), h(2)]);
      await filter.forgetAll(CAT, 1, [h(1)]);
      await filter.close();
      filter = await harness.reopen();
      expect(await filter.has(CAT, 1, h(1))).toBe(false);
      expect(await filter.has(CAT, 1, h(2))).toBe(true);
    });
  });
}
