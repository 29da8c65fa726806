import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Greenfinger, type RunReport } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../support/tmp.js';

const LEEKS_MD = '# Leeks\n\nTrench them in **June**, blanch them with collars.\n\n- Musselburgh\n- Blue Solaise\n';
const PARSNIP_MD = '# Parsnips\n\nSow them **fresh**: the seed keeps a year at most.\n';
const FENNEL_MD = '# Fennel\n\nFlorence fennel bolts if it is *sown too early*.\n';
const CHARD_MD = '# Chard\n\nRainbow chard stands all winter under fleece.\n';
const HERBS_MD = '# Herb garden\n\n- [Fennel](/fennel.html)\n- [Chard](/chard.html)\n';

/**
 * A site whose pages name their own Markdown (`<link rel="alternate" type="text/markdown">`): /a.html's answers as
 * Markdown, /b.html's is missing (404), /c.html's is on another host (`localhost` for `127.0.0.1`), /d.html's answers
 * html, /e.html names none; /n.html names none but varies on `Accept` and answers Markdown to `Accept:
 * text/markdown`. No /llms.txt. Every request is logged, and the Accept header of each request for /n.html.
 */
function startSite(): Promise<{ origin: string; requests: string[]; accepts: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const accepts: string[] = [];
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
          ['a', 'b', 'c', 'd', 'e', 'n'].map((p) => `<a href="/${p}.html">Bed ${p}</a>`).join(' · '),
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
    if (path === '/n.html') {
      const accept = String(req.headers.accept ?? '');
      accepts.push(accept);
      if (accept.startsWith('text/markdown')) {
        res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8', vary: 'Accept' });
        return res.end(PARSNIP_MD);
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', vary: 'Accept-Encoding, Accept' });
      return res.end(page('Parsnips', undefined, 'Sow them fresh: the seed keeps a year at most.'));
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      resolve({
        origin,
        requests,
        accepts,
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
    expect(md.markdown).toMatch(
      /^---\ntitle: "Leeks"\n[\s\S]*\nsource: site\nmarkdown_url: "http:\/\/127\.0\.0\.1:\d+\/a\.md"\nmarkdown_from: link\n---\n/,
    );
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
    expect(report.produced.saved).toBe(7);
    expect(report.flow?.noted).toMatchObject({
      'site-markdown:kept-link': 1,
      'site-markdown:kept-accept': 1,
      'site-markdown:status-404': 1,
      'site-markdown:other-host': 1,
      'site-markdown:not-markdown': 1,
    });
  });

  it('asks the page again with Accept: text/markdown when its answer varies on Accept, and keeps only Markdown', async () => {
    const md = await gf.pages.markdown({ url: `${site.origin}/n.html` });
    expect(md.source).toBe('site');
    expect(md.markdown).toMatch(/\nmarkdown_from: accept\n/);
    expect(md.markdown.endsWith(PARSNIP_MD)).toBe(true);
    // The page as html (the crawl's Accept), then once as Markdown; the llms.txt asked once for the whole host.
    expect(site.accepts).toHaveLength(2);
    expect(site.accepts[0]).toMatch(/^text\/html/);
    expect(site.accepts[1]).toMatch(/^text\/markdown/);
    expect(site.requests.filter((p) => p === '/llms.txt')).toHaveLength(1);
  });
  it("with markdownFiles, a crawl writes every page's .md itself: converted from the html, or the site's own", async () => {
    const { markdownPath, urlHash } = await import('@greenfinger/core/internal');
    const again = await gf.crawler.crawl({
      url: `${site.origin}/`,
      name: 'beds-md',
      settings: { intervalMs: 0, outputs: ['file'], images: false, sitemap: false, markdownFiles: true },
    });
    expect(again.produced.saved).toBe(7);
    const catalog = await (await gf.catalogs()).get({ name: 'beds-md' });
    const db = await gf.database();
    const stored = async (path: string) => {
      const row = await db.resources.findResourceByUrlHash(catalog.id, 0, urlHash(`${site.origin}${path}`));
      return gf.blobs.getText(markdownPath(row?.textPath as string));
    };
    // On disk before anything reads it: the conversion of the html, with its heading and its text.
    const garlic = await stored('/e.html');
    expect(garlic).toMatch(
      /^---\ntitle: "Garlic"\n[\s\S]*\nsource: html\n---\n# Garlic\n\nGarlic cloves want a cold spell/,
    );
    expect(await stored('/a.html')).toMatch(/\nsource: site\nmarkdown_url: .*\nmarkdown_from: link\n---\n# Leeks/);
  });
});

/**
 * A site with an /llms.txt that lists the Markdown twins of its root and of /fennel.html (`.md` appended, the
 * llmstxt.org convention); /chard.html is not listed but has its twin, /beet.html has none.
 */
function startLlmsSite(): Promise<{ origin: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push(path);
    const send = (type: string, body: string) => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    };
    const page = (title: string, body: string) =>
      `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p>${['fennel', 'chard', 'beet'].map((p) => `<a href="/${p}.html">${p}</a>`).join(' ')}</main></body></html>`;
    if (path === '/llms.txt')
      return send(
        'text/plain; charset=utf-8',
        '# Herb garden\n\n> What grows where.\n\n## Beds\n\n- [Home](/index.html.md): the garden\n- [Fennel](fennel.html.md "bulbs"): sow late\n- [Elsewhere](http://localhost:1/x.html.md)\n',
      );
    if (path === '/') return send('text/html; charset=utf-8', page('Herb garden', 'Fennel, chard and beet.'));
    if (path === '/index.html.md') return send('text/markdown; charset=utf-8', HERBS_MD);
    if (path === '/fennel.html') return send('text/html; charset=utf-8', page('Fennel', 'Florence fennel bolts.'));
    if (path === '/fennel.html.md') return send('text/markdown', FENNEL_MD);
    if (path === '/chard.html') return send('text/html; charset=utf-8', page('Chard', 'Rainbow chard stands.'));
    if (path === '/chard.html.md') return send('text/plain; charset=utf-8', CHARD_MD);
    if (path === '/beet.html') return send('text/html; charset=utf-8', page('Beet', 'Beetroot in rows.'));
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      resolve({
        origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        requests,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    }),
  );
}

