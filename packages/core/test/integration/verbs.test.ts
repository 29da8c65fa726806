import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Greenfinger, type RunReport } from '@greenfinger/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixtureFacts } from '../support/fixture-facts.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

const modelDir = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const fast = { intervalMs: 0, threads: 4, hostConcurrency: 4 };

/** Versions and verbs over the fixture site: what each fetches, writes and publishes. */
describe('verbs', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let gf: Greenfinger;

  beforeEach(async () => {
    site = await startFixtureSite({ slowDelayMs: 200 });
    tmp = createTempDir('gf-verbs-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, modelDir, textModel: 'tiny-e5', workers: 1 } });
  });
  afterEach(async () => {
    await gf.close();
    await site.close();
    tmp.remove();
  });

  const first = async (settings: Record<string, unknown> = {}): Promise<RunReport> =>
    gf.crawler.crawl({ url: site.origin, settings: { ...fast, ...settings } });
  const catalog = async () => (await (await gf.catalogs()).list())[0]!;

  it('update requests only the pages added since, found through the sitemap and their links', async () => {
    await first();
    site.clear();
    site.addPage(
      '/new-1.html',
      '<html><head><title>New one</title></head><body><main><p>Quinces ripen late in autumn and keep for weeks.</p><a href="/new-2.html">more</a></main></body></html>',
    );
    site.addPage(
      '/new-2.html',
      '<html><head><title>New two</title></head><body><main><p>Medlars must blet before they are eaten.</p></main></body></html>',
    );
    const sitemap = readFileSync(
      join(fileURLToPath(new URL('../fixtures/site/', import.meta.url)), 'sitemap.xml'),
      'utf8',
    );
    site.mutate(
      '/sitemap.xml',
      sitemap.replace('</urlset>', '  <url><loc>{{ORIGIN}}/new-1.html</loc></url>\n</urlset>'),
    );
    const report = await gf.crawler.crawl({ name: (await catalog()).name, action: 'update' });
    const pages = site.requests
      .map((r) => r.path)
      .filter((p) => p !== '/robots.txt' && p !== '/llms.txt' && p !== '/sitemap.xml');
    // Known urls that hold no page but lead on (redirects, the noindex page) are asked again: what they lead to must
    // be reached by this session too. Known pages are not requested.
    expect(pages.sort()).toEqual(['/go-away', '/loop-a', '/new-1.html', '/new-2.html', '/noindex.html', '/old.html']);
    expect(report.produced.saved).toBe(2);
    expect(report.ending.published).toBe(true);
    expect(report.urls.dispatched).toBe(report.urls.handled);
    const hits = await gf.search.search({ q: 'medlars blet' });
    expect(hits.results.map((h) => new URL(h.url).pathname)).toEqual(['/new-2.html']);
  });

  it('merge: an unchanged site answers 304 and nothing is written; one changed page is rewritten under its id', async () => {
    await first();
    // The ordinary merge (no change feed): this site's sitemap would be the default feed, which leaves the pages it
    // does not date to their recrawl interval (change-feeds.test.ts, default-sitemap-feed.test.ts).
    const cat = await (await gf.catalogs()).update((await catalog()).id, { settings: { changeFeeds: ['none'] } });
    const db = await gf.database();
    const before = await db.resources.findResourceByUrlHash(
      cat.id,
      0,
      (await import('@greenfinger/core/internal')).urlHash(`${site.origin}/article-1.html`),
    );
    site.clear();
    const unchanged = await gf.crawler.crawl({ id: cat.id, action: 'merge' });
    expect(unchanged.produced.saved).toBe(0);
    expect(unchanged.urls.unmodified).toBe(fixtureFacts.savedCount);
    // The sitemap's pages have a lastmod before their fetch: not due, not requested (REJECTED_PREMATURE).
    const listed = fixtureFacts.sitemapPaths.length;
    expect(unchanged.rejected['REJECTED_PREMATURE:lastmod']).toBe(listed);
    for (const path of fixtureFacts.sitemapPaths) expect(site.count(path)).toBe(0);
    expect(site.requests.filter((r) => r.status === 304).length).toBeGreaterThanOrEqual(
      fixtureFacts.savedCount - listed,
    );
    // Only urls that hold no page answer in full: the noindex page and the duplicate (nothing to compare them with;
    // a merge asks again for every known url without a page). Whichever of the twins was handled second is the
    // duplicate: with four threads either may be.
    const { urlHash } = await import('@greenfinger/core/internal');
    const aHeld = await db.resources.findResourceByUrlHash(cat.id, 0, urlHash(`${site.origin}/same-a.html`));
    const duplicate = aHeld ? '/same-b.html' : '/same-a.html';
    expect(
      site.requests
        .filter((r) => r.status === 200 && r.path.endsWith('.html'))
        .map((r) => r.path)
        .sort(),
    ).toEqual(['/noindex.html', duplicate]);

    const html = (await gf.blobs.getText(before!.htmlPath)) as string;
    site.mutate('/article-1.html', html.replace(/<\/article>/, '<p>Persimmons need a long warm summer.</p></article>'));
    // An honest sitemap says so.
    const sitemap = readFileSync(
      join(fileURLToPath(new URL('../fixtures/site/', import.meta.url)), 'sitemap.xml'),
      'utf8',
    );
    site.mutate(
      '/sitemap.xml',
      sitemap.replace(
        '<loc>{{ORIGIN}}/article-1.html</loc><lastmod>2024-03-02</lastmod>',
        `<loc>{{ORIGIN}}/article-1.html</loc><lastmod>${new Date(Date.now() + 60_000).toISOString()}</lastmod>`,
      ),
    );
    const changed = await gf.crawler.crawl({ id: cat.id, action: 'merge' });
    expect(changed.produced.saved).toBe(1);
    expect(changed.urls.unmodified).toBe(fixtureFacts.savedCount - 1);
    const after = await db.resources.findResourceByUrlHash(cat.id, 0, before!.urlHash);
    expect(after?.id).toBe(before?.id);
    expect(after?.contentHash).not.toBe(before?.contentHash);
    const hits = await gf.search.search({ q: 'persimmons' });
    expect(hits.results.map((h) => h.id)).toEqual([before!.id]);
    expect((await db.resources.count(cat.id, 0)).resources).toBe(fixtureFacts.savedCount);
    await (await gf.catalogs()).update(cat.id, { settings: { changeFeeds: [] } });
  });

  it('rebuild writes a new version while search keeps answering from the published one', async () => {
    await first();
    const cat = await catalog();
    site.setSlowDelay(1500);
    let searches = 0;
    let failures = 0;
    let running = true;
    // Every answer comes whole from one version: v0 until v1 is published (which happens inside crawl(), before
    // it returns), then v1, never back to v0, never empty, never a mix.
    let served = 0;
    const loop = (async () => {
      while (running && searches < 10_000) {
        try {
          const r = await gf.search.search({ q: 'balconies' });
          const versions = new Set(r.results.map((h) => h.version));
          const version = [...versions][0] ?? -1;
          // v1 before it is published would be a leak across versions.
          if (version === 1 && served === 0 && (await catalog()).searchVersion !== 1) failures++;
          if (version === 1) served = 1;
          if (versions.size !== 1 || version !== served) failures++;
        } catch {
          failures++;
        }
        searches++;
        await new Promise((res) => setTimeout(res, 10));
      }
    })();
    const report = await gf.crawler.crawl({ id: cat.id, action: 'rebuild' });
    running = false;
    await loop;
    expect(report.version).toBe(1);
    expect(report.produced.saved).toBe(fixtureFacts.savedCount);
    expect(searches).toBeGreaterThan(10);
    expect(failures).toBe(0);
    const after = await gf.search.search({ q: 'balconies' });
    expect(after.results[0]?.version).toBe(1);
    const db = await gf.database();
    expect(await db.resources.versions(cat.id)).toEqual([0, 1]);
    expect((await catalog()).searchVersion).toBe(1);
  });

  it('a stopped crawl publishes nothing and resume finishes it with nothing fetched twice', async () => {
    const controller = new AbortController();
    let stopped = false;
    const report = await gf.crawler.crawl({
      url: site.origin,
      settings: { ...fast, threads: 2 },
      signal: controller.signal,
      progressIntervalMs: 20,
      onProgress: (p) => {
        if (!stopped && p.counters.saved >= 5) {
          stopped = true;
          controller.abort();
        }
      },
    });
    expect(report.ending).toMatchObject({ reason: 'interrupted', published: false });
    expect(report.urls.outstanding).toBeGreaterThan(0);
    expect((await catalog()).searchVersion).toBe(-1);
    await expect(gf.search.search({ q: 'balconies' })).rejects.toThrow(/nothing has been published/);

    const resumed = await gf.crawler.crawl({ id: (await catalog()).id, action: 'resume' });
    expect(resumed.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    expect(resumed.produced.saved).toBe(fixtureFacts.savedCount);
    expect(resumed.urls.dispatched).toBe(resumed.urls.handled);
    // Every run reads robots.txt afresh (it may have changed); no page is requested twice.
    expect(site.repeated([...fixtureFacts.retriedPaths, '/robots.txt', '/llms.txt'])).toEqual([]);
    await expect(gf.crawler.crawl({ id: (await catalog()).id, action: 'resume' })).rejects.toThrow(/nothing to resume/);
  });

  it('--max-pages is a normal end: it publishes', async () => {
    const report = await first({ maxPages: 3 });
    expect(report.produced.saved).toBe(3);
    expect(report.ending).toMatchObject({ reason: 'max-pages', published: true });
    expect((await catalog()).searchVersion).toBe(0);
  });

  it('a verb on an unknown catalog says so', async () => {
    await expect(gf.crawler.crawl({ name: 'no-such', action: 'update' })).rejects.toThrow(
      /no catalog with name "no-such"/,
    );
    await expect(gf.crawler.pause({ name: 'no-such' })).rejects.toThrow(/no catalog/);
  });
});
