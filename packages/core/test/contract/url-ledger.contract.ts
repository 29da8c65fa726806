import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ids, urlHash } from '../../src/ids.js';
import type { LedgerRow, LedgerState, RecordDatabase } from '../../src/storage/record-store.js';
import { makeImage, makeRef, makeResource } from './record-store.contract.js';

/** A ledger row of `url` in a catalog version; every field can be overridden. */
export function ledgerRow(
  catalogId: string,
  version: number,
  url: string,
  state: LedgerState,
  overrides: Partial<LedgerRow> = {},
): LedgerRow {
  const hash = urlHash(url);
  const fetched = state === 'done' || state === 'failed';
  return {
    id: ids.resource(catalogId, version, hash),
    catalogId,
    version,
    url,
    urlHash: hash,
    state,
    outcome: state === 'queued' ? '' : state === 'done' ? 'SAVED' : state === 'failed' ? 'REJECTED_NOTFOUND' : '',
    detail: '',
    status: fetched ? (state === 'done' ? 200 : 404) : null,
    reason: '',
    referrer: 'https://example.test/',
    depth: 1,
    redirects: [],
    foundAs: null,
    fetchedAt: fetched ? '2026-12-01T10:00:00.000Z' : null,
    updatedAt: '2026-12-01T10:00:01.000Z',
    ...overrides,
  };
}

/**
 * The UrlLedgerStore contract (record-store.ts), run against every RecordDatabase: the replacement rule, list
 * filters and paging, counts, deleted url hashes, and the version delete taking the ledger rows with it.
 */
