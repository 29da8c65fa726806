import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Greenfinger, type ResourceRow, type RunReport } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePng } from '../support/png.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** Issue 30, item 1: a page with one stray NUL byte ended as REJECTED_NOT_MARKUP:binary. */

const words = (topic: string) =>
  `This page tells of ${topic} in words enough to make an article of its own. `.repeat(4) +
  `Nothing else on the site says this about ${topic}.`;

/** A broken page as browsers show it: one NUL, unclosed tags, a stray </div></table>. */
const NUL_PAGE = Buffer.from(
  `<html><head><title>Broken page</title><body><main><h1>Broken page</h1><p>Unclosed <b>bold ${words('quinces')}` +
    `\u0000 <i>the marmalade after the stray byte</div></table><p>${words('cellars')}</main>`,
);

const HOME =
  `<!doctype html><html><head><title>Home</title></head><body><main><h1>Home</h1><p>${words('the home page')}</p>` +
  '<a href="/broken/nul.html">nul</a> <a href="/binary/png">png</a> <a href="/binary/gzip">gzip</a></main></body></html>';

function site(): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const html = (body: Buffer) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    if (path === '/') return html(Buffer.from(HOME));
    if (path === '/broken/nul.html') return html(NUL_PAGE);
    if (path === '/binary/png') return html(encodePng(32, 32, (x, y) => [x * 8, y * 8, 128]));
    // A body still compressed, without a Content-Encoding header to say so.
    if (path === '/binary/gzip') return html(gzipSync(Buffer.from(HOME)));
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
  });
}

describe('a page with a stray NUL byte is not a binary (issue 30, item 1)', () => {
  let server: Server;
  let base: string;
  let tmp: TempDir;
  let report: RunReport;
  const rows = new Map<string, ResourceRow>();

  beforeAll(async () => {
    server = site();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    tmp = createTempDir('gf-nul-page-');
    const gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 0, logLevel: 'silent' } });
    try {
      report = await gf.crawler.crawl({
        url: base,
        startUrl: `${base}/`,
        settings: { intervalMs: 0, threads: 2, robots: false, sitemap: false, outputs: ['file'], images: false },
      });
      const db = await gf.database();
      const catalog = (await (await gf.catalogs()).list())[0];
      for await (const batch of db.resources.iterateResources(catalog?.id as string, 0)) {
        for (const r of batch) rows.set(new URL(r.url).pathname, r);
      }
    } finally {
      await gf.close();
    }
  }, 30_000);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    tmp?.remove();
  });

  it('a crawl saves a page with one NUL byte, unclosed tags and a stray </div></table>, with its text', () => {
    const row = rows.get('/broken/nul.html');
    expect(row, JSON.stringify(report.rejected)).toBeDefined();
    const text = readFileSync(join(tmp.path, 'user', row?.textPath as string), 'utf8');
    expect(text).toContain('the marmalade after the stray byte');
    expect(text).toContain('Nothing else on the site says this about cellars');
  });

  it('a real binary served as text/html (a PNG, a gzip body) is still refused as REJECTED_NOT_MARKUP:binary', () => {
    expect(rows.has('/binary/png')).toBe(false);
    expect(rows.has('/binary/gzip')).toBe(false);
    expect(report.produced.saved).toBe(2);
    expect(report.rejected['REJECTED_NOT_MARKUP:binary']).toBe(2);
  });
});
