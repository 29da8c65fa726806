import { type Catalog, Greenfinger } from '@greenfinger/core';
import { pushChangedUrls } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../support/tmp.js';
import {
  startWikiSite,
  WIKI_CREATED,
  WIKI_DELETED,
  WIKI_EDITED,
  WIKI_NULL_EDIT,
  WIKI_PAGES,
  type WikiSite,
} from '../support/wiki-site.js';

/**
 * The wiki's times (recent changes, sitemap lastmod) are to the second: an edit in the second the crawl fetched a
 * page would look older than the fetch. Wait for the next second (a bounded wait, not a fixed sleep).
 */
async function nextSecond(): Promise<void> {
  const next = Math.ceil((Date.now() + 1) / 1000) * 1000;
  while (Date.now() < next) await new Promise((r) => setTimeout(r, next - Date.now()));
}

/**
 * Change feeds (issue 27 items 1, 2 and 7; the first "done when"): a wiki of 300 pages whose footers print the time
 * of the request, with an api.php recent-changes feed, an RSS feed and a sitemap. After the first crawl 3 pages are
 * edited, 1 has a null edit (listed by the feeds, only its footer differs), 1 is deleted and 1 created; the merge of
 * a catalog with change feeds then fetches only what they named — judged by the server's own request log.
 */
