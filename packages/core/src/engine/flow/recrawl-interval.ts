import type { LedgerRow } from '../../storage/record-store.js';
import { frequencyMs, type SitemapHint } from './recrawl-frequency.js';

const SECOND = 1000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** No interval is longer than this (the ledger keeps seconds in a 32-bit column). */
const LONGEST = 3660 * DAY;
/** The first interval of a url the sitemap says nothing of, before its bounds. */
const FIRST_INTERVAL = DAY;

/** The catalog's bounds of the adaptive interval, in milliseconds; `max` 0 is the adaptive interval off. */
export interface RecrawlBounds {
  min: number;
  max: number;
}

/** A url's recrawl schedule as the ledger keeps it (interval in milliseconds here). */
export interface RecrawlSchedule {
  every: number;
  /** ISO time it is due again. */
  dueAt: string;
  unchangedVisits: number;
}

/** Milliseconds of a bound (`0`, `1h`, `30d`); 0 when it is not one. */
export function boundMs(bound: string): number {
  const ms = frequencyMs(bound.trim()) ?? 0;
  return Number.isFinite(ms) ? Math.min(ms, LONGEST) : 0;
}

/** The catalog settings' bounds; a min above the max is the max. */
export function recrawlBounds(settings: { recrawlMin: string; recrawlMax: string }): RecrawlBounds {
  const max = boundMs(settings.recrawlMax);
  return { min: Math.min(boundMs(settings.recrawlMin), max), max };
}

const clamp = (ms: number, b: RecrawlBounds) => Math.min(b.max, Math.max(b.min, Math.round(ms)));

/**
 * The interval a url starts from on its first revisit: the sitemap's `changefreq` when it names a period, else the
 * time between its `lastmod` and the fetch that saved it (a page untouched for ten days is not likely to change
 * tomorrow), else one day — within the bounds.
 */
export function seedInterval(hint: SitemapHint | undefined, fetchedAt: string, bounds: RecrawlBounds): number {
  const every = frequencyMs(hint?.changefreq);
  if (every !== undefined && every > 0 && Number.isFinite(every)) return clamp(every, bounds);
  const lastmod = hint?.lastmod ? Date.parse(hint.lastmod) : Number.NaN;
  const fetched = Date.parse(fetchedAt);
  if (!Number.isNaN(lastmod) && !Number.isNaN(fetched) && fetched > lastmod) return clamp(fetched - lastmod, bounds);
  return clamp(FIRST_INTERVAL, bounds);
}

/** The schedule a url had when its revisit began, or none (never revisited, or adaptive interval off then). */
export function heldSchedule(row: LedgerRow | undefined): RecrawlSchedule | undefined {
  if (row?.recrawlEvery == null || !row.dueAt) return undefined;
  return { every: row.recrawlEvery * SECOND, dueAt: row.dueAt, unchangedVisits: row.unchangedVisits ?? 0 };
}

/**
 * The schedule after a revisit fetched at `fetchedAt`: the interval halved when the page changed, doubled when it
 * did not, within the bounds, and due that long after the fetch.
 */
export function nextSchedule(
  every: number,
  unchangedVisits: number,
  changed: boolean,
  fetchedAt: string,
  bounds: RecrawlBounds,
): RecrawlSchedule {
  const next = clamp(changed ? every / 2 : every * 2, bounds);
  const fetched = Date.parse(fetchedAt);
  return {
    every: next,
    dueAt: new Date((Number.isNaN(fetched) ? Date.now() : fetched) + next).toISOString(),
    unchangedVisits: changed ? 0 : unchangedVisits + 1,
  };
}

/** The ledger's three columns of a schedule (the interval in whole seconds). */
export function scheduleColumns(s: RecrawlSchedule): Pick<LedgerRow, 'recrawlEvery' | 'dueAt' | 'unchangedVisits'> {
  return {
    recrawlEvery: Math.max(1, Math.round(s.every / SECOND)),
    dueAt: s.dueAt,
    unchangedVisits: s.unchangedVisits,
  };
}

/** `4d`, `12h`, `90m`, `45s`. */
export function describeInterval(ms: number): string {
  if (ms % DAY === 0) return `${ms / DAY}d`;
  if (ms % HOUR === 0) return `${ms / HOUR}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${Math.round(ms / SECOND)}s`;
}

/** `2026-12-09 10:00` (UTC). */
export function describeTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

/** "unchanged in its last 3 visits: due every 4d, next 2026-12-09 10:00" (or "changed on its last visit: …"). */
export function describeSchedule(s: RecrawlSchedule): string {
  const n = s.unchangedVisits;
  const history = n === 0 ? 'changed on its last visit' : `unchanged in its last ${n === 1 ? 'visit' : `${n} visits`}`;
  return `${history}: due every ${describeInterval(s.every)}, next ${describeTime(s.dueAt)}`;
}

/** Not due by its schedule at `now`: the reason REJECTED_PREMATURE:schedule carries; else undefined. */
export function notDueBySchedule(s: RecrawlSchedule | undefined, now: number): string | undefined {
  if (!s) return undefined;
  const due = Date.parse(s.dueAt);
  return !Number.isNaN(due) && now < due ? describeSchedule(s) : undefined;
}

/** A ledger row's recrawl schedule in words ({@link describeSchedule}); undefined when it has none. */
export function recrawlNote(row: LedgerRow | undefined): string | undefined {
  const s = heldSchedule(row);
  return s ? describeSchedule(s) : undefined;
}