export function describeUrlLedgerContract(name: string, open: () => Promise<RecordDatabase>): void {
  describe(`UrlLedgerStore contract: ${name}`, () => {
    let db: RecordDatabase;
    beforeAll(async () => {
      db = await open();
    });
    afterAll(async () => {
      await db?.close();
    });

    it('records rows and reads them back by id, every field as written', async () => {
      const c = ids.catalog();
      const saved = ledgerRow(c, 0, 'https://example.test/a', 'done', {
        detail: '',
        reason: 'fine',
        depth: 2,
        referrer: 'https://example.test/',
      });
      const redirected = ledgerRow(c, 0, 'https://example.test/new', 'done', {
        redirects: ['https://example.test/old', 'https://example.test/older'],
      });
      await db.ledger.record([redirected]);
      expect((await db.ledger.get(redirected.id))?.redirects).toEqual(redirected.redirects);
      const refused = ledgerRow(c, 0, 'https://other.test/', 'rejected', {
        outcome: 'REJECTED_OUT_OF_SCOPE',
        detail: 'domain-scope',
        reason: 'domain other.test is not example.test',
        referrer: null,
      });
      await db.ledger.record([saved, refused]);
      expect(await db.ledger.get(saved.id)).toEqual(saved);
      expect(await db.ledger.get(refused.id)).toEqual(refused);
      expect(await db.ledger.get(ids.resource(c, 0, urlHash('https://example.test/none')))).toBeUndefined();
      await db.ledger.record([]);
    });

    it('a queued row never replaces an end state; an end state replaces queued and other end states', async () => {
      const c = ids.catalog();
      const urls = ['done', 'failed', 'rejected'].map((s) => `https://example.test/${s}`);
      const ends = (['done', 'failed', 'rejected'] as const).map((s, i) => ledgerRow(c, 1, urls[i] as string, s));
      await db.ledger.record(ends);
      await db.ledger.record(ends.map((r) => ledgerRow(c, 1, r.url, 'queued', { depth: 7 })));
      for (const r of ends) expect(await db.ledger.get(r.id)).toEqual(r);

      const q = ledgerRow(c, 1, 'https://example.test/q', 'queued');
      await db.ledger.record([q]);
      const later = ledgerRow(c, 1, q.url, 'queued', { referrer: 'https://example.test/other', depth: 3 });
      await db.ledger.record([later]);
      expect(await db.ledger.get(q.id)).toEqual(later);
      const failed = ledgerRow(c, 1, q.url, 'failed', { outcome: 'REJECTED_BAD_STATUS', status: 500 });
      await db.ledger.record([failed]);
      expect(await db.ledger.get(q.id)).toEqual(failed);
      const done = ledgerRow(c, 1, q.url, 'done', { outcome: 'SAVED', status: 200 });
      await db.ledger.record([done]);
      expect(await db.ledger.get(q.id)).toEqual(done);
    });

    it('keeps the first form a url was found in while it is on the way; a later run brings its own, or none', async () => {
      const c = ids.catalog();
      const url = 'https://example.test/cart';
      const first = 'https://Example.test:443/cart?PHPSESSID=a1#top';
      const queued = ledgerRow(c, 0, url, 'queued', { foundAs: first });
      await db.ledger.record([queued]);
      expect(await db.ledger.get(queued.id)).toEqual(queued);
      // Queued again in the run, written another way or in its normal form: the first form stays.
      await db.ledger.record([ledgerRow(c, 0, url, 'queued', { foundAs: 'https://example.test/cart;jsessionid=b2' })]);
      await db.ledger.record([ledgerRow(c, 0, url, 'queued', { depth: 4 })]);
      expect(await db.ledger.get(queued.id)).toMatchObject({ depth: 4, foundAs: first });
      // Handled by a lease that did not carry the form (an entry queued before the column existed).
      const done = ledgerRow(c, 0, url, 'done');
      await db.ledger.record([done]);
      expect(await db.ledger.get(queued.id)).toEqual({ ...done, foundAs: first });
      // A later run of the version: its row brings the form it found, or none.
      const again = ledgerRow(c, 0, url, 'done', { foundAs: 'https://example.test/cart?sid=c3' });
      await db.ledger.record([again]);
      expect(await db.ledger.get(queued.id)).toEqual(again);
      const plain = ledgerRow(c, 0, url, 'done', { outcome: 'REJECTED_UNMODIFIED' });
      await db.ledger.record([plain]);
      expect(await db.ledger.get(queued.id)).toEqual(plain);
      // One batch: queued with its form, then handled without it.
      const other = 'https://example.test/basket';
      const batch = [ledgerRow(c, 0, other, 'queued', { foundAs: `${other}?sid=1` }), ledgerRow(c, 0, other, 'done')];
      await db.ledger.record(batch);
      expect((await db.ledger.get(batch[1]!.id))?.foundAs).toBe(`${other}?sid=1`);
      // Found only in its normal form: none.
      const normal = ledgerRow(c, 0, 'https://example.test/normal', 'queued');
      await db.ledger.record([normal, ledgerRow(c, 0, normal.url, 'done')]);
      expect((await db.ledger.get(normal.id))?.foundAs).toBeNull();
    });

    it('keeps the priority a url was queued with when a later row carries none', async () => {
      const c = ids.catalog();
      const url = 'https://example.test/library/json.html';
      const priority = {
        score: 0.75,
        queue: 2,
        parts: { depth: 0.5, type: 1, freshness: 0.5, quality: 0.8, sitemap: 1 },
      };
      const queued = ledgerRow(c, 0, url, 'queued', { priority });
      await db.ledger.record([queued]);
      expect((await db.ledger.get(queued.id))?.priority).toEqual(priority);
      await db.ledger.record([ledgerRow(c, 0, url, 'done')]);
      expect((await db.ledger.get(queued.id))?.priority).toEqual(priority);
      const other = 'https://example.test/library/os.html';
      await db.ledger.record([ledgerRow(c, 0, other, 'queued', { priority }), ledgerRow(c, 0, other, 'done')]);
      expect((await db.ledger.get(ids.resource(c, 0, urlHash(other))))?.priority).toEqual(priority);
      const none = ledgerRow(c, 0, 'https://example.test/', 'done');
      await db.ledger.record([none]);
      expect(await db.ledger.get(none.id)).not.toHaveProperty('priority');
    });

    it('counts the changes of a url: each new change date once, a row without one keeps date and count', async () => {
      const c = ids.catalog();
      const url = 'https://example.test/news/today.html';
      const id = ids.resource(c, 0, urlHash(url));
      const first = '2026-12-01T10:00:00.000Z';
      const second = '2026-12-02T10:00:00.000Z';
      await db.ledger.record([ledgerRow(c, 0, url, 'queued')]);
      expect(await db.ledger.get(id)).not.toHaveProperty('changedAt');
      const saved = ledgerRow(c, 0, url, 'done', { changedAt: first, changeCount: 1 });
      await db.ledger.record([saved]);
      expect(await db.ledger.get(id)).toMatchObject({ changedAt: first, changeCount: 1 });
      // The same commit written again (after a crash) is not a second change; an unchanged revisit keeps both.
      await db.ledger.record([saved]);
      await db.ledger.record([ledgerRow(c, 0, url, 'done', { outcome: 'REJECTED_UNMODIFIED' })]);
      expect(await db.ledger.get(id)).toMatchObject({
        outcome: 'REJECTED_UNMODIFIED',
        changedAt: first,
        changeCount: 1,
      });
      await db.ledger.record([ledgerRow(c, 0, url, 'done', { changedAt: second, changeCount: 1 })]);
      expect(await db.ledger.get(id)).toMatchObject({ changedAt: second, changeCount: 2 });
      // Several rows of one url in one batch follow the same rule.
      const other = 'https://example.test/news/other.html';
      await db.ledger.record([
        ledgerRow(c, 0, other, 'queued'),
        ledgerRow(c, 0, other, 'done', { changedAt: first, changeCount: 1 }),
        ledgerRow(c, 0, other, 'done', { outcome: 'REJECTED_UNMODIFIED' }),
      ]);
      expect(await db.ledger.get(ids.resource(c, 0, urlHash(other)))).toMatchObject({
        changedAt: first,
        changeCount: 1,
      });
    });

    it('keeps a url recrawl schedule: a row without an interval keeps the three columns held', async () => {
      const c = ids.catalog();
      const url = 'https://example.test/schedule';
      const id = ids.resource(c, 0, urlHash(url));
      const due = '2026-12-09T10:00:00.000Z';
      await db.ledger.record([ledgerRow(c, 0, url, 'done')]);
      expect(await db.ledger.get(id)).not.toHaveProperty('recrawlEvery');
      const schedule = { recrawlEvery: 4 * 86_400, dueAt: due, unchangedVisits: 3 };
      await db.ledger.record([ledgerRow(c, 0, url, 'done', { outcome: 'REJECTED_UNMODIFIED', ...schedule })]);
      expect(await db.ledger.get(id)).toMatchObject(schedule);
      await db.ledger.record([ledgerRow(c, 0, url, 'done', { outcome: 'REJECTED_PREMATURE', detail: 'schedule' })]);
      expect(await db.ledger.get(id)).toMatchObject({ outcome: 'REJECTED_PREMATURE', ...schedule });
      // In one batch too; a new interval replaces all three (a change resets the unchanged visits).
      const changed = { recrawlEvery: 2 * 86_400, dueAt: '2026-12-07T10:00:00.000Z', unchangedVisits: 0 };
      await db.ledger.record([
        ledgerRow(c, 0, url, 'queued'),
        ledgerRow(c, 0, url, 'done', { outcome: 'REJECTED_PREMATURE' }),
      ]);
      expect(await db.ledger.get(id)).toMatchObject(schedule);
      await db.ledger.record([ledgerRow(c, 0, url, 'done', changed)]);
      expect(await db.ledger.get(id)).toMatchObject(changed);
    });

    it('nothing but deleted replaces a deleted row', async () => {
      const c = ids.catalog();
      const url = 'https://example.test/gone';
      const deleted = ledgerRow(c, 0, url, 'deleted', { outcome: 'SAVED', reason: 'deleted by hand' });
      await db.ledger.record([deleted]);
      for (const state of ['queued', 'crawling', 'done', 'failed', 'rejected'] as const) {
        await db.ledger.record([ledgerRow(c, 0, url, state, { outcome: 'REJECTED_FILTER' })]);
        expect(await db.ledger.get(deleted.id)).toEqual(deleted);
      }
      const again = { ...deleted, reason: 'deleted again', updatedAt: '2026-12-02T00:00:00.000Z' };
      await db.ledger.record([again]);
      expect(await db.ledger.get(deleted.id)).toEqual(again);
    });

    it('a known page handled again (REJECTED_KNOWN) keeps the fate it was fetched with', async () => {
      const c = ids.catalog();
      const url = 'https://example.test/known';
      const saved = ledgerRow(c, 0, url, 'done');
      const known = ledgerRow(c, 0, url, 'done', { outcome: 'REJECTED_KNOWN', status: null, fetchedAt: null });
      await db.ledger.record([saved, ledgerRow(c, 0, url, 'queued'), known]);
      expect(await db.ledger.get(saved.id)).toEqual(saved);
      const other = 'https://example.test/known-first';
      const first = ledgerRow(c, 0, other, 'done', { outcome: 'REJECTED_KNOWN', status: null, fetchedAt: null });
      await db.ledger.record([ledgerRow(c, 0, other, 'queued'), first]);
      expect(await db.ledger.get(first.id)).toEqual(first);
    });

    it('a batch holding one url several times ends as recording them one by one would', async () => {
      const c = ids.catalog();
      const url = 'https://example.test/twice';
      const done = ledgerRow(c, 0, url, 'done');
      await db.ledger.record([ledgerRow(c, 0, url, 'queued'), done, ledgerRow(c, 0, url, 'queued')]);
      expect(await db.ledger.get(done.id)).toEqual(done);
      const deleted = ledgerRow(c, 0, url, 'deleted');
      await db.ledger.record([deleted, ledgerRow(c, 0, url, 'rejected'), ledgerRow(c, 0, url, 'queued')]);
      expect(await db.ledger.get(done.id)).toEqual(deleted);
    });

    it('lists a version in url order, filtered by state, outcome and text, with paging and the total', async () => {
      const c = ids.catalog();
      const rows = [
        ...Array.from({ length: 12 }, (_, i) =>
          ledgerRow(c, 2, `https://example.test/docs/${String(i).padStart(2, '0')}`, 'done'),
        ),
        ledgerRow(c, 2, 'https://example.test/missing', 'failed', { outcome: 'REJECTED_NOTFOUND' }),
        ledgerRow(c, 2, 'https://example.test/broken', 'failed', { outcome: 'REJECTED_BAD_STATUS', status: 500 }),
        ledgerRow(c, 2, 'https://other.test/docs/x', 'rejected', { outcome: 'REJECTED_OUT_OF_SCOPE' }),
        ledgerRow(c, 2, 'https://example.test/wait', 'queued'),
        ledgerRow(c, 3, 'https://example.test/docs/other-version', 'done'),
        ledgerRow(ids.catalog(), 2, 'https://example.test/docs/other-catalog', 'done'),
      ];
      await db.ledger.record(rows);
      const all = await db.ledger.list({ catalogId: c, version: 2 });
      expect(all.total).toBe(16);
      expect(all.items.map((r) => r.url)).toEqual(
        rows
          .slice(0, 16)
          .map((r) => r.url)
          .sort(),
      );
      const page = await db.ledger.list({ catalogId: c, version: 2, state: 'done', limit: 5, offset: 10 });
      expect(page.total).toBe(12);
      expect(page.items.map((r) => r.url)).toEqual(['https://example.test/docs/10', 'https://example.test/docs/11']);
      const failed = await db.ledger.list({ catalogId: c, version: 2, state: 'failed' });
      expect(failed.items.map((r) => r.outcome).sort()).toEqual(['REJECTED_BAD_STATUS', 'REJECTED_NOTFOUND']);
      const notFound = await db.ledger.list({ catalogId: c, version: 2, outcome: 'REJECTED_NOTFOUND' });
      expect(notFound).toEqual({ items: [rows[12]], total: 1 });
      const text = await db.ledger.list({ catalogId: c, version: 2, text: '/docs/' });
      expect(text.total).toBe(13);
      const both = await db.ledger.list({ catalogId: c, version: 2, text: '/docs/', state: 'rejected' });
      expect(both.items.map((r) => r.url)).toEqual(['https://other.test/docs/x']);
      // The text is a plain substring: no wildcards.
      expect((await db.ledger.list({ catalogId: c, version: 2, text: '%' })).total).toBe(0);
      expect((await db.ledger.list({ catalogId: c, version: 2, text: '_' })).total).toBe(0);
      expect((await db.ledger.list({ catalogId: c, version: 2, offset: 100 })).items).toEqual([]);
      expect((await db.ledger.list({ catalogId: c, version: 2, limit: 1 })).items).toHaveLength(1);
      expect((await db.ledger.list({ catalogId: c, version: 9 })).total).toBe(0);
    });

    it('counts a version per state, every state present', async () => {
      const c = ids.catalog();
      await db.ledger.record([
        ledgerRow(c, 0, 'https://example.test/1', 'done'),
        ledgerRow(c, 0, 'https://example.test/2', 'done'),
        ledgerRow(c, 0, 'https://example.test/3', 'failed'),
        ledgerRow(c, 0, 'https://example.test/4', 'queued'),
        ledgerRow(c, 0, 'https://example.test/5', 'deleted'),
        ledgerRow(c, 1, 'https://example.test/6', 'rejected'),
      ]);
      expect(await db.ledger.counts(c, 0)).toEqual({
        queued: 1,
        crawling: 0,
        done: 2,
        failed: 1,
        rejected: 0,
        deleted: 1,
      });
      expect(await db.ledger.counts(c, 5)).toEqual({
        queued: 0,
        crawling: 0,
        done: 0,
        failed: 0,
        rejected: 0,
        deleted: 0,
      });
    });

    it('gives the url hashes of a version’s deleted rows', async () => {
      const c = ids.catalog();
      const a = ledgerRow(c, 4, 'https://example.test/a', 'deleted');
      const b = ledgerRow(c, 4, 'https://example.test/b', 'deleted');
      await db.ledger.record([a, b, ledgerRow(c, 4, 'https://example.test/c', 'done')]);
      await db.ledger.record([ledgerRow(c, 5, 'https://example.test/d', 'deleted')]);
      expect((await db.ledger.deletedUrlHashes(c, 4)).sort()).toEqual([a.urlHash, b.urlHash].sort());
      expect(await db.ledger.deletedUrlHashes(c, 6)).toEqual([]);
    });

    it('deletes one page: its resource row and its picture links, the pictures stay; a dry run counts', async () => {
      const c = ids.catalog();
      const page = makeResource(c, 0, '/gone');
      const kept = makeResource(c, 0, '/kept');
      const image = makeImage(c, 0, 'logo');
      await db.resources.saveResources([page, kept]);
      await db.resources.saveImages([image]);
      await db.resources.saveResourceImages([makeRef(page, image, 'a'), makeRef(kept, image, 'b')]);
      const counted = { crawler_resource_image: 1, crawler_resource: 1 };
      expect(await db.resources.deleteResource(page.id, true)).toEqual(counted);
      expect(await db.resources.getResource(page.id)).toBeDefined();
      expect(await db.resources.deleteResource(page.id)).toEqual(counted);
      expect(await db.resources.getResource(page.id)).toBeUndefined();
      expect(await db.resources.count(c, 0)).toEqual({ resources: 1, images: 1, resourceImages: 1, reports: 0 });
      expect(await db.resources.deleteResource(page.id)).toEqual({ crawler_resource_image: 0, crawler_resource: 0 });
    });

    it('deleting a version removes its ledger rows (and only its), and does not make a version of them', async () => {
      const c = ids.catalog();
      await db.ledger.record([
        ledgerRow(c, 1, 'https://example.test/1', 'done'),
        ledgerRow(c, 1, 'https://example.test/2', 'rejected'),
        ledgerRow(c, 2, 'https://example.test/3', 'done'),
      ]);
      expect(await db.resources.versions(c)).toEqual([]);
      const removed = await db.resources.deleteVersion(c, 1);
      expect(removed.crawler_url).toBe(2);
      expect((await db.ledger.list({ catalogId: c, version: 1 })).total).toBe(0);
      expect((await db.ledger.list({ catalogId: c, version: 2 })).total).toBe(1);
    });
  });
}