describe('change feeds', () => {
  let site: WikiSite;
  let tmp: TempDir;
  let gf: Greenfinger;
  let catalog: Catalog;
  let mergeRequests: string[];
  let feedRequests: string[];
  const settings = {
    intervalMs: 0,
    threads: 8,
    hostConcurrency: 8,
    outputs: ['file', 'index'] as ['file', 'index'],
  };

  beforeAll(async () => {
    site = await startWikiSite();
    tmp = createTempDir('gf-change-feeds-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 1 } });
    const changeFeeds = [`mediawiki:${site.origin}/w/api.php`, `rss:${site.origin}/feed.rss`, 'sitemap'];
    const crawl = await gf.crawler.crawl({
      url: `${site.origin}/`,
      startUrl: `${site.origin}/wiki/Main_Page`,
      settings: { ...settings, changeFeeds },
    });
    expect(crawl.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    expect(crawl.produced.saved).toBe(WIKI_PAGES + 1);
    catalog = await (await gf.catalogs()).get({ url: `${site.origin}/` });
    await nextSecond();
    site.edit();
    const from = site.log.length;
    const merge = await gf.crawler.crawl({ id: catalog.id, action: 'merge' });
    expect(merge.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    // The report says what the feeds named: 4 changed (3 edits, the null edit) + the new page, 1 deleted.
    expect(merge.ending.note).toMatch(
      /change feeds: 5 changed, 1 deleted \(mediawiki:.*: 6 changes in 4 requests; rss:.*: 5 changes in 1 requests; 0 pushes\)/,
    );
    mergeRequests = site.pageRequests(from);
    feedRequests = site.log.slice(from).filter((p) => p.startsWith('/w/api.php') || p === '/feed.rss');
  }, 90_000);
  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('the merge sends at most 15 page requests: the edited, the null-edited and the new page', () => {
    expect(mergeRequests.length).toBeLessThanOrEqual(15);
    // Exactly those: the deleted page leaves without a request, a page no feed named is not asked.
    expect([...mergeRequests].sort()).toEqual(
      [...WIKI_EDITED, WIKI_NULL_EDIT, WIKI_CREATED].map((n) => `/wiki/Page_${n}`).sort(),
    );
    // The feeds: siteinfo, then recentchanges with continuation (2 rows an answer, 6 changes), and the RSS feed.
    expect(feedRequests.filter((p) => p.includes('meta=siteinfo'))).toHaveLength(1);
    expect(feedRequests.filter((p) => p.includes('list=recentchanges')).length).toBeGreaterThanOrEqual(3);
    expect(feedRequests.filter((p) => p.includes('rccontinue=')).length).toBeGreaterThanOrEqual(2);
    expect(feedRequests).toContain('/feed.rss');
  });

  it('changes: exactly the 3 edited pages changed, the new one added, the deleted one removed', async () => {
    const latest = await gf.changes.changes({ id: catalog.id });
    expect(latest.runs).toEqual([expect.objectContaining({ action: 'merge' })]);
    expect({
      added: latest.added,
      changed: latest.changed.map((c) => c.url).sort(),
      removed: latest.removed,
    }).toEqual({
      added: [site.url(WIKI_CREATED)],
      changed: WIKI_EDITED.map((n) => site.url(n)).sort(),
      removed: [site.url(WIKI_DELETED)],
    });
  });

  it('search finds the new text, not the deleted page', async () => {
    const meadow = await gf.search.search({ q: 'cornflowers poppies bumblebees', catalogs: [catalog.id] });
    expect(meadow.results.map((h) => h.url)).toContain(site.url(WIKI_CREATED));
    const edited = await gf.search.search({ q: 'wildflowers', catalogs: [catalog.id] });
    expect(edited.results.map((h) => h.url).sort()).toEqual(WIKI_EDITED.map((n) => site.url(n)).sort());
    const gone = await gf.search.search({ q: 'dogwood alder alder entry', catalogs: [catalog.id], size: 50 });
    expect(gone.results.map((h) => h.url)).not.toContain(site.url(WIKI_DELETED));
  });

  it('why: a page no feed named is REJECTED_PREMATURE:change-feed; the null edit unchanged; the deleted one gone', async () => {
    const why = (n: number) => gf.ledger.why(site.url(n), { catalog: { id: catalog.id } });
    const idle = await why(100);
    expect(idle.row).toMatchObject({ outcome: 'REJECTED_PREMATURE', detail: 'change-feed' });
    expect(idle.explanation).toMatch(/not named changed by a change feed since the last run/);
    const nul = await why(WIKI_NULL_EDIT);
    expect(nul.row?.outcome).toBe('REJECTED_UNMODIFIED');
    // The footer is not article text: the text is the same (a footer in the article would be volatile text).
    expect(nul.explanation).toMatch(/unchanged since it was saved .*(same text|only volatile text differed)/);
    expect((await why(WIKI_DELETED)).row).toMatchObject({ outcome: 'REJECTED_NOTFOUND', detail: 'change-feed' });
  });

  it('the ledger: one row per url, upserted; each edited page changed twice (saved, then edited)', async () => {
    const db = await gf.factory.database();
    const seen = new Map<string, number>();
    for (let offset = 0; offset < 10_000; offset += 500) {
      const { items } = await db.ledger.list({ catalogId: catalog.id, version: 0, limit: 500, offset });
      for (const row of items) seen.set(row.url, (seen.get(row.url) ?? 0) + 1);
      if (items.length < 500) break;
    }
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect(seen.size).toBeGreaterThanOrEqual(WIKI_PAGES + 2);
    const row = (await gf.ledger.why(site.url(WIKI_EDITED[0] as number), { catalog: { id: catalog.id } })).row;
    expect(row).toMatchObject({ outcome: 'SAVED', changeCount: 2 });
  });

  it('a second merge reads the feeds from where the first stopped: nothing named, no page fetched', async () => {
    const from = site.log.length;
    const merge = await gf.crawler.crawl({ id: catalog.id, action: 'merge' });
    expect(merge.ending).toMatchObject({ reason: 'frontier-drained' });
    expect(site.pageRequests(from)).toEqual([]);
  });

  it('pushed urls: fetched by the next merge; urls outside the catalog refused and listed', async () => {
    const pushed = await pushChangedUrls(gf.factory.blobs, catalog, [
      site.url(42),
      'http://elsewhere.example/wiki/Page_1',
      'not a url',
    ]);
    expect(pushed.recorded).toEqual([site.url(42)]);
    expect(pushed.refused.map((r) => r.url)).toEqual(['http://elsewhere.example/wiki/Page_1', 'not a url']);
    const from = site.log.length;
    await gf.crawler.crawl({ id: catalog.id, action: 'merge' });
    expect(site.pageRequests(from)).toEqual(['/wiki/Page_42']);
    // Consumed: the merge after it fetches nothing.
    const again = site.log.length;
    await gf.crawler.crawl({ id: catalog.id, action: 'merge' });
    expect(site.pageRequests(again)).toEqual([]);
  });

  it('a merge stopped half-way keeps the set it read: its resume fetches the rest, then the pushes are consumed', async () => {
    const named = [60, 61, 62, 63, 64, 65];
    await pushChangedUrls(
      gf.factory.blobs,
      catalog,
      named.map((n) => site.url(n)),
    );
    const from = site.log.length;
    const stop = new AbortController();
    // One page at a time, each named page answered 400 ms late: stopped while the first is in flight (a bounded
    // wait: the run would end meanwhile anyway).
    site.slow(named, 400);
    const running = gf.crawler.crawl({ id: catalog.id, action: 'merge', threads: 1, signal: stop.signal });
    const deadline = Date.now() + 20_000;
    let settled = false;
    void running.finally(() => {
      settled = true;
    });
    while (!settled && Date.now() < deadline && site.pageRequests(from).length === 0) {
      await new Promise((r) => setTimeout(r, 5));
    }
    stop.abort();
    site.slow([], 0);
    const stopped = await running;
    const first = site.pageRequests(from);
    expect(stopped.ending.reason).toBe('interrupted');
    expect(first).toHaveLength(1);
    const again = site.log.length;
    const resumed = await gf.crawler.crawl({ id: catalog.id, action: 'resume' });
    expect(resumed.ending).toMatchObject({ reason: 'frontier-drained' });
    const rest = site.pageRequests(again);
    expect([...first, ...rest].sort()).toEqual(named.map((n) => `/wiki/Page_${n}`).sort());
    // Settled: the next merge reads nothing new and fetches nothing.
    const after = site.log.length;
    await gf.crawler.crawl({ id: catalog.id, action: 'merge' });
    expect(site.pageRequests(after)).toEqual([]);
  }, 60_000);

  it('a catalog naming no feed reads its sitemap by default: the pages its lastmod names and the new page, no other', async () => {
    const bySitemap = await startWikiSite();
    try {
      const url = `${bySitemap.origin}/`;
      await gf.crawler.crawl({ url, startUrl: `${bySitemap.origin}/wiki/Main_Page`, settings });
      const plain = await (await gf.catalogs()).get({ url });
      expect(plain.settings.changeFeeds).toEqual([]);
      await nextSecond();
      bySitemap.edit();
      const from = bySitemap.log.length;
      const merge = await gf.crawler.crawl({ id: plain.id, action: 'merge' });
      // The edited pages (a lastmod after their fetch) and the new page the sitemap lists; not the main page nor the
      // page gone from the sitemap (neither is dated: each waits for its recrawl interval), nor any other.
      expect([...new Set(bySitemap.pageRequests(from))].sort()).toEqual(
        [...WIKI_EDITED, WIKI_CREATED].map((n) => `/wiki/Page_${n}`).sort(),
      );
      expect(bySitemap.log.slice(from).filter((p) => p.startsWith('/w/api.php') || p === '/feed.rss')).toEqual([]);
      expect(merge.changeFeeds).toEqual({ changed: 0, deleted: 0, pushes: 0, byDefault: true, feeds: [] });
      expect(merge.ending.note).toMatch(/change feeds: 0 changed, 0 deleted \(sitemap by default: .*; 0 pushes\)/);
      const main = await gf.ledger.why(`${bySitemap.origin}/wiki/Main_Page`, { catalog: { id: plain.id } });
      expect(main.row).toMatchObject({ outcome: 'REJECTED_PREMATURE', detail: 'change-feed' });
      expect(main.row?.reason).toMatch(/due by its recrawl schedule \d{4}-/);
      const changes = await gf.changes.changes({ id: plain.id });
      expect(changes.changed.map((c) => c.url).sort()).toEqual(WIKI_EDITED.map((n) => bySitemap.url(n)).sort());
      expect(changes.added).toEqual([bySitemap.url(WIKI_CREATED)]);
      // A push counts on such a catalog: the next merge fetches the pushed page, and only it.
      await pushChangedUrls(gf.factory.blobs, plain, [bySitemap.url(7)]);
      const before = bySitemap.log.length;
      const pushed = await gf.crawler.crawl({ id: plain.id, action: 'merge' });
      expect(bySitemap.pageRequests(before)).toEqual(['/wiki/Page_7']);
      expect(pushed.changeFeeds).toMatchObject({ changed: 1, pushes: 1, byDefault: true });
    } finally {
      await bySitemap.close();
    }
  }, 60_000);

  it('a catalog with --change-feed none: its merge is as before (the recrawl rules decide), nothing of the feeds is read or written', async () => {
    const plainSite = await startWikiSite();
    try {
      const url = `${plainSite.origin}/`;
      await gf.crawler.crawl({
        url,
        startUrl: `${plainSite.origin}/wiki/Main_Page`,
        settings: { ...settings, changeFeeds: ['none'] },
      });
      const plain = await (await gf.catalogs()).get({ url });
      await nextSecond();
      plainSite.edit();
      const from = plainSite.log.length;
      const merge = await gf.crawler.crawl({ id: plain.id, action: 'merge' });
      // As before change feeds existed: the recrawl rules alone decide (a sitemap lastmod after the fetch is due, a
      // page the sitemap no longer lists is asked again and found gone), and no feed is read.
      expect([...new Set(plainSite.pageRequests(from))].sort()).toEqual(
        ['/wiki/Main_Page', ...[...WIKI_EDITED, WIKI_DELETED, WIKI_CREATED].map((n) => `/wiki/Page_${n}`)].sort(),
      );
      const feeds = plainSite.log.slice(from).filter((p) => p.startsWith('/w/api.php') || p === '/feed.rss');
      expect(feeds).toEqual([]);
      const written: string[] = [];
      for await (const key of gf.factory.blobs.list(`assets/${plain.id}/feeds/`)) written.push(key);
      expect(written).toEqual([]);
      expect(merge.changeFeeds).toBeUndefined();
    } finally {
      await plainSite.close();
    }
  }, 30_000);

  it('a feed added to a crawled catalog is read from the start of its last run; a feed that fails, an ordinary merge', async () => {
    const other = await startWikiSite();
    try {
      const url = `${other.origin}/`;
      await gf.crawler.crawl({ url, startUrl: `${other.origin}/wiki/Main_Page`, settings });
      const added = await (await gf.catalogs()).get({ url });
      await nextSecond();
      other.edit();
      await (await gf.catalogs()).update(added.id, { settings: { changeFeeds: [`rss:${other.origin}/feed.rss`] } });
      const from = other.log.length;
      await gf.crawler.crawl({ id: added.id, action: 'merge' });
      // The RSS feed lists the edits, the null edit and the new page (RSS has no deletions: that page stays).
      expect([...other.pageRequests(from)].sort()).toEqual(
        [...WIKI_EDITED, WIKI_NULL_EDIT, WIKI_CREATED].map((n) => `/wiki/Page_${n}`).sort(),
      );
      // A feed that cannot be read: the merge is an ordinary one (the recrawl rules alone: the main page, which no
      // sitemap dates, and the page the sitemap no longer lists, found gone), and says why.
      await (await gf.catalogs()).update(added.id, { settings: { changeFeeds: [`rss:${other.origin}/gone.xml`] } });
      const before = other.log.length;
      const merge = await gf.crawler.crawl({ id: added.id, action: 'merge' });
      expect(merge.ending.note).toMatch(/rss:.*\/gone\.xml could not be read \(the feed .* answered HTTP 404\)/);
      const pages = other.pageRequests(before).filter((p) => p !== '/gone.xml');
      expect(pages.sort()).toEqual(['/wiki/Main_Page', `/wiki/Page_${WIKI_DELETED}`]);
    } finally {
      await other.close();
    }
  }, 30_000);
});
