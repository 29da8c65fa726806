import type { Catalog } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChangingSite,
  CREATED,
  DATE_ONLY,
  DELETED,
  EDITED,
  startChangingSite,
} from '../../core/test/support/changing-site.js';
import { type ApiFixture, openApiFixture } from './support/api-fixture.js';

/**
 * The change log run by run (GET /v2/catalog/{ref}/changes/runs and /changes/run, what the page shows per run) and
 * the url ledger's change date and count in GET /v2/urls and /v2/resource (issue 27 items 5 and 7), in-process: a
 * crawl of the changing site and a merge after its edit.
 */
describe('the change log per run, and the ledger change date and count', () => {
  let site: ChangingSite;
  let f: ApiFixture;
  let catalog: Catalog;

  beforeAll(async () => {
    site = await startChangingSite();
    f = await openApiFixture();
    const settings = { intervalMs: 0, threads: 4, hostConcurrency: 4, outputs: ['file', 'index'] as ['file', 'index'] };
    await f.gf.crawler.crawl({ url: `${site.origin}/a/`, settings });
    catalog = await (await f.gf.catalogs()).get({ url: `${site.origin}/a/` });
    site.edit();
    await f.gf.crawler.crawl({ id: catalog.id, action: 'merge' });
  }, 60_000);
  afterAll(async () => {
    await f?.close();
    await site?.close();
  });

  const get = (url: string) => f.call({ method: 'GET', url, as: 'support' });

  it('changes/runs: each publishing run with its counts, newest first; limit keeps the latest', async () => {
    const r = await get(`/v2/catalog/${encodeURIComponent(catalog.name)}/changes/runs`);
    expect(r.statusCode).toBe(200);
    const data = r.json().data;
    expect(data.catalog).toEqual({ id: catalog.id, name: catalog.name });
    expect(data.total).toBe(2);
    // The crawl added the index and its 30 pages; the merge 1 added, 3 changed, 1 removed.
    expect(data.runs).toEqual([
      { version: 0, action: 'merge', at: expect.any(String), added: 1, changed: 3, removed: 1 },
      { version: 0, action: 'crawl', at: expect.any(String), added: 31, changed: 0, removed: 0 },
    ]);
    expect(data.runs[0].at > data.runs[1].at).toBe(true);
    const one = (await get(`/v2/catalog/${catalog.id}/changes/runs?limit=1`)).json().data;
    expect(one.runs.map((x: { action: string }) => x.action)).toEqual(['merge']);
    expect(one.total).toBe(2);
  });

  it('changes/run: one run by its `at`, its urls and diffs, lists cut to limit with totals', async () => {
    const [merge, crawl] = (await get(`/v2/catalog/${catalog.id}/changes/runs`)).json().data.runs;
    const r = await get(`/v2/catalog/${catalog.id}/changes/run?at=${encodeURIComponent(merge.at)}`);
    expect(r.statusCode).toBe(200);
    const run = r.json().data;
    expect(run).toMatchObject({
      version: 0,
      action: 'merge',
      at: merge.at,
      total: { added: 1, changed: 3, removed: 1 },
    });
    const expected = site.expected('a');
    expect(run.added).toEqual(expected.added);
    expect(run.removed).toEqual(expected.removed);
    expect(run.changed.map((c: { url: string }) => c.url)).toEqual(expected.changed);
    for (const c of run.changed) expect(c.diff).toMatch(/^- .*still stands[\s\S]*\n\+ .*replanted/);
    const cut = (await get(`/v2/catalog/${catalog.id}/changes/run?at=${encodeURIComponent(crawl.at)}&limit=5`)).json()
      .data;
    expect(cut.added).toHaveLength(5);
    expect(cut.total).toEqual({ added: 31, changed: 0, removed: 0 });
  });

  it('changes/run: a bad `at` is a 400 naming it, a time no run ended at a 404, an unknown catalog a 404', async () => {
    const bad = await get(`/v2/catalog/${catalog.id}/changes/run?at=yesterday-ish`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/^at: "yesterday-ish" is not a time/);
    expect((await get(`/v2/catalog/${catalog.id}/changes/run`)).statusCode).toBe(400);
    const none = await get(`/v2/catalog/${catalog.id}/changes/run?at=2000-01-01T00:00:00Z`);
    expect(none.statusCode).toBe(404);
    expect(none.json().message).toMatch(/no run of its change log that ended at 2000-01-01T00:00:00Z/);
    expect((await get('/v2/catalog/no-such-catalog/changes/runs')).statusCode).toBe(404);
    expect((await get(`/v2/catalog/${catalog.id}/changes/runs?limit=0`)).statusCode).toBe(400);
  });

  it('GET /v2/urls: changedAt and changeCount per url; an edited page changed twice, an unchanged one once', async () => {
    const rows = new Map<string, { changedAt: string | null; changeCount: number; fetchedAt: string | null }>();
    const r = await get(`/v2/urls?catalog=${catalog.id}&limit=100`);
    expect(r.statusCode).toBe(200);
    for (const row of r.json().data.items) rows.set(row.url, row);
    const row = (n: number) => rows.get(site.url('a', n));
    const edited = row(EDITED[0] as number);
    expect(edited).toMatchObject({ changeCount: 2, changedAt: expect.any(String) });
    // The date-only page and a page nobody touched were saved once, by the crawl: one change each.
    expect(row(DATE_ONLY)).toMatchObject({ changeCount: 1 });
    expect(row(1)).toMatchObject({ changeCount: 1 });
    expect(Date.parse(row(1)?.changedAt ?? '')).toBeLessThan(Date.parse(edited?.changedAt ?? ''));
    expect(row(CREATED)).toMatchObject({ changeCount: 1, changedAt: expect.any(String) });
    // The deleted page: its removal is a change too.
    expect(row(DELETED)).toMatchObject({ changeCount: 2 });
    // A url refused before any request never changed.
    const never = [...rows.values()].filter((x) => x.fetchedAt === null);
    for (const x of never) expect(x).toMatchObject({ changedAt: null, changeCount: 0 });

    const one = await get(`/v2/urls?catalog=${catalog.id}&q=${encodeURIComponent(`/p/${EDITED[0]}.html`)}`);
    expect(one.json().data.items[0]).toMatchObject({ changeCount: 2 });
  });

  it('GET /v2/resource and /v2/urls/{id} carry them too', async () => {
    const q = encodeURIComponent(`/p/${EDITED[1]}.html`);
    const listed = (await get(`/v2/resource?catalog=${catalog.id}&q=${q}`)).json().data.items;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ changeCount: 2, changedAt: expect.any(String) });
    const byId = (await get(`/v2/urls/${listed[0].id}`)).json().data;
    expect(byId).toMatchObject({ changeCount: 2, changedAt: listed[0].changedAt });
  });
});
