import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { decodeBody, Greenfinger, type ResourceRow, type RunReport } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeLegacy } from '../support/legacy-encoding.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** Issue 11, failure 7: latin-1 bytes under a `charset=utf-8` header were stored and indexed with U+FFFD. */

const article = (topic: string) =>
  `This page tells of ${topic} in words enough to make an article of its own. `.repeat(4) +
  `Nothing else on the site says this about ${topic}.`;

const doc = (title: string, text: string, head = '', links: string[] = []) =>
  `<!doctype html><html><head>${head}<title>${title}</title></head><body><main><h1>${title}</h1>` +
  `<p>${text}</p><ul>${links.map((l) => `<li><a href="${l}">${l}</a></li>`).join('')}</ul></main></body></html>`;

/** The phrase each page must be stored with, exactly. */
const PHRASES: Record<string, string> = {
  '/latin1-under-utf8': 'Café crème brûlée, “curly quotes” and 5 € — Müller’s œuvre',
  '/latin1-no-charset': 'Smörgåsbord für Gäste à la française',
  '/latin1-meta-utf8': 'Señor Peña’s piñata, déjà vu',
  '/utf8-with-a-stray-byte': 'naïve façade, then a stray café',
  '/good-utf8': 'Grüße aus Köln, 日本語 und Ελληνικά',
};

function site(): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const send = (type: string, body: Buffer) => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    };
    switch (path) {
      case '/':
        return send(
          'text/html; charset=utf-8',
          Buffer.from(doc('Home', article('the home page'), '', Object.keys(PHRASES))),
        );
      case '/latin1-under-utf8':
        // The header says utf-8; the bytes are windows-1252 (0xE9 é, 0x93/0x94 curly quotes, 0x80 €).
        return send(
          'text/html; charset=utf-8',
          encodeLegacy(doc('Latin under utf-8', `${PHRASES[path]}. ${article('desserts')}`), 'windows-1252'),
        );
      case '/latin1-no-charset':
        return send(
          'text/html',
          encodeLegacy(doc('No charset', `${PHRASES[path]}. ${article('buffets')}`), 'windows-1252'),
        );
      case '/latin1-meta-utf8':
        return send(
          'text/html',
          encodeLegacy(
            doc('Meta utf-8', `${PHRASES[path]}. ${article('parties')}`, '<meta charset="utf-8">'),
            'windows-1252',
          ),
        );
      case '/utf8-with-a-stray-byte': {
        // Valid UTF-8 throughout but for one latin-1 é at the end of "café".
        const [before, after] = doc('Stray byte', `${PHRASES[path]}. ${article('buildings')}`).split('caf\u00e9');
        return send(
          'text/html; charset=utf-8',
          Buffer.concat([Buffer.from(`${before}caf`), Buffer.from([0xe9]), Buffer.from(after ?? '')]),
        );
      }
      case '/good-utf8':
        return send('text/html; charset=utf-8', Buffer.from(doc('Good', `${PHRASES[path]}. ${article('greetings')}`)));
      default:
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not here');
    }
  });
}

describe('wrong charsets (issue 11, failure 7)', () => {
  let server: Server;
  let base: string;
  let tmp: TempDir;
  let report: RunReport;
  const rows = new Map<string, ResourceRow>();
  const text = (path: string) => {
    const row = rows.get(path);
    if (!row) throw new Error(`${path} was not saved`);
    return readFileSync(join(tmp.path, 'user', row.textPath), 'utf8');
  };

  beforeAll(async () => {
    server = site();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    tmp = createTempDir('gf-charsets-');
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

  it('stores every page without U+FFFD, each phrase exactly as written', () => {
    expect(report.produced.saved).toBe(6);
    for (const [path, phrase] of Object.entries(PHRASES)) {
      const stored = text(path);
      expect(stored, path).not.toContain('\ufffd');
      expect(stored, path).toContain(phrase);
    }
  });

  it('decodes bytes invalid in their charset as windows-1252, says so on the row, and counts the fallbacks', () => {
    for (const path of ['/latin1-under-utf8', '/latin1-no-charset', '/latin1-meta-utf8', '/utf8-with-a-stray-byte']) {
      expect(rows.get(path)?.charset, path).toBe('windows-1252');
    }
    expect(rows.get('/good-utf8')?.charset).toBe('utf-8');
    expect(rows.get('/')?.charset).toBe('utf-8');
    expect(report.content).toEqual({ charsetFallbacks: 4 });
  });

  it('decodeBody: windows-1252 for latin-1 bytes, utf-8 kept where valid, utf-8 detected under a wrong label', () => {
    const latin = decodeBody(encodeLegacy('<p>“Déjà” 5 €</p>', 'windows-1252'), 'text/html; charset=utf-8');
    expect(latin).toMatchObject({
      charset: 'windows-1252',
      fallbackFrom: 'utf-8',
      source: 'header',
      text: '<p>“Déjà” 5 €</p>',
    });
    // One stray byte in a UTF-8 page: the UTF-8 text stays UTF-8.
    const stray = Buffer.concat([Buffer.from('<p>naïve '), Buffer.from([0xe9, 0x80]), Buffer.from(' 日本</p>')]);
    expect(decodeBody(stray, 'text/html; charset=utf-8').text).toBe('<p>naïve é€ 日本</p>');
    // ISO-8859-8 has no character at 0xC3: UTF-8 bytes under that label are read as the UTF-8 they are.
    expect(decodeBody(Buffer.from('<p>café</p>'), 'text/html; charset=iso-8859-8')).toMatchObject({
      charset: 'utf-8',
      fallbackFrom: 'iso-8859-8',
      text: '<p>café</p>',
    });
    // Valid bytes: no fallback.
    const fine = decodeBody(Buffer.from('<p>café</p>'), 'text/html; charset=utf-8');
    expect(fine.fallbackFrom).toBeUndefined();
    expect(fine.text).toBe('<p>café</p>');
    // Overlong and surrogate sequences are not UTF-8 either.
    expect(decodeBody(Buffer.from([0xc0, 0xaf, 0xed, 0xa0, 0x80]), 'text/html').text).toBe('À¯í\u00a0€');
  });
});
