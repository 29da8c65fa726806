import { Parser } from 'htmlparser2';
import type { Logger } from '../logger.js';
import { normalizeUrl } from '../url/normalize.js';
import type { RobotsProvider } from './acceptor.js';
import type { RobotsFetch } from './robots.js';

/** One `<url>` (or `<sitemap>` of an index). */
export interface SitemapEntry {
  /** The normalised `<loc>`. */
  loc: string;
  lastmod?: string;
  /** `always`, `hourly`, `daily`, `weekly`, `monthly`, `yearly` or `never` (a page's, not an index's). */
  changefreq?: string;
  /** `<priority>`, 0.0 to 1.0 (a page's); absent when missing or not a number in that range. */
  priority?: number;
}

export interface ParsedSitemap {
  /** `urlset` = page urls, `sitemapindex` = further sitemaps, `text` = one url a line, `unknown` = none of these. */
  kind: 'urlset' | 'sitemapindex' | 'text' | 'unknown';
  entries: SitemapEntry[];
  /** true when entries were dropped: maxUrls was reached, or the file ends inside an entry (cut off). */
  truncated: boolean;
}

export interface ParseSitemapOptions {
  /** Entries kept; the rest are dropped and `truncated` set. @default 50000 */
  maxUrls?: number;
  /** Base for relative `<loc>` values (not allowed by the protocol, but seen). */
  baseUrl?: string;
}

/** Sitemap protocol limit on urls per file. */
export const SITEMAP_MAX_URLS = 50_000;

function localName(name: string): string {
  const colon = name.lastIndexOf(':');
  return (colon === -1 ? name : name.slice(colon + 1)).toLowerCase();
}

