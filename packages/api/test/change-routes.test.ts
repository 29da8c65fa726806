import type { Catalog } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChangingSite, startChangingSite } from '../../core/test/support/changing-site.js';
import { type ApiFixture, openApiFixture } from './support/api-fixture.js';

/**
 * GET /v2/catalog/{ref}/changes and /diff (issue 27 item 5), in-process: a crawl of the changing site and a merge
 * after its edit, then the routes — the merge's change set, `since`, two versions compared, and bad input as a 400
 * naming the field.
 */
describe('the change log routes', () => {
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

  const get = (url: string, as: 'admin' | 'support' = 'support') => f.call({ method: 'GET', url, as });
  const urls = (a: { added: string[]; changed: Array<{ url: string }>; removed: string[] }) => ({
    added: a.added,
    changed: a.changed.map((c) => c.url),
    removed: a.removed,
  });

  it("changes: the latest run's set by id or by name; since=0 the same, since a date both runs", async () => {
    const byId = await get(`/v2/catalog/${catalog.id}/changes`);
    expect(byId.statusCode).toBe(200);
    const data = byId.json().data;
    expect(data.runs).toEqual([expect.objectContaining({ version: 0, action: 'merge' })]);
    expect(urls(data)).toEqual(site.expected('a'));
    expect(data.changed[0].diff).toMatch(/^- .*\n\+ .*replanted/);
    const byName = (await get(`/v2/catalog/${encodeURIComponent(catalog.name)}/changes?since=0`)).json().data;
    expect(urls(byName)).toEqual(site.expected('a'));
    const all = (await get(`/v2/catalog/${catalog.id}/changes?since=2000-01-01`)).json().data;
    expect(all.runs.map((r: { action: string }) => r.action)).toEqual(['crawl', 'merge']);
  });

  it("changes/events: the latest set at once when nothing runs; a running merge's own set once it ends", async () => {
    const events = (body: string) =>
      body
        .split('\n\n')
        .filter((b) => b.startsWith('event: '))
        .map((b) => ({ event: b.slice(7, b.indexOf('\n')), data: JSON.parse(b.slice(b.indexOf('data: ') + 6)) }));
    const idle = await get(`/v2/catalog/${catalog.id}/changes/events`);
    expect(idle.headers['content-type']).toMatch(/^text\/event-stream/);
    const [first] = events(idle.body);
    expect(first?.event).toBe('changes');
    expect(urls(first?.data)).toEqual(site.expected('a'));
    const before = first?.data.runs[0].at as string;

    // A second merge finds nothing new: its own (empty) set is what the stream ends with.
    const job = await f.gf.jobs.start({ id: catalog.id, action: 'merge' });
    const live = events((await get(`/v2/catalog/${catalog.id}/changes/events`)).body);
    expect(live.map((e) => e.event).filter((e) => e !== 'running')).toEqual(['changes']);
    const last = live.at(-1)?.data;
    expect(last.runs).toEqual([expect.objectContaining({ action: 'merge', version: 0 })]);
    expect(last.runs[0].at > before).toBe(true);
    expect(urls(last)).toEqual({ added: [], changed: [], removed: [] });
    expect(f.gf.jobs.get(job.jobId)?.state).toBe('done');
  });

  it('diff: a version with itself changes nothing; bad input is a 400 naming the field, an unknown version a 404', async () => {
    const same = await get(`/v2/catalog/${catalog.id}/diff?from=0&to=0`);
    expect(same.statusCode).toBe(200);
    expect(same.json().data).toMatchObject({ from: 0, to: 0, added: [], changed: [], removed: [] });
    const since = await get(`/v2/catalog/${catalog.id}/changes?since=yesterday`);
    expect(since.statusCode).toBe(400);
    expect(since.json().message).toMatch(/^since: "yesterday" is neither a version number nor a date/);
    const from = await get(`/v2/catalog/${catalog.id}/diff?from=x&to=0`);
    expect(from.statusCode).toBe(400);
    expect(from.json().message).toMatch(/from/);
    expect((await get(`/v2/catalog/${catalog.id}/diff?to=0`)).statusCode).toBe(400);
    const missing = await get(`/v2/catalog/${catalog.id}/diff?from=0&to=4`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toMatch(/keeps no version 4 \(kept: 0\)/);
  });
});
