import type { Logger } from 'pino';
import type { RobotsProvider } from '../acceptors/acceptor.js';
import type { Politeness } from '../engine/engine-deps.js';
import { recrawlBounds } from '../engine/flow/recrawl-interval.js';
import type { Catalog, CrawlAction, ReportRow } from '../model.js';
import { scopedSeeds } from '../services/job-seeds.js';
import type { BlobStore } from '../storage/blob-store.js';
import { isFileUrl } from '../url/file-url.js';
import {
  type FeedPositions,
  type FeedRunState,
  readPositions,
  readPushes,
  readRunState,
  settleRunState,
  writePositions,
  writeRunState,
} from './feed-state.js';
import { readMediaWiki } from './mediawiki.js';
import { readRss } from './rss.js';
import {
  type ChangedUrls,
  type ChangeFeedSpec,
  DEFAULT_FEED_LIMITS,
  type FeedChange,
  type FeedFetch,
  type FeedReader,
  NO_CHANGE_FEED,
  parseChangeFeed,
} from './types.js';

/** Push files one merge consumes at most. */
const MAX_PUSHES = 1000;

/** The reader of each kind of feed that is read (`sitemap` is judged page by page, from the sitemap already read). */
const READERS: Record<'mediawiki' | 'rss', FeedReader> = { mediawiki: readMediaWiki, rss: readRss };

/** What a run of a catalog with change feeds works with. */
export interface ChangeFeedsOptions {
  catalog: Catalog;
  version: number;
  action: CrawlAction;
  blobs: BlobStore;
  log: Logger;
  /** The run's url normaliser: feed urls compare with the queue's. */
  normalize: (raw: string) => string | undefined;
  /** One request, whatever its type (the run's text fetcher). */
  fetchText: FeedFetch;
  /** The run's host politeness: a feed request waits for its host's slot like a page. */
  politeness: Politeness;
  /** The run's robots.txt; undefined when the catalog ignores it. */
  robots: RobotsProvider | undefined;
  /**
   * The catalog's run reports (any version): a merge reads a feed that has no position yet from the start of the
   * newest run, so what changed since that run is not missed. Absent: from this run's start.
   */
  reports?: (() => Promise<ReadonlyArray<Pick<ReportRow, 'report' | 'createdAt'>>>) | undefined;
  /**
   * A distributed run (a cluster): without `shared` each member would read the feeds, so none does (the merge is an
   * ordinary one).
   */
  distributed?: boolean | undefined;
  /** A distributed run's one set: one member reads the feeds, every other judges by the set it shares. */
  shared?: FeedShare | undefined;
  /**
   * Whether the catalog's site has a sitemap (its start host's sitemaps list a url): the default sitemap feed applies
   * only then. The run's own sitemap read, so it costs no request of its own. Absent: none.
   */
  hasSitemap?: (() => Promise<boolean>) | undefined;
}

/** The set one member of a distributed run read, as the others judge by it; `set` undefined: none (ordinary). */
export interface SharedFeeds {
  set?: { changed: string[]; deleted: string[] } | undefined;
  summary?: string | undefined;
  numbers?: FeedNumbers | undefined;
}

/** What a run's feeds said, as the run report's `changeFeeds` holds it (docs/freshness.md#change-feeds). */
export interface FeedNumbers {
  /** Urls named changed (pushes included) and deleted, in the catalog's scope. */
  changed: number;
  deleted: number;
  /** Push files read. */
  pushes: number;
  /** The feed is the default one (the catalog names none and its site has a sitemap). */
  byDefault?: boolean | undefined;
  /** Each feed read: its changes, its requests, whether it stopped at a bound, why it could not be read. */
  feeds: Array<{ feed: string; changes: number; requests: number; truncated?: boolean; error?: string }>;
}

/**
 * How the members of a distributed run (a cluster) judge by one set: the member that `reads` reads the feeds as a
 * run on its own does (its positions, pushes and kept set are its own to settle) and shares what it read; the others
 * take it — `take` resolves undefined when it never came (bounded) — and settle nothing.
 */
export interface FeedShare {
  reads: boolean;
  share(feeds: SharedFeeds): Promise<void>;
  take(): Promise<SharedFeeds | undefined>;
}

