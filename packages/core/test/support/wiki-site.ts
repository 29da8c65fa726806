import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// A wiki-like site on loopback (issue 27's first "done when"): 300 article pages under /wiki/, each with a footer
// that prints the time of the request, a MediaWiki api.php (meta=siteinfo, list=recentchanges with continuation),
// an RSS 2.0 feed of the recent changes, a sitemap and robots.txt. `edit()` edits 3 pages, makes a null edit of 1
// (the feeds list it as edited; only its footer differs), deletes 1 and creates 1 (linked from the first edited
// page). Every request is logged, so a test judges what a run fetched by the server's own log.

export const WIKI_PAGES = 300;
export const WIKI_EDITED = [3, 120, 271];
export const WIKI_NULL_EDIT = 5;
export const WIKI_DELETED = 7;
export const WIKI_CREATED = 301;
/** recentchanges rows per answer at most, whatever rclimit asks (so a read of the edits needs continuation). */
export const RC_PAGE = 2;

const WORDS = ['alder', 'bramble', 'clover', 'dogwood', 'elder', 'foxglove', 'gorse', 'hazel', 'ivy', 'jasmine'];

function topic(n: number): string {
  return `${WORDS[n % 10]} ${WORDS[Math.floor(n / 10) % 10]} ${WORDS[Math.floor(n / 100) % 10]} entry ${n}`;
}

const title = (n: number) => `Page ${n}`;
const path = (n: number) => `/wiki/Page_${n}`;

interface RecentChange {
  rcid: number;
  type: 'edit' | 'new' | 'log';
  title: string;
  timestamp: string;
  logtype?: string;
  logaction?: string;
}

interface WikiState {
  edited: boolean;
  changes: RecentChange[];
  /** Each page's last edit (ISO, to the second), for the sitemap's lastmod. */
  modified: Map<number, string>;
}

function article(state: WikiState, n: number): string {
  const edited = state.edited && WIKI_EDITED.includes(n);
  const links = [n - 1, n + 1].filter((m) => m >= 1 && m <= WIKI_PAGES && m !== WIKI_DELETED);
  return `<!doctype html><html><head><title>${title(n)} - Wikiland</title></head><body>
<main><article><h1>${title(n)}: ${topic(n)}</h1>
<p>This article describes the ${topic(n)} hedge, where it grows, which birds nest in it and how the people
of the parish trim it every autumn before the first frost comes over the hills.</p>
<p>${edited ? `The ${topic(n)} hedge was cut back to the root after the storm and grew again as a meadow of wildflowers.` : `The ${topic(n)} hedge keeps its old shape, thick and green all year.`}</p>
${n === WIKI_EDITED[0] && state.edited ? `<p>See also <a href="${path(WIKI_CREATED)}">the new meadow</a>.</p>` : ''}
<p>${links.map((m) => `<a href="${path(m)}">${title(m)}</a>`).join(' · ')} · <a href="/wiki/Main_Page">Main page</a></p>
</article></main>
<footer>This page was served on ${new Date().toISOString()}.</footer></body></html>`;
}

function created(): string {
  return `<!doctype html><html><head><title>${title(WIKI_CREATED)} - Wikiland</title></head><body>
<main><article><h1>${title(WIKI_CREATED)}: the new meadow</h1>
<p>The meadow of cornflowers and poppies that took the place of the old hedge hums with bumblebees all summer.</p>
<p><a href="${path(WIKI_EDITED[0] as number)}">${title(WIKI_EDITED[0] as number)}</a></p>
</article></main>
<footer>This page was served on ${new Date().toISOString()}.</footer></body></html>`;
}

function mainPage(): string {
  const items = Array.from({ length: WIKI_PAGES }, (_, i) => `<li><a href="${path(i + 1)}">${title(i + 1)}</a></li>`);
  return `<!doctype html><html><head><title>Main Page - Wikiland</title></head><body><h1>Wikiland</h1>
<ul>${items.join('')}</ul><footer>This page was served on ${new Date().toISOString()}.</footer></body></html>`;
}

const exists = (state: WikiState, n: number) =>
  (n >= 1 && n <= WIKI_PAGES && !(state.edited && n === WIKI_DELETED)) || (state.edited && n === WIKI_CREATED);

