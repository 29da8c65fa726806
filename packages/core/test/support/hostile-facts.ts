import type { Outcome } from '@greenfinger/core';
import { rng } from './random.mjs';

/**
 * The hostile fixture site (hostile-site.ts): every url it serves, the outcome a crawl must end it with, how many
 * times the server may see it, and the setting that governs it. test/integration/hostile-site.test.ts crawls the
 * whole site once and checks every line of this file; docs/reliability.md ("The hostile fixture site") lists the
 * same cases as a table.
 */

/** A report key: an outcome, or `OUTCOME:detail` (`REJECTED_BAD_STATUS:500`). An outcome alone matches any detail. */
export type OutcomeKey = Outcome | `${Outcome}:${string}`;

/** One url of the hostile site. */
export interface HostileUrl {
  /** A path (with its query) on the hostile origin, or `{{OTHER}}/…` on the second loopback origin. */
  url: string;
  /** The case it belongs to (see {@link hostileCases}). */
  case: string;
  /** The outcome it must end with; null = never met (no outcome at all, never requested). */
  outcome: OutcomeKey | null;
  /** A second acceptable outcome, where the contract leaves the choice to the implementation. */
  or?: OutcomeKey | null;
  /** Requests the server may see for it: exactly n, or [min, max]. */
  requests: number | readonly [number, number];
  /** Its answers carry `Retry-After: n`: each retry comes at least n seconds after the answer before it. */
  retryAfterS?: number;
  /** No single request for it may hold the connection longer than this (ms): one deadline per request. */
  maxRequestMs?: number;
  note: string;
}

/**
 * A family of urls without end (a trap): a crawl fetches at most `maxFetched` of them; every one it meets ends
 * SAVED or (beyond the budget) as `rest`.
 */
export interface TrapFamily {
  id: string;
  title: string;
  /** Matches the path + query of every url of the family (as requested, and as the crawl records it). */
  pattern: RegExp;
  /** Its first url, linked from the start page. */
  entry: string;
  /** At most this many requests for urls of the family. */
  maxFetched: number;
  /**
   * How the urls past the budget end: `REJECTED_TRAP` (the trap budget trips, with the rule as detail), or
   * `collapsed` (url normalisation maps them onto a url already met: they never become urls of their own).
   */
  rest: 'REJECTED_TRAP' | 'collapsed';
  /** The detail of REJECTED_TRAP when the contract names it (`REJECTED_TRAP:repeating-segments`). */
  rule?: string;
  /** Outcomes a fetched url of the family may end with. */
  fetchedOutcomes: readonly OutcomeKey[];
  setting: string;
  note: string;
}

/** A picture the gallery page shows. */
export interface HostilePicture {
  path: string;
  contentType: string;
  /** Kept (stored and linked to the page), or dropped as REJECTED_BAD_IMAGE (pictures are not url counters). */
  outcome: 'KEPT' | 'REJECTED_BAD_IMAGE';
  note: string;
}

/** One hostile case, as docs/reliability.md lists it. */
export interface HostileCase {
  id: string;
  title: string;
  /** Url patterns, as a reader would write them. */
  urls: readonly string[];
  /** What it must end with, in words. */
  outcome: string;
  /** The setting (or rule) that governs it. */
  setting: string;
}

/** The node and catalog settings the hostile test crawls with; the site's timings are made against them. */
export const hostileSettings = {
  /** GF_TIMEOUT_MS: the deadline of one request. */
  timeoutMs: 1000,
  /** GF_MAX_BODY_BYTES: 256 KiB. */
  maxBodyBytes: 256 * 1024,
  /** GF_MAX_REDIRECTS. */
  maxRedirects: 5,
  /** Catalog `maxRetries`: one more attempt after a retryable failure. */
  maxRetries: 1,
  /** Catalog `maxConsecutiveFailures` (the default). */
  maxConsecutiveFailures: 20,
  /** Catalog `maxPages`: far above what the site holds (a trap must not be bounded only by it). */
  maxPages: 1000,
  /** Catalog `durationMinutes` (--duration): 40 s. The crawl must end by itself well before it. */
  durationMinutes: 40 / 60,
  /** Catalog `trapDuplicates`: duplicate pages of a host in a row before their url shapes are refused. */
  trapDuplicates: 3,
  /** Catalog `trapPatternUrls`: urls per repeating-segment pattern or numeric sequence. */
  trapPatternUrls: 5,
} as const;

