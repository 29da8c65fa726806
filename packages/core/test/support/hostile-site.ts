import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { ARCHIVE_PAGES, archivePaths, CHAIN_HOPS, hostileFacts, MANY_LINKS, prng } from './hostile-facts.js';
import { encodeJpeg } from './jpeg.js';
import { encodeLegacy } from './legacy-encoding.js';
import { encodePng, encodePngClaiming } from './png.js';

export {
  type HostileCase,
  type HostilePicture,
  type HostileUrl,
  hostileFacts,
  hostileSettings,
  type OutcomeKey,
  type TrapFamily,
} from './hostile-facts.js';

import { closeServer, listen } from './loopback.js';

/** One request the hostile site received. */
export interface HostileRequest {
  method: string;
  /** Path and query exactly as requested. */
  path: string;
  /** Status sent; 0 when no answer was sent (reset, hang, cut off). */
  status: number;
  /** Date.now() when it arrived. */
  time: number;
  /** Milliseconds until the answer was finished or the connection went away. */
  durationMs: number;
  /** The connection closed before the answer was complete. */
  aborted: boolean;
  /** The request is over (answered, or its connection closed). */
  done: boolean;
}

/** The request log of one origin. */
export interface HostileLog {
  readonly origin: string;
  readonly requests: readonly HostileRequest[];
  /** Requests for exactly this path + query. */
  count(path: string): number;
}

/** A running hostile site: the main origin plus a second loopback origin that stands for "another site". */
export interface HostileSite extends HostileLog, AsyncDisposable {
  readonly port: number;
  /** `http://127.0.0.1:<port>/`. */
  readonly startUrl: string;
  readonly other: HostileLog;
  /** Absolute url of a path; `{{OTHER}}` stands for the other origin. */
  url(path: string): string;
  /** Requests still open (hang, drip, …) right now. */
  open(): number;
  close(): Promise<void>;
}

export interface HostileSiteOptions {
  /** Articles under /notes/. @default ARCHIVE_PAGES */
  archivePages?: number;
}

const HTML = 'text/html; charset=utf-8';
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const SYLLABLES = [
  'ba',
  'ce',
  'di',
  'fo',
  'gu',
  'ha',
  'je',
  'ki',
  'lo',
  'mu',
  'na',
  'pe',
  'qui',
  'ro',
  'su',
  'ta',
  've',
  'wi',
  'xo',
  'yu',
  'za',
  'bre',
  'cla',
  'dro',
  'fli',
  'gra',
  'plu',
  'sto',
  'tri',
  'vla',
];

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

function page(title: string, body: string, head = ''): string {
  return `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>${head}</head>\n<body><main><h1>${escapeHtml(title)}</h1>\n${body}\n</main></body></html>\n`;
}

const link = (href: string, text: string) => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;

/** A paragraph of made-up words, different for every seed (so no two articles look alike, not even to simhash). */
function prose(seed: number, words: number): string {
  const rand = prng(seed);
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const n = 2 + Math.floor(rand() * 2);
    let w = '';
    for (let s = 0; s < n; s++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    out.push(w);
  }
  return `${out.join(' ')}.`;
}

interface Assets {
  images: Map<string, { type: string; body: Buffer }>;
  binaryPng: Buffer;
  /** 64 gzip members of 16 MiB of zeros each: ~1 MiB on the wire, 1 GiB inflated. */
  gzipBomb: Buffer;
}

let assets: Assets | undefined;

function generatedAssets(): Assets {
  if (assets) return assets;
  const good = encodePng(200, 150, (x, y) => [(x * 5) % 256, (y * 7) % 256, 90]);
  const jpeg = encodeJpeg(200, 150, (x, y) => [(x + y) % 256, 120, (x * 3) % 256]);
  const member = gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
  assets = {
    images: new Map([
      ['/img/good.png', { type: 'image/png', body: good }],
      ['/img/truncated.jpg', { type: 'image/jpeg', body: jpeg.subarray(0, Math.floor(jpeg.length * 0.6)) }],
      [
        '/img/html.png',
        { type: 'image/png', body: Buffer.from(page('Not a picture', '<p>This is a web page, not a PNG.</p>')) },
      ],
      ['/img/giant.png', { type: 'image/png', body: encodePngClaiming(100_000, 100_000) }],
    ]),
    binaryPng: encodePng(64, 64, (x, y) => [x * 4, y * 4, 200]),
    gzipBomb: Buffer.concat(Array.from({ length: 64 }, () => member)),
  };
  return assets;
}

