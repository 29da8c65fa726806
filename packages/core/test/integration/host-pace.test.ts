import { createServer, type Server } from 'node:http';
import { Greenfinger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdaptivePace, observedExtractor } from '../../src/fetch/host-pace.js';
import { HttpExtractor } from '../../src/fetch/http-extractor.js';
import { HostPoliteness } from '../../src/fetch/politeness.js';
import { closeServer, listen } from '../support/loopback.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** Poll `check` until it holds, or fail after `deadlineMs`. */
async function until(what: string, check: () => boolean, deadlineMs: number): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('AdaptivePace (issue 26 item 4)', () => {
  it('a 429 halves the rate and Retry-After pauses; fast answers earn it back to the setting, no further', () => {
    const pace = new AdaptivePace({ fastRun: 5 });
    pace.observe('h', { status: 429, elapsedMs: 5, retryAfterMs: 2000 }, 100, 1_000);
    expect(pace.intervalFor('h', 100)).toBe(200);
    expect(pace.pausedUntil('h')).toBe(3_000);
    // Another answer of the same overload (within the interval) does not halve it again; a later one does.
    pace.observe('h', { status: 503, elapsedMs: 5 }, 100, 1_100);
    expect(pace.intervalFor('h', 100)).toBe(200);
    pace.observe('h', { status: 503, elapsedMs: 5 }, 100, 1_300);
    expect(pace.intervalFor('h', 100)).toBe(400);
    for (let i = 0; i < 5; i++) pace.observe('h', { status: 200, elapsedMs: 10 }, 100);
    expect(pace.intervalFor('h', 100)).toBe(200);
    for (let i = 0; i < 20; i++) pace.observe('h', { status: 200, elapsedMs: 10 }, 100);
    expect(pace.intervalFor('h', 100)).toBe(100);
    // A Retry-After past the longest pause ("back tomorrow") pauses nothing; the url's retry gives up on it too.
    pace.observe('h', { status: 503, elapsedMs: 5, retryAfterMs: 86_400_000 }, 100, 5_000);
    expect(pace.pausedUntil('h')).toBe(3_000);
  });

  it('answers growing slower lower the rate to one start per answer time; another host keeps its own', () => {
    const pace = new AdaptivePace();
    for (let i = 0; i < 10; i++) pace.observe('h', { status: 200, elapsedMs: 10 }, 10);
    pace.observe('other', { status: 200, elapsedMs: 10 }, 10);
    expect(pace.intervalFor('h', 10)).toBe(10);
    for (let i = 0; i < 6; i++) pace.observe('h', { status: 200, elapsedMs: 500 }, 10);
    expect(pace.intervalFor('h', 10)).toBeGreaterThan(400);
    expect(pace.intervalFor('other', 10)).toBe(10);
    // A rendered page's time says nothing of the host.
    pace.observe('other', { status: 200 }, 10);
    expect(pace.intervalFor('other', 10)).toBe(10);
  });

  it('a host with no rate (interval 0) keeps none, but a Retry-After still pauses it', () => {
    const pace = new AdaptivePace();
    pace.observe('h', { status: 429, elapsedMs: 5, retryAfterMs: 1000 }, 0, 50);
    expect(pace.intervalFor('h', 0)).toBe(0);
    expect(pace.pausedUntil('h')).toBe(1050);
    for (let i = 0; i < 10; i++) pace.observe('h', { status: 200, elapsedMs: i < 5 ? 10 : 900 }, 0);
    expect(pace.intervalFor('h', 0)).toBe(0);
  });
});

describe('a host answering 429 with Retry-After 2 during a crawl', () => {
  let tmp: TempDir;
  let gf: Greenfinger;
  let server: Server;
  let port = 0;
  /** Each request as the server received it: path, time, and the status it was given. */
  const log: Array<{ path: string; at: number; status: number }> = [];
  let limited = false;

  beforeAll(async () => {
    tmp = createTempDir('gf-pace-');
    server = createServer((req, res) => {
      const path = req.url ?? '/';
      const at = Date.now();
      res.setHeader('content-type', 'text/html; charset=utf-8');
      if (path === '/p3' && !limited) {
        limited = true;
        log.push({ path, at, status: 429 });
        res.writeHead(429, { 'retry-after': '2' });
        res.end('slow down');
        return;
      }
      log.push({ path, at, status: 200 });
      const links = path === '/' ? Array.from({ length: 8 }, (_, i) => `<a href="/p${i}">p${i}</a>`).join(' ') : '';
      res.end(`<html><body><h1>Page ${path}</h1><p>${'Words of a page. '.repeat(20)}${path}</p>${links}</body></html>`);
    });
    port = await listen(server);
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 1 } });
  });
  afterAll(async () => {
    await gf?.close();
    await closeServer(server);
    tmp?.remove();
  });

  it('gets no request for 2 s after it from any worker, then the crawl ends with every page', async () => {
    const report = await gf.crawler.crawl({
      url: `http://127.0.0.1:${port}/`,
      settings: {
        intervalMs: 400,
        threads: 4,
        hostConcurrency: 4,
        outputs: ['file'],
        robots: false,
        sitemap: false,
        maxRetries: 1,
      },
    });
    expect(report.produced.saved).toBe(9);
    const refused = log.find((r) => r.status === 429);
    expect(refused).toBeDefined();
    const t = (refused as { at: number }).at;
    const during = log.filter((r) => r.at > t && r.at < t + 2000);
    expect(during).toEqual([]);
    // Pages were still waiting when it came (not a crawl that had simply finished).
    expect(log.filter((r) => r.at >= t + 2000).length).toBeGreaterThanOrEqual(2);
  }, 30_000);
});

describe('a host whose answers slow from 10 ms to 500 ms', () => {
  let server: Server;
  let port = 0;
  let delayMs = 10;

  beforeAll(async () => {
    server = createServer((req, res) => {
      setTimeout(() => {
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.end(`<html><body>${req.url}</body></html>`);
      }, delayMs);
    });
    port = await listen(server);
  });
  afterAll(async () => {
    await closeServer(server);
  });

  it('gets a lower rate within a few seconds, and earns the setting back once fast again', async () => {
    // 10 ms: the host's answer time, so the setting is no slower than the host at first.
    const politeness = new HostPoliteness({ maxPerHost: 2, minIntervalMs: 10 });
    const http = observedExtractor(
      new HttpExtractor({ settings: { userAgent: 't', timeoutMs: 5000, maxBodyBytes: 1 << 20, maxRedirects: 0 } }),
      politeness,
    );
    const host = `127.0.0.1:${port}`;
    let stop = false;
    let n = 0;
    const worker = async () => {
      while (!stop) {
        const release = await politeness.acquire(host);
        try {
          await http.fetch(`http://${host}/p${n++}`);
        } finally {
          release();
        }
      }
    };
    const workers = [worker(), worker(), worker()];
    try {
      await until('a few fast answers', () => n >= 20, 10_000);
      expect(politeness.intervalFor(host)).toBe(10);
      delayMs = 500;
      await until('a lower rate', () => politeness.intervalFor(host) >= 250, 8_000);
      delayMs = 10;
      await until('the setting back', () => politeness.intervalFor(host) === 10, 15_000);
    } finally {
      stop = true;
      await Promise.all(workers);
      politeness.close();
      await http.close();
    }
  }, 40_000);
});
