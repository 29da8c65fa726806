import { createServer, type Server } from 'node:http';
import { BrowserExtractor, FetchError, HttpExtractor, loadSettings } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, listen } from '../support/loopback.js';
import { chromiumProcesses } from '../support/processes.js';

const text = 'Rendered by the script, plain words a reader reads. '.repeat(6);

/** `/shell` fills its mount from `/slow.js`, which answers after 300 ms; `/stuck` never fills it. */
function site(): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/slow.js') {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/javascript' });
        res.end(`document.getElementById('root').textContent = ${JSON.stringify(text)};`);
      }, 300);
      return;
    }
    const body =
      path === '/stuck'
        ? '<div id="root"></div><script>/* nothing */</script>'
        : '<div id="root"></div><script src="/slow.js"></script>';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`);
  });
}

async function untilNoChromium(ms = 5000): Promise<number> {
  const end = Date.now() + ms;
  while (chromiumProcesses().length > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  return chromiumProcesses().length;
}

describe('BrowserExtractor: the pool', () => {
  let server: Server;
  let origin: string;
  const settings = loadSettings({});
  const open: BrowserExtractor[] = [];
  const browser = (o: ConstructorParameters<typeof BrowserExtractor>[1]) => {
    const b = new BrowserExtractor(new HttpExtractor({ settings }), {
      idleTimeoutMs: 300,
      settleTimeoutMs: 3000,
      ...o,
    });
    open.push(b);
    return b;
  };

  beforeAll(async () => {
    server = site();
    origin = `http://127.0.0.1:${await listen(server)}`;
  });

  afterAll(async () => {
    await Promise.all(open.map((b) => b.close()));
    await closeServer(server);
  });

  it('keeps at most maxPages open at once, and renders every page', async () => {
    const b = browser({ maxPages: 2 });
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => b.fetch(`${origin}/shell?${i}`)));
    for (const r of results) {
      expect(r.rendering).toMatchObject({ reason: 'always', outcome: 'rendered' });
      expect(r.text).toContain('Rendered by the script');
    }
    expect(b.peakOpen).toBe(2);
    expect(b.launched).toBe(1);
    await b.close();
    expect(await untilNoChromium()).toBe(0);
  }, 60_000);

  it('recycles the browser after recycleAfter pages', async () => {
    const b = browser({ recycleAfter: 2 });
    for (let i = 0; i < 5; i++) await b.fetch(`${origin}/shell?r${i}`);
    expect(b.launched).toBe(3);
    expect(b.recycled.pages).toBe(2);
    await b.close();
    expect(await untilNoChromium()).toBe(0);
  }, 60_000);

  it('recycles the browser above its memory ceiling', async () => {
    const b = browser({ maxMemoryMb: 1, memoryCheckMs: 0 });
    for (let i = 0; i < 3; i++) await b.fetch(`${origin}/shell?m${i}`);
    expect(b.recycled).toEqual({ pages: 0, memory: 3 });
    expect(b.launched).toBe(3);
    expect(b.peakMemoryMb).toBeGreaterThan(1);
    const calm = browser({ memoryCheckMs: 0 });
    for (let i = 0; i < 2; i++) await calm.fetch(`${origin}/shell?c${i}`);
    expect(calm.recycled).toEqual({ pages: 0, memory: 0 });
    expect(calm.launched).toBe(1);
    console.info(`one browser after 2 pages: ${calm.peakMemoryMb} MiB PSS`);
    await b.close();
    await calm.close();
    expect(await untilNoChromium()).toBe(0);
  }, 60_000);

  it('names a page that never renders, within the settle wait', async () => {
    const b = browser({ settleTimeoutMs: 800 });
    const started = Date.now();
    const r = await b.fetch(`${origin}/stuck`);
    expect(r.rendering).toMatchObject({ outcome: 'unrendered' });
    expect(Date.now() - started).toBeLessThan(8000);
    await b.close();
  }, 30_000);

  it('closes with renders in flight: they fail as FetchError, and no Chromium is left', async () => {
    const b = browser({ settleTimeoutMs: 20_000, maxPages: 2 });
    const inFlight = [b.fetch(`${origin}/stuck?a`), b.fetch(`${origin}/stuck?b`), b.fetch(`${origin}/stuck?c`)];
    const settled = Promise.allSettled(inFlight);
    await new Promise((r) => setTimeout(r, 1500));
    expect(chromiumProcesses().length).toBeGreaterThan(0);
    const closing = Date.now();
    await b.close();
    const outcomes = await settled;
    expect(Date.now() - closing).toBeLessThan(5000);
    for (const o of outcomes) {
      expect(o.status).toBe('rejected');
      if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(FetchError);
    }
    expect(await untilNoChromium()).toBe(0);
  }, 30_000);

  it('fails the page, not the process, when Chromium cannot start', async () => {
    const b = browser({ executablePath: '/nonexistent/chromium' });
    await expect(b.fetch(`${origin}/shell`)).rejects.toBeInstanceOf(FetchError);
    expect(b.launched).toBe(0);
  });
});
