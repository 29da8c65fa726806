import type { CatalogSettings } from '../config.js';
import type { FrontierEntry } from '../frontier/frontier.js';
import { Outcome } from '../outcomes.js';

/** The rule of a host's trap budget that refused a url: the detail of `REJECTED_TRAP:<rule>`. */
export type TrapRule = 'duplicates-in-a-row' | 'repeating-segments' | 'growing-query' | 'growing-path';

/** A url the trap budget refuses: the rule that tripped and why, with the pattern. */
export interface TrapVerdict {
  readonly rule: TrapRule;
  readonly reason: string;
  /** The pattern whose `trapPatternUrls` budget is spent (absent for duplicates in a row). */
  readonly pattern?: string | undefined;
}

/** The frontier journal's prefix of a run's trap budgets: counted patterns, duplicate streaks, blocked shapes. */
export const TRAP_JOURNAL_PREFIX = 'trap:';

/** Patterns, hosts and blocked shapes tracked at most; past it nothing new is tracked (and nothing refused for it). */
const MAX_TRACKED = 200_000;
/** Longest run of segments looked for by the repeating-segments rule. */
const MAX_RUN = 4;

interface HostStreak {
  /** Duplicate pages of the host in a row (a saved page ends the run). */
  run: number;
  /** The url shapes of those duplicates. */
  shapes: Set<string>;
}

type TrapSettings = Pick<CatalogSettings, 'trapDuplicates' | 'trapPatternUrls'>;

/**
 * A host's trap budget (issue 11): the crawl of a site made of traps ends by itself, and the traps take few requests.
 *
 * - **duplicates-in-a-row**: after `trapDuplicates` duplicate (or near-duplicate) pages of one host in a row, the url
 *   shapes of those pages (path with digit runs as `0`, and the names of the query parameters) are blocked on that
 *   host for the rest of the run: queued urls of those shapes end as REJECTED_TRAP before they are fetched, new
 *   ones are refused before they are dispatched. A saved page of the host ends the run of duplicates.
 * - **repeating-segments**: a path with a run of one segment repeated three times or more (`/next/next/next`), or of
 *   two to four segments repeated twice or more (`/a/b/a/b`), belongs to the pattern where the run is collapsed
 *   (`/(a/b)+`); at most `trapPatternUrls` distinct urls per pattern are dispatched.
 * - **growing-query** (a longer query): a url found on a page of the same path whose query it holds, and more
 *   (`?f=1` → `?f=1&f=2`, faceted links adding a filter per page); at most `trapPatternUrls` per path and names.
 * - **growing-query** / **growing-path**: a url found on a page whose url has the same shape — the same host, the
 *   same path and query parameters, differing only in numbers (`?month=2025-01` → `?month=2025-02`, `?page=7` →
 *   `?page=8`, `/2025/01/` → `/2025/02/`) — is a step of a sequence; at most `trapPatternUrls` such steps per shape
 *   are dispatched. Urls of the same shape found on other pages (a listing linking `?p=1…500`) are not steps.
 *
 * The budgets are counted where a url is first dispatched (the committer's settle), so an offer that is dropped
 * (links of a duplicate page) costs nothing. What changed goes to the frontier's journal with each commit
 * (`drain`, under TRAP_JOURNAL_PREFIX) and a resumed run reads it back (`restore`): a resume does not start the
 * budgets afresh.
 */
export class TrapBudget {
  readonly #settings: () => TrapSettings;
  readonly #streaks = new Map<string, HostStreak>();
  readonly #blocked = new Set<string>();
  readonly #patterns = new Map<string, number>();
  #lastReferrer: { href: string; url: URL | undefined; shape: string | undefined } | undefined;
  /** Urls counted under a pattern this run, with the patterns: each is counted once, also across a resume. */
  readonly #counted = new Map<string, string[]>();
  /** Journal keys changed since the last drain. */
  readonly #dirty = new Set<string>();
  /** Patterns counted for the url being admitted (see #remember). */
  #admitted: string[] = [];

