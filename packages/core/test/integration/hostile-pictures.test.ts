import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Greenfinger, type ImageRow, type RunReport } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkImage } from '../../src/engine/image-probe.js';
import { encodeJpeg } from '../support/jpeg.js';
import { encodePng, encodePngClaiming } from '../support/png.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** Issue 11, failure 6: truncated JPEGs, HTML served as image/png and a 100000×100000 PNG header were all kept. */

const MAX_BYTES = 200_000;
const LIMITS = { maxSide: 30_000, maxPixels: 100_000_000 };

/** Incompressible pixels (a xorshift stream), so the PNG stays over the byte cap. */
function noise(): () => [number, number, number] {
  let s = 0x9e3779b9;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s & 255;
  };
  return () => [next(), next(), next()];
}

const goodPng = encodePng(200, 200, (x, y) => [x % 256, y % 256, 128]);
const goodJpeg = encodeJpeg(160, 120, (x, y) => [x % 256, 90, y % 256]);
const otherJpeg = encodeJpeg(200, 200, (x, y) => [(x * 3) % 256, (y * 5) % 256, 40]);

const PICTURES: Record<string, { type: string; body: Buffer } | undefined> = {
  '/img/good.png': { type: 'image/png', body: goodPng },
  '/img/good.jpg': { type: 'image/jpeg', body: goodJpeg },
  '/img/truncated.jpg': { type: 'image/jpeg', body: otherJpeg.subarray(0, Math.floor(otherJpeg.length / 2)) },
  '/img/truncated.png': { type: 'image/png', body: goodPng.subarray(0, goodPng.length - 20) },
  '/img/page.png': {
    type: 'image/png',
    body: Buffer.from('<!doctype html><html><head><title>Not found</title></head><body>soft 404</body></html>'),
  },
  '/img/bomb.png': { type: 'image/png', body: encodePngClaiming(100_000, 100_000) },
  '/img/heavy.png': { type: 'image/png', body: encodePng(300, 300, noise()) },
  '/img/tiny.png': { type: 'image/png', body: encodePng(16, 16, () => [0, 0, 0]) },
  '/img/missing.png': undefined,
};

const article = (topic: string) =>
  `This page shows pictures of ${topic}, with words enough to make an article of its own. `.repeat(4) +
  `Nothing else on the site says this about ${topic}.`;

function doc(title: string, pictures: string[], links: string[] = []): string {
  const imgs = pictures.map((p) => `<figure><img src="${p}" alt="${p}"><figcaption>${p}</figcaption></figure>`);
  const anchors = links.map((l) => `<a href="${l}">${l}</a>`).join(' ');
  return (
    `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>` +
    `<p>${article(title)}</p>${imgs.join('')}<p>${anchors}</p></main></body></html>`
  );
}

function site(): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(doc('Home', Object.keys(PICTURES), ['/gallery']));
    }
    if (path === '/gallery') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(doc('Gallery', ['/img/good.png', '/img/truncated.jpg']));
    }
    const picture = PICTURES[path];
    if (!picture) {
      res.writeHead(404, { 'content-type': 'text/html' });
      return res.end('<h1>Not found</h1>');
    }
    res.writeHead(200, { 'content-type': picture.type, 'content-length': String(picture.body.length) });
    res.end(picture.body);
  });
}

