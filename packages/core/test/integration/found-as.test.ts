import { Greenfinger, type LedgerRow } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { createTestDatabase, type TestDatabase } from '../support/pg.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** A page of the fixture site linking to its pages written with session ids, a catalog parameter and a fragment. */
const SESSIONS_PAGE = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Your basket – Greenfinger Gardens</title></head>
<body><main><h1>Your basket</h1>
<p>Seed packets are kept in your basket for a week.</p>
<ul>
  <li><a href="/article-1.html?PHPSESSID=4f9a2c71">Tomatoes on a balcony</a></li>
  <li><a href="/about.html">About us</a> (<a href="/about.html;jsessionid=LATER1">again</a>)</li>
  <li><a href="/article-3.html?visitor=77">A compost heap that works</a></li>
  <li><a href="/articles.html#latest">The latest articles</a></li>
  <li><a href="/gone.html?sid=9">An old offer</a></li>
  <li><a href="http://example.com/shop?sid=5">The seed shop</a></li>
</ul></main></body></html>
`;

const stores: Array<[string, boolean]> = [
  ['SQLite', false],
  ['PostgreSQL', true],
];

/**
 * The url normaliser's original form on the ledger (issue 16): a page links to pages of the fixture site written
 * with a session id, a catalog's own session parameter and a fragment; each url is fetched once in its normal form,
 * and its ledger row keeps the form it was found in, which `why` names.
 */
describe.each(stores)('the form a url was found in, on the url ledger (%s)', (_name, postgres) => {
  let site: FixtureSite;
  let tmp: TempDir;
  let db: TestDatabase | undefined;
  let gf: Greenfinger;
  let origin = '';
  const catalog = { name: 'basket' };

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 0 });
    origin = site.origin;
    site.addPage('/sessions.html', SESSIONS_PAGE);
    tmp = createTempDir('gf-found-as-');
    if (postgres) db = await createTestDatabase();
    gf = await Greenfinger.open({
      settings: { dataStore: tmp.path, workers: 1, logLevel: 'silent', ...(db ? { databaseUrl: db.url } : {}) },
    });
    await (await gf.catalogs()).create({
      name: 'basket',
      url: `${origin}/`,
      startUrl: `${origin}/sessions.html`,
      settings: {
        intervalMs: 0,
        outputs: ['file', 'index'],
        images: false,
        sitemap: false,
        depth: 1,
        sessionParams: ['visitor'],
      },
    });
    const report = await gf.crawler.crawl({ name: 'basket' });
    expect(report.ending.published).toBe(true);
  }, 120_000);

  afterAll(async () => {
    await gf?.close();
    await db?.drop();
    await site?.close();
    tmp?.remove();
  });

  const row = async (path: string): Promise<LedgerRow> => {
    const fate = await gf.ledger.why(`${origin}${path}`, { catalog });
    expect(fate.row, path).toBeDefined();
    return fate.row as LedgerRow;
  };

  it('fetches each url once, in its normal form', () => {
    const paths = site.requests.map((r) => r.path);
    expect(paths.filter((p) => /sid|visitor|#/i.test(p))).toEqual([]);
    for (const path of ['/article-1.html', '/about.html', '/article-3.html', '/articles.html'])
      expect(site.count(path), path).toBe(1);
  });

  it('keeps the session-id form on the row of the page saved, and why names it', async () => {
    const fate = await gf.ledger.why(`${origin}/article-1.html?PHPSESSID=other`, { catalog });
    expect(fate.url).toBe(`${origin}/article-1.html`);
    expect(fate.row).toMatchObject({
      state: 'done',
      outcome: 'SAVED',
      referrer: `${origin}/sessions.html`,
      foundAs: `${origin}/article-1.html?PHPSESSID=4f9a2c71`,
    });
    expect(fate.explanation).toContain(
      `, depth 1, found as ${origin}/article-1.html?PHPSESSID=4f9a2c71, linked from ${origin}/sessions.html`,
    );
  });

  it("keeps the catalog's own session parameter and a fragment the same way", async () => {
    expect((await row('/article-3.html')).foundAs).toBe(`${origin}/article-3.html?visitor=77`);
    expect((await row('/articles.html')).foundAs).toBe(`${origin}/articles.html#latest`);
  });

  it('a url first linked in its normal form has none, even when a later link wrote it otherwise', async () => {
    const about = await gf.ledger.why(`${origin}/about.html`, { catalog });
    expect(about.row).toMatchObject({ state: 'done', outcome: 'SAVED', foundAs: null });
    expect(about.explanation).not.toContain('found as');
    expect((await row('/sessions.html')).foundAs).toBeNull();
  });

  it('a url that failed and one refused before any request keep theirs too', async () => {
    expect(await row('/gone.html')).toMatchObject({
      state: 'failed',
      outcome: 'REJECTED_NOTFOUND',
      foundAs: `${origin}/gone.html?sid=9`,
    });
    const shop = await gf.ledger.why('http://example.com/shop', { catalog });
    expect(shop.row).toMatchObject({
      state: 'rejected',
      outcome: 'REJECTED_OUT_OF_SCOPE',
      foundAs: 'http://example.com/shop?sid=5',
    });
    expect(shop.explanation).toContain('found as http://example.com/shop?sid=5, linked from');
  });

  it('lists the rows with the form they were found in', async () => {
    const listed = await gf.ledger.list({ catalog, text: '/article-', state: 'done' });
    expect(listed.items.map((r) => [new URL(r.url).pathname, r.foundAs])).toEqual([
      ['/article-1.html', `${origin}/article-1.html?PHPSESSID=4f9a2c71`],
      ['/article-3.html', `${origin}/article-3.html?visitor=77`],
    ]);
  });
});