/** A run's change feeds: what the merge fetches, and what is kept once it reaches its end. */
export interface RunChangeFeeds {
  /** The set the recrawlable resolver judges by; undefined: every held page is judged as on an ordinary merge. */
  changed: ChangedUrls | undefined;
  /** Urls to seed besides the start urls: those named changed or deleted (a new page no held page links yet). */
  seeds: string[];
  /** The numbers of the read, for the log and the report's note. */
  summary: string | undefined;
  /** The same numbers as fields, for the run report's `changeFeeds`; undefined when no feed applied. */
  numbers?: FeedNumbers | undefined;
  /** The run ended: when it reached its session's end, the positions are kept and the pushes consumed. */
  settle(ended: { reason: string }): Promise<void>;
}

class UrlSet implements ChangedUrls {
  readonly #changed: ReadonlySet<string>;
  readonly #deleted: ReadonlySet<string>;
  readonly sitemap: boolean;
  readonly byDefault: boolean;
  /** The urls, as a distributed run shares them. */
  readonly state: { changed: string[]; deleted: string[] };
  constructor(state: Pick<FeedRunState, 'changed' | 'deleted'>, specs: readonly ChangeFeedSpec[]) {
    this.#changed = new Set(state.changed);
    this.#deleted = new Set(state.deleted);
    this.sitemap = specs.some((s) => s.kind === 'sitemap');
    this.byDefault = specs.some((s) => s.byDefault === true);
    this.state = { changed: [...state.changed], deleted: [...state.deleted] };
  }
  named(url: string): boolean {
    return this.#changed.has(url);
  }
  deleted(url: string): boolean {
    return this.#deleted.has(url);
  }
}

/**
 * The catalog's feeds as specs (a value the settings let through always parses). A catalog that names none has the
 * default one, `sitemap` (applied only when its site has a sitemap), unless the sitemap is not read (`sitemap` or
 * `recrawlSitemap` off, a folder), the recrawl interval is off (`recrawlMax` 0: a page the sitemap does not date
 * would never be fetched again) or frequency rules are set (`recrawlFrequencies`, which feeds do not ask); `none`
 * opts out.
 */
export function changeFeedSpecs(catalog: Catalog): ChangeFeedSpec[] {
  const s = catalog.settings;
  if (s.changeFeeds.length === 0) {
    const off =
      !s.sitemap ||
      !s.recrawlSitemap ||
      s.recrawlFrequencies.length > 0 ||
      recrawlBounds(s).max === 0 ||
      isFileUrl(catalog.url);
    return off ? [] : [{ kind: 'sitemap', key: 'sitemap', byDefault: true }];
  }
  return s.changeFeeds.flatMap((v) => {
    if (v === NO_CHANGE_FEED) return [];
    const spec = parseChangeFeed(v);
    return typeof spec === 'string' ? [] : [spec];
  });
}

/** The feeds a catalog's `merge` reads, in words (`catalog show`): named, the default, or none. */
export function describeChangeFeeds(catalog: Catalog): string {
  const named = catalog.settings.changeFeeds;
  if (named.length > 0 && named[0] !== NO_CHANGE_FEED) return `${named.join(', ')} (merge fetches what they name)`;
  if (named[0] === NO_CHANGE_FEED) return 'none (every merge judges every held page)';
  return changeFeedSpecs(catalog).length > 0
    ? 'sitemap by default, when the site has one (--change-feed none opts out)'
    : 'none';
}

/** A run the feeds do nothing for: nothing read, nothing kept, nothing written. */
const NO_FEEDS: RunChangeFeeds = { changed: undefined, seeds: [], summary: undefined, settle: async () => undefined };

/**
 * Open the change feeds of a run (issue 27, docs/freshness.md#change-feeds); undefined when the catalog has none,
 * so an ordinary run does nothing more than look at its setting.
 * - `merge`: each feed is read from its position (politely, robots.txt obeyed, bounded in requests, changes and
 *   time), the pushed urls are added, and the set is kept on the catalog (a resumed merge works on the same set). A
 *   feed that cannot be read makes this merge an ordinary one (every held page judged as usual), its position kept.
 * - `resume`: the set its merge kept, if it was one.
 * - `crawl`, `update`, `rebuild`: nothing is read; a feed without a position starts from this run's start (a
 *   `rebuild` moves every feed there: its version was fetched in full from then).
 */
