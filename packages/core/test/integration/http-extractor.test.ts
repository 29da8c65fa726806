import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { decodeBody, FetchError, HttpExtractor, withRetry } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PAGE = '<html><head><title>Hello</title></head><body><p>Hello page</p></body></html>';
const settings = { userAgent: 'GreenfingerTest/1.0', timeoutMs: 400, maxBodyBytes: 100_000, maxRedirects: 5 };

interface SiteState {
  sockets: number;
  hits: Map<string, number>;
  lastHeaders: Map<string, IncomingMessage['headers']>;
  binary: { sent: number; finished: boolean; closedEarly: boolean } | null;
}

function startSite(): Promise<{ server: Server; base: string; state: SiteState }> {
  const state: SiteState = { sockets: 0, hits: new Map(), lastHeaders: new Map(), binary: null };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    state.hits.set(path, (state.hits.get(path) ?? 0) + 1);
    state.lastHeaders.set(path, req.headers);
    const hits = state.hits.get(path)!;
    const html = (body: string, extra: Record<string, string> = {}) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...extra });
      res.end(body);
    };
    switch (path) {
      case '/page':
        return html(PAGE);
      case '/r1':
        res.writeHead(302, { location: '/r2' });
        return res.end('moved');
      case '/r2':
        res.writeHead(301, { location: 'page#frag' });
        return res.end();
      case '/loop-a':
        res.writeHead(302, { location: '/loop-b' });
        return res.end();
      case '/loop-b':
        res.writeHead(307, { location: '/loop-a' });
        return res.end();
      case '/chain-0':
      case '/chain-1':
      case '/chain-2':
      case '/chain-3':
      case '/chain-4':
      case '/chain-5':
      case '/chain-6':
        res.writeHead(302, { location: `/chain-${Number(path.slice(-1)) + 1}` });
        return res.end();
      case '/missing':
        res.writeHead(404, { 'content-type': 'text/html' });
        return res.end('<h1>Not found</h1>');
      case '/broken':
        res.writeHead(500, { 'content-type': 'text/plain' });
        return res.end('boom');
      case '/slow': {
        const t = setTimeout(() => html(PAGE), 3000);
        res.on('close', () => clearTimeout(t));
        return;
      }
      case '/big':
        return html(`<p>${'x'.repeat(200_000)}</p>`);
      case '/gzip':
        return html(gzipSync(Buffer.from(PAGE)) as unknown as string, { 'content-encoding': 'gzip' });
      case '/br':
        return html(brotliCompressSync(Buffer.from(PAGE)) as unknown as string, { 'content-encoding': 'br' });
      case '/gzip-bomb':
        return html(gzipSync(Buffer.alloc(5_000_000, 0x61)) as unknown as string, { 'content-encoding': 'gzip' });
      case '/etag':
        if (req.headers['if-none-match'] === '"v1"') {
          res.writeHead(304, { etag: '"v1"' });
          return res.end();
        }
        return html(PAGE, { etag: '"v1"', 'last-modified': 'Wed, 01 Jan 2025 00:00:00 GMT' });
      case '/sjis':
        res.writeHead(200, { 'content-type': 'text/html; charset=Shift_JIS' });
        return res.end(Buffer.from([0x3c, 0x70, 0x3e, 0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea, 0x3c, 0x2f, 0x70, 0x3e]));
      case '/binary': {
        const chunk = Buffer.alloc(64 * 1024, 1);
        const total = 20 * 1024 * 1024;
        const b = { sent: 0, finished: false, closedEarly: false };
        state.binary = b;
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(total) });
        res.on('close', () => {
          if (!res.writableFinished) b.closedEarly = true;
        });
        res.on('finish', () => {
          b.finished = true;
        });
        const pump = () => {
          while (b.sent < total && !res.destroyed) {
            b.sent += chunk.length;
            const ok = res.write(chunk);
            if (b.sent >= total) return res.end();
            if (!ok) return res.once('drain', pump);
          }
        };
        return pump();
      }
      case '/flaky':
        if (hits <= 2) return req.socket.destroy();
        return html(PAGE);
      case '/busy':
        if (hits === 1) {
          res.writeHead(503, { 'retry-after': '0', 'content-type': 'text/plain' });
          return res.end('busy');
        }
        return html(PAGE);
      case '/always-busy':
        res.writeHead(429, { 'retry-after': '0', 'content-type': 'text/plain' });
        return res.end('slow down');
      default:
        res.writeHead(404);
        return res.end();
    }
  });
  server.on('connection', () => {
    state.sockets++;
  });
  server.listen(0, '127.0.0.1');
  return once(server, 'listening').then(() => ({
    server,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
  }));
}