function sitemap(state: WikiState, origin: string): string {
  const pages = [...Array.from({ length: WIKI_PAGES }, (_, i) => i + 1), WIKI_CREATED].filter((n) => exists(state, n));
  const urls = pages.map((n) => `<url><loc>${origin}${path(n)}</loc><lastmod>${state.modified.get(n)}</lastmod></url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>`;
}

function rss(state: WikiState, origin: string): string {
  const items = [...state.changes]
    .reverse()
    .filter((c) => c.type !== 'log')
    .map(
      (c) =>
        `<item><title>${c.title}</title><link>${origin}/wiki/${c.title.replace(/ /g, '_')}</link><guid isPermaLink="false">rc-${c.rcid}</guid><pubDate>${new Date(c.timestamp).toUTCString()}</pubDate></item>`,
    );
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Wikiland - Recent changes</title><link>${origin}/wiki/Main_Page</link>
<description>Track the most recent changes to the wiki in this feed.</description>${items.join('')}</channel></rss>`;
}

/** `list=recentchanges` as MediaWiki answers it: oldest first from rcstart, RC_PAGE rows, then `continue`. */
function recentChanges(state: WikiState, q: URLSearchParams): unknown {
  const start = q.get('rcstart') ?? '';
  const from = Number((q.get('rccontinue') ?? '').split('|')[1] ?? 0);
  const rows = state.changes.filter((c) => c.timestamp >= start && c.rcid >= from);
  const page = rows.slice(0, RC_PAGE);
  const next = rows[RC_PAGE];
  return {
    batchcomplete: true,
    ...(next ? { continue: { rccontinue: `${next.timestamp.replace(/\D/g, '')}|${next.rcid}`, continue: '-||' } } : {}),
    query: {
      recentchanges: page.map((c) => ({
        type: c.type,
        ns: 0,
        title: c.title,
        pageid: 1000 + c.rcid,
        revid: 5000 + c.rcid,
        old_revid: 4999 + c.rcid,
        rcid: c.rcid,
        timestamp: c.timestamp,
        ...(c.type === 'log' ? { logid: 70 + c.rcid, logtype: c.logtype, logaction: c.logaction, logparams: {} } : {}),
      })),
    },
  };
}

export interface WikiSite {
  readonly origin: string;
  /** Every request's path and query, in order. */
  readonly log: string[];
  url(n: number): string;
  /** Edit the wiki: 3 pages edited, 1 null edit (listed, only its footer differs), 1 deleted, 1 created. */
  edit(): void;
  /** Answer these pages once each `ms` late (a run can be stopped while one is in flight); `slow([], 0)` ends it. */
  slow(pages: number[], ms: number): void;
  /** Requests for pages (anything but robots.txt, llms.txt, the sitemap and the feeds) logged from index `from` on. */
  pageRequests(from?: number): string[];
  close(): Promise<void>;
}

export async function startWikiSite(): Promise<WikiSite> {
  const firstCrawl = `${new Date(Date.now() - 86_400_000).toISOString().slice(0, 19)}Z`;
  const state: WikiState = {
    edited: false,
    changes: [],
    modified: new Map(Array.from({ length: WIKI_PAGES }, (_, i) => [i + 1, firstCrawl])),
  };
  const log: string[] = [];
  const slowPages = new Map<number, number>();
  let origin = '';
  const server = createServer((req, res) => {
    const raw = req.url ?? '/';
    log.push(raw);
    const u = new URL(raw, origin);
    const send = (status: number, type: string, body: string) =>
      res.writeHead(status, { 'content-type': type }).end(body);
    if (u.pathname === '/robots.txt')
      return send(200, 'text/plain', `User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`);
    if (u.pathname === '/sitemap.xml') return send(200, 'application/xml', sitemap(state, origin));
    if (u.pathname === '/feed.rss') return send(200, 'application/rss+xml; charset=utf-8', rss(state, origin));
    if (u.pathname === '/w/api.php') {
      const q = u.searchParams;
      if (q.get('meta') === 'siteinfo') {
        return send(
          200,
          'application/json',
          JSON.stringify({ query: { general: { server: origin, articlepath: '/wiki/$1', sitename: 'Wikiland' } } }),
        );
      }
      if (q.get('list') === 'recentchanges')
        return send(200, 'application/json', JSON.stringify(recentChanges(state, q)));
      return send(200, 'application/json', JSON.stringify({ error: { code: 'badvalue', info: 'unknown query' } }));
    }
    if (u.pathname === '/' || u.pathname === '/wiki/Main_Page') {
      if (u.pathname === '/') return res.writeHead(301, { location: '/wiki/Main_Page' }).end();
      return send(200, 'text/html; charset=utf-8', mainPage());
    }
    const m = /^\/wiki\/Page_(\d+)$/.exec(u.pathname);
    const n = Number(m?.[1]);
    const late = slowPages.get(n);
    if (late) {
      slowPages.delete(n);
      setTimeout(() => answerPage(n, send), late);
      return;
    }
    answerPage(n, send);
  });
  const answerPage = (n: number, send: (status: number, type: string, body: string) => void) => {
    if (Number.isNaN(n) || !exists(state, n))
      return send(404, 'text/html', '<html><body>There is currently no text in this page.</body></html>');
    return send(200, 'text/html; charset=utf-8', n === WIKI_CREATED ? created() : article(state, n));
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    log,
    url: (n) => `${origin}${path(n)}`,
    slow: (pages, ms) => {
      slowPages.clear();
      for (const n of pages) slowPages.set(n, ms);
    },
    edit: () => {
      state.edited = true;
      const at = `${new Date().toISOString().slice(0, 19)}Z`;
      const add = (c: Omit<RecentChange, 'rcid' | 'timestamp'>) =>
        state.changes.push({ ...c, rcid: state.changes.length + 1, timestamp: at });
      for (const n of WIKI_EDITED) {
        add({ type: 'edit', title: title(n) });
        state.modified.set(n, at);
      }
      add({ type: 'edit', title: title(WIKI_NULL_EDIT) });
      add({ type: 'log', title: title(WIKI_DELETED), logtype: 'delete', logaction: 'delete' });
      add({ type: 'new', title: title(WIKI_CREATED) });
      state.modified.set(WIKI_CREATED, at);
    },
    pageRequests: (from = 0) =>
      log.slice(from).filter((p) => !/^\/(?:robots\.txt|llms\.txt|sitemap\.xml|feed\.rss|w\/api\.php)/.test(p)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
