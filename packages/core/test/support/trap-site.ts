import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A site of traps on loopback (port 0), for the trap and redirect tests of issue 11. Every section is infinite
 * unless the crawler bounds it:
 *
 * - `/docs/doc-<letters>`: ordinary pages (the real content), each linking the home, the first of them and the shop;
 * - `/shop/`: session-id trap — every link carries a fresh `?sid=`, `;jsessionid=` or `PHPSESSID=`, and the lobby a
 *   fresh `?visit=` (a parameter no list knows: the same page under endless urls);
 * - `/calendar/`: spider traps — `month?m=YYYY-MM` and `events/YYYY/MM/` with previous and next links, and
 *   `list?page=N` with a next link, forever;
 * - `/maze/`: relative links that grow the path — `next/` (`/maze/next/next/…`) and `a/b/` (`/maze/ab/a/b/a/b/…`);
 * - `/print/`: thirty urls (`copy?n=1…30`) of one and the same page;
 * - `/redirect/`: `chain/N` → `chain/N+1` up to 30, `forever/N` → `forever/N+1` without end, a loop
 *   `loop/a` → `b` → `c` → `a`, and a short legitimate chain `ok/from` → `ok/mid` → `ok/to`.
 */
export interface TrapSite extends AsyncDisposable {
  readonly origin: string;
  /** Paths (with query) requested, in order. */
  readonly requests: readonly string[];
  /** Requests whose path starts with `prefix`. */
  count(prefix: string): number;
  close(): Promise<void>;
}

/** A request into one of the traps (everything but the ordinary pages, the shop's items and the section indexes). */
export function isTrapRequest(path: string): boolean {
  return /^\/(calendar\/(month|events|list)|maze\/(next|ab\/)|print\/copy|shop\/lobby|redirect\/(chain|forever|loop)\/)/.test(
    path,
  );
}

const SHOP_ITEMS = ['apron', 'basket', 'compost', 'dibber', 'edger', 'fork', 'gloves', 'hoe', 'mulch', 'netting'];

/** `0` → `aa`, `1` → `ab`, …: names without digits, so the ordinary pages are no numeric sequence. */
export function letters(i: number): string {
  const a = 'abcdefghijklmnopqrstuvwxyz';
  return `${a[Math.floor(i / 26) % 26]}${a[i % 26]}${i >= 676 ? a[Math.floor(i / 676) % 26] : ''}`;
}

function page(title: string, text: string, links: string[]): string {
  // The anchors' text is the same whatever the href: a fresh session id leaves the page's text as it was.
  const anchors = links.map((href, i) => `<li><a href="${href}">link ${i + 1}</a></li>`).join('');
  return (
    `<!doctype html><html><head><title>${title}</title></head><body><nav><ul>${anchors}</ul></nav>` +
    `<main><h1>${title}</h1><p>${text}</p></main></body></html>`
  );
}

const words = (topic: string) =>
  `This page is about ${topic}, in enough words to be an article of its own. `.repeat(4) +
  `Nothing else on the site says exactly this about ${topic}.`;

const sid = () => randomBytes(8).toString('hex');

function month(y: number, m: number): { y: number; m: number } {
  const t = y * 12 + (m - 1);
  return { y: Math.floor(t / 12), m: (t % 12) + 1 };
}
const ym = (p: { y: number; m: number }) => `${p.y}-${String(p.m).padStart(2, '0')}`;