class Log implements HostileLog {
  origin = '';
  readonly requests: HostileRequest[] = [];
  readonly pending = new Set<ServerResponse>();

  record(req: IncomingMessage, res: ServerResponse): HostileRequest {
    const entry: HostileRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      status: 0,
      time: Date.now(),
      durationMs: 0,
      aborted: false,
      done: false,
    };
    this.requests.push(entry);
    this.pending.add(res);
    res.on('close', () => {
      this.pending.delete(res);
      entry.status = res.headersSent ? res.statusCode : 0;
      entry.durationMs = Date.now() - entry.time;
      entry.aborted = !res.writableFinished;
      entry.done = true;
    });
    return entry;
  }

  count(path: string): number {
    return this.requests.filter((r) => r.path === path).length;
  }
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, headers = {}): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { 'content-type': type, 'content-length': bytes.length, ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : bytes);
}

function redirect(res: ServerResponse, status: number, location: string | undefined): void {
  res.writeHead(status, { ...(location === undefined ? {} : { location }), 'content-length': 0 });
  res.end();
}

/**
 * Write `total` bytes of filler html (`content-length` declared or chunked) with backpressure, stopping as soon as
 * the client goes away.
 */
function streamFiller(res: ServerResponse, total: number, declareLength: boolean): void {
  res.writeHead(200, { 'content-type': HTML, ...(declareLength ? { 'content-length': total } : {}) });
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let sent = 0;
  let gone = false;
  res.on('close', () => {
    gone = true;
  });
  res.on('error', () => undefined);
  const pump = () => {
    while (!gone && sent < total) {
      const n = Math.min(chunk.length, total - sent);
      sent += n;
      if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
        res.once('drain', pump);
        return;
      }
    }
    if (!gone) res.end();
  };
  pump();
}

/**
 * Start the hostile site on 127.0.0.1 (port 0), with a second origin on another port. Every url and what a crawl
 * must end it with is in {@link hostileFacts}. Use with `await using site = await startHostileSite()`.
 */
