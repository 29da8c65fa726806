import { type Catalog, CrawlerError, type LedgerState, parseUserUrl } from '@greenfinger/core/internal';
import type { ApiContext } from '../context.js';
import { refuseLocalUrl } from '../routes/local-urls.js';
import {
  callerFields,
  type FirecrawlRoute,
  type FirecrawlVersion,
  strictObject,
  unsupported,
  urlField,
} from './shapes.js';

/** Urls a map answers at most (Firecrawl's ceiling too). */
const MAX_LINKS = 100_000;
/** Ledger rows read at a time. */
const BATCH = 1000;
/** The ledger's states of a url that is the site's: fetched and handled, or waiting on the frontier. */
const SITE_STATES: LedgerState[] = ['done', 'queued'];

/** What `POST /map` takes (v2 names; v1's `ignoreSitemap` and `sitemapOnly` too). */
export interface MapBody {
  url: string;
  search?: string;
  limit?: number;
  includeSubdomains?: boolean;
  ignoreQueryParameters?: boolean;
  sitemap?: 'include' | 'skip' | 'only';
  sitemapOnly?: boolean;
}

export interface MapLink {
  url: string;
  title?: string;
}

export function mapRoute(version: FirecrawlVersion): FirecrawlRoute {
  const sitemap =
    version === 'v2'
      ? { sitemap: { type: 'string', enum: ['include', 'skip', 'only'], description: '"only" is refused' } }
      : { ignoreSitemap: { type: 'boolean' }, sitemapOnly: { type: 'boolean', description: 'true is refused' } };
  return {
    method: 'POST',
    url: `/${version}/map`,
    summary: 'The urls of a site, from the url ledger of the catalog that holds it (what its sitemaps and links gave)',
    access: 'read',
    body: strictObject(
      {
        url: urlField,
        search: { type: 'string', maxLength: 1000, description: 'keep urls (or titles) holding these words' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_LINKS, default: 5000 },
        includeSubdomains: { type: 'boolean', default: true },
        ignoreQueryParameters: { type: 'boolean', default: true },
        timeout: { type: 'integer', minimum: 1, description: 'ignored' },
        ...sitemap,
        ...callerFields,
      },
      ['url'],
    ),
  };
}

/**
 * A site's urls without fetching anything: the url ledger of the catalog that holds the url (its scope's host;
 * the one whose url is the longest prefix of it), every url fetched or waiting, titled where a page was saved.
 * A crawl reads the site's sitemaps (the catalog's `sitemap` setting) and offers what they list, so the ledger holds
 * them. No catalog holding it: 404, crawl it first.
 */
export async function map(ctx: ApiContext, body: MapBody): Promise<MapLink[]> {
  refuseLocalUrl(body.url, 'url');
  if (body.sitemap === 'only' || body.sitemapOnly) {
    throw unsupported('sitemap', 'the ledger does not tell a url a sitemap listed from one a link gave');
  }
  const url = parseUserUrl(body.url, 'url');
  const catalog = await holding(ctx, url);
  const version = catalog.searchVersion >= 0 ? catalog.searchVersion : catalog.indexVersion;
  const host = new URL(url).hostname;
  const onSite = (u: URL) =>
    u.hostname === host || ((body.includeSubdomains ?? true) && u.hostname.endsWith(`.${host}`));
  const words = (body.search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const titles = await titlesOf(ctx, catalog.id, version);
  const seen = new Set<string>();
  const found: MapLink[] = [];
  for (const state of SITE_STATES) {
    for (let offset = 0; ; offset += BATCH) {
      const page = await ctx.gf.ledger.list({ catalog: { id: catalog.id }, version, state, limit: BATCH, offset });
      for (const row of page.items) {
        if (row.outcome?.startsWith('REJECTED_REDIRECT')) continue;
        const u = new URL(row.url);
        if (!onSite(u)) continue;
        if (body.ignoreQueryParameters ?? true) u.search = '';
        const link = u.href;
        if (seen.has(link)) continue;
        seen.add(link);
        const title = titles.get(row.url);
        found.push(title ? { url: link, title } : { url: link });
      }
      if (page.items.length < BATCH) break;
    }
  }
  const matching =
    words.length === 0
      ? found
      : found.filter((l) => words.every((w) => `${l.url} ${l.title ?? ''}`.toLowerCase().includes(w)));
  // The url asked for first, as Firecrawl's map puts it; then the saved pages (titled), then the rest.
  const rank = (l: MapLink) => (l.url === url ? 2 : l.title ? 1 : 0);
  matching.sort((a, b) => rank(b) - rank(a));
  return matching.slice(0, body.limit ?? 5000);
}

/** The catalog whose url shares the url's host, the longest prefix of it first; else a 404 saying what to do. */
async function holding(ctx: ApiContext, url: string): Promise<Catalog> {
  const host = new URL(url).host;
  const all = (await (await ctx.gf.catalogs()).list()).filter((c) => {
    try {
      return new URL(c.url).host === host && c.indexVersion >= 0;
    } catch {
      return false;
    }
  });
  const rank = (c: Catalog) => (url.startsWith(c.url) ? c.url.length : 0) * 2 + (c.searchVersion >= 0 ? 1 : 0);
  const best = all.sort((a, b) => rank(b) - rank(a))[0];
  if (!best) {
    throw new CrawlerError('NOT_FOUND', `no catalog holds ${url}`, {
      fix: 'crawl it first (POST /firecrawl/v2/crawl, or greenfinger crawl --url): a map reads what a crawl found',
    });
  }
  return best;
}

/** Titles of the version's saved pages, by url. */
async function titlesOf(ctx: ApiContext, catalogId: string, version: number): Promise<Map<string, string>> {
  const db = await ctx.gf.database();
  const titles = new Map<string, string>();
  for await (const batch of db.resources.iterateResources(catalogId, version)) {
    for (const row of batch) if (row.title) titles.set(row.url, row.title);
  }
  return titles;
}
