import { type Catalog, Greenfinger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECRAWL_PAGES, type RecrawlSite, startRecrawlSite } from '../support/recrawl-site.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

const HOUR = 3600;
const DAY = 24 * HOUR;
const ALL = Array.from({ length: RECRAWL_PAGES }, (_, i) => i + 1);

/**
 * The adaptive recrawl interval (issue 27 item 3) on a loopback site of 8 pages, bounds 12h to 4d, in process: the
 * clock the recrawlable resolver reads is moved (components.recrawlClock), nothing sleeps. Which pages a merge
 * fetched is judged by the site's request log.
 */
describe('recrawl schedule', () => {
  let site: RecrawlSite;
  let tmp: TempDir;
  let gf: Greenfinger;
  let catalog: Catalog;
  let offsetMs = 0;
  const fetched: number[][] = [];

  const row = async (n: number) => (await gf.ledger.why(site.url(n), { catalog: { id: catalog.id } })).row;
  const why = async (n: number) => (await gf.ledger.why(site.url(n), { catalog: { id: catalog.id } })).explanation;
  const merge = async () => {
    site.clearLog();
    const report = await gf.crawler.crawl({ id: catalog.id, action: 'merge' });
    expect(report.ending).toMatchObject({ published: true });
    fetched.push([...site.requested].sort((a, b) => a - b));
  };

  beforeAll(async () => {
    site = await startRecrawlSite();
    tmp = createTempDir('gf-recrawl-');
    gf = await Greenfinger.open({
      settings: { dataStore: tmp.path, workers: 1 },
      components: { recrawlClock: () => Date.now() + offsetMs },
    });
    const settings = { intervalMs: 0, threads: 4, hostConcurrency: 4, outputs: ['file'] as ['file'] };
    const crawl = await gf.crawler.crawl({
      url: `${site.origin}/`,
      settings: { ...settings, recrawlMin: '12h', recrawlMax: '4d' },
    });
    expect(crawl.produced.saved).toBe(RECRAWL_PAGES + 1);
    catalog = (await (await gf.catalogs()).get({ url: `${site.origin}/` })) as Catalog;
  }, 60_000);
  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('a merge after the crawl revisits every page: changed halves the first interval, unchanged doubles it', async () => {
    expect((await row(1))?.recrawlEvery).toBeUndefined();
    site.edit(2);
    await merge();
    expect(fetched[0]).toEqual(ALL);
    expect(await row(2)).toMatchObject({ outcome: 'SAVED', recrawlEvery: 12 * HOUR, unchangedVisits: 0 });
    const one = await row(1);
    expect(one).toMatchObject({ outcome: 'REJECTED_UNMODIFIED', recrawlEvery: 2 * DAY, unchangedVisits: 1 });
    expect(Date.parse(one?.dueAt ?? '') - Date.parse(one?.fetchedAt ?? '')).toBe(2 * DAY * 1000);
    expect(await why(1)).toContain('recrawl: unchanged in its last visit: due every 2d, next ');
  });

  it('a merge before they are due fetches none of them: REJECTED_PREMATURE:schedule, the schedule kept', async () => {
    await merge();
    expect(fetched[1]).toEqual([]);
    const one = await row(1);
    expect(one).toMatchObject({ outcome: 'REJECTED_PREMATURE', detail: 'schedule', recrawlEvery: 2 * DAY });
    expect(one?.reason).toMatch(/^unchanged in its last visit: due every 2d, next \d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(await why(2)).toMatch(/not due yet.*changed on its last visit: due every 12h, next /);
  });

  it('moving the clock makes a page due again; the interval never goes under the minimum', async () => {
    offsetMs = 13 * HOUR * 1000;
    site.edit(2);
    await merge();
    expect(fetched[2]).toEqual([2]);
    expect(await row(2)).toMatchObject({ outcome: 'SAVED', recrawlEvery: 12 * HOUR, unchangedVisits: 0 });
    expect(await row(1)).toMatchObject({ outcome: 'REJECTED_PREMATURE', recrawlEvery: 2 * DAY });
  });

  it('pages that never change reach the maximum and stay there', async () => {
    offsetMs = (2 * DAY + HOUR) * 1000;
    await merge();
    expect(fetched[3]).toEqual(ALL);
    expect(await row(1)).toMatchObject({ recrawlEvery: 4 * DAY, unchangedVisits: 2 });
    expect(await row(2)).toMatchObject({ outcome: 'REJECTED_UNMODIFIED', recrawlEvery: DAY, unchangedVisits: 1 });
    offsetMs = (6 * DAY + 2 * HOUR) * 1000;
    await merge();
    expect(fetched[4]).toEqual(ALL);
    expect(await row(1)).toMatchObject({ recrawlEvery: 4 * DAY, unchangedVisits: 3 });
    expect(await why(1)).toMatch(
      /recrawl: unchanged in its last 3 visits: due every 4d, next \d{4}-\d\d-\d\d \d\d:\d\d$/,
    );
  });
});
