import { type CatalogSettings, Greenfinger, type RunReport } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../support/tmp.js';
import { isTrapRequest, startTrapSite, type TrapSite } from '../support/trap-site.js';

/**
 * Issue 11, failures 1, 2 and 9: the session-id trap, redirect chains without a hop limit, and the spider trap; and
 * the crawl of a site made of traps. Each crawl is bounded by its own limits (a time limit and a page limit), so on
 * the code as it was these tests end — failing — instead of hanging.
 */
describe('traps and redirects (issue 11)', () => {
  let site: TrapSite;
  let tmp: TempDir;
  let gf: Greenfinger;
  const MAX_REDIRECTS = 5;

  beforeAll(async () => {
    site = await startTrapSite({ docs: 800 });
    tmp = createTempDir('gf-traps-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, maxRedirects: MAX_REDIRECTS, workers: 1 } });
  });

  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  /** Crawl one section of the trap site; returns the report and the requests the crawl made. */
  async function crawl(
    section: string,
    settings: Partial<CatalogSettings> = {},
    startUrl = `${site.origin}${section}`,
  ): Promise<{ report: RunReport; requests: string[] }> {
    const before = site.requests.length;
    const report = await gf.crawler.crawl({
      url: `${site.origin}${section}`,
      name: `traps${section.replace(/[^a-z]+/g, '-')}`,
      startUrl,
      settings: {
        outputs: ['file'],
        images: false,
        robots: false,
        sitemap: false,
        intervalMs: 0,
        threads: 4,
        hostConcurrency: 4,
        durationMinutes: 0.5,
        maxPages: 2000,
        ...settings,
      },
    });
    // Each run asks the host's llms.txt once (its Markdown twins, issue 28): not a page of the traps.
    return { report, requests: site.requests.slice(before).filter((p) => p !== '/llms.txt') };
  }

  function addsUp(report: RunReport): void {
    const u = report.urls;
    expect(u.dispatched).toBe(u.handled + u.outstanding);
    expect(u.outstanding).toBe(0);
    const named = Object.values(report.rejected).reduce((a, b) => a + b, 0);
    expect(report.produced.saved + named).toBe(u.handled);
  }

  it('session-id trap', async () => {
    const { report, requests } = await crawl('/shop/');
    expect(report.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    // ?sid=, ;jsessionid= and PHPSESSID= are dropped: each page is requested once, under its url without them.
    for (const item of ['apron', 'basket', 'compost', 'dibber', 'edger', 'fork', 'gloves', 'hoe', 'mulch', 'netting'])
      expect(requests.filter((r) => r.startsWith(`/shop/item-${item}`))).toEqual([`/shop/item-${item}`]);
    expect(requests.filter((r) => r.startsWith('/shop/cart'))).toEqual(['/shop/cart']);
    expect(requests.filter((r) => r.startsWith('/shop/help'))).toEqual(['/shop/help?lang=en']);
    expect(requests.some((r) => /sid=|jsessionid/i.test(r))).toBe(false);
    // ?visit= is no known session parameter: the lobby answers under a fresh url from every page linking it. Its
    // copies are duplicates whose links are not followed, so there are at most as many as saved pages link it.
    const lobby = requests.filter((r) => r.startsWith('/shop/lobby'));
    expect(lobby.length).toBeGreaterThan(1);
    expect(lobby.length).toBeLessThanOrEqual(report.produced.saved);
    expect(report.rejected.REJECTED_DUPLICATE).toBe(lobby.length - 1);
    expect(report.produced.saved).toBe(14); // the shop, ten items, the cart, the help page and the lobby
    addsUp(report);

    // The catalog's own session parameters extend the list: then the lobby is one url.
    const own = await crawl('/shop/lobby', { sessionParams: ['visit'] }, `${site.origin}/shop/lobby?visit=first`);
    expect(own.report.ending.reason).toBe('frontier-drained');
    expect(own.requests).toEqual(['/shop/lobby']);
    addsUp(own.report);
  }, 90_000);

  it('redirect chains have no hop limit for pages', async () => {
    const { report, requests } = await crawl('/redirect/');
    expect(report.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    const hops = (prefix: string) => requests.filter((r) => r.startsWith(prefix)).sort();
    const chain = (prefix: string) => Array.from({ length: MAX_REDIRECTS + 1 }, (_, i) => `${prefix}${i}`).sort();
    // The url reached after GF_MAX_REDIRECTS redirects that redirects again ends the chain; its target is not asked.
    expect(hops('/redirect/chain/')).toEqual(chain('/redirect/chain/'));
    expect(hops('/redirect/forever/')).toEqual(chain('/redirect/forever/'));
    expect(report.rejected.REJECTED_TOO_MANY_REDIRECTS).toBe(2);
    expect(report.examples.REJECTED_TOO_MANY_REDIRECTS).toMatch(
      new RegExp(`/(chain|forever)/${MAX_REDIRECTS}: HTTP 302 .* after ${MAX_REDIRECTS} redirects .*GF_MAX_REDIRECTS`),
    );
    // a → b → c → a: c's Location comes back to a url of its chain.
    expect(hops('/redirect/loop/')).toEqual(['/redirect/loop/a', '/redirect/loop/b', '/redirect/loop/c']);
    expect(report.rejected.REJECTED_REDIRECT_LOOP).toBe(1);
    expect(report.examples.REJECTED_REDIRECT_LOOP).toMatch(
      /loop\/c: HTTP 302 back to .*loop\/a -> .*loop\/b -> .*loop\/a/,
    );
    // A short chain lands: its end is saved.
    expect(hops('/redirect/ok/')).toEqual(['/redirect/ok/from', '/redirect/ok/mid', '/redirect/ok/to']);
    expect(report.rejected.REJECTED_REDIRECT).toBe(2 * MAX_REDIRECTS + 2 + 2);
    expect(report.produced.saved).toBe(2); // the index and the end of the short chain
    addsUp(report);
  }, 90_000);

  it('spider trap (calendar next-month links)', async () => {
    const budget = 5;
    const { report, requests } = await crawl('/calendar/', { trapPatternUrls: budget, maxPages: 300 });
    expect(report.ending).toMatchObject({ reason: 'frontier-drained', published: true, fullyCrawled: true });
    // Each sequence: its first url (linked from the index) and `budget` steps, each found on the one before.
    expect(requests.filter((r) => r.startsWith('/calendar/month')).length).toBe(1 + budget);
    expect(requests.filter((r) => r.startsWith('/calendar/events/')).length).toBe(1 + budget);
    expect(requests.filter((r) => r.startsWith('/calendar/list')).length).toBe(1 + budget);
    expect(report.rejected['REJECTED_TRAP:growing-query']).toBeGreaterThanOrEqual(2);
    expect(report.rejected['REJECTED_TRAP:growing-path']).toBeGreaterThanOrEqual(1);
    expect(report.examples['REJECTED_TRAP:growing-query']).toMatch(/calendar\/(month\?m=0-0|list\?page=0)/);
    expect(report.examples['REJECTED_TRAP:growing-query']).toContain(`more than ${budget}`);
    expect(report.examples['REJECTED_TRAP:growing-path']).toContain('/calendar/events/0/0/');
    expect(new Set(requests).size).toBe(requests.length);
    addsUp(report);
  }, 90_000);

  it('a crawl of a site made only of traps ends by itself, the traps take under 10% of its requests, and the report names each trap', async () => {
    // Bounded by 30 s and 2,000 pages; it must end before either, by itself.
    const { report, requests } = await crawl('/', { trapPatternUrls: 3, trapDuplicates: 3 });
    expect(report.ending).toMatchObject({ reason: 'frontier-drained', published: true, fullyCrawled: true });
    const traps = requests.filter(isTrapRequest);
    const share = traps.length / requests.length;
    console.log(
      `trap site: ${requests.length} requests, ${traps.length} into traps (${(share * 100).toFixed(1)}%), ` +
        `${report.produced.saved} saved; rejected ${JSON.stringify(report.rejected)}`,
    );
    expect(share).toBeLessThan(0.1);
    for (const key of [
      'REJECTED_TRAP:growing-query',
      'REJECTED_TRAP:growing-path',
      'REJECTED_TRAP:repeating-segments',
      'REJECTED_TRAP:duplicates-in-a-row',
      'REJECTED_TOO_MANY_REDIRECTS',
      'REJECTED_REDIRECT_LOOP',
    ]) {
      expect(report.rejected[key], key).toBeGreaterThan(0);
      expect(report.examples[key], key).toBeTruthy();
    }
    expect(report.examples['REJECTED_TRAP:repeating-segments']).toMatch(/\/maze\/(\(next\)\+\/|ab\/\(a\/b\)\+\/)/);
    expect(report.examples['REJECTED_TRAP:duplicates-in-a-row']).toMatch(/\/print\/copy\?n|\/shop\/lobby\?visit/);
    // Three copies in a row trip the trap; the front queues interleave the copies with other pages of the host, whose
    // commits break a streak, so a few more are fetched first (12 seen): well under the 30 there are.
    expect(requests.filter((r) => r.startsWith('/print/copy')).length).toBeLessThan(16);
    // Nothing is asked twice (the shop's session ids are dropped) and no ordinary page is lost.
    expect(new Set(requests).size).toBe(requests.length);
    for (const doc of ['/docs/doc-aa', '/docs/doc-zz', '/docs/doc-edb']) expect(requests).toContain(doc);
    addsUp(report);
  }, 90_000);

  it('trap budgets survive a resume: a pagination stopped midway is not given its budget again', async () => {
    const budget = 20;
    const name = 'traps-resume';
    const settings: Partial<CatalogSettings> = {
      outputs: ['file'],
      images: false,
      robots: false,
      sitemap: false,
      intervalMs: 0,
      threads: 2,
      hostConcurrency: 2,
      maxPages: 500,
      trapPatternUrls: budget,
    };
    const before = site.requests.length;
    const stop = new AbortController();
    const first = await gf.crawler.crawl({
      url: `${site.origin}/calendar/`,
      startUrl: `${site.origin}/calendar/`,
      name,
      settings,
      signal: stop.signal,
      progressIntervalMs: 20,
      // A few steps of the pagination in, the run is stopped; its budgets must carry over to the resume.
      onProgress: () => {
        if (site.requests.slice(before).filter((r) => r.startsWith('/calendar/list')).length >= 3) stop.abort();
      },
    });
    expect(first.ending.reason).toBe('interrupted');
    const catalog = await (await gf.catalogs()).get({ name });
    const resumed = await gf.crawler.crawl({ id: catalog.id, action: 'resume' });
    expect(resumed.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    // Each run asks the host's llms.txt once: not a page of the traps.
    const requests = site.requests.slice(before).filter((p) => p !== '/llms.txt');
    // Over both runs, each sequence takes its first url and `budget` steps, as one run would.
    for (const prefix of ['/calendar/list', '/calendar/month', '/calendar/events/']) {
      expect(requests.filter((r) => r.startsWith(prefix)).length, prefix).toBe(1 + budget);
    }
    expect(new Set(requests).size).toBe(requests.length);
  }, 90_000);

  it('a pagination longer than --trap-pattern-urls: the run report names its pattern and the setting to raise', async () => {
    const budget = 4;
    const report = await gf.crawler.crawl({
      url: `${site.origin}/calendar/`,
      startUrl: `${site.origin}/calendar/list?page=1`,
      name: 'traps-pagination',
      settings: {
        outputs: ['file'],
        images: false,
        robots: false,
        sitemap: false,
        intervalMs: 0,
        trapPatternUrls: budget,
      },
    });
    expect(report.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    const noted = report.flow?.noted ?? {};
    const key = Object.keys(noted).find((k) => k.startsWith('trap-pattern ') && k.includes('/calendar/list?page=0'));
    expect(key, JSON.stringify(noted)).toBeDefined();
    const example = report.flow?.examples[key as string] ?? '';
    expect(example).toContain('--trap-pattern-urls');
    expect(example).toContain(`now ${budget}`);
  }, 90_000);
});
