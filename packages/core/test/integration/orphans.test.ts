import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Catalog, Greenfinger, type RunReport, urlHash } from '@greenfinger/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FixtureSite, fixtureSiteDir, startFixtureSite } from '../support/fixture-site.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

const modelDir = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
// The ordinary merge, every held page revisited: the fixture site's sitemap would otherwise be the default change
// feed, which leaves a page its lastmod does not name to its recrawl interval (docs/freshness.md#change-feeds).
const fast = { intervalMs: 0, threads: 4, hostConcurrency: 4, changeFeeds: ['none'] };
const fixture = (path: string) => readFileSync(join(fixtureSiteDir, path), 'utf8');

/** Words only /sitemap-only.html holds (the fixture page linked from the sitemap alone). */
const ARCHIVE_WORDS = 'seed exchange runner beans';
/** Words only /deep/8.html holds (linked from /deep/7.html alone, not in the sitemap). */
const SOIL_WORDS = 'cheap pH kit';

/**
 * Orphan handling (issue 16): pages the version holds that a session no longer reaches, on the fixture site, with
 * every layer on (file, index, vectors of the tiny test model).
 */
describe('orphans', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let gf: Greenfinger;

  beforeEach(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    tmp = createTempDir('gf-orphans-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, modelDir, textModel: 'tiny-e5', workers: 1 } });
  });
  afterEach(async () => {
    await gf.close();
    await site.close();
    tmp.remove();
  });

  const first = async (): Promise<Catalog> => {
    const report = await gf.crawler.crawl({ url: site.origin, settings: fast });
    expect(report.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    expect(report.orphans).toBeUndefined();
    return (await (await gf.catalogs()).list())[0] as Catalog;
  };
  const merge = (cat: Catalog, extra: Partial<Parameters<Greenfinger['crawler']['crawl']>[0]> = {}) =>
    gf.crawler.crawl({ id: cat.id, action: 'merge', ...extra });
  const held = async (cat: Catalog, path: string) =>
    (await gf.database()).resources.findResourceByUrlHash(cat.id, 0, urlHash(site.url(path)));
  const pages = async (cat: Catalog) => (await (await gf.database()).resources.count(cat.id, 0)).resources;
  const words = async (q: string) =>
    (await gf.search.search({ q, size: 50 })).results.map((h) => new URL(h.url).pathname);
  const meaning = async (q: string) =>
    (await gf.search.search({ q, mode: 'meaning', size: 50 })).results.map((h) => new URL(h.url).pathname);
  /** The sitemap without /sitemap-only.html (and with `extra` lines before its end). */
  const sitemapWithout = (path: string, extra = '') =>
    site.mutate(
      '/sitemap.xml',
      fixture('sitemap.xml')
        .split('\n')
        .filter((line) => !line.includes(`{{ORIGIN}}${path}<`))
        .join('\n')
        .replace('</urlset>', `${extra}</urlset>`),
    );
  /** /sitemap-only.html answers 404 and nothing links to it any more. */
  const removeArchive = () => {
    site.removePage('/sitemap-only.html');
    sitemapWithout('/sitemap-only.html');
  };
  /** What every layer holds of one resource: vector points, index documents, files, database rows. */
  const layers = async (cat: Catalog, id: string, textPath: string) => {
    const f = gf.factory;
    return {
      vector: await f.vectorFamily().deleteResource(cat.id, 0, id, true),
      index: await f.index().deleteResource(cat.id, 0, id, true),
      text: (await gf.blobs.getText(textPath)) !== undefined,
      db: (await (await gf.database()).resources.getResource(id)) !== undefined,
    };
  };

  it('merge with orphans delete: a page removed from the site leaves every layer, is counted, and can come back', async () => {
    const cat = await first();
    const before = await pages(cat);
    const archive = await held(cat, '/sitemap-only.html');
    expect(archive).toBeDefined();
    const id = archive?.id as string;
    expect(await words(ARCHIVE_WORDS)).toContain('/sitemap-only.html');
    expect(await meaning('which saved seeds come true year after year')).toContain('/sitemap-only.html');
    expect(await layers(cat, id, archive?.textPath as string)).toMatchObject({ index: 1, text: true, db: true });
    expect((await layers(cat, id, archive?.textPath as string)).vector).toBeGreaterThan(0);

    removeArchive();
    // Any case is accepted, and stored lower case.
    const report = await merge(cat, { settings: { orphans: 'DELETE' as 'delete' } });
    expect(report.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    expect(report.orphans).toEqual({ strategy: 'delete', found: 1, deleted: 1, processed: 0, gone: 0 });
    expect((await (await gf.catalogs()).get({ id: cat.id })).settings.orphans).toBe('delete');
    // It was not requested: nothing linked to it.
    expect(site.count('/sitemap-only.html')).toBe(1);

    expect(await words(ARCHIVE_WORDS)).not.toContain('/sitemap-only.html');
    expect(await meaning('which saved seeds come true year after year')).not.toContain('/sitemap-only.html');
    expect(await layers(cat, id, archive?.textPath as string)).toEqual({ vector: 0, index: 0, text: false, db: false });
    expect(await pages(cat)).toBe(before - 1);
    const fate = await gf.ledger.why(site.url('/sitemap-only.html'), { catalog: { id: cat.id } });
    expect(fate.row).toMatchObject({ state: 'rejected', outcome: 'REJECTED_ORPHAN', detail: 'orphans' });
    expect(fate.explanation).toMatch(/removed from version 0 of ".*" as an orphan: no page of the session/);

    // Not refused like a url deleted by hand: linked again, it is fetched as a new url and saved.
    site.addPage('/sitemap-only.html', fixture('sitemap-only.html'));
    site.mutate('/sitemap.xml', fixture('sitemap.xml'));
    const back = await merge(cat);
    expect(back.produced.saved).toBe(1);
    expect(back.orphans).toEqual({ strategy: 'delete', found: 0, deleted: 0, processed: 0, gone: 0 });
    expect(await words(ARCHIVE_WORDS)).toContain('/sitemap-only.html');
    expect(await pages(cat)).toBe(before);
    expect((await gf.ledger.why(site.url('/sitemap-only.html'), { catalog: { id: cat.id } })).row?.outcome).toBe(
      'SAVED',
    );
  });

  it('ignore (the default) counts the orphan and leaves it searchable', async () => {
    const cat = await first();
    const before = await pages(cat);
    removeArchive();
    const report = await merge(cat);
    expect(report.orphans).toEqual({ strategy: 'ignore', found: 1, deleted: 0, processed: 0, gone: 0 });
    expect(await words(ARCHIVE_WORDS)).toContain('/sitemap-only.html');
    expect(await pages(cat)).toBe(before);
  });

  it('process fetches the orphans again as revisits: one still there is kept, one gone is removed', async () => {
    const cat = await first();
    const before = await pages(cat);
    // Still there, but nothing links to it any more.
    sitemapWithout('/sitemap-only.html');
    // Gone, and its only link with it.
    site.mutate('/deep/7.html', fixture('deep/7.html').replace(/<a href="8\.html">[^<]*<\/a>/, ''));
    site.removePage('/deep/8.html');
    site.clear();
    const report = await merge(cat, { settings: { orphans: 'process' } });
    expect(report.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    expect(report.orphans).toEqual({ strategy: 'process', found: 2, deleted: 0, processed: 2, gone: 1 });
    expect(report.urls.dispatched).toBe(report.urls.handled);
    const asked = (path: string) => site.requests.filter((r) => r.path === path);
    expect(asked('/sitemap-only.html').map((r) => [r.status, r.ifNoneMatch !== undefined])).toEqual([[304, true]]);
    expect(asked('/deep/8.html').map((r) => [r.status, r.ifNoneMatch !== undefined])).toEqual([[404, true]]);
    expect(await words(ARCHIVE_WORDS)).toContain('/sitemap-only.html');
    expect(await words(SOIL_WORDS)).not.toContain('/deep/8.html');
    expect(await held(cat, '/deep/8.html')).toBeUndefined();
    expect(await pages(cat)).toBe(before - 1);
    const fate = await gf.ledger.why(site.url('/deep/8.html'), { catalog: { id: cat.id } });
    expect(fate.row).toMatchObject({ outcome: 'REJECTED_NOTFOUND', status: 404 });
  });

  it('process leaves orphans the acceptors now refuse as they are: not fetched, not recorded, still held', async () => {
    const cat = await first();
    const before = await pages(cat);
    site.clear();
    // /deep/1.html is linked (and refused); /deep/2-8.html are only linked from the series, so never offered.
    const report = await merge(cat, { settings: { orphans: 'process', exclude: ['/deep/**'] } });
    expect(report.orphans).toEqual({ strategy: 'process', found: 8, deleted: 0, processed: 0, gone: 0 });
    expect(site.requests.filter((r) => r.path.startsWith('/deep/'))).toEqual([]);
    expect(report.rejected['REJECTED_FILTER:path-patterns']).toBe(1);
    expect(report.urls.dispatched).toBe(report.urls.handled);
    expect(await pages(cat)).toBe(before);
    const fate = await gf.ledger.why(site.url('/deep/5.html'), { catalog: { id: cat.id } });
    expect(fate.row).toMatchObject({ state: 'done', outcome: 'SAVED' });
  });

  it('a held page that answers 404 on merge while still linked is removed from every layer', async () => {
    const cat = await first();
    const before = await pages(cat);
    const soil = await held(cat, '/deep/8.html');
    expect(await words(SOIL_WORDS)).toContain('/deep/8.html');
    site.removePage('/deep/8.html');
    const report = await merge(cat);
    expect(report.orphans).toEqual({ strategy: 'ignore', found: 0, deleted: 0, processed: 0, gone: 1 });
    // Nothing new or changed, but not "nothing changed": a page went.
    expect(report.ending.note).toBe(
      'nothing new or changed since v0; 1 page removed — orphans (ignore): 0 found, 1 gone (404/410) removed',
    );
    expect(await words(SOIL_WORDS)).not.toContain('/deep/8.html');
    expect(await meaning('testing soil acidity at home')).not.toContain('/deep/8.html');
    expect(await layers(cat, soil?.id as string, soil?.textPath as string)).toEqual({
      vector: 0,
      index: 0,
      text: false,
      db: false,
    });
    expect(await pages(cat)).toBe(before - 1);
    // The site brings it back: the next merge fetches it as a new url.
    site.addPage('/deep/8.html', fixture('deep/8.html'));
    const back = await merge(cat);
    expect(back.produced.saved).toBe(1);
    expect(await words(SOIL_WORDS)).toContain('/deep/8.html');
  });

  it('a merge stopped early does nothing to orphans; resume continues the session and deletes only them', async () => {
    const cat = await first();
    const before = await pages(cat);
    removeArchive();
    const controller = new AbortController();
    const stopped = await merge(cat, {
      settings: { orphans: 'delete', threads: 1 },
      signal: controller.signal,
      progressIntervalMs: 20,
      onProgress: (p) => {
        if (p.counters.handled >= 3) controller.abort();
      },
    });
    expect(stopped.ending).toMatchObject({ reason: 'interrupted', published: false });
    expect(stopped.orphans).toMatchObject({ strategy: 'delete', found: 0, deleted: 0 });
    expect(stopped.orphans?.skipped).toMatch(/ended early \(interrupted\)/);
    expect(await held(cat, '/sitemap-only.html')).toBeDefined();
    expect(await words(ARCHIVE_WORDS)).toContain('/sitemap-only.html');

    // The pages handled before the stop were reached by the same session: only the orphan goes.
    const resumed = await gf.crawler.crawl({ id: cat.id, action: 'resume' });
    // (A resume that saved nothing is not "published" again; the version it wrote in place keeps serving.)
    expect(resumed.ending).toMatchObject({ reason: 'frontier-drained', fullyCrawled: true });
    expect(resumed.orphans).toEqual({ strategy: 'delete', found: 1, deleted: 1, processed: 0, gone: 0 });
    expect(await pages(cat)).toBe(before - 1);
    expect(await held(cat, '/sitemap-only.html')).toBeUndefined();
  });

  it('the page moved: its copy, refused as a duplicate of the orphan, is saved once the orphan is removed', async () => {
    const cat = await first();
    const before = await pages(cat);
    site.addPage('/seed-archive.html', fixture('sitemap-only.html'));
    site.removePage('/sitemap-only.html');
    sitemapWithout('/sitemap-only.html', '  <url><loc>{{ORIGIN}}/seed-archive.html</loc></url>\n');
    const report = await merge(cat, { settings: { orphans: 'delete' } });
    expect(report.orphans).toEqual({
      strategy: 'delete',
      found: 1,
      deleted: 1,
      processed: 0,
      gone: 0,
      refetched: 1,
    });
    expect(report.rejected.REJECTED_DUPLICATE).toBeGreaterThanOrEqual(1);
    expect(report.urls.dispatched).toBe(report.urls.handled);
    expect(await words(ARCHIVE_WORDS)).toEqual(['/seed-archive.html']);
    expect(await pages(cat)).toBe(before);
    const fate = await gf.ledger.why(site.url('/seed-archive.html'), { catalog: { id: cat.id } });
    expect(fate.row?.outcome).toBe('SAVED');
  });

  it('a merge of a site that does not answer judges nothing', async () => {
    const cat = await first();
    const before = await pages(cat);
    await site.close();
    const report = await merge(cat, { settings: { orphans: 'delete', maxRetries: 0 } });
    expect(report.ending.published).toBe(false);
    expect(report.orphans).toMatchObject({ strategy: 'delete', found: 0, deleted: 0 });
    expect(report.orphans?.skipped).toMatch(/the site did not answer/);
    expect(await pages(cat)).toBe(before);
  });

  it('orphans beyond minPublishRatio are not deleted unless forced', async () => {
    const cat = await first();
    const before = await pages(cat);
    removeArchive();
    const kept: RunReport = await merge(cat, { settings: { orphans: 'delete', minPublishRatio: 0.99 } });
    expect(kept.orphans).toMatchObject({ strategy: 'delete', found: 1, deleted: 0 });
    expect(kept.orphans?.skipped).toMatch(/deleting them would leave fewer than 0\.99 × them.*--force-publish/);
    expect(await pages(cat)).toBe(before);
    const forced = await merge(cat, { forcePublish: true });
    expect(forced.orphans).toEqual({ strategy: 'delete', found: 1, deleted: 1, processed: 0, gone: 0 });
    expect(await pages(cat)).toBe(before - 1);
  });
});