describe('broken pictures are kept (issue 11, failure 6)', () => {
  let server: Server;
  let base: string;
  let tmp: TempDir;
  let report: RunReport;
  const images: ImageRow[] = [];
  let links = 0;

  beforeAll(async () => {
    expect(PICTURES['/img/heavy.png']!.body.length).toBeGreaterThan(MAX_BYTES);
    server = site();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    tmp = createTempDir('gf-pictures-');
    const gf = await Greenfinger.open({
      settings: { dataStore: tmp.path, workers: 0, logLevel: 'silent', imageMaxBytes: MAX_BYTES },
    });
    try {
      report = await gf.crawler.crawl({
        url: base,
        startUrl: `${base}/`,
        settings: { intervalMs: 0, threads: 2, robots: false, sitemap: false, outputs: ['file'] },
      });
      const db = await gf.database();
      const id = (await (await gf.catalogs()).list())[0]?.id as string;
      for await (const batch of db.resources.iterateImages(id, 0)) images.push(...batch);
      links = (await db.resources.count(id, 0)).resourceImages;
    } finally {
      await gf.close();
    }
  }, 30_000);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    tmp?.remove();
  });

  it('keeps only the pictures whose bytes hold up, and links only those', () => {
    expect(report.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    expect(images.map((i) => new URL(i.url).pathname).sort()).toEqual(['/img/good.jpg', '/img/good.png']);
    for (const img of images) expect(existsSync(join(tmp.path, 'user', img.path))).toBe(true);
    expect(images.find((i) => i.url.endsWith('.png'))).toMatchObject({
      width: 200,
      height: 200,
      contentType: 'image/png',
    });
    expect(images.find((i) => i.url.endsWith('.jpg'))).toMatchObject({
      width: 160,
      height: 120,
      contentType: 'image/jpeg',
    });
    // Home shows both good pictures, the gallery the png again: three links, two pictures.
    expect(links).toBe(3);
    expect(report.produced.images).toBe(2);
  });

  it('ends each broken picture as REJECTED_BAD_IMAGE with its reason, in the pictures section of the report', () => {
    expect(report.pictures?.kept).toBe(2);
    expect(report.pictures?.rejected).toEqual({
      'REJECTED_BAD_IMAGE:truncated': 2,
      'REJECTED_BAD_IMAGE:not-an-image': 1,
      'REJECTED_BAD_IMAGE:too-many-pixels': 1,
      REJECTED_TOO_LARGE: 1,
      'REJECTED_FILTER:image-min-size': 1,
      REJECTED_NOTFOUND: 1,
    });
    const ex = report.pictures?.examples ?? {};
    expect(ex['REJECTED_BAD_IMAGE:not-an-image']).toMatch(
      /\/img\/page\.png: .*the bytes are HTML \(served as image\/png\)$/,
    );
    expect(ex['REJECTED_BAD_IMAGE:too-many-pixels']).toMatch(/\/img\/bomb\.png: png header says 100000×100000 px/);
    expect(ex['REJECTED_BAD_IMAGE:truncated']).toMatch(/\/img\/truncated\.(jpg|png): /);
    expect(ex.REJECTED_TOO_LARGE).toMatch(/\/img\/heavy\.png: /);
  });

  it('counts pictures apart from the urls: dispatched = handled, no picture outcome among the urls', () => {
    expect(report.urls.dispatched).toBe(2);
    expect(report.urls.handled).toBe(report.urls.dispatched);
    expect(report.produced.saved).toBe(2);
    expect(Object.keys(report.rejected).filter((k) => k.startsWith('REJECTED_BAD_IMAGE'))).toEqual([]);
    expect(report.urls.failures).toBe(0);
  });

  it('checkImage reads each format from its bytes, whatever it was served as', () => {
    const gif = (w: number, h: number, trailer = true) =>
      Buffer.concat([
        Buffer.from('GIF89a', 'latin1'),
        Buffer.from([w & 255, w >> 8, h & 255, h >> 8, 0x80, 0, 0, 0, 0, 0, 255, 255, 255]),
        Buffer.from([0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0x00]),
        Buffer.from(trailer ? [0x3b] : []),
      ]);
    expect(checkImage(gif(200, 150), LIMITS)).toMatchObject({ ok: true, ext: 'gif', width: 200, height: 150 });
    expect(checkImage(gif(200, 150, false), LIMITS)).toMatchObject({ ok: false, reason: 'truncated' });
    expect(checkImage(gif(0, 150), LIMITS)).toMatchObject({ ok: false, reason: 'bad-header' });

    const webp = (w: number, h: number, cut = 0) => {
      const bits = ((w - 1) & 0x3fff) | (((h - 1) & 0x3fff) << 14);
      const data = Buffer.concat([Buffer.from([0x2f]), Buffer.alloc(4), Buffer.alloc(20)]);
      data.writeUInt32LE(bits, 1);
      const chunk = Buffer.concat([Buffer.from('VP8L', 'latin1'), Buffer.alloc(4), data]);
      chunk.writeUInt32LE(data.length, 4);
      const file = Buffer.concat([
        Buffer.from('RIFF', 'latin1'),
        Buffer.alloc(4),
        Buffer.from('WEBP', 'latin1'),
        chunk,
      ]);
      file.writeUInt32LE(file.length - 8, 4);
      return file.subarray(0, file.length - cut);
    };
    expect(checkImage(webp(640, 480), LIMITS)).toMatchObject({ ok: true, ext: 'webp', width: 640, height: 480 });
    expect(checkImage(webp(640, 480, 10), LIMITS)).toMatchObject({ ok: false, reason: 'truncated' });

    const svg = Buffer.from(
      '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10"><rect/></svg>\n',
    );
    expect(checkImage(svg, LIMITS)).toMatchObject({ ok: true, ext: 'svg', contentType: 'image/svg+xml' });
    expect(checkImage(svg.subarray(0, 60), LIMITS)).toMatchObject({ ok: false, reason: 'truncated' });
    expect(checkImage(Buffer.from('<html><body><svg></svg></body></html>'), LIMITS)).toMatchObject({
      ok: false,
      reason: 'not-an-image',
    });

    // A PNG whose IHDR fails its CRC, a JPEG with a scan but no frame header, an empty body, a side too long.
    const badCrc = Buffer.from(goodPng);
    badCrc[20] = 0x7f;
    expect(checkImage(badCrc, LIMITS)).toMatchObject({ ok: false, reason: 'bad-header' });
    expect(
      checkImage(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x08, 1, 1, 0, 0, 63, 0, 0xff, 0xd9]), LIMITS),
    ).toMatchObject({ ok: false, reason: 'bad-header' });
    expect(checkImage(Buffer.alloc(0), LIMITS)).toMatchObject({ ok: false, reason: 'empty' });
    expect(checkImage(encodePngClaiming(40_000, 10), LIMITS)).toMatchObject({ ok: false, reason: 'too-many-pixels' });
    // A JPEG served as image/png is still a JPEG.
    expect(checkImage(goodJpeg, LIMITS)).toMatchObject({ ok: true, ext: 'jpg', contentType: 'image/jpeg' });
  });
});
