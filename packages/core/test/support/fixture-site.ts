import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { fixtureFacts } from './fixture-facts.js';
import { encodeJpeg } from './jpeg.js';
import { encodeLegacy } from './legacy-encoding.js';
import { encodePng, type Rgb } from './png.js';

export {
  type DroppedUrl,
  type ExpectedSavedOptions,
  type FixtureImage,
  type FixturePage,
  fixtureFacts,
} from './fixture-facts.js';

import { closeServer, listen } from './loopback.js';

/** The static pages served by the fixture site. */
export const fixtureSiteDir = fileURLToPath(new URL('../fixtures/site/', import.meta.url));

export interface FixtureSiteOptions {
  /** How long /slow.html takes to answer. @default 3000 */
  slowDelayMs?: number;
  /** Added before every answer of the main origin. @default 0 */
  latencyMs?: number;
}

/** One request the fixture site answered (or that was aborted: status 0 until the answer was sent). */
export interface FixtureRequest {
  method: string;
  /** Path and query as requested. */
  path: string;
  status: number;
  headers: IncomingHttpHeaders;
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
  userAgent: string | undefined;
  /** Sequence number of the TCP connection (1, 2, …): equal numbers = a reused keep-alive connection. */
  connection: number;
  /** Date.now() when the request arrived. */
  time: number;
  /** Milliseconds until the answer was finished or the client went away. */
  durationMs: number;
  /** The client closed before the answer was complete. */
  aborted: boolean;
}

/** The request log of one origin. */
export interface RequestLog {
  readonly origin: string;
  readonly requests: readonly FixtureRequest[];
  /** Requests for exactly this path (path + query), any method. */
  count(path: string): number;
  /** Requests per path. */
  counts(): Map<string, number>;
  /** Paths requested more than once, except the given ones. */
  repeated(except?: readonly string[]): string[];
  /** Distinct TCP connections opened so far. */
  readonly connections: number;
  clear(): void;
}

/** A running fixture site: the main origin plus a second loopback origin used as "another site". */
export interface FixtureSite extends RequestLog, AsyncDisposable {
  readonly port: number;
  /** `http://127.0.0.1:<port>/`. */
  readonly startUrl: string;
  /** The second origin (another port): serves /offsite.html and /landing.html. */
  readonly other: RequestLog;
  /** Absolute url of a path; `{{ORIGIN}}` / `{{OTHER}}` in the argument are expanded too. */
  url(path: string): string;
  /** Replace the body of an existing path (new ETag, Last-Modified advanced by at least a second). */
  mutate(path: string, body: string | Buffer): void;
  /** Add a new path (content type from its extension, text/html when it has none). */
  addPage(path: string, body: string | Buffer): void;
  /** Remove a path: it answers 404 from now on. */
  removePage(path: string): void;
  /** Change the delay of /slow.html. */
  setSlowDelay(ms: number): void;
  close(): Promise<void>;
}

interface Entry {
  body: Buffer;
  contentType: string;
  etag: string;
  lastModified: Date;
}

const REDIRECTS = fixtureFacts.redirects;
const INITIAL_LAST_MODIFIED = new Date('2024-03-02T08:00:00Z');
const LEGACY: Record<string, 'windows-1252' | 'shift_jis'> = {
  '/legacy-1252.html': 'windows-1252',
  '/legacy-sjis.html': 'shift_jis',
};
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.py': 'application/octet-stream',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
};
const TEXT_TYPES = /^(text\/|application\/(xml|json))/;

function contentTypeOf(path: string): string {
  return TYPES[extname(path).toLowerCase()] ?? 'text/html; charset=utf-8';
}

function etagOf(body: Buffer): string {
  return `"${createHash('sha1').update(body).digest('hex').slice(0, 16)}"`;
}

let images: Map<string, Buffer> | undefined;

/** The pictures, generated once per process: distinct patterns so every file has its own content hash. */
function generatedImages(): Map<string, Buffer> {
  if (images) return images;
  const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)));
  const tomato = (x: number, y: number): Rgb => {
    const d = Math.hypot(x - 100, y - 75);
    return d < 50 ? [clamp(220 - d), 40, 30] : [40, clamp(90 + y / 3), 40];
  };
  const compost = (x: number, y: number): Rgb => {
    const band = Math.floor((y + Math.sin(x / 9) * 6) / 12) % 3;
    return band === 0 ? [92, 64, 40] : band === 1 ? [120, 88, 52] : [70, 50, 30];
  };
  const seedlings = (x: number, y: number): Rgb =>
    (Math.floor(x / 20) + Math.floor(y / 20)) % 2 === 0 ? [60, 160, 70] : [clamp(200 - y), 220, clamp(150 + x / 4)];
  const water = (x: number, y: number): Rgb => {
    const r = Math.hypot(x - 60, y - 50) + Math.hypot(x - 150, y - 110);
    return [40, clamp(100 + 60 * Math.sin(r / 10)), clamp(180 + 60 * Math.cos(r / 14))];
  };
  const card = (x: number, y: number): Rgb =>
    y < 40 ? [30, 90, 50] : [clamp(240 - x / 2), 235, clamp(200 + ((x * y) % 50))];
  const icon = (x: number, y: number): Rgb =>
    Math.abs(x - 7.5) + Math.abs(y - 7.5) < 7 ? [30, 140, 60] : [255, 255, 255];
  images = new Map([
    ['/images/photo-a.png', encodePng(200, 150, tomato)],
    ['/images/photo-b.jpg', encodeJpeg(200, 150, compost)],
    ['/images/photo-c.png', encodePng(200, 150, seedlings)],
    ['/images/photo-d.png', encodePng(200, 150, water)],
    ['/images/og-card.png', encodePng(200, 150, card)],
    ['/images/icon-16.png', encodePng(16, 16, icon)],
  ]);
  return images;
}

