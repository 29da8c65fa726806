import { RECRAWL_EVERY, type RecrawlFrequency } from '../../config.js';
import { notDueBySchedule, type RecrawlSchedule } from './recrawl-interval.js';
import { cachedRegex } from './regex-cache.js';

/** What a sitemap says of one url. */
export interface SitemapHint {
  lastmod?: string | undefined;
  changefreq?: string | undefined;
  /** `<priority>`, 0 to 1 (the prioritizer reads it). */
  priority?: number | undefined;
}

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
const WORDS: Record<string, number> = {
  always: 0,
  hourly: HOUR,
  daily: DAY,
  weekly: 7 * DAY,
  monthly: 30 * DAY,
  yearly: 365 * DAY,
  never: Number.POSITIVE_INFINITY,
};
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: HOUR, d: DAY, w: 7 * DAY };

/** Milliseconds of a frequency (`daily`, `12h`, `never` = Infinity); undefined when it is not one. */
export function frequencyMs(every: string | undefined): number | undefined {
  if (every === undefined) return undefined;
  const e = every.trim().toLowerCase();
  if (!RECRAWL_EVERY.test(e)) return undefined;
  if (e in WORDS) return WORDS[e];
  const m = /^(\d+)(ms|s|m|h|d|w)$/.exec(e);
  return m ? Number(m[1]) * (UNITS[m[2] ?? 's'] ?? 1000) : undefined;
}

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