describe("a site's Markdown found through its llms.txt (issue 28)", () => {
  it('keeps the listed twins and the conventional ones, says how each was found, and asks llms.txt once', async () => {
    const site = await startLlmsSite();
    const tmp = createTempDir('gf-llms-txt-');
    const gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 1, logLevel: 'silent' } });
    try {
      const report = await gf.crawler.crawl({
        url: `${site.origin}/`,
        name: 'herbs',
        settings: { intervalMs: 0, outputs: ['file', 'index'], images: false, sitemap: false },
      });
      expect(report.produced.saved).toBe(4);
      const from = async (path: string) => {
        const md = await gf.pages.markdown({ url: `${site.origin}${path}` });
        return [md.source, /\nmarkdown_from: (\S+)\n/.exec(md.markdown)?.[1], md.markdown] as const;
      };
      const [rootSource, rootFrom, root] = await from('/');
      expect([rootSource, rootFrom]).toEqual(['site', 'llms.txt']);
      expect(root).toContain(`markdown_url: "${site.origin}/index.html.md"`);
      expect(root.endsWith(HERBS_MD)).toBe(true);
      const [, fennelFrom, fennel] = await from('/fennel.html');
      expect(fennelFrom).toBe('llms.txt');
      expect(fennel.endsWith(FENNEL_MD)).toBe(true);
      const [, chardFrom, chard] = await from('/chard.html');
      expect(chardFrom).toBe('twin');
      expect(chard.endsWith(CHARD_MD)).toBe(true);
      const [beetSource, beetFrom] = await from('/beet.html');
      expect([beetSource, beetFrom]).toEqual(['html', undefined]);
      expect(site.requests.filter((p) => p === '/llms.txt')).toHaveLength(1);
      expect(site.requests.filter((p) => p.endsWith('.md')).sort()).toEqual([
        '/beet.html.md',
        '/chard.html.md',
        '/fennel.html.md',
        '/index.html.md',
      ]);
      expect(report.flow?.noted).toMatchObject({
        'site-markdown:kept-llms.txt': 2,
        'site-markdown:kept-twin': 1,
        'site-markdown:status-404': 1,
      });
    } finally {
      await gf.close();
      await site.close();
      tmp.remove();
    }
  }, 60_000);
});
