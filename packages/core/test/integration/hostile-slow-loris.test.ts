import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  FetchError,
  Greenfinger,
  HostPoliteness,
  HttpExtractor,
  type RunReport,
  withRetry,
} from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { politeFetch } from '../../src/engine/polite-fetch.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** Issue 11, failure 8: a body dripping one byte at a time held a host slot for 3 × GF_TIMEOUT_MS per attempt. */

const TIMEOUT_MS = 1500;
/** The drip never lasts longer than this, whatever the client does: every test stays bounded. */
const DRIP_MAX_MS = 12_000;

interface Seen {
  path: string;
  start: number;
  end: number;
}

const page = (title: string, links: string[] = []) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>` +
  `<p>${`The page called ${title} says enough words to be an article of its own. `.repeat(5)}</p>` +
  `<ul>${links.map((l) => `<li><a href="${l}">${l}</a></li>`).join('')}</ul></main></body></html>`;

/** One byte every `everyMs` (a declared length it never reaches), until the client leaves or DRIP_MAX_MS. */
function drip(res: ServerResponse, everyMs: number): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': '100000' });
  res.write('<');
  const timer = setInterval(() => res.write('p'), everyMs);
  const stop = setTimeout(() => res.destroy(), DRIP_MAX_MS);
  res.on('close', () => {
    clearInterval(timer);
    clearTimeout(stop);
  });
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function loopbackSite(): { server: Server; seen: Seen[] } {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const entry: Seen = { path: req.url ?? '', start: Date.now(), end: 0 };
    seen.push(entry);
    res.on('close', () => {
      entry.end = Date.now();
    });
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/loris' || path === '/loris-2') return drip(res, 1000);
    if (path === '/drip-fast') return drip(res, 50);
    if (path === '/silent') return; // never answers (closed when the client leaves)
    if (path === '/steady') {
      // 1.2 s of a steady 8 KiB every 100 ms (80 KiB/s): slower than the grace, faster than the minimum rate.
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      let n = 0;
      const timer = setInterval(() => {
        res.write(`<p>${'s'.repeat(8192)}</p>`);
        if (++n === 12) {
          clearInterval(timer);
          res.end(page('Steady'));
        }
      }, 100);
      res.on('close', () => clearInterval(timer));
      return;
    }
    const body =
      path === '/'
        ? page('Home', ['/loris', '/a', '/b', '/c', '/loris-2'])
        : path === '/robots.txt'
          ? ''
          : page(`Page ${path}`);
    res.writeHead(path === '/robots.txt' ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body);
  });
  return { server, seen };
}

describe('a slow-loris body holds a host slot (issue 11, failure 8)', () => {
  let site: { server: Server; seen: Seen[] };
  let base: string;

  beforeAll(async () => {
    site = loopbackSite();
    base = await listen(site.server);
  });

  afterAll(async () => {
    site.server.closeAllConnections();
    await new Promise<void>((resolve) => site.server.close(() => resolve()));
  });

  it('GF_TIMEOUT_MS is the deadline of the whole request: a dripping body ends at it, once, and frees the slot at once', async () => {
    const http = new HttpExtractor({
      settings: { userAgent: 'gf-test', timeoutMs: TIMEOUT_MS, maxBodyBytes: 1_000_000, maxRedirects: 3 },
    });
    // As a crawl assembles it: retried when retryable, under one politeness slot per host.
    const fetcher = withRetry(http, { retries: 2, baseDelayMs: 50 });
    using polite = new HostPoliteness({ maxPerHost: 1, minIntervalMs: 0 });
    try {
      const started = Date.now();
      const loris = politeFetch(polite, fetcher, `${base}/loris`, {}).then(
        () => undefined,
        (e: unknown) => ({ err: e, at: Date.now() }),
      );
      // Waits for the only slot the host has.
      const next = politeFetch(polite, fetcher, `${base}/a`, {}).then((r) => ({ status: r.status, at: Date.now() }));
      const failed = await loris;
      const after = await next;

      expect(failed?.err).toBeInstanceOf(FetchError);
      const err = failed?.err as FetchError;
      expect(err.reason).toBe('timeout');
      expect(err.retryable).toBe(false);
      expect(err.message).toMatch(/timed out after 1500 ms, its body still arriving/);
      // One deadline, not three, and no second attempt.
      const lorisMs = (failed?.at ?? 0) - started;
      expect(lorisMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(lorisMs).toBeLessThan(TIMEOUT_MS + 700);
      expect(site.seen.filter((s) => s.path === '/loris')).toHaveLength(1);
      // The slot went to the waiting request the moment the slow one failed.
      expect(after.status).toBe(200);
      expect(after.at - (failed?.at ?? 0)).toBeLessThan(400);
    } finally {
      await fetcher.close();
    }
  }, 15_000);

  it('a body under GF_MIN_BYTES_PER_SECOND is given up after GF_SLOW_BODY_GRACE_MS, well before the deadline', async () => {
    const http = new HttpExtractor({
      settings: {
        userAgent: 'gf-test',
        timeoutMs: 10_000,
        maxBodyBytes: 10_000_000,
        maxRedirects: 3,
        minBytesPerSecond: 1024,
        slowBodyGraceMs: 500,
      },
    });
    try {
      const started = Date.now();
      const err = await http.fetch(`${base}/drip-fast`).catch((e: unknown) => e);
      const ms = Date.now() - started;
      expect(err).toBeInstanceOf(FetchError);
      expect((err as FetchError).reason).toBe('timeout');
      expect((err as FetchError).retryable).toBe(false);
      expect((err as FetchError).message).toMatch(
        /too slow: \d+ bytes in [\d.]+ s, under GF_MIN_BYTES_PER_SECOND=1024/,
      );
      expect(ms).toBeGreaterThanOrEqual(450);
      expect(ms).toBeLessThan(2000);

      // A steady body slower than the grace but faster than the minimum rate is read whole.
      const steady = await http.fetch(`${base}/steady`);
      expect(steady.status).toBe(200);
      expect(steady.body.length).toBeGreaterThan(12 * 8192);
      expect(steady.text).toContain('Steady');

      // A server that never sends its headers still times out at the deadline, and is worth another try.
      const quick = new HttpExtractor({
        settings: { userAgent: 'gf-test', timeoutMs: 400, maxBodyBytes: 1000, maxRedirects: 0 },
      });
      const t = Date.now();
      const silent = (await quick.fetch(`${base}/silent`).catch((e: unknown) => e)) as FetchError;
      expect(silent.reason).toBe('timeout');
      expect(silent.retryable).toBe(true);
      expect(Date.now() - t).toBeLessThan(1200);
      await quick.close();
    } finally {
      await http.close();
    }
  }, 15_000);

  describe('in a crawl', () => {
    let tmp: TempDir;
    let report: RunReport;
    let crawlMs: number;

    beforeAll(async () => {
      tmp = createTempDir('gf-loris-');
      site.seen.length = 0;
      const gf = await Greenfinger.open({
        settings: { dataStore: tmp.path, workers: 0, timeoutMs: TIMEOUT_MS, logLevel: 'silent' },
      });
      try {
        const started = Date.now();
        report = await gf.crawler.crawl({
          url: base,
          startUrl: `${base}/`,
          settings: {
            intervalMs: 0,
            threads: 2,
            hostConcurrency: 2,
            robots: false,
            sitemap: false,
            outputs: ['file'],
            images: false,
            maxRetries: 2,
          },
        });
        crawlMs = Date.now() - started;
      } finally {
        await gf.close();
      }
    }, 30_000);

    afterAll(() => tmp?.remove());

    it('two dripping pages cost one deadline each, with no retry, and the crawl goes on', () => {
      expect(report.ending).toMatchObject({ reason: 'frontier-drained', published: true });
      expect(report.produced.saved).toBe(4);
      expect(report.rejected.REJECTED_UNREACHABLE).toBe(2);
      expect(report.examples.REJECTED_UNREACHABLE).toMatch(/\/loris(-2)?: fetch of .* timed out after 1500 ms/);
      for (const path of ['/loris', '/loris-2']) {
        const hits = site.seen.filter((s) => s.path === path);
        expect(hits, path).toHaveLength(1);
        const held = hits[0]!.end - hits[0]!.start;
        expect(held, path).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
        expect(held, path).toBeLessThan(TIMEOUT_MS + 700);
      }
      // Both host slots were held by the two drips at most once each: the whole crawl is about one deadline.
      expect(crawlMs).toBeLessThan(2 * TIMEOUT_MS + 2000);
      expect(report.urls.dispatched).toBe(report.urls.handled);
    });
  });
});
