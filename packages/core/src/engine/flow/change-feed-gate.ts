import type { ChangedUrls } from '../../feeds/types.js';
import type { SitemapHint } from './recrawl-frequency.js';
import { describeTime, type RecrawlBounds, type RecrawlSchedule, seedInterval } from './recrawl-interval.js';
import type { HeldPage } from './recrawl-policy.js';

/** Why a held page is fetched on a merge with change feeds, or why not (REJECTED_PREMATURE:change-feed). */
export type FeedVerdict = { fetch: true } | { fetch: false; why: string };

/**
 * A merge of a catalog with change feeds (docs/freshness.md#change-feeds) fetches a held page only when a feed (or
 * a push) named it changed since the last run, when the sitemap is one of its feeds and the page's lastmod is after
 * its fetch, or when its recrawl schedule says it is due (the ledger's next-due time; a page never revisited is due
 * its first interval after its fetch). Frequency rules and changefreq are not asked: the feeds say what changed.
 */
export function feedVerdict(
  url: string,
  page: HeldPage,
  feed: ChangedUrls,
  hint: SitemapHint | undefined,
  schedule: RecrawlSchedule | undefined,
  bounds: RecrawlBounds,
  now: number,
): FeedVerdict {
  if (feed.named(url)) return { fetch: true };
  const fetched = Date.parse(page.fetchedAt);
  const lastmod = hint?.lastmod ? Date.parse(hint.lastmod) : Number.NaN;
  if (feed.sitemap && !Number.isNaN(lastmod) && (Number.isNaN(fetched) || lastmod > fetched)) return { fetch: true };
  if (bounds.max === 0) {
    return { fetch: false, why: 'not named changed by a change feed since the last run (the recrawl interval is off)' };
  }
  const due = schedule
    ? Date.parse(schedule.dueAt)
    : Number.isNaN(fetched)
      ? Number.NaN
      : fetched + seedInterval(hint, page.fetchedAt, bounds);
  if (Number.isNaN(due) || now >= due) return { fetch: true };
  return {
    fetch: false,
    why: `not named changed by a change feed since the last run; due by its recrawl schedule ${describeTime(new Date(due).toISOString())}`,
  };
}
