// The soak bench's generated site (issue 26 item 7): `pages` pages served from memory, built on each request from
// the page's number (nothing is held but the access times), so the server costs the measured crawl nothing.
//
// Page types, and how deep they sit from the home page:
//   /                              home: the categories, the archive's months, the first tags        depth 0
//   /c/<c>/page/<p>                category listings, 40 articles a page; page p links p+1…p+5,     depth 1…
//                                  2p and 2p+1 (a binary ladder: the last page is some ten links deep)
//   /tag/<t>/page/<p>              tag listings, the same shape                                      depth 2…
//   /archive/<m>/page/<p>          archive months, the same shape                                    depth 1…
//   /search?q=t<t>                 a search page per tag: its first 20 articles                      depth 2
//   /a/<i>.html                    articles (detail pages): ~1 KB of text made from its number,      depth 2…
//                                  links to its category, tag, month and three related articles
// The sitemap (an index of two files, 50,000 urls: the crawler reads at most that many per site) lists 5,000 category
// listings with priority 0.3, then articles with priorities 0.5 to 1.0 and a lastmod.
import { createServer } from 'node:http';

const CATS = 20;
const TAGS = 400;
const MONTHS = 60;
const PER_PAGE = 40;
const SITEMAP_URLS = 50_000;

const WORDS = (
  'garden soil water seed root leaf stem flower fruit tree shrub hedge compost mulch spade rake hoe trowel ' +
  'bed border lawn meadow orchard greenhouse frost sun shade rain wind season spring summer autumn winter ' +
  'prune graft sow plant harvest weed feed grow bloom wilt ripen store dry press cut water light warm cold ' +
  'early late slow quick tall short broad narrow deep shallow sweet bitter green yellow red purple white ' +
  'bean pea onion leek carrot potato tomato pepper squash melon apple pear plum cherry rose tulip lily fern'
).split(' ');

/** A small deterministic generator (mulberry32) per page, so a page's text is the same on every request. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function prose(seed, words) {
  const r = rng(seed);
  const out = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(r() * WORDS.length)]);
  return out.join(' ');
}

const pagesOf = (count) => Math.max(1, Math.ceil(count / PER_PAGE));

/** The site's shape for `total` pages: how many articles, so that articles + listings = total. */
export function siteShape(total) {
  const listings = (a) =>
    1 +
    CATS * pagesOf(Math.ceil(a / CATS)) +
    TAGS * pagesOf(Math.ceil(a / TAGS)) +
    MONTHS * pagesOf(Math.ceil(a / MONTHS)) +
    TAGS;
  let articles = total;
  for (let i = 0; i < 50 && articles + listings(articles) !== total; i++)
    articles += total - (articles + listings(articles));
  return { articles, listings: listings(articles), total: articles + listings(articles) };
}

const html = (title, body) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
const li = (href, text) => `<li><a href="${href}">${text}</a></li>`;