/** A valid ZIP archive holding one stored (uncompressed) text file. */
function zipArchive(name: string, content: string): Buffer {
  const data = Buffer.from(content);
  const fileName = Buffer.from(name);
  const crc = crc32(data) >>> 0;
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(10, 4);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(fileName.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(10, 6);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(fileName.length, 28);
  const centralOffset = local.length + fileName.length + data.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + fileName.length, 12);
  end.writeUInt32LE(centralOffset, 16);
  return Buffer.concat([local, fileName, data, central, fileName, end]);
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? listFiles(join(d.parentPath, d.name)) : [join(d.parentPath, d.name)],
  );
}

class Log implements RequestLog {
  readonly requests: FixtureRequest[] = [];
  private sockets = new WeakMap<Socket, number>();
  connections = 0;
  origin = '';

  connectionOf(socket: Socket): number {
    let n = this.sockets.get(socket);
    if (n === undefined) {
      n = ++this.connections;
      this.sockets.set(socket, n);
    }
    return n;
  }
  record(req: IncomingMessage, res: ServerResponse): void {
    const entry: FixtureRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      status: 0,
      headers: req.headers,
      ifNoneMatch: req.headers['if-none-match'],
      ifModifiedSince: req.headers['if-modified-since'],
      userAgent: req.headers['user-agent'],
      connection: this.connectionOf(req.socket),
      time: Date.now(),
      durationMs: 0,
      aborted: false,
    };
    this.requests.push(entry);
    res.on('close', () => {
      entry.status = res.headersSent ? res.statusCode : 0;
      entry.durationMs = Date.now() - entry.time;
      entry.aborted = !res.writableFinished;
    });
  }
  count(path: string): number {
    return this.requests.filter((r) => r.path === path).length;
  }
  counts(): Map<string, number> {
    const m = new Map<string, number>();
    for (const r of this.requests) m.set(r.path, (m.get(r.path) ?? 0) + 1);
    return m;
  }
  repeated(except: readonly string[] = []): string[] {
    return [...this.counts()].filter(([p, n]) => n > 1 && !except.includes(p)).map(([p]) => p);
  }
  clear(): void {
    this.requests.length = 0;
  }
}

function sendHtml(res: ServerResponse, status: number, title: string, head = false): void {
  const body = Buffer.from(
    `<!DOCTYPE html>\n<html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>\n`,
  );
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length });
  res.end(head ? undefined : body);
}