export async function startHostileSite(options: HostileSiteOptions = {}): Promise<HostileSite> {
  const archive = archivePaths(options.archivePages ?? ARCHIVE_PAGES);
  const archiveSet = new Set(archive);
  const { images, binaryPng, gzipBomb } = generatedAssets();
  const main = new Log();
  const other = new Log();
  const timers = new Set<NodeJS.Timeout>();
  const hits = new Map<string, number>();
  let closing = false;

  const later = (ms: number, fn: () => void) => {
    if (closing) return;
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  const every = (ms: number, fn: () => boolean) => {
    if (closing) return;
    const t = setInterval(() => {
      if (!fn()) {
        clearInterval(t);
        timers.delete(t);
      }
    }, ms);
    timers.add(t);
  };
  const expand = (s: string) => s.replaceAll('{{OTHER}}', other.origin);
  const sid = () => randomBytes(8).toString('hex');

  const startPage = () => {
    const entries = [
      ['/notes/', 'The notes archive'],
      ['/status/500', 'Plot rota (500)'],
      ['/shop/', 'Seed shop'],
      ['/status/503-then-ok', 'Water rota'],
      ['/reset/mid-header', 'Shed inventory'],
      ['/calendar/2026/01', 'Events calendar'],
      ['/status/429-then-ok', 'Tool library'],
      ['/reset/mid-body', 'Compost log'],
      ['/links/odd', 'Odd links'],
      ['/status/429', 'Busy page'],
      ['/repeat/a/', 'Plot map'],
      ['/slow/hang', 'Minutes of the meeting'],
      ['/gallery', 'Gallery'],
      ['/status/503-tomorrow', 'Maintenance'],
      ['/filter?f=1', 'Seed list'],
      ['/events?day=2026-01-01', 'Daily events'],
      ['/slow/drip', 'Newsletter'],
      ['/slow/steady', 'Annual report'],
      ['/big/declared', 'Big archive'],
      ['/dup/1', 'Printable page'],
      ['/big/chunked', 'Bigger archive'],
      ['/meta/noindex', 'Internal notes'],
      ['/big/gzip-bomb', 'Compressed archive'],
      ['/meta/nofollow', 'Committee'],
      ['/redirect/short/1', 'Moved page'],
      ['/redirect/self', 'Self-redirecting page'],
      ['/charset/latin1-as-utf8', 'Lettre de Lyon'],
      ['/redirect/loop/a', 'Looping page'],
      ['/charset/unknown-label', 'Grüße'],
      ['/redirect/chain/1', 'Long chain'],
      ['/links/many', 'Friends of the allotment'],
      ['/redirect/endless/1', 'Endless chain'],
      ['/binary/as-html', 'Plot photo'],
      ['/redirect/away', 'Partner site'],
      ['/binary/octet-stream', 'Plot data'],
      ['/redirect/to-mailto', 'Write to us'],
      ['/status/404', 'Old page'],
      ['/private/plans.html', 'Members only'],
      ['/status/410', 'Removed page'],
      ['/redirect/no-location', 'Broken redirect'],
    ] as const;
    return page(
      'Hostile Gardens',
      `<p>${prose(1, 40)}</p>\n<ul>\n${entries.map(([href, text]) => `<li>${link(href, text)}</li>`).join('\n')}\n</ul>`,
    );
  };

  const shopPage = (name: string) =>
    page(
      `Seed shop – ${name}`,
      `<p>${prose(name.length * 97 + name.charCodeAt(0), 60)}</p>
<ul>
<li>${link(`/shop/basket?sid=${sid()}`, 'Basket')}</li>
<li>${link(`/shop/cart;jsessionid=${sid().toUpperCase()}`, 'Cart')}</li>
<li>${link(`/shop/account?PHPSESSID=${sid()}`, 'Account')}</li>
<li>${link('/shop/', 'Shop')}</li>
</ul>`,
    );

  const calendarPage = (year: number, month: number) => {
    const next = month === 12 ? [year + 1, 1] : [year, month + 1];
    const prev = month === 1 ? [year - 1, 12] : [year, month - 1];
    const ym = ([y, m]: number[]) => `/calendar/${y}/${String(m).padStart(2, '0')}`;
    const days = Array.from({ length: 28 }, (_, i) => `<td>${i + 1}</td>`).join('');
    return page(
      `Events calendar – ${MONTHS[month - 1]} ${year}`,
      `<p>Allotment society events for ${MONTHS[month - 1]} ${year}. No events are planned this month. Come back soon and see what the committee has planned for the season.</p>
<table><tr>${days}</tr></table>
<p>${link(ym(prev), 'Previous month')} · ${link(ym(next), 'Next month')}</p>`,
    );
  };

  const mainServer = createServer({ keepAlive: true }, (req, res) => {
    main.record(req, res);
    res.on('error', () => undefined);
    const url = new URL(req.url ?? '/', main.origin);
    // `;jsessionid=…` is a path parameter: the shop ignores it, as Java servers do.
    const path = url.pathname.replace(/;[^/]*$/, '');
    const n = (hits.get(path) ?? 0) + 1;
    hits.set(path, n);

    if (path === '/robots.txt')
      return send(res, 200, 'text/plain; charset=utf-8', 'User-agent: *\nDisallow: /private/\n');
    if (path === '/') return send(res, 200, HTML, startPage());
    if (path === '/notes/') {
      const items = archive.map((p) => `<li>${link(p, p.slice('/notes/'.length).replaceAll('-', ' '))}</li>`);
      return send(
        res,
        200,
        HTML,
        page('The notes archive', `<p>${prose(2, 30)}</p>\n<ul>\n${items.join('\n')}\n</ul>`),
      );
    }
    if (archiveSet.has(path)) {
      const i = archive.indexOf(path);
      const title = path.slice('/notes/'.length).replaceAll('-', ' ');
      return send(
        res,
        200,
        HTML,
        page(`Notes: ${title}`, `<p>${prose(1000 + i, 90)}</p><p>${prose(5000 + i, 60)}</p>`),
      );
    }

    // Statuses
    if (path === '/status/500') return send(res, 500, HTML, page('Internal Server Error', '<p>Broken.</p>'));
    if (path === '/status/503-then-ok' || path === '/status/429-then-ok') {
      if (n === 1) {
        const status = path.endsWith('503-then-ok') ? 503 : 429;
        return send(res, status, HTML, page('Try again', '<p>Busy.</p>'), { 'retry-after': '1' });
      }
      return send(res, 200, HTML, page(`Answered after a wait (${path})`, `<p>${prose(path.length * 31, 60)}</p>`));
    }
    if (path === '/status/429')
      return send(res, 429, HTML, page('Too Many Requests', '<p>Slow down.</p>'), { 'retry-after': '1' });
    if (path === '/status/503-tomorrow')
      return send(res, 503, HTML, page('Down for maintenance', '<p>Back tomorrow.</p>'), { 'retry-after': '86400' });
    if (path === '/status/404') return send(res, 404, HTML, page('Not Found', '<p>Gone.</p>'));
    if (path === '/status/410') return send(res, 410, HTML, page('Gone', '<p>Removed for good.</p>'));

    // Broken connections and slow servers
    if (path === '/reset/mid-header') {
      req.socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/ht');
      req.socket.destroy();
      return;
    }
    if (path === '/reset/mid-body') {
      res.writeHead(200, { 'content-type': HTML, 'content-length': 20_000 });
      res.write(`<!DOCTYPE html><html><head><title>Cut</title></head><body><p>${'x'.repeat(2000)}`);
      later(20, () => res.destroy());
      return;
    }
    if (path === '/slow/hang') return; // never answers; the connection closes when the client gives up
    if (path === '/slow/drip') {
      res.writeHead(200, { 'content-type': HTML });
      res.flushHeaders();
      let ticks = 0;
      every(250, () => {
        if (res.destroyed || res.writableEnded || ++ticks > 480) {
          if (!res.writableEnded) res.destroy();
          return false;
        }
        res.write(ticks === 1 ? '<' : 'p');
        return true;
      });
      return;
    }
    if (path === '/slow/steady') {
      const body = Buffer.from(page('Annual report', `<p>${prose(77, 700)}</p>`));
      const third = Math.ceil(body.length / 3);
      later(150, () => {
        res.writeHead(200, { 'content-type': HTML, 'content-length': body.length });
        res.write(body.subarray(0, third));
        later(100, () => {
          res.write(body.subarray(third, 2 * third));
          later(100, () => res.end(body.subarray(2 * third)));
        });
      });
      return;
    }

    // Sizes
    if (path === '/big/declared') return streamFiller(res, 4 * 1024 * 1024, true);
    if (path === '/big/chunked') return streamFiller(res, 8 * 1024 * 1024, false);
    if (path === '/big/gzip-bomb') {
      res.writeHead(200, { 'content-type': HTML, 'content-encoding': 'gzip', 'content-length': gzipBomb.length });
      res.end(gzipBomb);
      return;
    }

    // Redirects
    const short = /^\/redirect\/short\/(\d)$/.exec(path);
    if (short) {
      const i = Number(short[1]);
      const next = i < 3 ? `/redirect/short/${i + 1}` : '/redirect/short/page';
      return redirect(res, [301, 302, 307][i - 1] ?? 302, next);
    }
    if (path === '/redirect/short/page')
      return send(res, 200, HTML, page('Where the moved page went', `<p>${prose(303, 60)}</p>`));
    if (path === '/redirect/self') return redirect(res, 302, '/redirect/self');
    if (path === '/redirect/loop/a') return redirect(res, 302, '/redirect/loop/b');
    if (path === '/redirect/loop/b') return redirect(res, 302, '/redirect/loop/a');
    const chain = /^\/redirect\/chain\/(\d+)$/.exec(path);
    if (chain) {
      const i = Number(chain[1]);
      return redirect(res, 302, i < CHAIN_HOPS ? `/redirect/chain/${i + 1}` : '/redirect/chain/end');
    }
    if (path === '/redirect/chain/end')
      return send(res, 200, HTML, page('The end of the chain', `<p>${prose(404, 60)}</p>`));
    const endless = /^\/redirect\/endless\/(\d+)$/.exec(path);
    if (endless) return redirect(res, 302, `/redirect/endless/${Number(endless[1]) + 1}`);
    if (path === '/redirect/away') return redirect(res, 302, `${other.origin}/landing.html`);
    if (path === '/redirect/to-mailto') return redirect(res, 302, 'mailto:plots@example.com');
    if (path === '/redirect/no-location') return redirect(res, 302, undefined);

    // Links
    if (path === '/links/odd') {
      const odd = [
        ['javascript:void(0)', 'Open the menu'],
        ['JavaScript:alert(1)', 'Alert'],
        ['mailto:plots@example.com', 'Mail us'],
        ['tel:+441234567890', 'Call us'],
        ['data:text/html,<h1>inline</h1>', 'Inline page'],
        ['ftp://127.0.0.1/seeds.txt', 'Seeds over FTP'],
        ['http://[::1', 'Malformed'],
        ['#top', 'Top'],
        ['/tracked?utm_source=newsletter&utm_medium=email&gclid=abc123', 'Tracked link'],
      ];
      return send(
        res,
        200,
        HTML,
        page(
          'Odd links',
          `<p>${prose(88, 60)}</p>\n<ul>${odd.map(([h, t]) => `<li>${link(h!, t!)}</li>`).join('')}</ul>`,
        ),
      );
    }
    if (path === '/tracked') return send(res, 200, HTML, page('Tracked page', `<p>${prose(99, 60)}</p>`));
    if (path === '/links/many') {
      const items = Array.from({ length: MANY_LINKS }, (_, i) => `<a href="${other.origin}/far/${i}">${i}</a>`);
      return send(
        res,
        200,
        HTML,
        page('Friends of the allotment', `<p>${prose(111, 60)}</p>\n<p>${items.join(' ')}</p>`),
      );
    }

    // Meta robots
    if (path === '/meta/noindex')
      return send(
        res,
        200,
        HTML,
        page(
          'Internal notes',
          `<p>${prose(121, 60)}</p><p>${link('/meta/via-noindex', 'Public notes')}</p>`,
          '<meta name="robots" content="noindex">',
        ),
      );
    if (path === '/meta/via-noindex') return send(res, 200, HTML, page('Public notes', `<p>${prose(131, 60)}</p>`));
    if (path === '/meta/nofollow')
      return send(
        res,
        200,
        HTML,
        page(
          'Committee',
          `<p>${prose(141, 60)}</p><p>${link('/meta/not-followed', 'Minutes')}</p>`,
          '<meta name="robots" content="nofollow">',
        ),
      );
    if (path === '/meta/not-followed') return send(res, 200, HTML, page('Minutes', `<p>${prose(151, 60)}</p>`));

    // Charsets and content types
    if (path === '/charset/latin1-as-utf8') {
      const text = page('Lettre de Lyon', `<p>${hostileFacts.latin1Phrase}.</p><p>${prose(161, 60)}</p>`).replace(
        '<meta charset="utf-8">',
        '',
      );
      return send(res, 200, HTML, encodeLegacy(text, 'windows-1252'));
    }
    if (path === '/charset/unknown-label')
      return send(
        res,
        200,
        'text/html; charset=x-no-such-charset',
        page('Grüße', `<p>${hostileFacts.unknownLabelPhrase}.</p><p>${prose(171, 60)}</p>`).replace(
          '<meta charset="utf-8">',
          '',
        ),
      );
    if (path === '/binary/as-html') return send(res, 200, HTML, binaryPng);
    if (path === '/binary/octet-stream') return send(res, 200, 'application/octet-stream', randomBytes(4096));
    if (path === '/gallery') {
      const imgs = [...images.keys()].map((src) => `<p><img src="${src}" alt="Picture ${src}"></p>`).join('\n');
      return send(res, 200, HTML, page('Gallery', `<p>${prose(181, 60)}</p>\n${imgs}`));
    }
    const img = images.get(path);
    if (img) return send(res, 200, img.type, img.body);

    // Traps
    if (path === '/shop/') return send(res, 200, HTML, shopPage('home'));
    if (path === '/shop/basket' || path === '/shop/cart' || path === '/shop/account')
      return send(res, 200, HTML, shopPage(path.slice('/shop/'.length)));
    const cal = /^\/calendar\/(\d{4})\/(\d{2})$/.exec(path);
    if (cal && Number(cal[2]) >= 1 && Number(cal[2]) <= 12)
      return send(res, 200, HTML, calendarPage(Number(cal[1]), Number(cal[2])));
    if (/^\/repeat\/(a\/)+$/.test(path)) {
      const depth = path.split('/').length - 3;
      return send(
        res,
        200,
        HTML,
        page(
          `Plot map, level ${depth}`,
          `<p>The plot map of the allotment, level ${depth}. Each level shows the same beds again.</p><p>${link('a/', 'Zoom in')}</p>`,
        ),
      );
    }
    if (path === '/filter' && url.searchParams.getAll('f').length > 0) {
      const f = url.searchParams.getAll('f');
      const more = `/filter${url.search}&f=${f.length + 1}`;
      return send(
        res,
        200,
        HTML,
        page(
          `Seed list, ${f.length} filters`,
          `<p>The seed list filtered by ${f.join(', ')}. Add one more filter to narrow it down.</p><p>${link(more, 'Narrow down')}</p>`,
        ),
      );
    }
    const day = path === '/events' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(url.searchParams.get('day') ?? '') : null;
    if (day) {
      const at = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
      const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      return send(
        res,
        200,
        HTML,
        page(
          `Daily events – ${iso(at)}`,
          `<p>Events at the allotment on ${iso(at)}. Nothing is planned for this day yet. Check the noticeboard by the gate.</p><p>${link(`/events?day=${iso(at - 86_400_000)}`, 'Previous day')} · ${link(`/events?day=${iso(at + 86_400_000)}`, 'Next day')}</p>`,
        ),
      );
    }
    const dup = /^\/dup\/(\d+)$/.exec(path);
    if (dup)
      return send(
        res,
        200,
        HTML,
        page(
          'Printable page',
          `<p>${prose(191, 80)}</p><p>${link(`/dup/${Number(dup[1]) + 1}`, 'Next printable page')}</p>`,
        ),
      );

    return send(res, 404, HTML, page('Not Found', '<p>No such page.</p>'));
  });

  const otherServer = createServer({ keepAlive: true }, (req, res) => {
    other.record(req, res);
    const path = new URL(req.url ?? '/', other.origin).pathname;
    if (path === '/landing.html' || path.startsWith('/far/'))
      return send(res, 200, HTML, page('Another site', '<p>A crawl of Hostile Gardens must never fetch this.</p>'));
    return send(res, 404, HTML, page('Not Found', '<p>No such page.</p>'));
  });
  for (const s of [mainServer, otherServer]) {
    s.keepAliveTimeout = 10_000;
    s.headersTimeout = 20_000;
    s.requestTimeout = 60_000;
  }

  const port = await listen(mainServer);
  const otherPort = await listen(otherServer).catch(async (err: unknown) => {
    await closeServer(mainServer);
    throw err;
  });
  main.origin = `http://127.0.0.1:${port}`;
  other.origin = `http://127.0.0.1:${otherPort}`;

  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      closing = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const res of [...main.pending, ...other.pending]) res.destroy();
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
    count: (path) => main.count(path),
    other,
    url: (path) => new URL(expand(path), main.origin).href,
    open: () => main.pending.size + other.pending.size,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Articles under /notes/ with the default options. */
export const hostileArchivePages = ARCHIVE_PAGES;
