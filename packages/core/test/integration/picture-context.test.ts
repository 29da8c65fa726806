import { createServer, type Server } from 'node:http';
import { Greenfinger, type PictureSearchHit } from '@greenfinger/core';
import { HtmlContentExtractor } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, listen } from '../support/loopback.js';
import { encodePng } from '../support/png.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

// A page whose pictures are found only by what is around them: the nearest heading and the title attribute.
const PAGE = `<!doctype html><html><head><title>Harbour notes</title></head><body><main>
<h1>Harbour notes</h1>
<h2>Lighthouse keepers of Marrowby</h2>
<p>The tower was painted every spring by the same family for ninety years, from the gallery down to the rocks.
<img src="/pics/p0123.png" alt="" width="320" height="200"></p>
<h2>Tide tables</h2>
<p>Low water comes about fifty minutes later each day; the chart shows a week of it.
<img src="/pics/chart7.png" title="Seaweed harvest calendar" alt="Chart" width="320" height="200"></p>
</main></body></html>`;

/** The real crawl of one local page with its pictures: file + index, pictures kept, then pictures search. */
describe('picture records carry the nearest heading and the title attribute', () => {
  let server: Server;
  let origin = '';
  let tmp: TempDir;
  let gf: Greenfinger;
  const png = (shade: number) => encodePng(320, 200, (x, y) => [(x * shade) % 256, (y * 3) % 256, shade]);
  const bodies: Record<string, [string, Buffer]> = {
    '/': ['text/html; charset=utf-8', Buffer.from(PAGE)],
    '/pics/p0123.png': ['image/png', png(7)],
    '/pics/chart7.png': ['image/png', png(11)],
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const hit = bodies[req.url ?? ''];
      if (!hit) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': hit[0], 'content-length': hit[1].length }).end(hit[1]);
    });
    origin = `http://127.0.0.1:${await listen(server)}`;
    tmp = createTempDir('gf-picture-context-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 1 } });
    const report = await gf.crawler.crawl({
      url: `${origin}/`,
      startUrl: `${origin}/`,
      settings: { maxPages: 5, intervalMs: 0, outputs: ['file', 'index'], robots: false },
    });
    expect(report.ending.published).toBe(true);
    expect(report.produced.images).toBe(2);
  }, 120_000);

  afterAll(async () => {
    await gf?.close();
    if (server) await closeServer(server);
    tmp?.remove();
  });

  it('the extractor puts the heading before the text around a picture and the title after it', () => {
    const [keeper, chart] = new HtmlContentExtractor().extract(PAGE, `${origin}/`).images;
    expect(keeper?.surroundingText).toBe(
      'Lighthouse keepers of Marrowby — The tower was painted every spring by the same family for ninety years, from the gallery down to the rocks.',
    );
    expect(chart?.surroundingText).toBe(
      'Tide tables — Low water comes about fifty minutes later each day; the chart shows a week of it. — Seaweed harvest calendar',
    );
  });

  it('finds a picture with no alt text by the heading above it', async () => {
    const r = await gf.search.search({ q: 'lighthouse keepers', mode: 'pictures', size: 5 });
    const first = r.results[0] as PictureSearchHit | undefined;
    expect(first && new URL(first.pictureUrl).pathname).toBe('/pics/p0123.png');
    expect(first?.highlights.join(' ')).toMatch(/<em>Lighthouse<\/em> <em>keepers<\/em>/);
    // No vectors were written: the words alone answered, and the answer says so.
    expect(r.rankings).toEqual(['words']);
  });

  it('finds a picture by its title attribute', async () => {
    const r = await gf.search.search({ q: 'seaweed harvest', mode: 'pictures', size: 5 });
    const first = r.results[0] as PictureSearchHit | undefined;
    expect(first && new URL(first.pictureUrl).pathname).toBe('/pics/chart7.png');
    expect(first?.caption).toMatch(/Seaweed harvest calendar/);
  });

  it('refuses pictures like one where no picture vector was written, naming the fix', async () => {
    const r = await gf.search.search({ q: 'seaweed harvest', mode: 'pictures', size: 1 });
    const picture = r.results[0] as PictureSearchHit;
    await expect(gf.search.search({ q: '', mode: 'pictures', like: picture.id })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringMatching(/^like: ".*" v\d+ holds no picture vectors/),
      fix: expect.stringMatching(/"vector" to the catalog's outputs.*replay --layers vector/),
    });
  });
});
