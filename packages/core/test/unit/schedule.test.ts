import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { resolveCatalogSettings } from '../../src/settings/catalog-settings.js';
import { nextRunAt, parseSchedule, scheduleProblem } from '../../src/settings/schedule.js';

/** A local time as epoch ms (cron reads local time). */
const at = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => new Date(y, mo - 1, d, h, mi, s).getTime();
const local = (ms: number) => {
  const t = new Date(ms);
  return [t.getFullYear(), t.getMonth() + 1, t.getDate(), t.getHours(), t.getMinutes()];
};

describe('schedules', () => {
  it('every: units and spellings, counted from the last run’s end, now when it never ran', () => {
    expect(parseSchedule('every 6h')).toMatchObject({ kind: 'every', ms: 6 * 3_600_000 });
    expect(parseSchedule('  every   30 minutes ')).toMatchObject({
      kind: 'every',
      ms: 30 * 60_000,
      text: 'every 30 minutes',
    });
    expect(parseSchedule('EVERY 1.5d')).toMatchObject({ ms: 36 * 3_600_000 });
    const s = parseSchedule('every 2s');
    expect(nextRunAt(s, 10_000, 99_999)).toBe(12_000);
    expect(nextRunAt(s, undefined, 99_999)).toBe(99_999);
  });

  it('cron: the first matching minute after the last run, in local time', () => {
    const six = parseSchedule('0 */6 * * *');
    expect(local(nextRunAt(six, at(2026, 12, 5, 7, 30), 0))).toEqual([2026, 12, 5, 12, 0]);
    expect(local(nextRunAt(six, at(2026, 12, 5, 12, 0), 0))).toEqual([2026, 12, 5, 18, 0]);
    // Never ran: the next match after now.
    expect(local(nextRunAt(six, undefined, at(2026, 12, 31, 23, 59, 30)))).toEqual([2027, 1, 1, 0, 0]);
    // Weekdays by name and a range: 03:15 Monday to Friday; 5 December 2026 is a Saturday.
    const weekdays = parseSchedule('15 3 * * mon-fri');
    expect(local(nextRunAt(weekdays, at(2026, 12, 5, 4), 0))).toEqual([2026, 12, 7, 3, 15]);
    // Day of month and day of week both given: either matches (cron's rule).
    const either = parseSchedule('0 0 1 * sun');
    expect(local(nextRunAt(either, at(2026, 12, 5, 1), 0))).toEqual([2026, 12, 6, 0, 0]);
    // 7 is Sunday too; a list and a step over a range; a month by name.
    expect(local(nextRunAt(parseSchedule('0 12 * * 7'), at(2026, 12, 5), 0))).toEqual([2026, 12, 6, 12, 0]);
    expect(local(nextRunAt(parseSchedule('10,40 8-12/2 * feb *'), at(2026, 12, 5), 0))).toEqual([2027, 2, 1, 8, 10]);
    expect(local(nextRunAt(parseSchedule('@daily'), at(2026, 12, 5, 9), 0))).toEqual([2026, 12, 6, 0, 0]);
    // 30 February never comes: no next run.
    expect(nextRunAt(parseSchedule('0 0 30 2 *'), at(2026, 12, 5), 0)).toBe(Number.POSITIVE_INFINITY);
  });

  it('refuses what it cannot run, naming the field and the forms accepted', () => {
    for (const bad of [
      'every tuesday',
      'every 0s',
      'every 400d',
      'hourly',
      '61 * * * *',
      '* * * *',
      '5-1 * * * *',
      '*/0 * * * *',
      '* * * foo *',
    ]) {
      expect(() => parseSchedule(bad, '--schedule'), bad).toThrow(ConfigError);
      expect(scheduleProblem(bad), bad).toMatch(/every 6h.*cron/);
    }
    expect(() => parseSchedule('61 * * * *', '--schedule')).toThrow(
      /--schedule: "61 \* \* \* \*": minute "61" is not within 0–59/,
    );
    expect(scheduleProblem('every 6h')).toBeUndefined();
  });

  it('is a catalog setting: empty by default, checked where settings are resolved', () => {
    expect(resolveCatalogSettings({}).schedule).toBe('');
    expect(resolveCatalogSettings({ schedule: ' every 6h ' }).schedule).toBe('every 6h');
    expect(() => resolveCatalogSettings({ schedule: 'every tuesday' })).toThrow(
      /--schedule: "every tuesday" is neither "every …" nor five cron fields — give "every 6h"/,
    );
  });
});