/** The site: `serve(req, res)` for node:http, and the access times of the pages served 200. */
export function soakSite(total) {
  const shape = siteShape(total);
  const A = shape.articles;
  const group = (n) => Math.ceil(A / n);
  const catPages = pagesOf(group(CATS));
  const tagPages = pagesOf(group(TAGS));
  const monthPages = pagesOf(group(MONTHS));
  /** The i-th article of a group of `n` groups (article j belongs to group j % n). */
  const member = (g, n, k) => g + k * n;
  const articleLink = (i) => li(`/a/${i}.html`, `${prose(i * 7 + 1, 4)} ${i}`);

  function listing(kind, g, n, pages, p, title) {
    const items = [];
    for (let k = (p - 1) * PER_PAGE; k < p * PER_PAGE; k++) {
      const i = member(g, n, k);
      if (i < A) items.push(articleLink(i));
    }
    const nav = new Set();
    for (const q of [p + 1, p + 2, p + 3, p + 4, p + 5, 2 * p, 2 * p + 1, p - 1]) if (q >= 1 && q <= pages) nav.add(q);
    const navLinks = [...nav].map((q) => li(`/${kind}/${g}/page/${q}`, `page ${q}`)).join('');
    return html(
      `${title}, page ${p}`,
      `<h1>${title}, page ${p}</h1><ul>${items.join('')}</ul><nav><ul>${navLinks}</ul></nav>`,
    );
  }

  function page(path, query) {
    if (path === '/') {
      const cats = Array.from({ length: CATS }, (_, c) => li(`/c/${c}/page/1`, `category ${c}`)).join('');
      const months = Array.from({ length: MONTHS }, (_, m) => li(`/archive/${m}/page/1`, `month ${m}`)).join('');
      const tags = Array.from({ length: 20 }, (_, t) => li(`/tag/${t}/page/1`, `tag ${t}`)).join('');
      return html('Soak garden', `<h1>Soak garden</h1><ul>${cats}${months}${tags}</ul>`);
    }
    let m = /^\/a\/(\d+)\.html$/.exec(path);
    if (m) {
      const i = Number(m[1]);
      if (i >= A) return undefined;
      const related = [(i * 31 + 7) % A, (i * 17 + 3) % A, (i + 1) % A].map(articleLink).join('');
      const links =
        li(`/c/${i % CATS}/page/1`, `category ${i % CATS}`) +
        li(`/tag/${i % TAGS}/page/1`, `tag ${i % TAGS}`) +
        li(`/archive/${i % MONTHS}/page/1`, `month ${i % MONTHS}`) +
        li(`/search?q=t${i % TAGS}`, `more about tag ${i % TAGS}`);
      const body = `<p>${prose(i, 60)}.</p><p>${prose(i + 1_000_003, 60)}.</p><p>${prose(i + 2_000_003, 40)}.</p>`;
      return html(
        `Article ${i}`,
        `<article><h1>Article ${i}: ${prose(i * 7 + 1, 4)}</h1>${body}</article><ul>${links}${related}</ul>`,
      );
    }
    m = /^\/(c|tag|archive)\/(\d+)\/page\/(\d+)$/.exec(path);
    if (m) {
      const [kind, g, p] = [m[1], Number(m[2]), Number(m[3])];
      const [n, pages, name] =
        kind === 'c'
          ? [CATS, catPages, 'Category']
          : kind === 'tag'
            ? [TAGS, tagPages, 'Tag']
            : [MONTHS, monthPages, 'Month'];
      if (g >= n || p < 1 || p > pages) return undefined;
      return listing(kind, g, n, pages, p, `${name} ${g}`);
    }
    if (path === '/search') {
      const t = /^t(\d+)$/.exec(query.get('q') ?? '');
      if (!t || Number(t[1]) >= TAGS) return undefined;
      const g = Number(t[1]);
      const items = Array.from({ length: 20 }, (_, k) => member(g, TAGS, k))
        .filter((i) => i < A)
        .map(articleLink);
      return html(`Search t${g}`, `<h1>Results for t${g}</h1><ul>${items.join('')}</ul>`);
    }
    return undefined;
  }

  /** The sitemap's urls: 5,000 category listings (priority 0.3), then articles (0.5 to 1.0, with a lastmod). */
  function sitemapEntries(origin, from, to) {
    const out = [];
    const listings = Math.min(5000, catPages * CATS);
    for (let n = from; n < to; n++) {
      if (n < listings) {
        out.push(
          `<url><loc>${origin}/c/${n % CATS}/page/${Math.floor(n / CATS) + 1}</loc><priority>0.3</priority></url>`,
        );
        continue;
      }
      const i = n - listings;
      if (i >= A) break;
      const day = new Date(Date.UTC(2026, 0, 1) + (i % 300) * 86_400_000).toISOString().slice(0, 10);
      const priority = (0.5 + (i % 6) / 10).toFixed(1);
      out.push(`<url><loc>${origin}/a/${i}.html</loc><lastmod>${day}</lastmod><priority>${priority}</priority></url>`);
    }
    return out.join('');
  }

  /** performance.now() of each page answered 200 (robots.txt and sitemaps left out). */
  const served = [];
  let requests = 0;
  let notFound = 0;
  const serve = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const origin = `http://${req.headers.host}`;
    requests++;
    if (url.pathname === '/robots.txt') {
      res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(`User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`);
      return;
    }
    const half = SITEMAP_URLS / 2;
    if (url.pathname === '/sitemap.xml') {
      const maps = [1, 2].map((k) => `<sitemap><loc>${origin}/sitemap-${k}.xml</loc></sitemap>`).join('');
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${maps}</sitemapindex>`,
      );
      return;
    }
    const sm = /^\/sitemap-([12])\.xml$/.exec(url.pathname);
    if (sm) {
      const from = (Number(sm[1]) - 1) * half;
      const to = from + half;
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${sitemapEntries(origin, from, to)}</urlset>`,
      );
      return;
    }
    const body = page(url.pathname, url.searchParams);
    if (body === undefined) {
      notFound++;
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    served.push(performance.now());
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  };
  return { shape, serve, served, stats: () => ({ requests, notFound, pages: served.length }) };
}

/** Starts the site on a free loopback port. */
export async function startSoakSite(total) {
  const site = soakSite(total);
  const server = createServer({ keepAlive: true }, site.serve);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    ...site,
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
