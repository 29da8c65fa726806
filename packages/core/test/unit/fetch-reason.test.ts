import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchFailureOutcome } from '../../src/engine/stages/fetch.js';
import { FetchError, type FetchFailureReason } from '../../src/errors.js';
import { contentKind, isMarkupType, isPageType } from '../../src/fetch/content-type.js';
import type { Extractor } from '../../src/fetch/extractor.js';
import { HttpExtractor } from '../../src/fetch/http-extractor.js';
import { withRetry } from '../../src/fetch/with-retry.js';
import { Outcome } from '../../src/outcomes.js';

const settings = { userAgent: 'gf-test', timeoutMs: 300, maxBodyBytes: 1000, maxRedirects: 3 };

async function listen(server: Server | TcpServer): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return `127.0.0.1:${address.port}`;
}

async function reasonOf(work: Promise<unknown>): Promise<FetchFailureReason> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FetchError);
  return (err as FetchError).reason;
}

describe('FetchError.reason from the http extractor (loopback only)', () => {
  let http: Server;
  let garbage: TcpServer;
  let host: string;
  let garbageHost: string;
  let closedHost: string;
  const extractor = new HttpExtractor({ settings });
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    http = createServer((req, res) => {
      const path = req.url ?? '/';
      if (path === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
      const hop = /^\/hop\/(\d+)$/.exec(path);
      if (hop) return void res.writeHead(302, { location: `/hop/${Number(hop[1]) + 1}` }).end();
      if (path === '/declared-big') return void res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000));
      if (path === '/streamed-big') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return void res.end('y'.repeat(5000));
      }
      if (path === '/bad-gzip') {
        return void res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end('not gzip');
      }
      if (path === '/silent') return; // never answers
      if (path === '/reset') return void req.socket.destroy();
      if (path === '/plain') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('plain words');
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>');
    });
    http.on('connection', (socket: Socket) => sockets.add(socket));
    host = await listen(http);
    garbage = createTcpServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined).end('THIS IS NOT HTTP\r\n\r\n');
    });
    garbageHost = await listen(garbage);
    const closed = createTcpServer();
    closedHost = await listen(closed);
    await new Promise<void>((resolve) => closed.close(() => resolve()));
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await new Promise<void>((resolve) => garbage.close(() => resolve()));
    await extractor.close();
  }, 10_000);

  it('names each failure the extractor tells apart', async () => {
    expect(await reasonOf(extractor.fetch(`http://${closedHost}/`))).toBe('connection-refused');
    expect(await reasonOf(extractor.fetch(`http://${host}/reset`))).toBe('connection-reset');
    expect(await reasonOf(extractor.fetch(`http://${host}/silent`))).toBe('timeout');
    expect(await reasonOf(extractor.fetch(`http://${host}/loop`))).toBe('redirect-loop');
    expect(await reasonOf(extractor.fetch(`http://${host}/hop/0`))).toBe('too-many-redirects');
    expect(await reasonOf(extractor.fetch(`http://${host}/declared-big`))).toBe('too-large');
    expect(await reasonOf(extractor.fetch(`http://${host}/streamed-big`))).toBe('too-large');
    expect(await reasonOf(extractor.fetch(`http://${host}/bad-gzip`))).toBe('decoding');
    expect(await reasonOf(extractor.fetch(`http://${garbageHost}/`))).toBe('protocol');
    expect(await reasonOf(extractor.fetch(`https://${host}/`))).toBe('tls');
    expect(await reasonOf(extractor.fetch('not a url'))).toBe('invalid-url');
    expect(await reasonOf(extractor.fetch('ftp://127.0.0.1/file'))).toBe('invalid-url');
    expect(await reasonOf(extractor.fetch(`http://${host}/silent`, { signal: AbortSignal.abort() }))).toBe('aborted');
  });

  it('keeps retryable as before: a refused connection and a timeout are worth another try, the rest not', async () => {
    const retryable = async (url: string) =>
      ((await extractor.fetch(url).catch((e: unknown) => e)) as FetchError).retryable;
    expect(await retryable(`http://${closedHost}/`)).toBe(true);
    expect(await retryable(`http://${host}/silent`)).toBe(true);
    expect(await retryable(`http://${host}/declared-big`)).toBe(false);
    expect(await retryable(`http://${host}/loop`)).toBe(false);
  });

  it('a page fetch abandons a text body that is not a page; other fetches read it', async () => {
    const page = await extractor.fetch(`http://${host}/plain`, { pagesOnly: true });
    expect(page.status).toBe(200);
    expect(page.body.length).toBe(0);
    const text = await extractor.fetch(`http://${host}/plain`);
    expect(text.text).toBe('plain words');
  });

  it('a retry wait cancelled is aborted, and a refused connection is retried once at most', async () => {
    let calls = 0;
    const refusing: Extractor = {
      name: 'refusing',
      fetch: async () => {
        calls++;
        throw new FetchError('refused', { reason: 'connection-refused', retryable: true });
      },
      close: async () => undefined,
    };
    expect(await reasonOf(withRetry(refusing, { retries: 5, baseDelayMs: 1 }).fetch('http://x/'))).toBe(
      'connection-refused',
    );
    expect(calls).toBe(2);

    const controller = new AbortController();
    const timingOut: Extractor = {
      name: 'slow',
      fetch: async () => {
        setTimeout(() => controller.abort(), 5);
        throw new FetchError('timed out', { reason: 'timeout', retryable: true });
      },
      close: async () => undefined,
    };
    const retried = withRetry(timingOut, { retries: 3, baseDelayMs: 10_000 });
    expect(await reasonOf(retried.fetch('http://x/', { signal: controller.signal }))).toBe('aborted');
  });
});

describe('the engine maps a fetch failure to an outcome by its reason, never its message', () => {
  it('too-large is REJECTED_TOO_LARGE, every other reason (and a non-FetchError) REJECTED_UNREACHABLE', () => {
    const err = (reason: FetchFailureReason, message = 'x') => new FetchError(message, { reason, retryable: false });
    expect(fetchFailureOutcome(err('too-large', 'body over the cap'))).toBe(Outcome.REJECTED_TOO_LARGE);
    expect(fetchFailureOutcome(err('timeout', 'the answer was too large to wait for'))).toBe(
      Outcome.REJECTED_UNREACHABLE,
    );
    expect(fetchFailureOutcome(err('dns'))).toBe(Outcome.REJECTED_UNREACHABLE);
    expect(fetchFailureOutcome(new Error('body too large'))).toBe(Outcome.REJECTED_UNREACHABLE);
  });
});

describe('one content-type predicate for the extractor and the engine', () => {
  it.each([
    ['text/html; charset=utf-8', 'page'],
    ['TEXT/HTML', 'page'],
    ['application/xhtml+xml', 'page'],
    ['', 'page'],
    ['text/plain', 'text'],
    ['application/xml', 'text'],
    ['application/rss+xml', 'text'],
    ['image/png', 'other'],
    ['application/pdf', 'other'],
  ] as const)('%j is %s', (type, kind) => {
    expect(contentKind(type)).toBe(kind);
    expect(isPageType(type)).toBe(kind === 'page');
    expect(isMarkupType(type)).toBe(kind !== 'other');
  });
});
