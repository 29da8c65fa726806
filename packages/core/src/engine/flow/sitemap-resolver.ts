import type { Logger } from 'pino';
import type { SitemapEntry } from '../../acceptors/sitemap.js';
import type { SitemapHint } from './recrawl-frequency.js';

/** Hosts whose sitemaps one run reads at most. */
const MAX_HOSTS = 1000;
/** Sitemap entries whose lastmod/changefreq one run remembers (the recrawlable resolver's hints). */
const MAX_HINTS = 1_000_000;

export interface SitemapResolverOptions {
  /**
   * Read the sitemaps of the site a url belongs to (robots.txt `Sitemap:` lines, else /sitemap.xml, indexes, .gz);
   * undefined = no sitemaps are read (the catalog's `sitemap` is off, or the source has none).
   */
  discover: ((siteUrl: string) => Promise<SitemapEntry[]>) | undefined;
  /** Offer the page urls a host's sitemaps list to the queue pipeline. */
  offer: (urls: string[]) => Promise<void>;
  log: Logger;
}

/**
 * Sitemap resolution of the queue pipeline (seed 002): on first contact with each host — its first url accepted in
 * this run — the host's sitemaps are read, once, and what they list is offered to the queue; urls that came from a
 * sitemap do not trigger it. It also keeps what the sitemaps say of each url (`lastmod`, `changefreq`, `priority`)
 * for the recrawlable resolver and the prioritizer. The start url's host is read before any worker polls (`resolve`), other hosts in the
 * background while the crawl goes on; the crawl is not finished while one is being read (`pending`).
 */
export class SitemapResolver {
  readonly #o: SitemapResolverOptions;
  readonly #hosts = new Set<string>();
  readonly #hints = new Map<string, SitemapHint>();
  #pending = 0;
  #failures = 0;

  constructor(options: SitemapResolverOptions) {
    this.#o = options;
  }

  /** Hosts being read right now. */
  get pending(): number {
    return this.#pending;
  }

  /** Hosts whose sitemaps were read (or tried) in this run. */
  get hosts(): number {
    return this.#hosts.size;
  }

  /** What the sitemaps say of a url, if they list it. */
  hint(url: string): SitemapHint | undefined {
    return this.#hints.get(url);
  }

  /** Read a url's host now (the start url, before seeding): the page urls its sitemaps list; [] when read before. */
  async resolve(url: string): Promise<string[]> {
    const origin = originOf(url);
    if (!this.#o.discover || !origin || this.#hosts.has(origin) || this.#hosts.size >= MAX_HOSTS) return [];
    this.#hosts.add(origin);
    return this.#read(origin);
  }

  /** The host of a url was read by the run this one continues (resume): it is not read again. */
  readBefore(url: string): void {
    const origin = originOf(url);
    if (origin && this.#hosts.size < MAX_HOSTS) this.#hosts.add(origin);
  }

  /** A url was accepted: on first contact with its host, its sitemaps are read in the background and offered. */
  contact(url: string): void {
    if (!this.#o.discover) return;
    const origin = originOf(url);
    if (!origin || this.#hosts.has(origin) || this.#hosts.size >= MAX_HOSTS) return;
    this.#hosts.add(origin);
    this.#pending++;
    void this.#read(origin)
      .then((urls) => (urls.length > 0 ? this.#o.offer(urls) : undefined))
      .catch((err: unknown) => this.#o.log.warn({ err, origin }, 'sitemap urls could not be offered'))
      .finally(() => {
        this.#pending--;
      });
  }

  async #read(origin: string): Promise<string[]> {
    let entries: SitemapEntry[];
    try {
      entries = (await this.#o.discover?.(`${origin}/`)) ?? [];
    } catch (err) {
      if (this.#failures++ < 20) this.#o.log.warn({ err, origin }, 'sitemap could not be read');
      return [];
    }
    for (const e of entries) {
      if (this.#hints.size >= MAX_HINTS) break;
      if (e.lastmod !== undefined || e.changefreq !== undefined || e.priority !== undefined) {
        this.#hints.set(e.loc, { lastmod: e.lastmod, changefreq: e.changefreq, priority: e.priority });
      }
    }
    if (entries.length > 0) this.#o.log.info({ origin, urls: entries.length }, 'sitemap urls offered');
    return entries.map((e) => e.loc);
  }
}

/** The origin of an http(s) url (normalised urls: lower-case scheme and host), without parsing it. */
function originOf(url: string): string | undefined {
  return /^https?:\/\/[^/?#]+/.exec(url)?.[0];
}
