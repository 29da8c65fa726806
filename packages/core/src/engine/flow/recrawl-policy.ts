import type { RecrawlFrequency } from '../../config.js';
import { frequencyMs, type SitemapHint } from './recrawl-frequency.js';
import { notDueBySchedule, type RecrawlSchedule } from './recrawl-interval.js';
import { cachedRegex } from './regex-cache.js';

export { frequencyMs, type SitemapHint } from './recrawl-frequency.js';

/** A page the version holds: when it was fetched, and its type. */
export interface HeldPage {
  url: string;
  contentType: string;
  fetchedAt: string;
}

/** Not due: why (the example of REJECTED_PREMATURE:<detail>). */
export interface NotDue {
  detail: 'lastmod' | 'changefreq' | 'frequency' | 'schedule';
  why: string;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function describe(ms: number): string {
  if (ms === Number.POSITIVE_INFINITY) return 'never';
  if (ms % DAY === 0) return `${ms / DAY}d`;
  if (ms % HOUR === 0) return `${ms / HOUR}h`;
  return `${Math.round(ms / 1000)}s`;
}

/**
 * The recrawlable resolver (seed 002): is a page held by the version due to be fetched again on an incremental run?
 * In order: a catalog frequency rule that matches decides alone; else the sitemap's `lastmod` — a page fetched after
 * its lastmod is not due (one modified since is due); else the url's adaptive recrawl schedule (the ledger's
 * next-due time, docs/freshness.md#the-recrawl-interval) — not due before that time; else its `changefreq` — not due
 * until that period has passed since it was fetched. With nothing known, the page is due. Dates that do not parse
 * count as unknown.
 */
export function notDue(
  page: HeldPage,
  hint: SitemapHint | undefined,
  rules: readonly RecrawlFrequency[],
  now: number,
  regex: (pattern: string) => { test(text: string): boolean } = cachedRegex,
  schedule?: RecrawlSchedule,
): NotDue | undefined {
  const fetched = Date.parse(page.fetchedAt);
  if (Number.isNaN(fetched)) return undefined;
  const age = now - fetched;
  const rule = rules.find((r) => regex(r.match).test(r.field === 'url' ? page.url : page.contentType));
  if (rule) {
    const every = frequencyMs(rule.every) ?? 0;
    return age < every
      ? {
          detail: 'frequency',
          why: `fetched ${describe(age)} ago; the catalog recrawls /${rule.match}/ every ${rule.every}`,
        }
      : undefined;
  }
  const lastmod = hint?.lastmod ? Date.parse(hint.lastmod) : Number.NaN;
  if (!Number.isNaN(lastmod)) {
    return lastmod <= fetched
      ? { detail: 'lastmod', why: `sitemap lastmod ${hint?.lastmod} is not after the fetch of ${page.fetchedAt}` }
      : undefined;
  }
  if (schedule) {
    const why = notDueBySchedule(schedule, now);
    return why ? { detail: 'schedule', why } : undefined;
  }
  const every = frequencyMs(hint?.changefreq);
  if (every !== undefined && age < every) {
    return { detail: 'changefreq', why: `sitemap changefreq ${hint?.changefreq}; fetched ${describe(age)} ago` };
  }
  return undefined;
}