function parseTextSitemap(text: string, maxUrls: number): ParsedSitemap {
  const entries: SitemapEntry[] = [];
  let truncated = false;
  for (const line of text.split(/\r\n|\r|\n/)) {
    const t = line.trim();
    if (!/^https?:\/\//i.test(t)) continue;
    const loc = normalizeUrl(t);
    if (loc === undefined) continue;
    if (entries.length >= maxUrls) {
      truncated = true;
      break;
    }
    entries.push({ loc });
  }
  return { kind: entries.length > 0 ? 'text' : 'unknown', entries, truncated };
}

/**
 * Parses a sitemap (`<urlset>`), a sitemap index (`<sitemapindex>`) or a plain-text sitemap (one url a line) with
 * htmlparser2 in XML mode, without building a DOM. Only `<loc>`, `<lastmod>`, `<changefreq>` and `<priority>` directly inside `<url>` /
 * `<sitemap>` count (so `<image:loc>` is not a page); namespace prefixes are ignored; invalid urls are skipped; an
 * entry the file ends inside (a cut-off download) is dropped and `truncated` set.
 */
export function parseSitemap(text: string, options: ParseSitemapOptions = {}): ParsedSitemap {
  const maxUrls = options.maxUrls ?? SITEMAP_MAX_URLS;
  if (!/<\s*(?:[\w-]+:)?(?:urlset|sitemapindex)\b/i.test(text.slice(0, 4096)) && !text.trimStart().startsWith('<')) {
    return parseTextSitemap(text, maxUrls);
  }
  let kind: ParsedSitemap['kind'] = 'unknown';
  const entries: SitemapEntry[] = [];
  let truncated = false;
  const stack: string[] = [];
  let entry: { loc: string; lastmod: string; changefreq: string; priority: string } | undefined;
  let field: 'loc' | 'lastmod' | 'changefreq' | 'priority' | undefined;
  const parser = new Parser(
    {
      onopentag(name) {
        const n = localName(name);
        const parent = stack[stack.length - 1];
        stack.push(n);
        if (stack.length === 1 && (n === 'urlset' || n === 'sitemapindex')) kind = n;
        else if ((n === 'url' || n === 'sitemap') && stack.length === 2 && kind !== 'unknown') {
          entry = { loc: '', lastmod: '', changefreq: '', priority: '' };
        } else if (
          entry !== undefined &&
          (parent === 'url' || parent === 'sitemap') &&
          (n === 'loc' || n === 'lastmod' || n === 'changefreq' || n === 'priority')
        ) {
          field = n;
        }
      },
      ontext(data) {
        if (entry !== undefined && field !== undefined) entry[field] += data;
      },
      onclosetag(name, isImplied) {
        const n = localName(name);
        stack.pop();
        if (n === 'loc' || n === 'lastmod' || n === 'changefreq' || n === 'priority') field = undefined;
        // An entry closed only because the file ended (a cut-off download) is dropped: its <loc> may be cut too.
        if ((n === 'url' || n === 'sitemap') && entry !== undefined && stack.length === 1 && isImplied) {
          entry = undefined;
          truncated = true;
        } else if ((n === 'url' || n === 'sitemap') && entry !== undefined && stack.length === 1) {
          const loc = normalizeUrl(entry.loc.trim(), options.baseUrl);
          if (loc !== undefined) {
            if (entries.length >= maxUrls) truncated = true;
            else {
              const lastmod = entry.lastmod.trim();
              const changefreq = entry.changefreq.trim().toLowerCase();
              const priority = entry.priority.trim() === '' ? Number.NaN : Number(entry.priority.trim());
              entries.push({
                loc,
                ...(lastmod === '' ? {} : { lastmod }),
                ...(changefreq === '' ? {} : { changefreq }),
                ...(priority >= 0 && priority <= 1 ? { priority } : {}),
              });
            }
          }
          entry = undefined;
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(text);
  return { kind, entries, truncated };
}

export interface DiscoverSitemapOptions {
  /** Any url of the site (usually catalog.url); its origin is where /sitemap.xml is looked for. */
  siteUrl: string;
  /** The crawler's HTTP client. */
  fetch: RobotsFetch;
  /** When given, the Sitemap lines of robots.txt are used; /sitemap.xml only when it names none. */
  robots?: RobotsProvider;
  /** Page urls returned at most. @default 50000 */
  maxUrls?: number;
  /** How many sitemap-index levels are followed below the first sitemaps. @default 2 */
  maxDepth?: number;
  /** Sitemap files fetched at most. @default 100 */
  maxSitemaps?: number;
  logger?: Logger;
}

export interface DiscoveredSitemaps {
  /** Page urls, normalised, without repeats, in document order. */
  urls: SitemapEntry[];
  /** Sitemap files read successfully. */
  sitemaps: string[];
  /** One line per sitemap that could not be read. */
  errors: string[];
  /** true when a bound (maxUrls, maxDepth, maxSitemaps) left something out. */
  truncated: boolean;
}

/**
 * Finds a site's page urls from its sitemaps: those robots.txt names (when a provider is given), else
 * `<origin>/sitemap.xml`; sitemap indexes are followed breadth-first up to maxDepth levels. Bounded by
 * maxUrls, maxDepth and maxSitemaps; a sitemap that fails is recorded in `errors`, never thrown.
 */
export async function discoverSitemapUrls(options: DiscoverSitemapOptions): Promise<DiscoveredSitemaps> {
  const maxUrls = options.maxUrls ?? SITEMAP_MAX_URLS;
  const maxDepth = options.maxDepth ?? 2;
  const maxSitemaps = options.maxSitemaps ?? 100;
  const origin = new URL(options.siteUrl).origin;
  let roots = options.robots ? await options.robots.sitemaps(options.siteUrl) : [];
  if (roots.length === 0) roots = [`${origin}/sitemap.xml`];

  const result: DiscoveredSitemaps = { urls: [], sitemaps: [], errors: [], truncated: false };
  const seenPages = new Set<string>();
  const seenSitemaps = new Set<string>();
  let queue: string[] = roots.map((r) => normalizeUrl(r)).filter((r): r is string => r !== undefined);
  for (let depth = 0; queue.length > 0; depth++) {
    const next: string[] = [];
    for (const sitemapUrl of queue) {
      if (seenSitemaps.has(sitemapUrl)) continue;
      if (seenSitemaps.size >= maxSitemaps || result.urls.length >= maxUrls) {
        result.truncated = true;
        break;
      }
      seenSitemaps.add(sitemapUrl);
      let response: { status: number; text: string };
      try {
        response = await options.fetch(sitemapUrl);
      } catch (err) {
        result.errors.push(`${sitemapUrl}: ${err instanceof Error ? err.message : String(err)}`);
        continue;
      }
      if (response.status < 200 || response.status >= 300) {
        result.errors.push(`${sitemapUrl}: status ${response.status}`);
        continue;
      }
      const parsed = parseSitemap(response.text, { maxUrls: maxUrls - result.urls.length, baseUrl: sitemapUrl });
      if (parsed.kind === 'unknown') {
        result.errors.push(`${sitemapUrl}: not a sitemap`);
        continue;
      }
      result.sitemaps.push(sitemapUrl);
      if (parsed.truncated) result.truncated = true;
      if (parsed.kind === 'sitemapindex') {
        if (depth < maxDepth) next.push(...parsed.entries.map((e) => e.loc));
        else if (parsed.entries.length > 0) result.truncated = true;
        continue;
      }
      for (const e of parsed.entries) {
        if (seenPages.has(e.loc)) continue;
        seenPages.add(e.loc);
        result.urls.push(e);
      }
    }
    queue = next;
  }
  options.logger?.debug(
    { sitemaps: result.sitemaps.length, urls: result.urls.length, errors: result.errors.length },
    'sitemaps read',
  );
  return result;
}