describe('HttpExtractor against a local server', () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let ex: HttpExtractor;

  beforeAll(async () => {
    site = await startSite();
    ex = new HttpExtractor({ settings, connectionsPerOrigin: 4 });
  });
  afterAll(async () => {
    await ex.close();
    site.server.closeAllConnections();
    await new Promise((r) => site.server.close(r));
  });

  it('fetches a page with the User-Agent, Accept and Accept-Encoding headers and decodes it', async () => {
    const r = await ex.fetch(`${site.base}/page`);
    expect(r).toMatchObject({
      status: 200,
      finalUrl: `${site.base}/page`,
      redirects: [],
      charset: 'utf-8',
      text: PAGE,
    });
    expect(r.contentType).toBe('text/html; charset=utf-8');
    expect(r.body.toString()).toBe(PAGE);
    expect(r.elapsedMs).toBeGreaterThan(0);
    const h = site.state.lastHeaders.get('/page')!;
    expect(h['user-agent']).toBe('GreenfingerTest/1.0');
    expect(h.accept).toContain('text/html');
    expect(h['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('reuses keep-alive sockets for sequential requests', async () => {
    const single = new HttpExtractor({ settings, connectionsPerOrigin: 1 });
    let before = site.state.sockets;
    for (let i = 0; i < 5; i++) expect((await single.fetch(`${site.base}/page`)).status).toBe(200);
    expect(site.state.sockets - before).toBe(1);
    await single.close();
    // With a pool, a socket still finishing its response may be skipped, but never one per request.
    const pooled = new HttpExtractor({ settings, connectionsPerOrigin: 8 });
    before = site.state.sockets;
    for (let i = 0; i < 10; i++) expect((await pooled.fetch(`${site.base}/page`)).status).toBe(200);
    expect(site.state.sockets - before).toBeLessThanOrEqual(2);
    await pooled.close();
  });

  it('follows redirects, records the chain and drops the fragment', async () => {
    const r = await ex.fetch(`${site.base}/r1`);
    expect(r.status).toBe(200);
    expect(r.finalUrl).toBe(`${site.base}/page`);
    expect(r.redirects).toEqual([`${site.base}/r1`, `${site.base}/r2`]);
  });

  it('returns the 3xx answer itself when maxRedirects is 0', async () => {
    const manual = new HttpExtractor({ settings: { ...settings, maxRedirects: 0 } });
    const r = await manual.fetch(`${site.base}/r1`);
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe('/r2');
    expect(r.finalUrl).toBe(`${site.base}/r1`);
    expect(r.redirects).toEqual([]);
    await manual.close();
  });

  it('detects a redirect loop and a chain longer than maxRedirects', async () => {
    const loop = await ex.fetch(`${site.base}/loop-a`).catch((e: unknown) => e);
    expect(loop).toBeInstanceOf(FetchError);
    expect((loop as FetchError).message).toContain('redirect loop');
    expect((loop as FetchError).retryable).toBe(false);
    const long = await ex.fetch(`${site.base}/chain-0`).catch((e: unknown) => e);
    expect((long as FetchError).message).toMatch(/too many redirects/);
    expect((long as FetchError).retryable).toBe(false);
  });

  it('returns 404 and 500 answers as results, not errors', async () => {
    expect((await ex.fetch(`${site.base}/missing`)).status).toBe(404);
    const broken = await ex.fetch(`${site.base}/broken`);
    expect(broken.status).toBe(500);
    expect(broken.text).toBe('boom');
  });

  // The page answers after 3 s, the extractor gives up after 400 ms: "timed out" says which ended it.
  it('times out on a slow page with a retryable FetchError', async () => {
    const err = await ex.fetch(`${site.base}/slow`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).retryable).toBe(true);
    expect((err as FetchError).message).toMatch(/timed out/);
  });

  it('caps the body size (settings and per-call maxBytes)', async () => {
    const err = await ex.fetch(`${site.base}/big`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).message).toMatch(/too large/);
    expect((err as FetchError).retryable).toBe(false);
    const small = await ex.fetch(`${site.base}/page`, { maxBytes: 20 }).catch((e: unknown) => e);
    expect((small as FetchError).message).toMatch(/too large/);
    const bomb = await ex.fetch(`${site.base}/gzip-bomb`).catch((e: unknown) => e);
    expect((bomb as FetchError).message).toMatch(/too large/);
  });

  it('decompresses gzip and brotli', async () => {
    expect((await ex.fetch(`${site.base}/gzip`)).text).toBe(PAGE);
    expect((await ex.fetch(`${site.base}/br`)).text).toBe(PAGE);
  });

  it('sends conditional headers and returns 304 normally', async () => {
    const first = await ex.fetch(`${site.base}/etag`);
    expect(first.etag).toBe('"v1"');
    expect(first.lastModified).toBe('Wed, 01 Jan 2025 00:00:00 GMT');
    const again = await ex.fetch(`${site.base}/etag`, { etag: first.etag, lastModified: first.lastModified });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(site.state.lastHeaders.get('/etag')!['if-modified-since']).toBe('Wed, 01 Jan 2025 00:00:00 GMT');
  });

  it('decodes a Shift_JIS page', async () => {
    const r = await ex.fetch(`${site.base}/sjis`);
    expect(r.charset).toBe('shift_jis');
    expect(r.text).toBe('<p>日本語</p>');
  });

  it('with decode: false detects the charset but leaves the bytes to the caller', async () => {
    const r = await ex.fetch(`${site.base}/sjis`, { decode: false });
    expect(r.charset).toBe('shift_jis');
    expect(r.text).toBeUndefined();
    expect(decodeBody(r.body, r.contentType).text).toBe('<p>日本語</p>');
  });

  it('stops reading a non-markup page early and returns it with an empty body', async () => {
    const r = await ex.fetch(`${site.base}/binary`);
    expect(r.status).toBe(200);
    expect(r.contentType).toBe('application/octet-stream');
    expect(r.body.length).toBe(0);
    expect(r.text).toBeUndefined();
    const deadline = Date.now() + 3000;
    while (!site.state.binary?.closedEarly && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20));
    expect(site.state.binary?.closedEarly).toBe(true);
    expect(site.state.binary?.finished).toBe(false);
    expect(site.state.binary!.sent).toBeLessThan(20 * 1024 * 1024);
  });

  it('reads binaries when asked', async () => {
    const r = await ex.fetch(`${site.base}/gzip`, { binary: true });
    expect(r.body.toString()).toBe(PAGE);
  });

  it('reports a refused connection and a bad scheme as FetchErrors', async () => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const refused = await ex.fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FetchError);
    expect((refused as FetchError).message).toContain('ECONNREFUSED');
    expect((refused as FetchError).retryable).toBe(true);
    const ftp = await ex.fetch('ftp://127.0.0.1/x').catch((e: unknown) => e);
    expect((ftp as FetchError).retryable).toBe(false);
    let attempts = 0;
    const counting = {
      name: 'counting',
      fetch: (url: string) => {
        attempts++;
        return ex.fetch(url);
      },
      close: async () => {},
    };
    const retried = await withRetry(counting, { retries: 5, baseDelayMs: 1 })
      .fetch(`http://127.0.0.1:${port}/`)
      .catch((e: unknown) => e);
    expect(retried).toBeInstanceOf(FetchError);
    expect(attempts).toBe(2);
  });

  it('retries a flaky endpoint and a 503 with Retry-After, bounded', async () => {
    const retrying = withRetry(new HttpExtractor({ settings }), { retries: 3, baseDelayMs: 10 });
    const flaky = await retrying.fetch(`${site.base}/flaky`);
    expect(flaky.status).toBe(200);
    expect(site.state.hits.get('/flaky')).toBe(3);
    expect((await retrying.fetch(`${site.base}/busy`)).status).toBe(200);
    expect(site.state.hits.get('/busy')).toBe(2);
    expect((await retrying.fetch(`${site.base}/always-busy`)).status).toBe(429);
    expect(site.state.hits.get('/always-busy')).toBe(4);
    await retrying.close();
    const once429 = withRetry(ex, { retries: 0 });
    expect((await once429.fetch(`${site.base}/always-busy`)).status).toBe(429);
    expect(site.state.hits.get('/always-busy')).toBe(5);
  });
});
