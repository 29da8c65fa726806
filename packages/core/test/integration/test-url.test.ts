import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type CatalogSettings, Greenfinger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureFacts } from '../support/fixture-facts.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

const fast: Partial<CatalogSettings> = { intervalMs: 0, outputs: ['file', 'index'] };

/** TestUrlService: one url through a catalog's pipeline, nothing stored. */
describe('test-url', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let gf: Greenfinger;

  beforeAll(async () => {
    site = await startFixtureSite();
    tmp = createTempDir('gf-test-url-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 1 } });
    await (await gf.catalogs()).create({ url: site.url('/'), name: 'garden', settings: fast });
  });
  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('runs every stage on a page and says where each link would go, writing nothing', async () => {
    const before = site.requests.length;
    const r = await gf.testUrl.test({ url: site.url('/index.html'), catalog: { name: 'garden' } });
    expect(r.outcome).toBe('SAVED');
    expect(r.stages.map((s) => s.stage)).toEqual([
      'acceptor domain-scope',
      'acceptor start-url-prefix',
      'acceptor asset-check',
      'acceptor robots-txt',
      'acceptor depth',
      'acceptor path-patterns',
      // The crawl's own document pipeline (page-pipeline.ts), every stage of it, in a dry run.
      'known-url',
      'recrawl',
      'trap',
      'head',
      'metadata',
      'fetch',
      'status',
      'metadata',
      'children',
      'markup',
      'render',
      'extract',
      'canonical',
      'robots',
      'links',
      'noindex',
      'document-filters',
      'pre-import',
      'import',
      'document-filters',
      'unmodified',
      'dedup',
      'reserve',
      'images',
      'site-markdown',
      'post-import',
      'post-import-links',
      'output',
    ]);
    expect(r.title).toBeTruthy();
    expect(r.text.length).toBeGreaterThan(0);
    const fate = (path: string) => r.links.find((l) => l.url === site.url(path));
    expect(fate('/articles.html')?.fate).toBe('queued');
    expect(fate('/private/secret.html')).toMatchObject({ fate: 'refused', acceptor: 'robots-txt' });
    // Documents are on by default: the PDF is queued like a page.
    expect(fate('/docs/report.pdf')?.fate).toBe('queued');
    expect(r.links.find((l) => l.url.startsWith('http://example.com/'))).toMatchObject({
      fate: 'refused',
      acceptor: 'domain-scope',
    });
    // robots.txt, the page and the host's llms.txt (its Markdown twins): nothing else was requested, nothing stored.
    expect(site.requests.length - before).toBeLessThanOrEqual(3);
    expect(existsSync(join(tmp.path, 'user', 'assets'))).toBe(false);
    const catalog = await (await gf.catalogs()).get({ name: 'garden' });
    expect((await (await gf.database()).resources.listReports(catalog.id)).length).toBe(0);
  });

  it('an off-site url is refused by the domain-scope acceptor without a request', async () => {
    const before = site.requests.length;
    const r = await gf.testUrl.test({ url: 'http://example.com/gardening', catalog: { name: 'garden' } });
    expect(r.outcome).toBe('REJECTED_OUT_OF_SCOPE');
    expect(r.stages[0]).toMatchObject({ stage: 'acceptor domain-scope', verdict: 'refuse' });
    expect(r.stages.slice(1).every((s) => s.verdict === 'skip')).toBe(true);
    expect(r.fetch).toBeNull();
    expect(site.requests.length).toBe(before);
  });

  it('names the stage that stops a page: noindex, not found', async () => {
    const noindex = await gf.testUrl.test({ url: site.url('/noindex.html') });
    expect(noindex.catalog.name).toBe('garden');
    expect(noindex.outcome).toBe('REJECTED_ROBOTS_META_NOINDEX');
    expect(noindex.stages.find((s) => s.stage === 'noindex')?.verdict).toBe('refuse');
    const missing = await gf.testUrl.test({ url: site.url('/missing.html') });
    expect(missing.outcome).toBe('REJECTED_NOTFOUND');
    expect(missing.fetch?.status).toBe(404);
  });

  it('runs the stages a hand-written walk skipped: a document filter refuses the page as a crawl would', async () => {
    const page = fixtureFacts.pages.find((p) => p.path === '/articles.html');
    if (!page) throw new Error('no fixture page');
    await (await gf.catalogs()).create({
      url: site.url('/'),
      name: 'filtered',
      settings: { ...fast, documentFilters: [{ match: page.phrase }] },
    });
    const r = await gf.testUrl.test({ url: site.url(page.path), catalog: { name: 'filtered' } });
    expect(r.outcome).toBe('REJECTED_FILTER:document');
    expect(r.stages.find((s) => s.stage === 'document-filters')?.verdict).toBe('refuse');
    expect(r.stages.at(-1)).toMatchObject({ stage: 'output', verdict: 'skip' });
  });
});