export async function openChangeFeeds(o: ChangeFeedsOptions): Promise<RunChangeFeeds | undefined> {
  const specs = changeFeedSpecs(o.catalog);
  // No feed, or only the default one on a crawl, an update or a rebuild (it does nothing there): nothing is read. A
  // distributed run's reader says so at once — a member whose catalog row is not the same yet would wait for it.
  if (specs.length === 0 || (specs.every((s) => s.byDefault) && o.action !== 'merge' && o.action !== 'resume')) {
    if (o.shared?.reads) await o.shared.share({});
    return undefined;
  }
  if (o.distributed && !o.shared) {
    o.log.info('a distributed run reads no change feed: every held page is judged as on an ordinary merge');
    return undefined;
  }
  if (o.shared && !o.shared.reads) return takeShared(o.shared, specs, o.log);
  const feeds = await readOrDefault(o, specs);
  if (o.shared) {
    const set = feeds.changed instanceof UrlSet ? feeds.changed.state : undefined;
    await o.shared.share({ set, summary: feeds.summary, numbers: feeds.numbers });
  }
  return feeds;
}

/**
 * The default sitemap feed (the catalog names none) applies to a `merge` whose site has a sitemap, and to the
 * `resume` of a merge it applied to (the set that merge kept); nothing else reads, keeps or writes anything for it.
 */
async function readOrDefault(o: ChangeFeedsOptions, specs: ChangeFeedSpec[]): Promise<RunChangeFeeds> {
  if (!specs.some((s) => s.byDefault)) return readChangeFeeds(o, specs);
  if (o.action === 'resume') {
    return (await readRunState(o.blobs, o.catalog.id, o.version)) ? readChangeFeeds(o, specs) : NO_FEEDS;
  }
  if (o.action !== 'merge') return NO_FEEDS;
  if (!(await o.hasSitemap?.())) {
    o.log.info('the site has no sitemap: the default sitemap feed does not apply, every held page is judged as usual');
    return NO_FEEDS;
  }
  return readChangeFeeds(o, specs);
}

/** A member of a distributed run that does not read: the set the reader shared, judged by; nothing to settle. */
async function takeShared(share: FeedShare, specs: ChangeFeedSpec[], log: Logger): Promise<RunChangeFeeds> {
  const shared = await share.take();
  if (!shared) log.warn('the change feeds read for this run never came: every held page is judged as usual');
  const set = shared?.set;
  return {
    changed: set ? new UrlSet(set, specs) : undefined,
    seeds: set ? [...set.changed, ...set.deleted] : [],
    summary: shared ? shared.summary : 'change feeds: the set read for this run never came',
    numbers: shared?.numbers,
    settle: async () => undefined,
  };
}

/** The feeds read (or the kept set taken) by this process, for its run. */
async function readChangeFeeds(o: ChangeFeedsOptions, specs: ChangeFeedSpec[]): Promise<RunChangeFeeds> {
  const startedAt = new Date().toISOString();
  const { catalog, version, blobs, log } = o;
  const positions = await readPositions(blobs, catalog.id);
  if (o.action === 'resume') {
    const kept = await readRunState(blobs, catalog.id, version);
    if (!kept) return settling(o, undefined, [], undefined, positions, []);
    const resumed = settling(
      o,
      new UrlSet(kept, specs),
      [],
      'the change set of the merge it continues',
      kept.positions,
      kept.pushed,
    );
    const byDefault = specs.some((s) => s.byDefault) ? { byDefault: true } : {};
    const counts = { changed: kept.changed.length, deleted: kept.deleted.length, pushes: kept.pushed.length };
    return { ...resumed, numbers: { ...counts, ...byDefault, feeds: [] } };
  }
  if (o.action !== 'merge') {
    const next: FeedPositions = { ...positions };
    for (const s of specs) if (o.action === 'rebuild' || next[s.key] === undefined) next[s.key] = startedAt;
    return settling(o, undefined, [], undefined, next, []);
  }
  const changes: FeedChange[] = [];
  const next: FeedPositions = { ...positions };
  const fetch = politeFeedFetch(o);
  const unread = specs.some((s) => s.kind !== 'sitemap' && positions[s.key] === undefined);
  const since = unread ? ((await lastRunStart(o)) ?? startedAt) : startedAt;
  const read: string[] = [];
  const numbers: FeedNumbers = { changed: 0, deleted: 0, pushes: 0, feeds: [] };
  if (specs.some((s) => s.byDefault)) {
    numbers.byDefault = true;
    read.push('sitemap by default: a lastmod after the fetch');
  }
  for (const spec of specs) {
    if (spec.kind === 'sitemap') continue;
    const deadline = Date.now() + DEFAULT_FEED_LIMITS.ms;
    try {
      const r = await READERS[spec.kind](spec, positions[spec.key] ?? since, fetch, {
        maxRequests: DEFAULT_FEED_LIMITS.maxRequests,
        maxChanges: DEFAULT_FEED_LIMITS.maxChanges,
        deadline,
      });
      changes.push(...r.changes);
      if (r.position) next[spec.key] = r.position;
      read.push(
        `${spec.key}: ${r.changes.length} changes in ${r.requests} requests${r.truncated ? ' (stopped at a bound: the next run continues)' : ''}`,
      );
      numbers.feeds.push({
        feed: spec.key,
        changes: r.changes.length,
        requests: r.requests,
        ...(r.truncated ? { truncated: true } : {}),
      });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      log.warn({ feed: spec.key, err }, 'a change feed could not be read: this merge revisits every held page');
      numbers.feeds.push({ feed: spec.key, changes: 0, requests: 0, error: why });
      const failed = settling(
        o,
        undefined,
        [],
        `${spec.key} could not be read (${why}): every held page was judged as on an ordinary merge`,
        positions,
        [],
      );
      return { ...failed, numbers };
    }
  }
  const pushes = await readPushes(blobs, catalog.id, MAX_PUSHES);
  for (const { push } of pushes) for (const url of push.urls) changes.push({ url, kind: push.kind, at: push.at });
  const state = changeSet(
    o,
    changes,
    next,
    pushes.map((p) => p.key),
  );
  await writeRunState(blobs, catalog.id, version, state);
  const summary = `change feeds: ${state.changed.length} changed, ${state.deleted.length} deleted (${[...read, `${pushes.length} pushes`].join('; ')})`;
  log.info(
    { changed: state.changed.length, deleted: state.deleted.length, feeds: read, pushes: pushes.length },
    'change feeds read',
  );
  numbers.changed = state.changed.length;
  numbers.deleted = state.deleted.length;
  numbers.pushes = pushes.length;
  const feeds = settling(
    o,
    new UrlSet(state, specs),
    [...state.changed, ...state.deleted],
    summary,
    next,
    state.pushed,
  );
  return { ...feeds, numbers };
}