/** Slack on top of the request deadline before a request counts as holding its slot too long. */
const DEADLINE_SLACK_MS = 500;
const MAX_REQUEST_MS = hostileSettings.timeoutMs + DEADLINE_SLACK_MS;
const RETRIED = 1 + hostileSettings.maxRetries;

/** Legitimate pages of the archive (distinct articles), so the traps' share of the requests means something. */
export const ARCHIVE_PAGES = 300;
/** Links to another origin on /links/many. */
export const MANY_LINKS = 5000;
/** Each hop of the redirect chain /redirect/chain/1 → … → /redirect/chain/30 → /redirect/chain/end. */
export const CHAIN_HOPS = 30;

const WORDS = [
  'allotment',
  'bean',
  'beetroot',
  'borage',
  'brassica',
  'cabbage',
  'carrot',
  'chard',
  'chive',
  'clover',
  'compost',
  'courgette',
  'cress',
  'dahlia',
  'fennel',
  'garlic',
  'gooseberry',
  'hazel',
  'kale',
  'leek',
  'lettuce',
  'marigold',
  'medlar',
  'mint',
  'mulch',
  'nettle',
  'onion',
  'parsnip',
  'pea',
  'potato',
  'pumpkin',
  'quince',
  'radish',
  'rhubarb',
  'rocket',
  'rosemary',
  'sage',
  'shallot',
  'sorrel',
  'spinach',
  'squash',
  'strawberry',
  'sweetcorn',
  'tarragon',
  'thyme',
  'tomato',
  'turnip',
  'yarrow',
] as const;

/** The seeded generator of tests, fixture scripts and benches (mulberry32): the same site on every run. */
export const prng: (seed: number) => () => number = rng;

/** The word list the archive's articles are written from. */
export const archiveWords: readonly string[] = WORDS;

/** The paths of the archive's articles: `/notes/<word>-<word>-<word>`, no digits (they are not a numbered series). */
export function archivePaths(n = ARCHIVE_PAGES): string[] {
  const rand = prng(11);
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  const seen = new Set<string>();
  const out: string[] = [];
  for (let guard = 0; out.length < n && guard < n * 100; guard++) {
    const path = `/notes/${pick()}-${pick()}-${pick()}`;
    if (seen.has(path)) continue;
    seen.add(path);
    out.push(path);
  }
  return out;
}

