import { createServer, type Server } from 'node:http';
import { Greenfinger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, listen } from '../support/loopback.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** 50 tag pages and 25 pages of news at depth 1, each listing 20 more listing urls (1,000+ urls at depth 1–2). */
const TAGS = 50;
const NEWS_PAGES = 25;
/** 10 of the tag pages' second pages hold the 50 stories: depth 3. */
const STORY_HUBS = 10;
const STORIES_PER_HUB = 5;

const html = (title: string, body: string) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
const link = (href: string, text: string) => `<li><a href="${href}">${text}</a></li>`;
const prose = (topic: string) =>
  `<p>${`Growing ${topic} in a small garden takes patience, good soil, water at the right hour and some luck with the weather. `.repeat(30)}</p>`;

/**
 * The sitemap lists every url, as sitemaps do: the listings first (priority 0.3), the stories last (priority 1.0,
 * changed this week).
 */
function sitemap(origin: string): string {
  const entry = (path: string, priority: string, extra = '') =>
    `<url><loc>${origin}${path}</loc><priority>${priority}</priority>${extra}</url>`;
  const listings: string[] = [];
  for (let t = 0; t < TAGS; t++) {
    listings.push(`/tag/t${t}`);
    for (let j = 2; j < 22; j++) listings.push(`/tag/t${t}/page/${j}`);
  }
  for (let n = 1; n <= NEWS_PAGES; n++) listings.push(`/news/page/${n}`);
  const stories = Array.from({ length: STORY_HUBS * STORIES_PER_HUB }, (_, n) => `/stories/growing-plant-${n}.html`);
  const week = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
  return (
    '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
    listings.map((p) => entry(p, '0.3')).join('') +
    stories.map((p) => entry(p, '1.0', `<lastmod>${week}</lastmod>`)).join('') +
    '</urlset>'
  );
}

/** The page of a path, or undefined (404). */
function page(path: string): string | undefined {
  if (path === '/') {
    const tags = Array.from({ length: TAGS }, (_, i) => link(`/tag/t${i}`, `t${i}`)).join('');
    const news = Array.from({ length: NEWS_PAGES }, (_, i) => link(`/news/page/${i + 1}`, String(i + 1))).join('');
    return html('Garden', `<h1>Garden</h1><ul>${tags}${news}</ul>`);
  }
  let m = /^\/tag\/t(\d+)$/.exec(path);
  if (m) {
    const t = Number(m[1]);
    const more = Array.from({ length: 20 }, (_, j) => link(`/tag/t${t}/page/${j + 2}`, String(j + 2))).join('');
    return html(`Tag t${t}`, `<h1>Pages tagged t${t}</h1><ul>${more}</ul>`);
  }
  m = /^\/news\/page\/(\d+)$/.exec(path);
  if (m) {
    const n = Number(m[1]);
    const more = Array.from({ length: 20 }, (_, j) => link(`/news/page/${n}/sort/${j}?page=${j + 2}`, 'Next')).join('');
    return html(`News ${n}`, `<h1>News, page ${n}</h1><ul>${more}</ul>`);
  }
  m = /^\/tag\/t(\d+)\/page\/(\d+)$/.exec(path);
  if (m) {
    const t = Number(m[1]);
    if (m[2] !== '2' || t >= STORY_HUBS) return listingEnd(path);
    const stories = Array.from({ length: STORIES_PER_HUB }, (_, k) => {
      const n = t * STORIES_PER_HUB + k;
      return link(`/stories/growing-plant-${n}.html`, `How to grow plant ${n} on a balcony`);
    }).join('');
    return html(`Tag t${t}, page 2`, `<h1>Tagged t${t}, page 2</h1><ul>${stories}</ul>`);
  }
  m = /^\/news\/page\/(\d+)\/sort\/(\d+)$/.exec(path);
  if (m) return listingEnd(path);
  m = /^\/stories\/growing-plant-(\d+)\.html$/.exec(path);
  if (m) return html(`How to grow plant ${m[1]}`, `<article><h1>Plant ${m[1]}</h1>${prose(`plant ${m[1]}`)}</article>`);
  return undefined;
}

