import { ConfigError } from '../errors.js';

/**
 * A catalog's schedule (`--schedule`, issue 27): `every <n><unit>` — a run that long after the last one ended
 * (`every 6h`, `every 30 minutes`, `every 2s`) — or a cron expression of five fields (minute hour day-of-month month
 * day-of-week, in the process's local time zone; `*`, lists, ranges, steps and the names jan–dec, sun–sat), or one of
 * `@hourly`, `@daily`, `@weekly`, `@monthly`.
 */
export type Schedule = { kind: 'every'; ms: number; text: string } | { kind: 'cron'; fields: CronFields; text: string };

/** The allowed values of each cron field, expanded. */
export interface CronFields {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  days: ReadonlySet<number>;
  months: ReadonlySet<number>;
  weekdays: ReadonlySet<number>;
  /** Day of month and day of week both restricted: either matching is enough (as cron does). */
  eitherDay: boolean;
}

const FIX =
  'give "every 6h" (s, m, h, d), a cron expression of five fields such as "0 */6 * * *", or @hourly, @daily, @weekly';

const UNITS: Record<string, number> = {
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
};

const MACROS: Record<string, string> = {
  '@hourly': '0 * * * *',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@weekly': '0 0 * * 0',
  '@monthly': '0 0 1 * *',
};

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/** The shortest `every`: a schedule cannot start runs faster than one a second. */
const MIN_EVERY_MS = 1000;
/** The longest `every`: a year. */
const MAX_EVERY_MS = 366 * 86_400_000;

/**
 * Parse a schedule as a user types it.
 * @param field the option or field it came from, named in the error (`--schedule`)
 * @throws ConfigError naming the field, what is wrong and the forms accepted
 */
export function parseSchedule(input: string, field = '--schedule'): Schedule {
  const text = input.trim().replace(/\s+/g, ' ');
  const every = /^every (\d+(?:\.\d+)?) ?([a-z]+)$/i.exec(text);
  if (every) {
    const unit = UNITS[(every[2] ?? '').toLowerCase()];
    if (unit === undefined) throw new ConfigError(field, `"${input}": unknown unit "${every[2]}"`, FIX);
    const ms = Math.round(Number(every[1]) * unit);
    if (!(ms >= MIN_EVERY_MS && ms <= MAX_EVERY_MS)) {
      throw new ConfigError(field, `"${input}" must be between 1 second and 366 days`, FIX);
    }
    return { kind: 'every', ms, text };
  }
  const expression = MACROS[text.toLowerCase()] ?? text;
  const parts = expression.split(' ');
  if (parts.length !== 5) throw new ConfigError(field, `"${input}" is neither "every …" nor five cron fields`, FIX);
  const [min, hour, dom, mon, dow] = parts as [string, string, string, string, string];
  const weekdays = cronField(dow, 0, 7, WEEKDAYS, 'day of week', input, field);
  if (weekdays.has(7)) weekdays.add(0);
  weekdays.delete(7);
  return {
    kind: 'cron',
    text,
    fields: {
      minutes: cronField(min, 0, 59, [], 'minute', input, field),
      hours: cronField(hour, 0, 23, [], 'hour', input, field),
      days: cronField(dom, 1, 31, [], 'day of month', input, field),
      months: cronField(mon, 1, 12, MONTHS, 'month', input, field),
      weekdays,
      eitherDay: dom !== '*' && dow !== '*',
    },
  };
}

/** One cron field expanded to its values: `*`, `5`, `1-5`, `*\/15`, `1-30/2`, lists of those, names. */
function cronField(
  part: string,
  lo: number,
  hi: number,
  names: readonly string[],
  what: string,
  input: string,
  field: string,
): Set<number> {
  const values = new Set<number>();
  const value = (s: string): number => {
    const named = names.indexOf(s.toLowerCase());
    const n = named >= 0 ? named + (names === MONTHS ? 1 : 0) : /^\d+$/.test(s) ? Number(s) : Number.NaN;
    if (!(n >= lo && n <= hi)) {
      throw new ConfigError(field, `"${input}": ${what} "${s}" is not within ${lo}–${hi}`, FIX);
    }
    return n;
  };
  for (const item of part.split(',')) {
    const [range = '', stepText] = item.split('/');
    const step = stepText === undefined ? 1 : /^\d+$/.test(stepText) ? Number(stepText) : 0;
    if (step < 1) throw new ConfigError(field, `"${input}": the step of ${what} "${item}" is not a whole number`, FIX);
    let from: number;
    let to: number;
    if (range === '*') {
      from = lo;
      to = hi;
    } else if (range.includes('-')) {
      const [a = '', b = ''] = range.split('-');
      from = value(a);
      to = value(b);
      if (to < from) throw new ConfigError(field, `"${input}": the ${what} range "${range}" runs backwards`, FIX);
    } else {
      from = value(range);
      to = stepText === undefined ? from : hi;
    }
    for (let n = from; n <= to; n += step) values.add(n);
  }
  return values;
}

/**
 * When the schedule next wants a run: for `every`, that long after the last run ended (now when it never ran); for
 * cron, the first matching minute after the last run (or after now when it never ran), never before the last run.
 */
export function nextRunAt(schedule: Schedule, lastRunAt: number | undefined, now: number): number {
  if (schedule.kind === 'every') return lastRunAt === undefined ? now : lastRunAt + schedule.ms;
  return nextCronMinute(schedule.fields, lastRunAt ?? now);
}

/** The first whole minute strictly after `after` that the fields match (local time); bounded to five years. */
function nextCronMinute(f: CronFields, after: number): number {
  const t = new Date(after);
  t.setSeconds(0, 0);
  t.setMinutes(t.getMinutes() + 1);
  // Whole days, hours and minutes skipped at a time: at most ~2,000 days + 24 hours + 60 minutes a match.
  for (let i = 0; i < 200_000; i++) {
    if (!f.months.has(t.getMonth() + 1)) {
      t.setMonth(t.getMonth() + 1, 1);
      t.setHours(0, 0, 0, 0);
      continue;
    }
    const dom = f.days.has(t.getDate());
    const dow = f.weekdays.has(t.getDay());
    if (!(f.eitherDay ? dom || dow : dom && dow)) {
      t.setDate(t.getDate() + 1);
      t.setHours(0, 0, 0, 0);
      continue;
    }
    if (!f.hours.has(t.getHours())) {
      t.setHours(t.getHours() + 1, 0, 0, 0);
      continue;
    }
    if (!f.minutes.has(t.getMinutes())) {
      t.setMinutes(t.getMinutes() + 1, 0, 0);
      continue;
    }
    return t.getTime();
  }
  return Number.POSITIVE_INFINITY;
}

/** What is wrong with a schedule and the forms accepted, in one line; undefined when it parses. */
export function scheduleProblem(text: string): string | undefined {
  try {
    parseSchedule(text, '');
    return undefined;
  } catch (err) {
    const e = err as ConfigError;
    return `${e.message.replace(/^: /, '')} — ${e.fix ?? FIX}`;
  }
}