const urls: HostileUrl[] = [
  { url: '/', case: 'start', outcome: 'SAVED', requests: 1, note: 'links to every case' },
  { url: '/notes/', case: 'archive', outcome: 'SAVED', requests: 1, note: `index of ${ARCHIVE_PAGES} articles` },
  ...archivePaths().map(
    (url): HostileUrl => ({ url, case: 'archive', outcome: 'SAVED', requests: 1, note: 'a distinct article' }),
  ),

  // ── Robots ─────────────────────────────────────────────────────────────────────────────────────────────────
  {
    url: '/private/plans.html',
    case: 'robots',
    outcome: 'REJECTED_ROBOTS_TXT',
    requests: 0,
    note: 'Disallow: /private/ — never requested',
  },

  // ── Statuses ───────────────────────────────────────────────────────────────────────────────────────────────
  {
    url: '/status/500',
    case: 'status-5xx',
    outcome: 'REJECTED_BAD_STATUS:500',
    requests: RETRIED,
    note: 'always 500: retried maxRetries times',
  },
  {
    url: '/status/503-then-ok',
    case: 'status-retry-after',
    outcome: 'SAVED',
    requests: 2,
    retryAfterS: 1,
    note: '503 with Retry-After: 1 once, then the page',
  },
  {
    url: '/status/429-then-ok',
    case: 'status-retry-after',
    outcome: 'SAVED',
    requests: 2,
    retryAfterS: 1,
    note: '429 with Retry-After: 1 once, then the page',
  },
  {
    url: '/status/429',
    case: 'status-retry-after',
    outcome: 'REJECTED_BAD_STATUS:429',
    requests: RETRIED,
    retryAfterS: 1,
    note: 'always 429 with Retry-After: 1',
  },
  {
    url: '/status/503-tomorrow',
    case: 'status-retry-after',
    outcome: 'REJECTED_BAD_STATUS:503',
    requests: 1,
    note: 'Retry-After: 86400, beyond the longest wait (30 s): given up at once',
  },
  { url: '/status/404', case: 'status-4xx', outcome: 'REJECTED_NOTFOUND', requests: 1, note: '404' },
  { url: '/status/410', case: 'status-4xx', outcome: 'REJECTED_NOTFOUND', requests: 1, note: '410' },

  // ── Broken connections and slow servers ────────────────────────────────────────────────────────────────────
  {
    url: '/reset/mid-header',
    case: 'reset',
    outcome: 'REJECTED_UNREACHABLE',
    requests: RETRIED,
    note: 'half a status line and headers, then the socket is destroyed',
  },
  {
    url: '/reset/mid-body',
    case: 'reset',
    outcome: 'REJECTED_UNREACHABLE',
    requests: RETRIED,
    note: 'Content-Length: 20000, 2000 bytes, then the socket is destroyed',
  },
  {
    url: '/slow/hang',
    case: 'hang',
    outcome: 'REJECTED_UNREACHABLE',
    requests: RETRIED,
    maxRequestMs: MAX_REQUEST_MS,
    note: 'reads the request and never answers',
  },
  {
    url: '/slow/drip',
    case: 'slow-drip',
    outcome: 'REJECTED_UNREACHABLE',
    requests: 1,
    maxRequestMs: MAX_REQUEST_MS,
    note: 'headers at once, then one byte every 250 ms, for ever (slow loris): given up at the deadline, not retried',
  },
  {
    url: '/slow/steady',
    case: 'slow-steady',
    outcome: 'SAVED',
    requests: 1,
    note: 'headers after 150 ms, 6 KB in three parts 100 ms apart: slow but well inside the deadline',
  },

  // ── Sizes ──────────────────────────────────────────────────────────────────────────────────────────────────
  {
    url: '/big/declared',
    case: 'huge-page',
    outcome: 'REJECTED_TOO_LARGE',
    requests: 1,
    note: 'Content-Length: 4 MiB (over GF_MAX_BODY_BYTES): refused before the body',
  },
  {
    url: '/big/chunked',
    case: 'huge-page',
    outcome: 'REJECTED_TOO_LARGE',
    requests: 1,
    note: '8 MiB chunked, no Content-Length: cut at the cap',
  },
  {
    url: '/big/gzip-bomb',
    case: 'gzip-bomb',
    outcome: 'REJECTED_TOO_LARGE',
    requests: 1,
    note: '1 MiB of gzip that inflates to 1 GiB: cut at the cap while inflating',
  },

  // ── Redirects ──────────────────────────────────────────────────────────────────────────────────────────────
  {
    url: '/redirect/short/1',
    case: 'redirect-short',
    outcome: 'REJECTED_REDIRECT',
    requests: 1,
    note: '301 to /redirect/short/2',
  },
  {
    url: '/redirect/short/2',
    case: 'redirect-short',
    outcome: 'REJECTED_REDIRECT',
    requests: 1,
    note: '302 to /redirect/short/3',
  },
  {
    url: '/redirect/short/3',
    case: 'redirect-short',
    outcome: 'REJECTED_REDIRECT',
    requests: 1,
    note: '307 to /redirect/short/page',
  },
  {
    url: '/redirect/short/page',
    case: 'redirect-short',
    outcome: 'SAVED',
    requests: 1,
    note: '3 hops, within GF_MAX_REDIRECTS',
  },
  {
    url: '/redirect/self',
    case: 'redirect-loop',
    outcome: 'REJECTED_REDIRECT_LOOP',
    requests: 1,
    note: '302 to itself',
  },
  {
    url: '/redirect/loop/a',
    case: 'redirect-loop',
    outcome: 'REJECTED_REDIRECT',
    requests: 1,
    note: '302 to /redirect/loop/b',
  },
  {
    url: '/redirect/loop/b',
    case: 'redirect-loop',
    outcome: 'REJECTED_REDIRECT_LOOP',
    requests: 1,
    note: '302 back to /redirect/loop/a, which is on its chain',
  },
  ...redirectChain('/redirect/chain', 'redirect-chain', `${CHAIN_HOPS}-hop chain to /redirect/chain/end`),
  {
    url: '/redirect/chain/end',
    case: 'redirect-chain',
    outcome: null,
    requests: 0,
    note: 'the end of the chain, past the hop limit: never reached',
  },
  ...redirectChain('/redirect/endless', 'redirect-endless', 'each hop redirects to the next number, for ever'),
  {
    url: '/redirect/away',
    case: 'redirect-offsite',
    outcome: 'REJECTED_REDIRECT',
    requests: 1,
    note: '302 to {{OTHER}}/landing.html',
  },
  {
    url: '{{OTHER}}/landing.html',
    case: 'redirect-offsite',
    outcome: 'REJECTED_OUT_OF_SCOPE',
    requests: 0,
    note: 'redirect target on another origin: never requested',
  },
  {
    url: '/redirect/to-mailto',
    case: 'redirect-offsite',
    outcome: 'REJECTED_REDIRECT',
    requests: 1,
    note: '302 to mailto:…: the target is no url to crawl',
  },
  {
    url: '/redirect/no-location',
    case: 'redirect-offsite',
    outcome: 'REJECTED_REDIRECT',
    requests: 1,
    note: '302 without a Location',
  },

  // ── Links ──────────────────────────────────────────────────────────────────────────────────────────────────
  {
    url: '/links/odd',
    case: 'odd-schemes',
    outcome: 'SAVED',
    requests: 1,
    note: 'javascript:, mailto:, tel:, data:, ftp:, a malformed url and a bare #fragment: none becomes a url',
  },
  {
    url: '/tracked',
    case: 'odd-schemes',
    outcome: 'SAVED',
    requests: 1,
    note: 'linked as /tracked?utm_source=…&gclid=…: requested without the tracking parameters',
  },
  {
    url: '/links/many',
    case: 'many-links',
    outcome: 'SAVED',
    requests: 1,
    note: `${MANY_LINKS} links to another origin`,
  },
  ...Array.from(
    { length: MANY_LINKS },
    (_, i): HostileUrl => ({
      url: `{{OTHER}}/far/${i}`,
      case: 'many-links',
      outcome: 'REJECTED_OUT_OF_SCOPE',
      requests: 0,
      note: 'off-site link',
    }),
  ),

  // ── Meta robots ────────────────────────────────────────────────────────────────────────────────────────────
  {
    url: '/meta/noindex',
    case: 'noindex',
    outcome: 'REJECTED_ROBOTS_META_NOINDEX',
    requests: 1,
    note: '<meta name="robots" content="noindex">: not saved, its links followed',
  },
  {
    url: '/meta/via-noindex',
    case: 'noindex',
    outcome: 'SAVED',
    requests: 1,
    note: 'linked only from the noindex page',
  },
  {
    url: '/meta/nofollow',
    case: 'nofollow',
    outcome: 'SAVED',
    requests: 1,
    note: '<meta name="robots" content="nofollow">: saved, its links not followed',
  },
  {
    url: '/meta/not-followed',
    case: 'nofollow',
    outcome: null,
    requests: 0,
    note: 'linked only from the nofollow page: never met',
  },

  // ── Charsets and content types ─────────────────────────────────────────────────────────────────────────────
  {
    url: '/charset/latin1-as-utf8',
    case: 'bad-charset',
    outcome: 'SAVED',
    requests: 1,
    note: 'windows-1252 bytes under charset=utf-8: saved text decoded as windows-1252, no U+FFFD',
  },
  {
    url: '/charset/unknown-label',
    case: 'bad-charset',
    outcome: 'SAVED',
    requests: 1,
    note: 'charset=x-no-such-charset over utf-8 bytes: decoded as utf-8',
  },
  {
    url: '/binary/as-html',
    case: 'binary-as-html',
    outcome: 'REJECTED_NOT_MARKUP',
    requests: 1,
    note: 'a PNG file served as text/html: its bytes are no markup',
  },
  {
    url: '/binary/octet-stream',
    case: 'binary-as-html',
    outcome: 'REJECTED_NOT_MARKUP:application/octet-stream',
    requests: 1,
    note: 'application/octet-stream: body abandoned after the headers',
  },
  {
    url: '/gallery',
    case: 'broken-images',
    outcome: 'SAVED',
    requests: 1,
    note: 'shows one good and three broken pictures',
  },

  // ── Traps: the urls a correct crawl meets (the families are below) ─────────────────────────────────────────
  {
    url: '/shop/',
    case: 'session-id',
    outcome: 'SAVED',
    requests: 1,
    note: 'links ?sid=, ;jsessionid= and PHPSESSID= variants',
  },
  {
    url: '/shop/basket',
    case: 'session-id',
    outcome: 'SAVED',
    requests: 1,
    note: 'linked only as /shop/basket?sid=<random>',
  },
  {
    url: '/shop/cart',
    case: 'session-id',
    outcome: 'SAVED',
    requests: 1,
    note: 'linked only as /shop/cart;jsessionid=<random>',
  },
  {
    url: '/shop/account',
    case: 'session-id',
    outcome: 'SAVED',
    requests: 1,
    note: 'linked only as /shop/account?PHPSESSID=<random>',
  },
  {
    url: '/dup/1',
    case: 'duplicates',
    outcome: 'SAVED',
    requests: 1,
    note: 'the same text as every /dup/n, with a link to /dup/2',
  },
  {
    url: '/dup/2',
    case: 'duplicates',
    outcome: 'REJECTED_DUPLICATE',
    requests: 1,
    note: 'a duplicate of /dup/1: its link to /dup/3 is not followed',
  },
  {
    url: '/dup/3',
    case: 'duplicates',
    outcome: null,
    requests: 0,
    note: 'linked only from a duplicate: never met',
  },
];

