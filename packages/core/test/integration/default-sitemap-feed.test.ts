import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Catalog, Greenfinger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../support/tmp.js';

const HOUR = 3600_000;
/** Long before any test: the sitemap's lastmod of the pages it dates and that are not edited. */
const OLD = '2020-01-01T00:00:00Z';

/**
 * A site of 6 pages and an index on loopback: the sitemap dates /p1–/p4 (`lastmod`), lists /p5 without a date and
 * does not list /p6. Pages are edited by `edit(n, dated)`; a dated edit moves the page's lastmod to now.
 */
async function startSite() {
  const text = new Map<number, string>();
  const lastmod = new Map<number, string>([1, 2, 3, 4].map((n) => [n, OLD]));
  const requested: string[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (path === '/robots.txt') {
      res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(`User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`);
      return;
    }
    if (path === '/sitemap.xml') {
      const urls = [1, 2, 3, 4, 5].map(
        (n) =>
          `<url><loc>${origin}/p${n}.html</loc>${lastmod.has(n) ? `<lastmod>${lastmod.get(n)}</lastmod>` : ''}</url>`,
      );
      res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(
          `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>`,
        );
      return;
    }
    requested.push(path);
    const m = /^\/p([1-6])\.html$/.exec(path);
    if (path !== '/' && !m) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const n = Number(m?.[1] ?? 0);
    const body =
      n === 0
        ? `<ul>${[1, 2, 3, 4, 5, 6].map((i) => `<li><a href="/p${i}.html">Pond ${i}</a></li>`).join('')}</ul>`
        : `<article><h1>Pond ${n}</h1><p>${text.get(n) ?? `Pond ${n} holds newts and a few old carp under the lilies.`}</p></article>`;
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html><head><title>Pond ${n}</title></head><body><main>${body}</main></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requested,
    edit(n: number, dated: boolean) {
      text.set(n, `Pond ${n} was dredged in autumn and its carp moved to the new basin.`);
      if (dated) lastmod.set(n, new Date().toISOString());
    },
    /** The pages requested from index `from` on (not robots.txt, the sitemap, llms.txt), sorted. */
    since: (from: number) =>
      requested
        .slice(from)
        .filter((p) => p !== '/llms.txt')
        .sort(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The default change feed (issue 27 item 1, docs/freshness.md#change-feeds): a catalog that names no feed, on a site
 * with a sitemap, merges by the sitemap — a page whose lastmod is after its fetch is fetched, the others wait for
 * their recrawl interval, and a page the sitemap does not date (listed without lastmod, or not listed) is fetched
 * once its interval is due: never starved. In process, real stores, the judge's clock moved (recrawlClock).
 */
describe('the sitemap as the default change feed', () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let tmp: TempDir;
  let gf: Greenfinger;
  let catalog: Catalog;
  let offset = 0;
  const merge = async () => {
    const from = site.requested.length;
    const report = await gf.crawler.crawl({ id: catalog.id, action: 'merge' });
    expect(report.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    return { report, fetched: site.since(from) };
  };

  beforeAll(async () => {
    site = await startSite();
    tmp = createTempDir('gf-default-feed-');
    gf = await Greenfinger.open({
      settings: { dataStore: tmp.path, workers: 1, logLevel: 'silent' },
      components: { recrawlClock: () => Date.now() + offset },
    });
    const crawl = await gf.crawler.crawl({
      url: `${site.origin}/`,
      settings: { intervalMs: 0, threads: 4, outputs: ['file'], recrawlMin: '12h', recrawlMax: '4d' },
    });
    expect(crawl.produced.saved).toBe(7);
    catalog = await (await gf.catalogs()).get({ url: `${site.origin}/` });
  }, 60_000);
  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('the first merge fetches only the page whose lastmod moved; the undated ones wait for their interval', async () => {
    site.edit(1, true);
    site.edit(5, false);
    site.edit(6, false);
    const { report, fetched } = await merge();
    expect(fetched).toEqual(['/p1.html']);
    expect(report.changeFeeds).toMatchObject({ byDefault: true, changed: 0, deleted: 0, pushes: 0 });
    expect(report.rejected['REJECTED_PREMATURE:change-feed']).toBe(6);
    const p6 = await gf.ledger.why(`${site.origin}/p6.html`, { catalog: { id: catalog.id } });
    expect(p6.row).toMatchObject({ outcome: 'REJECTED_PREMATURE', detail: 'change-feed' });
    expect(p6.row?.reason).toMatch(/due by its recrawl schedule/);
    expect((await gf.changes.changes({ id: catalog.id })).changed.map((c) => c.url)).toEqual([
      `${site.origin}/p1.html`,
    ]);
  }, 60_000);

  it('a day on, the pages the sitemap does not date are due and fetched: their edits are found', async () => {
    offset = 25 * HOUR;
    const { fetched } = await merge();
    // The index and /p5, /p6 (undated: first interval 1 day), /p1 (changed: 12h); not /p2–/p4 (dated long ago).
    expect(fetched).toEqual(['/', '/p1.html', '/p5.html', '/p6.html']);
    const changes = await gf.changes.changes({ id: catalog.id });
    expect(changes.changed.map((c) => c.url).sort()).toEqual([`${site.origin}/p5.html`, `${site.origin}/p6.html`]);
  }, 60_000);

  it('five days on, the pages dated long ago are due too (at the 4d maximum): no page is starved', async () => {
    offset = 5 * 24 * HOUR;
    const { fetched } = await merge();
    expect(fetched).toEqual(expect.arrayContaining(['/p2.html', '/p3.html', '/p4.html']));
  }, 60_000);

  it('--change-feed none, or the recrawl interval off: an ordinary merge, the undated pages fetched at once', async () => {
    for (const settings of [{ changeFeeds: ['none'] }, { changeFeeds: [], recrawlMax: '0' }]) {
      catalog = await (await gf.catalogs()).update(catalog.id, { settings });
      const { report, fetched } = await merge();
      expect(report.changeFeeds, JSON.stringify(settings)).toBeUndefined();
      expect(report.rejected['REJECTED_PREMATURE:change-feed'] ?? 0).toBe(0);
      if (settings.recrawlMax === '0') expect(fetched).toEqual(expect.arrayContaining(['/', '/p5.html', '/p6.html']));
    }
  }, 60_000);
});