  constructor(settings: () => TrapSettings) {
    this.#settings = settings;
  }

  /**
   * A url about to be dispatched for the first time this run: a verdict when a budget refuses it; otherwise it is
   * counted under its patterns.
   */
  admit(entry: FrontierEntry): TrapVerdict | undefined {
    const url = parse(entry.url);
    if (!url) return undefined;
    const blocked = this.#blockedVerdict(url);
    if (blocked) return blocked;
    // Counted before the stop of a resumed run (and queued then, or refused): not counted twice.
    if (this.#counted.has(entry.url)) return undefined;
    const verdict = this.#patternVerdict(entry, url);
    this.#remember(entry.url);
    return verdict;
  }

  /** The url counted under these patterns: remembered, and journaled at the next commit. */
  #remember(url: string): void {
    if (this.#admitted.length === 0) return;
    if (this.#counted.size < MAX_TRACKED) {
      this.#counted.set(url, this.#admitted);
      this.#dirty.add(`${TRAP_JOURNAL_PREFIX}c:${url}`);
    }
    this.#admitted = [];
  }

  #patternVerdict(entry: FrontierEntry, url: URL): TrapVerdict | undefined {
    const budget = this.#settings().trapPatternUrls;
    const repeating = repeatingPattern(url.pathname);
    if (repeating !== undefined) {
      const key = `r ${url.host}${repeating}`;
      if (this.#count(key, budget) === false)
        return {
          rule: 'repeating-segments',
          reason: `more than ${budget} urls of the path pattern ${url.host}${repeating} (trapPatternUrls)`,
          pattern: `${url.host}${repeating}`,
        };
    }
    // A redirect target is a step of its chain, bounded by GF_MAX_REDIRECTS, not of a sequence of links.
    if (entry.referrer && !entry.redirects && entry.referrer !== entry.url) {
      const ref = this.#referrer(entry.referrer);
      if (ref.url && ref.url.host === url.host && ref.url.pathname === url.pathname && growsQuery(ref.url, url)) {
        const pattern = `${url.host}${url.pathname}?${[...queryNames(url)].sort().join('&')}`;
        if (this.#count(`q ${pattern}`, budget) === false)
          return {
            rule: 'growing-query',
            reason: `more than ${budget} urls of ${pattern} whose query grows on the page before (trapPatternUrls)`,
            pattern,
          };
      }
      const referrerShape = ref.shape;
      if (referrerShape !== undefined && growShape(url) === referrerShape) {
        const rule: TrapRule = ref.url?.pathname === url.pathname ? 'growing-query' : 'growing-path';
        const key = `g ${referrerShape}`;
        if (this.#count(key, budget) === false)
          return {
            rule,
            reason: `more than ${budget} steps of the sequence ${referrerShape} (each url found on the one before; trapPatternUrls)`,
            pattern: referrerShape,
          };
      }
    }
    return undefined;
  }

  /** A url polled from the frontier: a verdict when its shape was blocked (duplicates in a row) since it was queued. */
  blocked(rawUrl: string): TrapVerdict | undefined {
    if (this.#blocked.size === 0) return undefined;
    const url = parse(rawUrl);
    return url ? this.#blockedVerdict(url) : undefined;
  }

  /** A page of the run reached its outcome: duplicates extend the host's run, a saved page ends it. */
  handled(rawUrl: string, outcome: Outcome): void {
    if (outcome !== Outcome.REJECTED_DUPLICATE && outcome !== Outcome.SAVED) return;
    const url = parse(rawUrl);
    if (!url) return;
    let streak = this.#streaks.get(url.host);
    if (outcome === Outcome.SAVED) {
      if (streak && (streak.run > 0 || streak.shapes.size > 0)) {
        streak.run = 0;
        streak.shapes.clear();
        this.#dirty.add(`${TRAP_JOURNAL_PREFIX}s:${url.host}`);
      }
      return;
    }
    if (!streak) {
      if (this.#streaks.size >= MAX_TRACKED) return;
      streak = { run: 0, shapes: new Set() };
      this.#streaks.set(url.host, streak);
    }
    streak.run++;
    if (streak.shapes.size < 1000) streak.shapes.add(dupShape(url));
    this.#dirty.add(`${TRAP_JOURNAL_PREFIX}s:${url.host}`);
    if (streak.run >= this.#settings().trapDuplicates) {
      for (const s of streak.shapes) {
        if (this.#blocked.size >= MAX_TRACKED || this.#blocked.has(s)) continue;
        this.#blocked.add(s);
        this.#dirty.add(`${TRAP_JOURNAL_PREFIX}b:${s}`);
      }
    }
  }

  /**
   * What changed since the last call, as journal entries: `trap:c:<url>` (the patterns it was counted under),
   * `trap:s:<host>` (its duplicates in a row), `trap:b:<shape>` (a blocked shape).
   */
  drain(): Array<[string, string]> {
    if (this.#dirty.size === 0) return [];
    const out: Array<[string, string]> = [];
    const cut = TRAP_JOURNAL_PREFIX.length + 2;
    for (const key of this.#dirty) {
      const kind = key[TRAP_JOURNAL_PREFIX.length];
      const name = key.slice(cut);
      if (kind === 'c') out.push([key, (this.#counted.get(name) ?? []).join('\n')]);
      else if (kind === 'b') out.push([key, '']);
      else {
        const streak = this.#streaks.get(name);
        out.push([key, JSON.stringify({ run: streak?.run ?? 0, shapes: [...(streak?.shapes ?? [])] })]);
      }
    }
    this.#dirty.clear();
    return out;
  }

  /** One journal entry of the interrupted run (see drain): a resumed run continues its budgets. */
  restore(key: string, value: string): void {
    if (!key.startsWith(TRAP_JOURNAL_PREFIX)) return;
    const kind = key[TRAP_JOURNAL_PREFIX.length];
    const name = key.slice(TRAP_JOURNAL_PREFIX.length + 2);
    if (kind === 'c') {
      const patterns = value.split('\n').filter(Boolean);
      for (const p of patterns) {
        if (this.#patterns.size < MAX_TRACKED || this.#patterns.has(p))
          this.#patterns.set(p, (this.#patterns.get(p) ?? 0) + 1);
      }
      if (this.#counted.size < MAX_TRACKED) this.#counted.set(name, patterns);
    } else if (kind === 'b') {
      if (this.#blocked.size < MAX_TRACKED) this.#blocked.add(name);
    } else if (kind === 's') {
      try {
        const { run, shapes } = JSON.parse(value) as { run: number; shapes: string[] };
        if (this.#streaks.size < MAX_TRACKED) this.#streaks.set(name, { run, shapes: new Set(shapes) });
      } catch {
        // A streak that cannot be read starts again: it only delays a block.
      }
    }
  }

  #blockedVerdict(url: URL): TrapVerdict | undefined {
    if (this.#blocked.size === 0) return undefined;
    const shape = dupShape(url);
    if (!this.#blocked.has(shape)) return undefined;
    return {
      rule: 'duplicates-in-a-row',
      reason: `${this.#settings().trapDuplicates} duplicate pages in a row on ${url.host}, among them urls of the shape ${shape} (trapDuplicates)`,
    };
  }

  /** Count one more url under `key`; false when the budget was spent already (the url is refused, not counted). */
  #count(key: string, budget: number): boolean | undefined {
    const n = this.#patterns.get(key);
    if (n === undefined) {
      if (this.#patterns.size >= MAX_TRACKED) return undefined;
      this.#patterns.set(key, 1);
      this.#admitted.push(key);
      return budget >= 1;
    }
    if (n >= budget) return false;
    this.#patterns.set(key, n + 1);
    this.#admitted.push(key);
    return true;
  }

  /** The referrer parsed, with its shape (a page offers many links: this is done once per page). */
  #referrer(referrer: string): { url: URL | undefined; shape: string | undefined } {
    if (this.#lastReferrer?.href !== referrer) {
      const u = parse(referrer);
      this.#lastReferrer = { href: referrer, url: u, shape: u ? growShape(u) : undefined };
    }
    return this.#lastReferrer;
  }
}

function parse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** The query's `name=value` pairs. */
function queryPairs(url: URL): string[] {
  return url.search
    .slice(1)
    .split('&')
    .filter((p) => p !== '');
}

function queryNames(url: URL): Set<string> {
  return new Set(queryPairs(url).map((p) => (p.includes('=') ? p.slice(0, p.indexOf('=')) : p)));
}

/** The url's query holds every pair of the referrer's, and more (faceted links adding one filter per page). */
export function growsQuery(referrer: URL, url: URL): boolean {
  if (url.search.length <= referrer.search.length) return false;
  const have = new Map<string, number>();
  for (const p of queryPairs(url)) have.set(p, (have.get(p) ?? 0) + 1);
  const before = queryPairs(referrer);
  for (const p of before) {
    const n = have.get(p) ?? 0;
    if (n === 0) return false;
    have.set(p, n - 1);
  }
  return queryPairs(url).length > before.length;
}

const DIGITS = /[0-9]+/g;

/** host, path with digit runs as `0`, and the sorted names of the query parameters (values left out). */
export function dupShape(url: URL): string {
  const names = new Set<string>();
  for (const part of url.search.slice(1).split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    names.add(eq === -1 ? part : part.slice(0, eq));
  }
  const query = names.size > 0 ? `?${[...names].sort().join('&')}` : '';
  return `${url.host}${url.pathname.replace(DIGITS, '0')}${query}`;
}

/**
 * host, path and query with digit runs as `0` (`example.com/cal?month=0-0`); undefined when the url has no number
 * at all (it cannot be a step of a numeric sequence).
 */
export function growShape(url: URL): string | undefined {
  const rest = `${url.pathname}${url.search}`;
  if (!/[0-9]/.test(rest)) return undefined;
  return `${url.host}${rest.replace(DIGITS, '0')}`;
}

/**
 * The path pattern of a path with repeating segments — a run of one segment three times or more, or of two to four
 * segments twice or more — with the run collapsed: `/a/b/a/b/a/b/c` → `/(a/b)+/c`; undefined when nothing repeats.
 */
export function repeatingPattern(pathname: string): string | undefined {
  const segs = pathname.split('/').slice(1);
  if (segs.length < 3) return undefined;
  for (let k = 1; k <= MAX_RUN; k++) {
    const need = k === 1 ? 3 : 2;
    for (let i = 0; i + k * need <= segs.length; i++) {
      if (segs.slice(i, i + k).every((s) => s === '')) continue;
      let reps = 1;
      while (i + (reps + 1) * k <= segs.length && sameRun(segs, i, i + reps * k, k)) reps++;
      if (reps >= need) {
        const run = segs.slice(i, i + k).join('/');
        return `/${[...segs.slice(0, i), `(${run})+`, ...segs.slice(i + reps * k)].join('/')}`;
      }
    }
  }
  return undefined;
}

function sameRun(segs: string[], a: number, b: number, k: number): boolean {
  for (let j = 0; j < k; j++) if (segs[a + j] !== segs[b + j]) return false;
  return true;
}

/** The refusal of a trap url, as the queue pipeline counts it. */
export function trapRefusal(url: string, verdict: TrapVerdict) {
  return {
    url,
    outcome: Outcome.REJECTED_TRAP,
    acceptor: verdict.rule,
    reason: verdict.reason,
    pattern: verdict.pattern,
  };
}