/**
 * A redirect chain `<base>/1 → <base>/2 → …` met at /<base>/1. With GF_MAX_REDIRECTS = 5: hops 1 to 5 redirect;
 * the 6th redirect is one too many, so either /6 ends REJECTED_TOO_MANY_REDIRECTS (its answer was the 6th redirect)
 * or /6 redirects and /7 ends so without being fetched. Exactly one url of the chain ends REJECTED_TOO_MANY_REDIRECTS
 * (see {@link redirectChains}); nothing past /7 is ever requested.
 */
function redirectChain(base: string, caseId: string, note: string): HostileUrl[] {
  const max = hostileSettings.maxRedirects;
  const out: HostileUrl[] = [];
  for (let i = 1; i <= max; i++) {
    out.push({ url: `${base}/${i}`, case: caseId, outcome: 'REJECTED_REDIRECT', requests: 1, note });
  }
  out.push({
    url: `${base}/${max + 1}`,
    case: caseId,
    outcome: 'REJECTED_TOO_MANY_REDIRECTS',
    or: 'REJECTED_REDIRECT',
    requests: 1,
    note: `the ${max + 1}th redirect: past GF_MAX_REDIRECTS`,
  });
  out.push({
    url: `${base}/${max + 2}`,
    case: caseId,
    outcome: 'REJECTED_TOO_MANY_REDIRECTS',
    or: null,
    requests: 0,
    note: 'past the hop limit: ends without a request, or is never met',
  });
  out.push({
    url: `${base}/${max + 3}`,
    case: caseId,
    outcome: null,
    requests: 0,
    note: 'past the hop limit: never met',
  });
  return out;
}