/** When the catalog's newest run began (ISO), from its reports; undefined when it never ran. */
async function lastRunStart(o: ChangeFeedsOptions): Promise<string | undefined> {
  let last: number | undefined;
  for (const r of (await o.reports?.()) ?? []) {
    const at = Date.parse(r.report.startedAt ?? r.createdAt);
    if (Number.isFinite(at) && (last === undefined || at > last)) last = at;
  }
  return last === undefined ? undefined : new Date(last).toISOString();
}

/** The changes in the order they happened (the last word on a url wins), normalised and in the catalog's scope. */
function changeSet(
  o: ChangeFeedsOptions,
  changes: FeedChange[],
  positions: FeedPositions,
  pushed: string[],
): FeedRunState {
  const ordered = changes
    .map((c, i) => ({ c, i, t: c.at ? Date.parse(c.at) : Number.NaN }))
    .sort((a, b) => (Number.isNaN(a.t) || Number.isNaN(b.t) ? a.i - b.i : a.t - b.t || a.i - b.i));
  const last = new Map<string, FeedChange['kind']>();
  for (const { c } of ordered) {
    const url = o.normalize(c.url);
    if (url) last.set(url, c.kind);
  }
  const { valid, refused } = scopedSeeds(o.catalog, [...last.keys()]);
  if (refused.length > 0)
    o.log.info({ refused: refused.length, example: refused[0] }, 'change feeds: urls outside the catalog left out');
  return {
    changed: valid.filter((u) => last.get(u) === 'changed'),
    deleted: valid.filter((u) => last.get(u) === 'deleted'),
    positions,
    pushed,
  };
}

/** A feed request as a page's: robots.txt asked first, then the host's politeness slot. */
function politeFeedFetch(o: ChangeFeedsOptions): FeedFetch {
  return async (url) => {
    if (o.robots && !(await o.robots.isAllowed(url))) throw new Error(`robots.txt refuses ${url}`);
    const release = await o.politeness.acquire(new URL(url).host);
    try {
      return await o.fetchText(url);
    } finally {
      release();
    }
  };
}

function settling(
  o: ChangeFeedsOptions,
  changed: ChangedUrls | undefined,
  seeds: string[],
  summary: string | undefined,
  positions: FeedPositions,
  pushed: string[],
): RunChangeFeeds {
  return {
    changed,
    seeds,
    summary,
    settle: async (ended) => {
      // Only a session that reached its end fetched what the feeds named; a stopped one keeps its set for resume.
      if (ended.reason !== 'frontier-drained') return;
      if (o.action === 'merge' || o.action === 'resume') {
        await settleRunState(o.blobs, o.catalog.id, o.version, positions, pushed);
      } else await writePositions(o.blobs, o.catalog.id, positions);
    },
  };
}
