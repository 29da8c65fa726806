import {
  describeSchedule,
  nextSchedule,
  notDue,
  notDueBySchedule,
  recrawlBounds,
  seedInterval,
} from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

const H = 3_600_000;
const D = 24 * H;
const bounds = recrawlBounds({ recrawlMin: '1h', recrawlMax: '30d' });
const fetchedAt = '2026-12-05T10:00:00.000Z';

describe('adaptive recrawl interval', () => {
  it('reads its bounds; 0 turns it off; a min above the max is the max', () => {
    expect(bounds).toEqual({ min: H, max: 30 * D });
    expect(recrawlBounds({ recrawlMin: '1h', recrawlMax: '0' })).toEqual({ min: 0, max: 0 });
    expect(recrawlBounds({ recrawlMin: '2d', recrawlMax: '1d' })).toEqual({ min: D, max: D });
  });

  it('seeds from changefreq, else lastmod, else one day, within the bounds', () => {
    expect(seedInterval({ changefreq: 'weekly' }, fetchedAt, bounds)).toBe(7 * D);
    expect(seedInterval({ changefreq: 'yearly' }, fetchedAt, bounds)).toBe(30 * D);
    expect(seedInterval({ changefreq: 'always' }, fetchedAt, bounds)).toBe(D);
    expect(seedInterval({ lastmod: '2026-11-25T10:00:00Z' }, fetchedAt, bounds)).toBe(10 * D);
    expect(seedInterval({ lastmod: '2026-12-05T09:50:00Z' }, fetchedAt, bounds)).toBe(H);
    expect(seedInterval(undefined, fetchedAt, bounds)).toBe(D);
  });

  it('halves on a change, doubles when unchanged, due that long after the fetch, within the bounds', () => {
    expect(nextSchedule(2 * D, 2, false, fetchedAt, bounds)).toEqual({
      every: 4 * D,
      dueAt: '2026-12-09T10:00:00.000Z',
      unchangedVisits: 3,
    });
    expect(nextSchedule(2 * D, 2, true, fetchedAt, bounds)).toMatchObject({ every: D, unchangedVisits: 0 });
    expect(nextSchedule(H, 0, true, fetchedAt, bounds).every).toBe(H);
    expect(nextSchedule(20 * D, 5, false, fetchedAt, bounds).every).toBe(30 * D);
  });

  it('refuses before the due time with a sentence, and not after', () => {
    const s = { every: 4 * D, dueAt: '2026-12-09T10:00:00.000Z', unchangedVisits: 3 };
    expect(describeSchedule(s)).toBe('unchanged in its last 3 visits: due every 4d, next 2026-12-09 10:00');
    expect(notDueBySchedule(s, Date.parse('2026-12-09T09:59:00Z'))).toBe(describeSchedule(s));
    expect(notDueBySchedule(s, Date.parse('2026-12-09T10:00:00Z'))).toBeUndefined();
    const page = { url: 'https://example.test/a', contentType: 'text/html', fetchedAt };
    const before = Date.parse('2026-12-06T10:00:00Z');
    expect(notDue(page, undefined, [], before, undefined, s)?.detail).toBe('schedule');
    // A sitemap lastmod after the fetch says the page changed: due, whatever the schedule says.
    expect(notDue(page, { lastmod: '2026-12-05T12:00:00Z' }, [], before, undefined, s)).toBeUndefined();
    // A catalog frequency rule decides alone.
    const rule = [{ field: 'url' as const, match: 'example', every: '1h' }];
    expect(notDue(page, undefined, rule, before, undefined, s)).toBeUndefined();
  });
});
