import { createServer } from 'node:net';
import { Greenfinger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** A loopback port nothing listens on: taken from the system, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Issue 30 item 3: a site that never answered. */
describe('a site that never answered', () => {
  let tmp: TempDir;
  let gf: Greenfinger;
  const fast = { intervalMs: 0, outputs: ['file', 'index'] as Array<'file' | 'index'>, maxRetries: 0 };

  beforeAll(async () => {
    tmp = createTempDir('gf-unreachable-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 1 } });
  });
  afterAll(async () => {
    await gf?.close();
    tmp?.remove();
  });

  it('counts the start url as REJECTED_UNREACHABLE, not robots_txt, and removes the catalog it created', async () => {
    const port = await closedPort();
    const report = await gf.crawler.crawl({ url: `http://127.0.0.1:${port}/`, settings: fast });
    expect(report.rejected).toEqual({ 'REJECTED_UNREACHABLE:robots-txt': 1 });
    expect(report.urls.unreachable).toBe(1);
    expect(report.ending.withheld?.cause).toBe('site-unreachable');
    expect(report.ending.note).toMatch(
      /nothing was reached, so the catalog "127\.0\.0\.1:\d+" this crawl created was removed/,
    );
    expect(report.path).toBeUndefined();
    expect((await (await gf.catalogs()).list()).map((c) => c.name)).toEqual([]);

    // The next crawl of the same host, another path: no "a catalog named … already exists".
    const again = await gf.crawler.crawl({ url: `http://127.0.0.1:${port}/other/`, settings: fast });
    expect(again.catalog).toBe(`127.0.0.1:${port}-other`);
    expect(again.rejected).toEqual({ 'REJECTED_UNREACHABLE:robots-txt': 1 });
    expect((await (await gf.catalogs()).list()).length).toBe(0);
  }, 60_000);

  it('the default names of two catalogs of one host do not collide: host, then host plus path', async () => {
    const catalogs = await gf.catalogs();
    const root = await catalogs.create({ url: 'http://127.0.0.1:9/' });
    const docs = await catalogs.create({ url: 'http://127.0.0.1:9/docs/v2/' });
    expect(root.name).toBe('127.0.0.1:9');
    expect(docs.name).toBe('127.0.0.1:9-docs-v2');
    // A page's file name is not part of the name: the start page of a site names the site, a page in a folder its folder.
    expect((await catalogs.create({ url: 'http://127.0.0.2:9/index.html' })).name).toBe('127.0.0.2:9');
    expect((await catalogs.create({ url: 'http://127.0.0.2:9/docs/v2/index.html' })).name).toBe('127.0.0.2:9-docs-v2');
  });
});
