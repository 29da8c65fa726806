import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Greenfinger, type RunReport } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../support/tmp.js';

const LEEKS_MD = '# Leeks\n\nTrench them in **June**, blanch them with collars.\n\n- Musselburgh\n- Blue Solaise\n';

/**
 * A site whose pages name their own Markdown (`<link rel="alternate" type="text/markdown">`): /a.html's answers as
 * Markdown, /b.html's is missing (404), /c.html's is on another host (`localhost` for `127.0.0.1`), /d.html's answers
 * html, /e.html names none. Every request is logged.
 */
function startSite(): Promise<{ origin: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  let origin = '';
  const page = (title: string, markdown: string | undefined, body: string) =>
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${
      markdown ? `<link rel="alternate" type="text/markdown" href="${markdown}">` : ''
    }</head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push(path);
    const html = (text: string) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(text);
    };
    if (path === '/')
      return html(
        page(
          'Vegetable beds',
          undefined,
          ['a', 'b', 'c', 'd', 'e'].map((p) => `<a href="/${p}.html">Bed ${p}</a>`).join(' · '),
        ),
      );
    if (path === '/a.html') return html(page('Leeks', '/a.md', 'Trench them in June, blanch them with collars.'));
    if (path === '/a.md') {
      res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8' });
      return res.end(LEEKS_MD);
    }
    if (path === '/b.html') return html(page('Beans', 'b.md', 'Runner beans climb hazel poles by July.'));
    if (path === '/c.html')
      return html(page('Kale', `${origin.replace('127.0.0.1', 'localhost')}/c.md`, 'Kale stands through frost.'));
    if (path === '/d.html') return html(page('Onions', '/d.md', 'Onion sets go in when the soil crumbles.'));
    if (path === '/d.md') return html('<!DOCTYPE html><p>not markdown</p>');
    if (path === '/e.html') return html(page('Garlic', undefined, 'Garlic cloves want a cold spell to split.'));
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      resolve({
        origin,
        requests,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    }),
  );
}

describe("a site's own Markdown (issue 28)", () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let tmp: TempDir;
  let gf: Greenfinger;
  let report: RunReport;

  beforeAll(async () => {
    site = await startSite();
    tmp = createTempDir('gf-site-markdown-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 1, logLevel: 'silent' } });
    report = await gf.crawler.crawl({
      url: `${site.origin}/`,
      name: 'beds',
      settings: { intervalMs: 0, outputs: ['file', 'index'], images: false, sitemap: false },
    });
    expect(report.ending.published).toBe(true);
  }, 60_000);

  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it("keeps the site's Markdown of a page that names it, and says where it came from", async () => {
    const md = await gf.pages.markdown({ url: `${site.origin}/a.html` });
    expect(md.source).toBe('site');
    expect(md.markdown).toMatch(/^---\ntitle: "Leeks"\n[\s\S]*\nsource: site\n---\n/);
    expect(md.markdown.endsWith(LEEKS_MD)).toBe(true);
    // One request for it, and the Markdown url is not a page of the collection.
    expect(site.requests.filter((p) => p === '/a.md')).toHaveLength(1);
    expect((await gf.ledger.why(`${site.origin}/a.md`, { catalog: { name: 'beds' } })).row).toBeUndefined();
  });

  it('makes the Markdown from the html when the named one is missing, elsewhere or not Markdown', async () => {
    for (const p of ['b', 'c', 'd', 'e']) {
      const md = await gf.pages.markdown({ url: `${site.origin}/${p}.html` });
      expect(md.source, p).toBe('html');
      expect(md.markdown, p).toMatch(/\nsource: html\n/);
    }
    // The other host is never asked; the missing and the html one are asked once.
    expect(site.requests.filter((p) => p === '/c.md')).toEqual([]);
    expect(site.requests.filter((p) => p === '/b.md' || p === '/d.md').sort()).toEqual(['/b.md', '/d.md']);
    expect(report.produced.saved).toBe(6);
    expect(report.flow?.noted).toMatchObject({
      'site-markdown:kept': 1,
      'site-markdown:status-404': 1,
      'site-markdown:other-host': 1,
      'site-markdown:not-markdown': 1,
    });
  });
});