/** Each chain ends with exactly one REJECTED_TOO_MANY_REDIRECTS among its urls. */
const redirectChains = [
  { base: '/redirect/chain', pattern: /^\/redirect\/chain\/\d+$/ },
  { base: '/redirect/endless', pattern: /^\/redirect\/endless\/\d+$/ },
] as const;

const traps: TrapFamily[] = [
  {
    id: 'session-id',
    title: 'Session ids in the url',
    pattern: /[?&;](sid|jsessionid|phpsessid)=/i,
    entry: '/shop/',
    maxFetched: 0,
    rest: 'collapsed',
    fetchedOutcomes: ['SAVED'],
    setting: 'session-id parameters stripped by url normalisation (default list: sid, jsessionid, PHPSESSID)',
    note: 'every shop page links its siblings under fresh random session ids; stripped, they are the same three urls',
  },
  {
    id: 'calendar',
    title: 'Calendar spider trap',
    pattern: /^\/calendar\//,
    entry: '/calendar/2026/01',
    maxFetched: 10,
    rest: 'REJECTED_TRAP',
    fetchedOutcomes: ['SAVED', 'REJECTED_DUPLICATE'],
    setting: 'per-host trap budget (near-duplicate pages in a row, urls per path pattern)',
    note: '"next month" and "previous month" links for ever; the pages differ only by month and year',
  },
  {
    id: 'repeating-segments',
    title: 'Repeating path segments',
    pattern: /^\/repeat\//,
    entry: '/repeat/a/',
    maxFetched: 10,
    rest: 'REJECTED_TRAP',
    rule: 'repeating-segments',
    fetchedOutcomes: ['SAVED', 'REJECTED_DUPLICATE'],
    setting: 'per-host trap budget: urls per path pattern with repeating segments',
    note: 'a relative link `a/` on /repeat/a/ leads to /repeat/a/a/, /repeat/a/a/a/, …',
  },
  {
    id: 'query-sequence',
    title: 'Numbered query sequence',
    pattern: /^\/events\?/,
    entry: '/events?day=2026-01-01',
    maxFetched: 10,
    rest: 'REJECTED_TRAP',
    fetchedOutcomes: ['SAVED', 'REJECTED_DUPLICATE'],
    setting: 'per-host trap budget: steps of a numeric sequence of urls, each found on the one before',
    note: '"next day" and "previous day" links for ever: ?day=2026-01-02, ?day=2025-12-31, …',
  },
  {
    id: 'growing-query',
    title: 'Ever-growing query',
    pattern: /^\/filter\?/,
    entry: '/filter?f=1',
    maxFetched: 10,
    rest: 'REJECTED_TRAP',
    fetchedOutcomes: ['SAVED', 'REJECTED_DUPLICATE'],
    setting: 'per-host trap budget: urls per path pattern with an ever-growing query',
    note: 'each filter page links its own query plus one more `&f=n`',
  },
  {
    id: 'duplicates',
    title: 'Duplicate pages without end',
    pattern: /^\/dup\//,
    entry: '/dup/1',
    maxFetched: 2,
    rest: 'collapsed',
    fetchedOutcomes: ['SAVED', 'REJECTED_DUPLICATE'],
    setting: 'links of a page dropped as a duplicate are not followed',
    note: '/dup/n has the text of /dup/1 and a link to /dup/n+1',
  },
];

