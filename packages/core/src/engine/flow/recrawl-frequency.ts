import { RECRAWL_EVERY } from '../../config.js';

/** What a sitemap says of one url. */
export interface SitemapHint {
  lastmod?: string | undefined;
  changefreq?: string | undefined;
  /** `<priority>`, 0 to 1 (the prioritizer reads it). */
  priority?: number | undefined;
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