/** A listing page with nothing new: its own title and a link home (each page's text differs). */
function listingEnd(path: string): string {
  return html(`Listing ${path}`, `<h1>Listing ${path}</h1><ul>${link('/', 'Home')}</ul>`);
}

const isStory = (url: string) => url.includes('/stories/');

/**
 * The prioritizer and the front queues on a site where the answer is clear (issue 26): 50 detail pages (stories)
 * at depth 3 behind 1,000+ listing, tag and pagination urls at depths 1–2, and a sitemap listing every url, the
 * stories last with priority 1.0. A `maxPages` 100 crawl weighed by every part saves at least 40 of the stories;
 * the depth-only order (`priorityWeights` depth alone) takes the sitemap's urls as they come and spends its pages
 * on the listings.
 */
describe('what a 100-page crawl keeps: every part weighed against depth alone', () => {
  let server: Server;
  let origin = '';
  let tmp: TempDir;
  let gf: Greenfinger;
  const saved: Record<string, string[]> = {};

  const crawl = async (name: string, priorityWeights?: Record<string, number>) => {
    await (await gf.catalogs()).create({
      name,
      url: `${origin}/`,
      settings: {
        intervalMs: 0,
        maxPages: 100,
        threads: 4,
        outputs: ['file'],
        images: false,
        robots: false,
        ...(priorityWeights ? { priorityWeights: priorityWeights as never } : {}),
      },
    });
    const report = await gf.crawler.crawl({ name });
    expect(report.ending.published).toBe(true);
    const rows = await gf.ledger.list({ catalog: { name }, outcome: 'SAVED', limit: 1000 });
    saved[name] = rows.items.filter((r) => r.outcome === 'SAVED').map((r) => r.url);
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/sitemap.xml') {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(sitemap(origin));
        return;
      }
      const body = page(path);
      res.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body ?? 'not found');
    });
    origin = `http://127.0.0.1:${await listen(server)}`;
    tmp = createTempDir('gf-prioritizer-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 1, logLevel: 'silent' } });
    await crawl('weighed');
    await crawl('depth-only', { depth: 1, type: 0, freshness: 0, quality: 0, sitemap: 0 });
  }, 120_000);

  afterAll(async () => {
    await gf?.close();
    if (server) await closeServer(server);
    tmp?.remove();
  });

  it('saves 100 pages either way, and far more of the stories when every part is weighed', () => {
    const weighed = saved.weighed ?? [];
    const depthOnly = saved['depth-only'] ?? [];
    expect(weighed).toHaveLength(100);
    expect(depthOnly).toHaveLength(100);
    const stories = { weighed: weighed.filter(isStory).length, depthOnly: depthOnly.filter(isStory).length };
    console.info(`stories saved of 50: weighed ${stories.weighed}, depth only ${stories.depthOnly}`);
    expect(stories.weighed).toBeGreaterThanOrEqual(40);
    expect(stories.depthOnly).toBeLessThanOrEqual(stories.weighed - 25);
  });

  it('the url ledger keeps each url’s priority and its parts, and a story outranks a listing', async () => {
    const story = `${origin}/stories/growing-plant-0.html`;
    const fate = await gf.ledger.why(story, { catalog: { name: 'weighed' } });
    // Queued from the sitemap (depth 1, no link, no referring page), changed three days ago.
    expect(fate.row?.priority?.parts).toEqual({
      depth: 0.5,
      type: 0.74,
      freshness: expect.closeTo(0.9, 1),
      quality: 0.5,
      sitemap: 1,
    });
    const listing = await gf.ledger.why(`${origin}/news/page/3`, { catalog: { name: 'weighed' } });
    expect(fate.row?.priority?.score).toBeGreaterThan(listing.row?.priority?.score ?? 1);
    expect(fate.row?.priority?.queue).toBeLessThan(listing.row?.priority?.queue ?? 0);
    // The start url goes first, unscored.
    const start = await gf.ledger.why(`${origin}/`, { catalog: { name: 'weighed' } });
    expect(start.row?.state).toBe('done');
    expect(start.row?.priority).toBeUndefined();
  });
});
