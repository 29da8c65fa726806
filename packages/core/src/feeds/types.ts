/**
 * Change feeds (issue 27 item 1, docs/freshness.md#change-feeds): sources that name what changed on a site since a
 * position, so `merge` fetches only that. This file holds what the feed readers share.
 */

/** The kinds of change feed a catalog's `changeFeeds` setting names. */
export const CHANGE_FEED_KINDS = ['mediawiki', 'rss', 'sitemap'] as const;
export type ChangeFeedKind = (typeof CHANGE_FEED_KINDS)[number];

/** One change feed of a catalog, as the setting holds it (`mediawiki:https://wiki.example/w/api.php`). */
export interface ChangeFeedSpec {
  kind: ChangeFeedKind;
  /** The feed's url: the wiki's api.php, the RSS or Atom feed; none for `sitemap`. */
  url?: string | undefined;
  /** The setting as written: the key its position is kept under. */
  key: string;
  /**
   * The catalog names no feed and this is the default one (`sitemap`, when the site has a sitemap): urls known
   * without a page are asked again as on an ordinary merge, and it applies only once the site's sitemap is found.
   */
  byDefault?: boolean | undefined;
}

/** The `--change-feed` value that opts a catalog out of every feed, the default sitemap feed included. */
export const NO_CHANGE_FEED = 'none';

/** What a feed says of one url. */
export type FeedChangeKind = 'changed' | 'deleted';

/** One change a feed names. */
export interface FeedChange {
  url: string;
  kind: FeedChangeKind;
  /** When it changed (ISO), when the feed says. */
  at?: string | undefined;
}

/** What the recrawlable resolver asks of a merge's change feeds (engine-deps.ts `changeFeed`). */
export interface ChangedUrls {
  /** The url was named changed (or pushed) since the last run. */
  named(url: string): boolean;
  /** The url was named deleted since the last run. */
  deleted(url: string): boolean;
  /** The catalog reads the sitemap as a change feed: a lastmod after the page's fetch names it changed. */
  readonly sitemap: boolean;
  /**
   * The feed is the default one (the catalog names none): a url known without a page (a 404, a duplicate) is asked
   * again as on an ordinary merge, since only a named feed could say when it came back.
   */
  readonly byDefault?: boolean | undefined;
}

/** One request a feed reader makes: the status and the body as text (empty unless 2xx). */
export type FeedFetch = (url: string) => Promise<{ status: number; text: string }>;

/** The bounds of one read of one feed. */
export interface FeedLimits {
  /** Requests (pages of the feed) at most. */
  maxRequests: number;
  /** Changes at most. */
  maxChanges: number;
  /** The read stops at this time (epoch ms). */
  deadline: number;
}

/** The bounds of one read of a feed, by default. */
export const DEFAULT_FEED_LIMITS = { maxRequests: 50, maxChanges: 10_000, ms: 60_000 } as const;

/** What one read of a feed found, and where the next one starts. */
export interface FeedRead {
  changes: FeedChange[];
  /** Where the next read starts (the feed's own position: a timestamp); unchanged when nothing was read. */
  position: string | undefined;
  /** Requests made. */
  requests: number;
  /** The read stopped at a bound before the feed's end (the next read continues from `position`). */
  truncated: boolean;
}

/** A feed reader: one kind of feed read from a position, within bounds. */
export type FeedReader = (
  spec: ChangeFeedSpec,
  position: string | undefined,
  fetch: FeedFetch,
  limits: FeedLimits,
) => Promise<FeedRead>;

/**
 * Parse one `--change-feed` value: `mediawiki:URL`, `rss:URL` (RSS 2.0 or Atom) or `sitemap`.
 * @returns the spec, or a one-line problem naming the forms accepted
 */
export function parseChangeFeed(value: string): ChangeFeedSpec | string {
  const v = value.trim();
  if (v === 'sitemap') return { kind: 'sitemap', key: v };
  if (v === NO_CHANGE_FEED)
    return `"${NO_CHANGE_FEED}" names no feed: it opts the catalog out of the default sitemap feed`;
  const colon = v.indexOf(':');
  const kind = colon > 0 ? v.slice(0, colon).toLowerCase() : '';
  const url = colon > 0 ? v.slice(colon + 1).trim() : '';
  if (kind !== 'mediawiki' && kind !== 'rss') {
    return `"${value}" is not a change feed: use mediawiki:URL (the wiki's api.php), rss:URL (RSS 2.0 or Atom), sitemap, or none (no feed, not even the default sitemap)`;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${value}": ${kind}: takes an http(s) url, e.g. ${kind === 'rss' ? 'rss:https://example.org/feed.xml' : 'mediawiki:https://wiki.example.org/w/api.php'}`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return `"${value}": ${kind}: takes an http(s) url`;
  }
  return { kind, url: parsed.href, key: `${kind}:${parsed.href}` };
}

/** The problem with a `--change-feed` value, or undefined when it is one (or `none`). */
export function changeFeedProblem(value: string): string | undefined {
  if (value.trim() === NO_CHANGE_FEED) return undefined;
  const r = parseChangeFeed(value);
  return typeof r === 'string' ? r : undefined;
}

/** The problem with a catalog's list of feeds as a whole: `none` stands alone. */
export function changeFeedsProblem(values: readonly string[]): string | undefined {
  if (values.length > 1 && values.some((v) => v.trim() === NO_CHANGE_FEED)) {
    return `"${NO_CHANGE_FEED}" opts out of every feed: give it alone, or name the feeds without it`;
  }
  return undefined;
}
