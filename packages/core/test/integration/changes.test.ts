import { type Catalog, Greenfinger } from '@greenfinger/core';
import { compareText, normalizeVolatile, shortTextDiff } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChangingSite,
  CREATED,
  DATE_ONLY,
  DELETED,
  EDITED,
  PAGES,
  startChangingSite,
} from '../support/changing-site.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/**
 * Changes that ignore noise, and the change log (issue 27 items 4 and 5), on a site of 30 pages whose every
 * answer differs in its times, counters and tokens: after the first crawl 3 pages are edited, 1 changes only its
 * date, 1 is deleted and 1 created. Catalog /a/ is merged (the run's own change set), catalog /b/ rebuilt (its new
 * version compared with the old one): both tell the same change.
 */
describe('changes', () => {
  let site: ChangingSite;
  let tmp: TempDir;
  let gf: Greenfinger;
  let merged: Catalog;
  let rebuilt: Catalog;
  const url = (prefix: string, n: number) => site.url(prefix, n);
  const settings = { intervalMs: 0, threads: 4, hostConcurrency: 4, outputs: ['file', 'index'] as ['file', 'index'] };

  beforeAll(async () => {
    site = await startChangingSite();
    tmp = createTempDir('gf-changes-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 1 } });
    for (const prefix of ['a', 'b']) {
      const report = await gf.crawler.crawl({ url: `${site.origin}/${prefix}/`, settings });
      expect(report.ending).toMatchObject({ reason: 'frontier-drained', published: true });
      expect(report.produced.saved).toBe(PAGES + 1);
      expect(report.changes).toEqual({ added: PAGES + 1, changed: 0, removed: 0 });
    }
    [merged, rebuilt] = (await Promise.all(
      ['a', 'b'].map(async (p) => (await gf.catalogs()).get({ url: `${site.origin}/${p}/` })),
    )) as [Catalog, Catalog];
    site.edit();
    const merge = await gf.crawler.crawl({ id: merged.id, action: 'merge' });
    expect(merge.ending).toMatchObject({ published: true });
    expect(merge.changes).toEqual({ added: 1, changed: 3, removed: 1 });
    const rebuild = await gf.crawler.crawl({ id: rebuilt.id, action: 'rebuild' });
    expect(rebuild.ending).toMatchObject({ published: true });
    expect(rebuild.changes).toEqual({ added: 1, changed: 3, removed: 1 });
  }, 60_000);
  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  const expected = (prefix: string) => site.expected(prefix);
  const urlsOf = (set: { added: string[]; changed: Array<{ url: string }>; removed: string[] }) => ({
    added: set.added,
    changed: set.changed.map((c) => c.url),
    removed: set.removed,
  });

  it('merge: exactly the 3 edited pages changed, the new one added, the deleted one removed', async () => {
    const latest = await gf.changes.changes({ id: merged.id });
    expect(latest.runs).toEqual([expect.objectContaining({ version: 0, action: 'merge' })]);
    expect(urlsOf(latest)).toEqual(expected('a'));
    const diff = latest.changed[0]?.diff ?? '';
    expect(diff).toMatch(/^- The grove of .* still stands where it always stood, old and quiet\.$/m);
    expect(diff).toMatch(/^\+ The grove of .* was replanted in spring after the flood washed the old trees away\.$/m);
    expect(diff).not.toMatch(/generated at|views|Updated/);

    // The date-only page was fetched, judged unchanged, and `why` says so; its stored text is the first crawl's.
    const fate = await gf.ledger.why(url('a', DATE_ONLY), { catalog: { id: merged.id } });
    expect(fate.row?.outcome).toBe('REJECTED_UNMODIFIED');
    expect(fate.explanation).toContain('unchanged: only volatile text differed');
    const gone = await gf.ledger.why(url('a', DELETED), { catalog: { id: merged.id } });
    expect(gone.row?.outcome).toBe('REJECTED_NOTFOUND');

    // The ledger counts each url's changes: saved by the crawl, then changed or removed by the merge.
    const row = async (n: number) => (await gf.ledger.why(url('a', n), { catalog: { id: merged.id } })).row;
    const edited = await row(EDITED[0] as number);
    expect(edited).toMatchObject({ outcome: 'SAVED', changeCount: 2, changedAt: edited?.fetchedAt });
    expect(await row(DATE_ONLY)).toMatchObject({ outcome: 'REJECTED_UNMODIFIED', changeCount: 1 });
    expect((await row(DATE_ONLY))?.changedAt).not.toBe((await row(DATE_ONLY))?.fetchedAt);
    expect(await row(DELETED)).toMatchObject({ changeCount: 2 });
    expect(await row(CREATED)).toMatchObject({ outcome: 'SAVED', changeCount: 1 });
  });

  it('the change log: the first crawl added every page; --since a version or a date folds the runs after it', async () => {
    const log = await gf.changes.log(merged);
    expect(log.map((e) => e.action)).toEqual(['crawl', 'merge']);
    expect(log[0]?.added).toHaveLength(PAGES + 1);
    const sinceV0 = await gf.changes.changes({ id: merged.id }, { sinceVersion: 0 });
    expect(sinceV0.runs.map((r) => r.action)).toEqual(['merge']);
    expect(urlsOf(sinceV0)).toEqual(expected('a'));
    // Since before the first crawl: the crawl's additions and the merge fold into one set.
    const all = await gf.changes.changes({ id: merged.id }, { sinceDate: new Date(0) });
    expect(all.runs).toHaveLength(2);
    expect(all.added).toHaveLength(PAGES + 1);
    expect(all.added).toContain(url('a', CREATED));
    expect(all.added).not.toContain(url('a', DELETED));
    expect(all.changed).toEqual([]);
    expect(all.removed).toEqual([]);
  });

  it('rebuild and diff: version 1 compared with version 0 tells the same change', async () => {
    const diff = await gf.changes.diff({ id: rebuilt.id }, 0, 1);
    expect({ from: diff.from, to: diff.to }).toEqual({ from: 0, to: 1 });
    expect(urlsOf(diff)).toEqual(expected('b'));
    const latest = await gf.changes.changes({ id: rebuilt.id });
    expect(latest.runs).toEqual([expect.objectContaining({ version: 1, action: 'rebuild' })]);
    expect(urlsOf(latest)).toEqual(expected('b'));
    expect(latest.changed.map((c) => c.diff)).toEqual(diff.changed.map((c) => c.diff));
    // Backwards it is the other way round.
    const back = await gf.changes.diff({ id: rebuilt.id }, 1, 0);
    expect(urlsOf(back)).toEqual({
      added: [url('b', DELETED)],
      changed: expected('b').changed,
      removed: [url('b', CREATED)],
    });
    await expect(gf.changes.diff({ id: rebuilt.id }, 0, 7)).rejects.toThrow(/keeps no version 7 \(kept: 0, 1\)/);
  });

  it('what counts as volatile: dates, times, relative times, counters, tokens — and not an edit', () => {
    const a = 'Updated 4 December 2026 at 10:15 UTC. 1,204 views. 3 minutes ago. csrf_token=abc123XYZ. Price 12 EUR.';
    const b = 'Updated Dec 5, 2026 at 11:02:09 UTC. 9 views. an hour ago. csrf_token=zz9. Price 12 EUR.';
    expect(normalizeVolatile(a)).toBe(normalizeVolatile(b));
    expect(compareText(a, b)).toBe('volatile');
    expect(compareText(a, a.replace('12 EUR', '13 EUR'))).toBe('changed');
    expect(compareText('Release 2026-12-04, version 3.11', 'Release 2026-12-05, version 3.12')).toBe('changed');
    expect(shortTextDiff('one\ntwo\nthree at 10:00', 'one\n2\nthree at 11:00')).toBe('- two\n+ 2');
  });
});
