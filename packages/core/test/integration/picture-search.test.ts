import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Greenfinger, type PictureSearchHit, type SearchHit } from '@greenfinger/core';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GimpSite, gimpHelpMissing, startGimpSite } from '../support/gimp-site.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

const missing = gimpHelpMissing();
const DONE_WHEN = 'the dialog for exporting webp images';
const WEBP = '/images/using/export-webp-dialog.png';

/**
 * Pictures search on a real crawl: 40 pages of the GIMP help from the chapter that shows the export dialogs, with
 * pictures kept and every output on, so pictures rank by words and meaning fused (docs/search.md, Pictures). One
 * crawl for the file; the search layer alone answers.
 */
describe.skipIf(missing !== undefined)(`pictures search over the GIMP help${missing ? ` (${missing})` : ''}`, () => {
  let site: GimpSite;
  let tmp: TempDir;
  let gf: Greenfinger;
  let catalogId = '';
  let version = 0;
  const pictures = (q: string, size = 10) => gf.search.search({ q, mode: 'pictures', size });

  beforeAll(async () => {
    site = await startGimpSite();
    tmp = createTempDir('gf-pictures-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 1 } });
    const report = await gf.crawler.crawl({
      url: `${site.origin}/`,
      startUrl: `${site.origin}/gimp-images-out.html`,
      settings: {
        maxPages: 40,
        intervalMs: 0,
        threads: 8,
        hostConcurrency: 8,
        outputs: ['file', 'index', 'vector'],
      },
    });
    expect(report.ending.published).toBe(true);
    catalogId = report.catalogId;
    version = report.version;
  }, 180_000);

  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('finds the WebP export dialog among the first three pictures, with its file, size, caption and page', async () => {
    const r = await pictures(DONE_WHEN);
    expect(r.mode).toBe('pictures');
    // Text vectors only (contentMode text): words and caption meaning answered, no image ranking, no model loaded.
    expect(r.rankings).toEqual(['words', 'caption meaning']);
    const urls = r.results.map((h) => new URL((h as PictureSearchHit).pictureUrl).pathname);
    expect(urls.slice(0, 3)).toContain(WEBP);
    const webp = r.results.find((h) => h.url.endsWith(WEBP)) as PictureSearchHit;
    expect(webp.title).toBe('The WebP Export dialog');
    expect(webp.caption).toMatch(/WebP Export dialog/);
    expect(webp.highlights.join(' ')).toMatch(/<em>WebP<\/em>/);
    expect(existsSync(join(gf.layout.user, webp.file))).toBe(true);
    expect(webp.width).toBeGreaterThan(0);
    expect(webp.height).toBeGreaterThan(0);
    expect(webp.pages).toContainEqual(
      expect.objectContaining({
        url: `${site.origin}/gimp-images-out.html`,
        title: expect.stringMatching(/Getting Images out/),
      }),
    );
  });

  it('keeps one record per picture, whatever number of pages show it', async () => {
    const file = join(gf.layout.indexRoot, `${gf.settings.indexPrefix}-${catalogId}`, 'index.db');
    const db = new Database(file, { readonly: true });
    try {
      const row = db
        .prepare(
          `SELECT count(*) AS n, count(DISTINCT image_id) AS images, max(page_count) AS most FROM pictures WHERE version = ?`,
        )
        .get(version) as { n: number; images: number; most: number };
      expect(row.n).toBeGreaterThan(50);
      expect(row.images).toBe(row.n);
      expect(row.most).toBeGreaterThan(1);
      // Each picture's meaning, embedded once (by the bundled model) whatever number of pages show it.
      const vectors = db
        .prepare(
          `SELECT count(*) AS n, count(DISTINCT v.id) AS ids, min(dims) AS dims FROM picture_vectors v JOIN pictures p ON p.id = v.id WHERE v.version = ?`,
        )
        .get(version) as { n: number; ids: number; dims: number };
      expect(vectors).toEqual({ n: row.n, ids: row.n, dims: (await gf.embedding()).dims });
      const shared = db
        .prepare(`SELECT url, page_count FROM pictures WHERE version = ? ORDER BY page_count DESC LIMIT 1`)
        .get(version) as { url: string; page_count: number };
      const name = decodeURIComponent(new URL(shared.url).pathname.split('/').pop() ?? '').replace(/\.\w+$/, '');
      const r = await pictures(name.replace(/[-_]/g, ' '), 50);
      const same = r.results.filter((h) => (h as PictureSearchHit).pictureUrl === shared.url) as PictureSearchHit[];
      expect(same).toHaveLength(1);
      expect(same[0]?.pageCount).toBe(shared.page_count);
      expect(same[0]?.pages.length).toBe(shared.page_count);
    } finally {
      db.close();
    }
  });

  it('gives page results of every mode their pictures, deduplicated by image id', async () => {
    for (const mode of ['words', 'hybrid'] as const) {
      const r = await gf.search.search({ q: 'WebP export dialog lossless', mode, size: 10 });
      const page = r.results.find((h) => h.url.endsWith('/gimp-images-out.html')) as SearchHit;
      expect(page, mode).toBeDefined();
      const ids = (page.pictures ?? []).map((p) => p.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect((page.pictures ?? []).map((p) => new URL(p.url).pathname)).toContain(WEBP);
    }
  });

  it('pages by offset, refuses a cursor that is not one, and answers only the published version', async () => {
    const first = await pictures('dialog', 5);
    expect(first.total).toBeGreaterThan(5);
    expect(first.nextCursor).toBe('5');
    const second = await gf.search.search({ q: 'dialog', mode: 'pictures', size: 5, cursor: first.nextCursor ?? '' });
    const ids = [...first.results, ...second.results].map((h) => h.id);
    expect(new Set(ids).size).toBe(10);
    await expect(gf.search.search({ q: 'dialog', mode: 'pictures', cursor: 'x' })).rejects.toThrow(/not an offset/);
    expect(first.results.every((h) => h.version === version)).toBe(true);
    // A blank query lists the pictures kept, those on the most pages first.
    const listed = await pictures('', 5);
    expect(listed.mode).toBe('pictures');
    expect(listed.total).toBeGreaterThan(first.total);
    const counts = listed.results.map((h) => (h as PictureSearchHit).pageCount);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });

  it('finds pictures like the WebP export dialog by its caption meaning: other export dialogs first', async () => {
    const webp = (await pictures(DONE_WHEN)).results.find((h) => h.url.endsWith(WEBP)) as PictureSearchHit;
    const r = await gf.search.search({ q: '', mode: 'auto', like: webp.id, size: 5 });
    expect(r.mode).toBe('pictures');
    expect(r.likeBy).toBe('caption meaning');
    expect(r.likeOf?.url).toBe(webp.url);
    const paths = r.results.map((h) => new URL(h.url).pathname);
    expect(paths).not.toContain(WEBP);
    // Measured: TIFF, MNG, JPEG export dialogs, the Open Image dialog, the HEIF export dialog.
    expect(paths[0]).toMatch(/\/export-\w+-dialog\.png$/);
    expect(paths.filter((p) => /\/export-\w+-dialog\.png$/.test(p)).length).toBeGreaterThanOrEqual(3);
    const scores = r.results.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(r.total).toBeGreaterThan(5);
    expect(r.nextCursor).toBe('5');
    // The image id names it too; the next page goes on where the first stopped.
    const next = await gf.search.search({ q: '', mode: 'pictures', like: webp.imageId, size: 5, cursor: '5' });
    expect(next.likeOf?.id).toBe(webp.id);
    expect(new Set([...r.results, ...next.results].map((h) => h.id)).size).toBe(10);
  });

  it('refuses like with an unknown picture, with words, or in another mode, naming what to do', async () => {
    const webp = (await pictures(DONE_WHEN)).results.find((h) => h.url.endsWith(WEBP)) as PictureSearchHit;
    const like = (q: string, mode: 'pictures' | 'words', id: string) => gf.search.search({ q, mode, like: id });
    await expect(like('', 'pictures', 'no-such-picture')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/^like: no picture "no-such-picture" in ".+" v\d+$/),
      fix: expect.stringMatching(/--mode pictures --json/),
    });
    await expect(like('webp', 'pictures', webp.id)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringMatching(/^q and like together/),
    });
    await expect(like('', 'words', webp.id)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringMatching(/^like: .* not mode words$/),
    });
    await expect(like('', 'pictures', ' ')).rejects.toMatchObject({ code: 'BAD_INPUT', message: 'like is blank' });
  });

  it('never answers from a version being written', async () => {
    // A rebuild writing version + 1 into the same index file: its pictures stay out until it is published.
    const index = gf.factory.index();
    const next = version + 1;
    const image = {
      id: 'rebuild-picture',
      path: 'x.png',
      url: `${site.origin}/images/zebra-unicorn.png`,
      alt: 'zebra unicorn',
    };
    await index.upsert([
      {
        id: 'rebuild-page',
        catalogId,
        catalogName: 'gimp',
        version: next,
        url: `${site.origin}/rebuild.html`,
        title: 'Zebra unicorn',
        text: 'zebra unicorn',
        imageText: 'zebra unicorn',
        htmlPath: '',
        textPath: '',
        images: [image],
        linkDensity: 0,
        fetchedAt: new Date().toISOString(),
      },
    ]);
    try {
      const found = await pictures('zebra unicorn');
      expect(found.results.map((h) => h.url)).not.toContain(image.url);
      expect(found.results.every((h) => h.version === version)).toBe(true);
      expect((await pictures('', 1000)).results.every((h) => h.version === version)).toBe(true);
    } finally {
      await index.deleteVersion(catalogId, next);
    }
  });

  it('replay --layers index rebuilds the picture records from what is stored', async () => {
    const report = await gf.replay.replay({ id: catalogId }, { layers: ['index'] });
    expect(report.version).toBe(version);
    const r = await pictures(DONE_WHEN);
    expect(r.results.slice(0, 3).map((h) => new URL(h.url).pathname)).toContain(WEBP);
  }, 120_000);

  it('a page deleted by hand leaves the records of its pictures; a picture left on no page goes', async () => {
    const page = `${site.origin}/gimp-images-out.html`;
    const before = (await pictures(DONE_WHEN)).results as PictureSearchHit[];
    expect(before.map((h) => new URL(h.url).pathname)).toContain(WEBP);
    const id = (await gf.ledger.why(page)).row?.id as string;
    await gf.ledger.deleteUrl(id);
    const after = (await pictures(DONE_WHEN)).results as PictureSearchHit[];
    expect(after.map((h) => new URL(h.url).pathname)).not.toContain(WEBP);
    for (const h of after) expect(h.pages.map((p) => p.url)).not.toContain(page);
  });
});
