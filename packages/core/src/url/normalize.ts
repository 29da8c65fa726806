import { urlHash } from '../ids.js';

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** Query parameter names that only track a visit and never change the resource. */
const TRACKING_PARAMS: ReadonlySet<string> = new Set([
  'gclid',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'yclid',
  'twclid',
  'ttclid',
  'igshid',
  'mc_cid',
  'mc_eid',
  '_ga',
  '_gl',
  '_hsenc',
  '_hsmi',
  'mkt_tok',
  'ref_src',
  'ref_url',
  'vero_id',
  'vero_conv',
  'oly_anon_id',
  'oly_enc_id',
  'wickedid',
  'srsltid',
]);

/** Parameter name prefixes that only track a visit (`utm_source`, `utm_medium`, …). */
const TRACKING_PREFIXES: readonly string[] = ['utm_', 'pk_campaign', 'pk_kwd', 'pk_source', 'pk_medium'];

/** true when a query parameter name (already decoded) is a known tracking parameter. */
export function isTrackingParam(name: string): boolean {
  const n = name.toLowerCase();
  return TRACKING_PARAMS.has(n) || TRACKING_PREFIXES.some((p) => n.startsWith(p));
}

/**
 * RFC 3986 §6.2.2.2: percent-encodings get uppercase hex digits, and octets of unreserved characters are decoded.
 * A `%` not followed by two hex digits is left as it is.
 */
export function normalizePercentEncoding(s: string): string {
  if (!s.includes('%')) return s;
  return s.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => {
    const ch = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

function normalizeQuery(search: string): string {
  if (search.length <= 1) return '';
  const pairs: { key: string; pair: string }[] = [];
  for (const part of search.slice(1).split('&')) {
    if (part === '') continue;
    const pair = normalizePercentEncoding(part);
    const eq = pair.indexOf('=');
    const key = eq === -1 ? pair : pair.slice(0, eq);
    if (isTrackingParam(safeDecode(key))) continue;
    pairs.push({ key, pair });
  }
  if (pairs.length === 0) return '';
  // Stable sort by name only: repeated names keep their order, which some servers give meaning to.
  pairs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return `?${pairs.map((p) => p.pair).join('&')}`;
}

/**
 * The one normal form of a url, used for the frontier, the "already known" filter and resource ids.
 *
 * Starting from the WHATWG URL parser (which lowercases scheme and host, turns IDN hosts into punycode, drops the
 * default port, resolves `.`/`..` segments including `%2e` forms, and gives an empty path as `/`), it also:
 * normalises percent-encoding (uppercase hex, unreserved octets decoded), drops a trailing dot of the host, drops the
 * fragment, drops tracking parameters (`utm_*`, `gclid`, `fbclid`, `mc_cid`, `mc_eid`, `_ga`, `ref_src`, …), sorts
 * the query parameters by name and drops an empty query.
 *
 * Deliberately kept as they are:
 * - a trailing slash: `http://h/a/` and `http://h/a` are different resources on real servers (the first is a
 *   directory, relative links resolve differently from it), so only an empty path becomes `/`.
 * - `index.html` / `index.htm`: a server may map `/a/` to another file, a listing or a different handler, so
 *   collapsing them could drop a real page. Two urls serving the same page end up as one via content dedup.
 * - letter case of path and query, `+` in the query, and userinfo.
 *
 * @param raw an absolute url, or a reference resolved against `base`
 * @returns the normalised absolute url, or undefined when it is not a crawlable http(s) url
 *   (`mailto:`, `javascript:`, `data:`, `tel:`, malformed, no host)
 */
export function normalizeUrl(raw: string, base?: string | URL): string | undefined {
  const input = raw.trim();
  if (input === '' && base === undefined) return undefined;
  let url: URL;
  try {
    url = base === undefined ? new URL(input) : new URL(input, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.hostname === '' || url.hostname === '.') return undefined;
  if (url.hostname.endsWith('.')) url.hostname = url.hostname.replace(/\.+$/, '');
  url.hash = '';
  const path = normalizePercentEncoding(url.pathname);
  if (path !== url.pathname) url.pathname = path;
  const query = normalizeQuery(url.search);
  // An empty query must lose its `?` too: `search = ''` does that, `search = '?'` would not.
  url.search = query;
  return url.href;
}

/** The key of a normalised url: sha256 hex (char(64)), the same value as ids.urlHash. */
export function urlKey(normalizedUrl: string): string {
  return urlHash(normalizedUrl);
}