const pictures: HostilePicture[] = [
  { path: '/img/good.png', contentType: 'image/png', outcome: 'KEPT', note: 'a valid 200×150 PNG' },
  {
    path: '/img/truncated.jpg',
    contentType: 'image/jpeg',
    outcome: 'REJECTED_BAD_IMAGE',
    note: 'a 200×150 JPEG cut at 60%: header intact, no end of image',
  },
  {
    path: '/img/html.png',
    contentType: 'image/png',
    outcome: 'REJECTED_BAD_IMAGE',
    note: 'an HTML page served as image/png',
  },
  {
    path: '/img/giant.png',
    contentType: 'image/png',
    outcome: 'REJECTED_BAD_IMAGE',
    note: 'a valid PNG header (IHDR, CRC) claiming 100000×100000 pixels',
  },
];

const cases: HostileCase[] = [
  {
    id: 'robots',
    title: 'robots.txt',
    urls: ['/private/*'],
    outcome: 'REJECTED_ROBOTS_TXT, never requested',
    setting: 'catalog `robots` (`--no-robots`)',
  },
  {
    id: 'status-5xx',
    title: '5xx',
    urls: ['/status/500'],
    outcome: 'REJECTED_BAD_STATUS:500 after 1 + maxRetries requests',
    setting: '`--max-retries` (1)',
  },
  {
    id: 'status-retry-after',
    title: '429 / 503 with Retry-After',
    urls: ['/status/429', '/status/429-then-ok', '/status/503-then-ok', '/status/503-tomorrow'],
    outcome:
      'SAVED when the retry, made after Retry-After, succeeds; REJECTED_BAD_STATUS:429 when it does not; REJECTED_BAD_STATUS:503 at once when Retry-After is beyond 30 s',
    setting: '`--max-retries` (1); Retry-After honoured up to 30 s',
  },
  {
    id: 'status-4xx',
    title: '404 / 410',
    urls: ['/status/404', '/status/410'],
    outcome: 'REJECTED_NOTFOUND, one request',
    setting: '—',
  },
  {
    id: 'reset',
    title: 'Reset mid-header / mid-body',
    urls: ['/reset/mid-header', '/reset/mid-body'],
    outcome: 'REJECTED_UNREACHABLE after 1 + maxRetries requests',
    setting: '`--max-retries` (1)',
  },
  {
    id: 'hang',
    title: 'Server that never answers',
    urls: ['/slow/hang'],
    outcome: 'REJECTED_UNREACHABLE after 1 + maxRetries requests, each ended at the deadline',
    setting: '`GF_TIMEOUT_MS` (1000), `--max-retries` (1)',
  },
  {
    id: 'slow-drip',
    title: 'Slow drip (slow loris)',
    urls: ['/slow/drip'],
    outcome: 'REJECTED_UNREACHABLE after one request, ended at the deadline (not retried)',
    setting: '`GF_TIMEOUT_MS` (1000), `GF_MIN_BYTES_PER_SECOND`, `GF_SLOW_BODY_GRACE_MS`',
  },
  {
    id: 'slow-steady',
    title: 'Slow but well inside the deadline',
    urls: ['/slow/steady'],
    outcome: 'SAVED, one request',
    setting: '`GF_TIMEOUT_MS` (1000)',
  },
  {
    id: 'huge-page',
    title: 'Huge page (4 MiB declared, 8 MiB chunked)',
    urls: ['/big/declared', '/big/chunked'],
    outcome: 'REJECTED_TOO_LARGE, one request',
    setting: '`GF_MAX_BODY_BYTES` (256 KiB)',
  },
  {
    id: 'gzip-bomb',
    title: 'Gzip bomb (1 MiB inflating to 1 GiB)',
    urls: ['/big/gzip-bomb'],
    outcome: 'REJECTED_TOO_LARGE, one request; peak RSS bounded',
    setting: '`GF_MAX_BODY_BYTES` (256 KiB, counted after inflating)',
  },
  {
    id: 'redirect-short',
    title: 'Redirect chain within the limit (301, 302, 307)',
    urls: ['/redirect/short/1 → 2 → 3 → page'],
    outcome: 'each hop REJECTED_REDIRECT; the page SAVED',
    setting: '`GF_MAX_REDIRECTS` (5)',
  },
  {
    id: 'redirect-loop',
    title: 'Redirect loops',
    urls: ['/redirect/self', '/redirect/loop/a ↔ /redirect/loop/b'],
    outcome: '/redirect/self and /redirect/loop/b REJECTED_REDIRECT_LOOP; /redirect/loop/a REJECTED_REDIRECT',
    setting: '—',
  },
  {
    id: 'redirect-chain',
    title: `${CHAIN_HOPS}-hop redirect chain`,
    urls: [`/redirect/chain/1 → … → /redirect/chain/${CHAIN_HOPS} → /redirect/chain/end`],
    outcome:
      'hops 1–5 REJECTED_REDIRECT, then exactly one REJECTED_TOO_MANY_REDIRECTS (/6, or /7 unfetched); /8 on never requested',
    setting: '`GF_MAX_REDIRECTS` (5)',
  },
  {
    id: 'redirect-endless',
    title: 'Endless redirect chain',
    urls: ['/redirect/endless/n → /redirect/endless/n+1'],
    outcome: 'as the long chain',
    setting: '`GF_MAX_REDIRECTS` (5)',
  },
  {
    id: 'redirect-offsite',
    title: 'Off-site and odd redirects',
    urls: ['/redirect/away → {{OTHER}}/landing.html', '/redirect/to-mailto', '/redirect/no-location'],
    outcome: 'REJECTED_REDIRECT; the off-site target REJECTED_OUT_OF_SCOPE, never requested',
    setting: 'domain scope',
  },
  {
    id: 'odd-schemes',
    title: 'Odd schemes and tracking parameters',
    urls: ['/links/odd', '/tracked?utm_source=…&gclid=…'],
    outcome:
      'javascript:, mailto:, tel:, data:, ftp:, a malformed url and a bare # never become urls; /tracked is requested without its tracking parameters',
    setting: 'url normalisation',
  },
  {
    id: 'many-links',
    title: `A page of ${MANY_LINKS} off-site links`,
    urls: ['/links/many → {{OTHER}}/far/n'],
    outcome: 'the page SAVED; every link REJECTED_OUT_OF_SCOPE, none requested',
    setting: 'domain scope',
  },
  {
    id: 'noindex',
    title: 'noindex',
    urls: ['/meta/noindex → /meta/via-noindex'],
    outcome: 'REJECTED_ROBOTS_META_NOINDEX; its links followed (SAVED)',
    setting: 'meta robots',
  },
  {
    id: 'nofollow',
    title: 'nofollow',
    urls: ['/meta/nofollow → /meta/not-followed'],
    outcome: 'SAVED; its links never met',
    setting: 'meta robots',
  },
  {
    id: 'bad-charset',
    title: 'Wrong charset',
    urls: ['/charset/latin1-as-utf8', '/charset/unknown-label'],
    outcome:
      'SAVED; latin-1 bytes under charset=utf-8 decoded as windows-1252 (no U+FFFD), counted in `report.content.charsetFallbacks`; an unknown label decoded as utf-8',
    setting: 'charset fallback',
  },
  {
    id: 'binary-as-html',
    title: 'Binary served as html',
    urls: ['/binary/as-html', '/binary/octet-stream'],
    outcome: 'REJECTED_NOT_MARKUP (a PNG served as text/html; application/octet-stream)',
    setting: 'content type; content sniffing for a binary body under text/html',
  },
  {
    id: 'broken-images',
    title: 'Broken pictures (on /gallery)',
    urls: ['/img/truncated.jpg', '/img/html.png', '/img/giant.png'],
    outcome: 'REJECTED_BAD_IMAGE in `report.pictures` (not a url counter); not stored, not linked; /img/good.png kept',
    setting: 'picture validation; `GF_IMAGE_MAX_SIDE`, `GF_IMAGE_MAX_PIXELS`, `GF_IMAGE_MAX_BYTES`',
  },
  {
    id: 'session-id',
    title: 'Session-id trap',
    urls: ['/shop/basket?sid=…', '/shop/cart;jsessionid=…', '/shop/account?PHPSESSID=…'],
    outcome: 'stripped: each shop page requested once and SAVED; no request carries a session id',
    setting: 'url normalisation (built-in session-id list; catalog `sessionParams`)',
  },
  {
    id: 'calendar',
    title: 'Calendar spider trap',
    urls: ['/calendar/yyyy/mm → next / previous month'],
    outcome: 'at most 10 requests; the rest REJECTED_TRAP:<rule>, never requested',
    setting: 'trap budget: catalog `trapPatternUrls` (5)',
  },
  {
    id: 'repeating-segments',
    title: 'Repeating path segments',
    urls: ['/repeat/a/ → /repeat/a/a/ → …'],
    outcome: 'at most 10 requests; the rest REJECTED_TRAP:repeating-segments, never requested',
    setting: 'trap budget: catalog `trapPatternUrls` (5)',
  },
  {
    id: 'query-sequence',
    title: 'Numbered query sequence',
    urls: ['/events?day=yyyy-mm-dd → next / previous day'],
    outcome: 'at most 10 requests; the rest REJECTED_TRAP:<rule>, never requested',
    setting: 'trap budget: catalog `trapPatternUrls` (5)',
  },
  {
    id: 'growing-query',
    title: 'Ever-growing query',
    urls: ['/filter?f=1 → /filter?f=1&f=2 → …'],
    outcome: 'at most 10 requests; the rest REJECTED_TRAP:<rule>, never requested',
    setting: 'trap budget: catalog `trapPatternUrls` (5)',
  },
  {
    id: 'duplicates',
    title: 'Duplicate pages without end',
    urls: ['/dup/n → /dup/n+1'],
    outcome: '/dup/1 SAVED, /dup/2 REJECTED_DUPLICATE, /dup/3 never met',
    setting: 'links of a duplicate not followed; catalog `trapDuplicates` (3); `GF_CONTENT_DEDUP`',
  },
  {
    id: 'archive',
    title: `${ARCHIVE_PAGES} ordinary articles`,
    urls: ['/notes/', '/notes/<word>-<word>-<word>'],
    outcome: 'SAVED, one request each (no trap rule may refuse them)',
    setting: '—',
  },
];

/**
 * What a crawl of the hostile site (start url `/`, catalog url = the site origin, robots on, sitemap off) must end
 * with, under {@link hostileSettings}.
 */
export const hostileFacts = {
  startPath: '/',
  settings: hostileSettings,
  /** Every url a crawl meets or must never meet, with its outcome and request count. */
  urls,
  traps,
  redirectChains,
  pictures,
  cases,
  robots: { disallow: ['/private/'] },
  /** Pages saved: every url whose outcome is SAVED (a trap family's fetched pages come on top). */
  savedPaths: urls.filter((u) => u.outcome === 'SAVED').map((u) => u.url),
  /** The latin-1 page's text, as it must read once saved. */
  latin1Phrase: 'Café crème brûlée for 85 € — “the best in Lyon”',
  /** The unknown-label page's text. */
  unknownLabelPhrase: 'Grüße aus dem Schrebergarten',
} as const;
