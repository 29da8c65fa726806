import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Catalog,
  type CrawlerError,
  Greenfinger,
  type ImageRow,
  type ResourceRow,
  type SearchResponse,
} from '@greenfinger/core';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureFacts } from '../support/fixture-facts.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

const modelDir = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const QUERIES = ['grow food on balconies', 'smooth, shiny sausage', 'winter rye or crimson clover'];

describe('replay: rebuild outputs from what is stored', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let gf: Greenfinger;
  let catalog: Catalog;
  const open = () =>
    Greenfinger.open({ settings: { dataStore: tmp.path, modelDir, textModel: 'tiny-e5', workers: 1 } });
  const user = (key: string) => join(tmp.path, 'user', key);
  const searches = async (): Promise<SearchResponse[]> => {
    const out: SearchResponse[] = [];
    for (const q of QUERIES) out.push(await gf.search.search({ q, size: 5 }));
    out.push(await gf.search.search({ q: 'watering the garden while away', mode: 'meaning', size: 5 }));
    return out.map((r) => ({ ...r, elapsedMs: 0 }));
  };
  let before: SearchResponse[];

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    tmp = createTempDir('gf-replay-');
    gf = await open();
    const report = await gf.crawler.crawl({
      url: site.origin,
      startUrl: `${site.origin}/`,
      settings: { intervalMs: 0, threads: 4, hostConcurrency: 4 },
    });
    expect(report.ending.published).toBe(true);
    catalog = (await (await gf.catalogs()).list())[0] as Catalog;
    before = await searches();
    expect(before[0]?.results.length).toBeGreaterThan(0);
    expect(before[3]?.results.length).toBeGreaterThan(0);
  }, 120_000);

  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('index+vector after user/index and user/vector are deleted: search answers as before, with zero requests', async () => {
    await gf.close();
    rmSync(join(tmp.path, 'user', 'index'), { recursive: true });
    rmSync(join(tmp.path, 'user', 'vector'), { recursive: true });
    gf = await open();
    await expect(gf.search.search({ q: 'balconies' })).rejects.toThrow(/nothing has been published/);
    site.clear();
    site.other.clear();

    const first = await gf.replay.replay({ id: catalog.id }, { layers: ['vector', 'index'] });
    expect(site.requests).toHaveLength(0);
    expect(site.other.requests).toHaveLength(0);
    expect(first.requests).toBe(0);
    expect(first.version).toBe(0);
    expect(first.republished).toBe(true);
    expect(first.layers.index).toEqual({ written: fixtureFacts.savedCount, failed: 0 });
    expect(first.layers.vector).toMatchObject({ written: fixtureFacts.savedCount, failed: 0 });
    expect(first.layers.file).toBeUndefined();
    expect(JSON.parse(readFileSync(user(first.path as string), 'utf8'))).toMatchObject({ version: 0, requests: 0 });
    expect(await searches()).toEqual(before);
    // Optimized as at publish, off the event loop: the rebuilt index has the version's champion-list build.
    const indexDb = new Database(join(tmp.path, 'user', 'index', `greenfinger-${catalog.id}`, 'index.db'), {
      readonly: true,
    });
    try {
      expect(indexDb.prepare('SELECT version, watermark FROM champion_builds').all()).toEqual([
        { version: 0, watermark: fixtureFacts.savedCount },
      ]);
    } finally {
      indexDb.close();
    }

    const points = await (await gf.vectors()).countVersion(catalog.id, 0);
    const second = await gf.replay.replay({ name: catalog.name }, { layers: ['index', 'vector'] });
    expect(second.layers).toEqual(first.layers);
    expect(await (await gf.vectors()).countVersion(catalog.id, 0)).toBe(points);
    expect(await gf.index().countVersion(catalog.id, 0)).toBe(fixtureFacts.savedCount);
    expect(await searches()).toEqual(before);
    expect(site.requests).toHaveLength(0);
  });

  it('file refetches exactly the pages and pictures whose files are missing, and nothing else', async () => {
    const db = await gf.database();
    const rows: ResourceRow[] = [];
    for await (const batch of db.resources.iterateResources(catalog.id, 0)) rows.push(...batch);
    const images: ImageRow[] = [];
    for await (const batch of db.resources.iterateImages(catalog.id, 0)) images.push(...batch);
    const [a, b, c] = rows.filter((r) => r.contentType.startsWith('text/html')).slice(0, 3) as [
      ResourceRow,
      ResourceRow,
      ResourceRow,
    ];
    // A document: its original bytes and its text, read again by its parser.
    const pdf = rows.find((r) => r.url.endsWith('/docs/report.pdf')) as ResourceRow;
    const picture = images[0] as ImageRow;
    const original = new Map(
      [a.htmlPath, b.textPath, c.htmlPath, c.textPath, pdf.htmlPath, pdf.textPath, picture.path].map((k) => [
        k,
        readFileSync(user(k)),
      ]),
    );
    for (const key of original.keys()) rmSync(user(key));
    site.clear();

    const report = await gf.replay.replay({ id: catalog.id }, { layers: ['file'] });
    expect(site.requests.map((r) => new URL(r.path, site.origin).href).sort()).toEqual(
      [a.url, b.url, c.url, pdf.url, picture.url].sort(),
    );
    expect(report.requests).toBe(5);
    expect(report.layers.file?.pages).toEqual({
      checked: fixtureFacts.savedCount,
      intact: fixtureFacts.savedCount - 4,
      written: 4,
      changed: 0,
      unreachable: 0,
    });
    expect(report.layers.file?.images).toMatchObject({ intact: images.length - 1, written: 1, unreachable: 0 });
    for (const [key, bytes] of original) expect(readFileSync(user(key)).equals(bytes), key).toBe(true);

    site.clear();
    const again = await gf.replay.replay({ id: catalog.id }, { layers: ['file'] });
    expect(site.requests).toHaveLength(0);
    expect(again.layers.file?.pages.intact).toBe(fixtureFacts.savedCount);
  });

  it('a page that changed on the site is written again, its row updated and counted as changed', async () => {
    const db = await gf.database();
    const rows: ResourceRow[] = [];
    for await (const batch of db.resources.iterateResources(catalog.id, 0)) rows.push(...batch);
    const page = rows.find((r) => new URL(r.url).pathname === '/') as ResourceRow;
    const html = readFileSync(user(page.htmlPath), 'utf8').replace(
      'grow food on balconies',
      'grow food on balconies and force rhubarb in pots',
    );
    site.mutate('/index.html', html);
    rmSync(user(page.textPath));
    const report = await gf.replay.replay({ id: catalog.id }, { layers: ['file'] });
    expect(report.layers.file?.pages).toMatchObject({ changed: 1, written: 0, unreachable: 0 });
    expect(readFileSync(user(page.textPath), 'utf8')).toContain('force rhubarb in pots');
    const updated = await db.resources.getResource(page.id);
    expect(updated?.contentHash).not.toBe(page.contentHash);
    expect(updated?.textChars).toBe(readFileSync(user(page.textPath), 'utf8').length);
  });

  it('refuses a version that is not stored, naming the stored ones', async () => {
    const missing = await gf.replay.replay({ id: catalog.id }, { version: 4, layers: ['index'] }).catch((e) => e);
    expect((missing as CrawlerError).toLine()).toMatch(/no stored version 4.*stored versions: 0\b/);
    await expect(gf.replay.replay({ id: catalog.id }, { layers: [] })).rejects.toThrow(/--layers/);
  });
});