/** Start the trap site with `docs` ordinary pages. */
export async function startTrapSite(options: { docs?: number } = {}): Promise<TrapSite> {
  const docs = options.docs ?? 20;
  const requests: string[] = [];
  const sockets = new Set<Socket>();

  const answer = (res: ServerResponse, status: number, body = '', headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
    res.end(body);
  };
  const redirect = (res: ServerResponse, to: string) => answer(res, 302, '', { location: to });

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    requests.push(path);
    const url = new URL(path, 'http://trap.invalid');
    const p = url.pathname;
    if (p === '/') {
      const links = Array.from({ length: docs }, (_, i) => `/docs/doc-${letters(i)}`);
      return answer(
        res,
        200,
        page('Home', words('the home page'), [...links, '/shop/', '/calendar/', '/maze/', '/print/', '/redirect/']),
      );
    }
    const doc = p.match(/^\/docs\/doc-([a-z]+)$/);
    if (doc) {
      return answer(res, 200, page(`Doc ${doc[1]}`, words(`document ${doc[1]}`), ['/', '/docs/doc-aa', '/shop/']));
    }
    // Session-id trap: the same pages under endless urls.
    const shop = p.match(/^\/shop\/(item-[a-z]+|cart|help)(;.*)?$/);
    if (p === '/shop/' || shop) {
      const links = [
        ...SHOP_ITEMS.map((i) => `/shop/item-${i}?sid=${sid()}`),
        `/shop/cart;jsessionid=${sid().toUpperCase()}`,
        `/shop/help?PHPSESSID=${sid()}&lang=en`,
        `/shop/lobby?visit=${sid()}`,
      ];
      const name = shop?.[1] ?? 'the shop';
      return answer(res, 200, page(`Shop ${name}`, words(`shop page ${name}`), links));
    }
    if (p === '/shop/lobby') {
      return answer(
        res,
        200,
        page('Lobby', words('the lobby'), [`/shop/lobby?visit=${sid()}`, `/shop/item-apron?sid=${sid()}`]),
      );
    }
    // Spider traps: calendars and a list that never end.
    if (p === '/calendar/') {
      return answer(
        res,
        200,
        page('Calendar', words('the calendar'), ['month?m=2025-01', 'events/2025/01/', 'list?page=1']),
      );
    }
    if (p === '/calendar/month') {
      const [y, mm] = (url.searchParams.get('m') ?? '2025-01').split('-').map(Number) as [number, number];
      const prev = ym(month(y, mm - 1));
      const next = ym(month(y, mm + 1));
      return answer(
        res,
        200,
        page(`Month ${ym({ y, m: mm })}`, words(`the month ${ym({ y, m: mm })}`), [
          `month?m=${prev}`,
          `month?m=${next}`,
        ]),
      );
    }
    const events = p.match(/^\/calendar\/events\/(\d+)\/(\d+)\/$/);
    if (events) {
      const y = Number(events[1]);
      const mm = Number(events[2]);
      const link = (d: { y: number; m: number }) => `/calendar/events/${d.y}/${String(d.m).padStart(2, '0')}/`;
      return answer(
        res,
        200,
        page(`Events ${y}-${mm}`, words(`the events of ${y}-${mm}`), [link(month(y, mm - 1)), link(month(y, mm + 1))]),
      );
    }
    if (p === '/calendar/list') {
      const n = Number(url.searchParams.get('page') ?? '1');
      return answer(res, 200, page(`List ${n}`, words(`page ${n} of the list`), [`list?page=${n + 1}`]));
    }
    // Relative links that grow the path.
    if (p === '/maze/') return answer(res, 200, page('Maze', words('the maze'), ['next/', 'ab/']));
    if (p.startsWith('/maze/next/')) return answer(res, 200, page('Next', words(`the maze at ${p}`), ['next/']));
    if (p.startsWith('/maze/ab/')) return answer(res, 200, page('AB', words(`the maze at ${p}`), ['a/b/']));
    // Thirty urls of one page.
    if (p === '/print/') {
      const copies = Array.from({ length: 30 }, (_, i) => `copy?n=${i + 1}`);
      return answer(res, 200, page('Print', words('the print index'), copies));
    }
    if (p === '/print/copy') return answer(res, 200, page('Printable', words('the printable page'), ['/print/']));
    // Redirects.
    if (p === '/redirect/') {
      return answer(res, 200, page('Redirects', words('the redirects'), ['chain/0', 'forever/0', 'loop/a', 'ok/from']));
    }
    const chain = p.match(/^\/redirect\/chain\/(\d+)$/);
    if (chain) {
      const n = Number(chain[1]);
      if (n < 30) return redirect(res, `/redirect/chain/${n + 1}`);
      return answer(res, 200, page('End of the chain', words('the end of the chain'), []));
    }
    const forever = p.match(/^\/redirect\/forever\/(\d+)$/);
    if (forever) return redirect(res, `/redirect/forever/${Number(forever[1]) + 1}`);
    const loop = p.match(/^\/redirect\/loop\/([abc])$/);
    if (loop) {
      const next = { a: 'b', b: 'c', c: 'a' }[loop[1] as 'a' | 'b' | 'c'];
      return redirect(res, `/redirect/loop/${next}`);
    }
    if (p === '/redirect/ok/from') return redirect(res, '/redirect/ok/mid');
    if (p === '/redirect/ok/mid') return redirect(res, 'to');
    if (p === '/redirect/ok/to') return answer(res, 200, page('Landed', words('the landing page'), []));
    return answer(res, 404, 'not found');
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    count: (prefix) => requests.filter((r) => r.startsWith(prefix)).length,
    close,
    [Symbol.asyncDispose]: close,
  };
}
