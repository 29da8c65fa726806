import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CrawlProgress, Greenfinger, type HostRate } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** One page request the server got: when it arrived and what it answered. */
interface Hit {
  at: number;
  path: string;
  status: number;
}

/**
 * A site of `pages` pages on loopback, page i linking to 2i+1 and 2i+2; `answer(n)` decides the n-th page request's
 * status, delay and Retry-After. Every page request is logged with its arrival time.
 */
async function startSite(
  pages: number,
  answer: (n: number) => { status?: number; delayMs: number; retryAfter?: string },
): Promise<{ origin: string; hits: Hit[]; close(): Promise<void> }> {
  const hits: Hit[] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/robots.txt') return void res.writeHead(404).end();
    const m = /^\/p\/(\d+)$/.exec(path);
    const i = path === '/' ? 0 : m ? Number(m[1]) : -1;
    if (i < 0 || i >= pages) return void res.writeHead(404).end();
    const a = answer(hits.length);
    const status = a.status ?? 200;
    hits.push({ at: Date.now(), path, status });
    const links = [2 * i + 1, 2 * i + 2].filter((k) => k < pages).map((k) => `<a href="/p/${k}">page ${k}</a>`);
    setTimeout(() => {
      if (status !== 200) {
        res.writeHead(status, a.retryAfter ? { 'retry-after': a.retryAfter } : {}).end('busy');
        return;
      }
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<html><head><title>Page ${i}</title></head><body><p>Page ${i} of the pace site.</p>${links.join(' ')}</body></html>`,
        );
    }, a.delayMs);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    hits,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * Token buckets and adaptive pace (issue 26 item 4), judged from the server's log: a 429 with Retry-After pauses the
 * host for every worker, and a host whose answers slow down gets fewer requests per second.
 */
describe('adaptive host pace', () => {
  let tmp: TempDir;
  let gf: Greenfinger;
  const settings = { intervalMs: 0, threads: 4, hostConcurrency: 4, outputs: ['file'] as ['file'] };

  beforeAll(async () => {
    tmp = createTempDir('gf-host-pace-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 1 } });
  });

  afterAll(async () => {
    await gf?.close();
    tmp?.remove();
  });

  it('a 429 with Retry-After 2 pauses the host: no request from any worker for 2 s', async () => {
    // The 12th page request answers 429 Retry-After: 2; every answer takes 15 ms, so 4 workers are on the host.
    const site = await startSite(40, (n) =>
      n === 11 ? { status: 429, delayMs: 15, retryAfter: '2' } : { delayMs: 15 },
    );
    try {
      const report = await gf.crawler.crawl({ url: `${site.origin}/`, settings });
      expect(report.produced.saved).toBe(40);
      const refused = site.hits.find((h) => h.status === 429)!;
      expect(refused).toBeDefined();
      // Requests on the wire when the 429 left the server may still arrive just after it; then nothing for 2 s.
      const during = site.hits.filter((h) => h.at > refused.at + 100 && h.at < refused.at + 2000);
      expect(during).toEqual([]);
      const after = site.hits.filter((h) => h.at >= refused.at + 2000);
      expect(after.length).toBeGreaterThan(10);
      // The url refused was fetched again, after the pause.
      expect(after.some((h) => h.path === refused.path && h.status === 200)).toBe(true);
    } finally {
      await site.close();
    }
  }, 30_000);

  it('a host that slows from 10 ms to 500 ms per answer gets a lower rate within a few seconds', async () => {
    const FAST = 40;
    let slowFrom = 0;
    const site = await startSite(64, (n) => {
      if (n < FAST) return { delayMs: 10 };
      if (n === FAST) slowFrom = Date.now();
      return { delayMs: 500 };
    });
    const seen: HostRate[] = [];
    try {
      const report = await gf.crawler.crawl({
        url: `${site.origin}/`,
        // The rate adapts only when the catalog asks (adaptivePace, off by default); the pause above needs nothing.
        settings: { ...settings, adaptivePace: true },
        progressIntervalMs: 100,
        onProgress: (p: CrawlProgress) => {
          if (p.hosts) seen.push(...p.hosts);
        },
      });
      expect(report.produced.saved).toBe(64);
      // Unadapted, 4 workers on 500 ms answers make 8 requests a second; adapted, about one per answer time (2/s).
      // Judged over every request from 2 s after the slowdown to the last: at most 4 a second.
      const late = site.hits.filter((h) => h.at >= slowFrom + 2000);
      expect(late.length).toBeGreaterThanOrEqual(5);
      const span = (late.at(-1)!.at - late[0]!.at) / 1000;
      expect((late.length - 1) / span).toBeLessThanOrEqual(4);
      // The progress showed the host's rate going down from unlimited (interval 0).
      const host = new URL(site.origin).host;
      const rates = seen.filter((h) => h.host === host && h.ratePerSecond !== null).map((h) => h.ratePerSecond!);
      expect(Math.min(...rates)).toBeLessThanOrEqual(4);
      expect(seen.every((h) => h.settingPerSecond === null)).toBe(true);
    } finally {
      await site.close();
    }
  }, 30_000);
  it('the burst setting: a bucket of 4 tokens at one per 250 ms, judged from the server’s log', async () => {
    const INTERVAL = 250;
    const BURST = 4;
    const site = await startSite(12, () => ({ delayMs: 5 }));
    try {
      const report = await gf.crawler.crawl({
        url: `${site.origin}/`,
        settings: { ...settings, intervalMs: INTERVAL, burst: BURST },
      });
      expect(report.produced.saved).toBe(12);
      const t = site.hits.map((h) => h.at).sort((a, b) => a - b);
      // No window of the log holds more than the bucket allows: BURST + one per interval (one of slack for jitter).
      let excess = Number.NEGATIVE_INFINITY;
      for (let i = 0; i < t.length; i++) {
        for (let j = i; j < t.length; j++) {
          excess = Math.max(excess, j - i + 1 - (BURST + Math.floor((t[j]! - t[i]!) / INTERVAL)));
        }
      }
      expect(excess).toBeLessThanOrEqual(1);
      // Pages 1 and 2, found together on the first page, go out together on the tokens left: burst 1 would space
      // them by the interval.
      expect(t[2]! - t[1]!).toBeLessThan(INTERVAL * 0.6);
    } finally {
      await site.close();
    }
  }, 30_000);
});