function makeServer(log: Log, handle: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>): Server {
  const server = createServer({ keepAlive: true }, (req, res) => {
    log.record(req, res);
    Promise.resolve(handle(req, res)).catch((err: unknown) => {
      if (!res.headersSent) sendHtml(res, 500, `fixture error: ${String(err)}`);
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.headersTimeout = 35_000;
  return server;
}

/**
 * Start the fixture site on 127.0.0.1 (port 0), with a second origin on another port.
 * Serves test/fixtures/site/ (`{{ORIGIN}}` and `{{OTHER}}` in text files are replaced by the two origins;
 * the legacy pages are stored as UTF-8 and served transcoded to the charset their `<meta charset>` declares),
 * generated pictures under /images/, /files/archive.zip, and the dynamic routes listed in {@link fixtureFacts}.
 * Use with `await using site = await startFixtureSite()`.
 */
export async function startFixtureSite(options: FixtureSiteOptions = {}): Promise<FixtureSite> {
  let slowDelayMs = options.slowDelayMs ?? 3000;
  const latencyMs = options.latencyMs ?? 0;
  const main = new Log();
  const other = new Log();
  const entries = new Map<string, Entry>();
  const timers = new Set<NodeJS.Timeout>();

  const delay = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const expand = (text: string) => text.replaceAll('{{ORIGIN}}', main.origin).replaceAll('{{OTHER}}', other.origin);

  const encode = (path: string, body: string | Buffer, contentType: string): Buffer => {
    if (!TEXT_TYPES.test(contentType)) return typeof body === 'string' ? Buffer.from(body) : body;
    const text = expand(typeof body === 'string' ? body : body.toString('utf8'));
    const legacy = LEGACY[path];
    return legacy ? encodeLegacy(text, legacy) : Buffer.from(text);
  };

  const put = (path: string, body: string | Buffer, lastModified: Date) => {
    const contentType = LEGACY[path] ? 'text/html' : contentTypeOf(path);
    const bytes = encode(path, body, contentType);
    entries.set(path, { body: bytes, contentType, etag: etagOf(bytes), lastModified });
  };

  const mainServer = makeServer(main, async (req, res) => {
    if (latencyMs > 0) await delay(latencyMs);
    const url = new URL(req.url ?? '/', main.origin);
    const path = url.pathname;
    const head = req.method === 'HEAD';
    if (req.method !== 'GET' && !head) {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-length': 0 });
      res.end();
      return;
    }
    const redirect = REDIRECTS[path];
    if (redirect) {
      res.writeHead(redirect.status, { location: expand(redirect.location), 'content-length': 0 });
      res.end();
      return;
    }
    if (path === '/broken.html') return sendHtml(res, 500, 'Internal Server Error', head);
    if (path === '/slow.html' && slowDelayMs > 0) await delay(slowDelayMs);
    const entry = entries.get(path === '/' ? '/index.html' : path);
    if (!entry) return sendHtml(res, 404, 'Not Found', head);
    const headers = {
      etag: entry.etag,
      'last-modified': entry.lastModified.toUTCString(),
      'cache-control': 'no-cache',
    };
    const inm = req.headers['if-none-match'];
    const ims = req.headers['if-modified-since'];
    const notModified =
      inm !== undefined
        ? inm.split(',').some((t) => t.trim().replace(/^W\//, '') === entry.etag || t.trim() === '*')
        : ims !== undefined && !Number.isNaN(Date.parse(ims)) && entry.lastModified.getTime() <= Date.parse(ims);
    if (notModified) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, 'content-type': entry.contentType, 'content-length': entry.body.length });
    res.end(head ? undefined : entry.body);
  });

  const otherServer = makeServer(other, (req, res) => {
    const path = new URL(req.url ?? '/', other.origin).pathname;
    const body = OTHER_PAGES[path];
    if (!body) return sendHtml(res, 404, 'Not Found');
    const bytes = Buffer.from(expand(body));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': bytes.length });
    res.end(req.method === 'HEAD' ? undefined : bytes);
  });

  const port = await listen(mainServer);
  const otherPort = await listen(otherServer).catch(async (err: unknown) => {
    await closeServer(mainServer);
    throw err;
  });
  main.origin = `http://127.0.0.1:${port}`;
  other.origin = `http://127.0.0.1:${otherPort}`;

  for (const file of listFiles(fixtureSiteDir)) {
    const path = `/${relative(fixtureSiteDir, file).split(sep).join('/')}`;
    put(path, readFileSync(file), INITIAL_LAST_MODIFIED);
  }
  for (const [path, bytes] of generatedImages()) put(path, bytes, INITIAL_LAST_MODIFIED);
  put(
    '/files/archive.zip',
    zipArchive('plans/bed-1.txt', 'Bed 1: tomatoes, basil, marigolds\n'),
    INITIAL_LAST_MODIFIED,
  );

  const normalise = (path: string) => {
    if (!path.startsWith('/')) throw new TypeError(`fixture site: path must start with '/', got '${path}'`);
    return path === '/' ? '/index.html' : path;
  };
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.all([closeServer(mainServer), closeServer(otherServer)]);
    })();
    return closed;
  };

  return {
    port,
    startUrl: `${main.origin}/`,
    get origin() {
      return main.origin;
    },
    get requests() {
      return main.requests;
    },
    get connections() {
      return main.connections;
    },
    count: (path) => main.count(path),
    counts: () => main.counts(),
    repeated: (except) => main.repeated(except),
    clear: () => main.clear(),
    other,
    url: (path) => new URL(expand(path), main.origin).href,
    mutate(path, body) {
      const key = normalise(path);
      const previous = entries.get(key);
      if (!previous) throw new TypeError(`fixture site: cannot mutate '${path}': no such page (use addPage)`);
      const now = Math.floor(Date.now() / 1000) * 1000;
      put(key, body, new Date(Math.max(now, previous.lastModified.getTime() + 1000)));
    },
    addPage(path, body) {
      const key = normalise(path);
      if (entries.has(key) || REDIRECTS[key])
        throw new TypeError(`fixture site: '${path}' already exists (use mutate)`);
      put(key, body, new Date(Math.floor(Date.now() / 1000) * 1000));
    },
    removePage(path) {
      if (!entries.delete(normalise(path))) throw new TypeError(`fixture site: cannot remove '${path}': no such page`);
    },
    setSlowDelay(ms) {
      slowDelayMs = ms;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

const OTHER_PAGES: Record<string, string> = {
  '/offsite.html': `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Allotment Friends – sister site</title></head>
<body><h1>Allotment Friends</h1><p>This page lives on another origin. A crawler scoped to Greenfinger Gardens must never fetch it.</p>
<p><a href="/landing.html">Shop</a> · <a href="{{ORIGIN}}/">Back to Greenfinger Gardens</a></p></body></html>
`,
  '/landing.html': `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Allotment Friends shop</title></head>
<body><h1>Shop</h1><p>Seed packets and twine. Out of scope for a crawl of Greenfinger Gardens.</p></body></html>
`,
};
