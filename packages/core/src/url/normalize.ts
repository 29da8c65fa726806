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
 * Query (and `;name=value` path) parameter names that carry a visitor's session, compared without letter case:
 * the same page answers under every value, so a site that puts them in its links offers endless new urls for one
 * page (the session-id trap). A catalog extends the list with its `sessionParams` setting.
 */
export const SESSION_PARAMS: readonly string[] = [
  'sid',
  'sessid',
  'sessionid',
  'session_id',
  'sess_id',
  'phpsessid',
  'jsessionid',
  'aspsessionid',
  'cfid',
  'cftoken',
  'zenid',
  'oscsid',
  'xtcsid',
  'wicketsession',
];
const SESSION_SET: ReadonlySet<string> = new Set(SESSION_PARAMS);

/** Session parameter name prefixes: IIS names its cookie `ASPSESSIONID` followed by eight letters. */
const SESSION_PREFIXES: readonly string[] = ['aspsessionid'];

/**
 * true when a parameter name (already decoded) is a session id: one of {@link SESSION_PARAMS}, an `ASPSESSIONID…`
 * name, or one of `extra` (lower case).
 */
export function isSessionParam(name: string, extra?: ReadonlySet<string>): boolean {
  const n = name.toLowerCase();
  return SESSION_SET.has(n) || SESSION_PREFIXES.some((p) => n.startsWith(p)) || extra?.has(n) === true;
}

/** Options of {@link normalizeUrl}. */
export interface NormalizeOptions {
  /** More session parameter names to drop (lower case), besides {@link SESSION_PARAMS}. */
  sessionParams?: ReadonlySet<string> | undefined;
  /**
   * Accept local `file:` urls (a catalog of a folder: see {@link normalizeFileUrl}). Without it a `file:` url is
   * crawlable only when it is resolved against a `file:` base (a link in a local html file), so a web page cannot
   * point the crawler at the disk. @default false
   */
  file?: boolean | undefined;
}

/** `;name=value` path parameters (`;jsessionid=…`) whose name is a session id are dropped. */
function stripPathSessions(path: string, extra?: ReadonlySet<string>): string {
  if (!path.includes(';')) return path;
  return path.replace(/;([^;/=?]*)=?[^;/?]*/g, (m, name: string) => (isSessionParam(safeDecode(name), extra) ? '' : m));
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

function normalizeQuery(search: string, extra?: ReadonlySet<string>): string {
  if (search.length <= 1) return '';
  const pairs: { key: string; pair: string }[] = [];
  for (const part of search.slice(1).split('&')) {
    if (part === '') continue;
    const pair = normalizePercentEncoding(part);
    const eq = pair.indexOf('=');
    const key = eq === -1 ? pair : pair.slice(0, eq);
    const name = safeDecode(key);
    if (isTrackingParam(name) || isSessionParam(name, extra)) continue;
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
 * fragment, drops tracking parameters (`utm_*`, `gclid`, `fbclid`, `mc_cid`, `mc_eid`, `_ga`, `ref_src`, …), drops
 * session ids from the query and from `;name=value` path parameters ({@link SESSION_PARAMS}: `sid`, `PHPSESSID`,
 * `;jsessionid=…`, `ASPSESSIONID…`, `zenid`, `osCsid`, … and `options.sessionParams`), sorts the query parameters
 * by name and drops an empty query.
 *
 * Deliberately kept as they are:
 * - a trailing slash: `http://h/a/` and `http://h/a` are different resources on real servers (the first is a
 *   directory, relative links resolve differently from it), so only an empty path becomes `/`.
 * - `index.html` / `index.htm`: a server may map `/a/` to another file, a listing or a different handler, so
 *   collapsing them could drop a real page. Two urls serving the same page end up as one via content dedup.
 * - letter case of path and query, `+` in the query, and userinfo.
 *
 * A local `file:` url is normalised by {@link normalizeFileUrl} when `options.file` is on or `base` is a `file:` url.
 *
 * @param raw an absolute url, or a reference resolved against `base`
 * @returns the normalised absolute url, or undefined when it is not a crawlable http(s) url
 *   (`mailto:`, `javascript:`, `data:`, `tel:`, malformed, no host) nor an accepted local `file:` url
 */
export function normalizeUrl(raw: string, base?: string | URL, options?: NormalizeOptions): string | undefined {
  const input = raw.trim();
  if (input === '' && base === undefined) return undefined;
  let url: URL;
  try {
    url = base === undefined ? new URL(input) : new URL(input, base);
  } catch {
    return undefined;
  }
  if (url.protocol === 'file:') {
    const local = options?.file === true || (base !== undefined && String(base).startsWith('file:'));
    return local ? normalizeFileUrl(url) : undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.hostname === '' || url.hostname === '.') return undefined;
  if (url.hostname.endsWith('.')) url.hostname = url.hostname.replace(/\.+$/, '');
  url.hash = '';
  const extra = options?.sessionParams;
  const path = stripPathSessions(normalizePercentEncoding(url.pathname), extra);
  if (path !== url.pathname) url.pathname = path;
  const query = normalizeQuery(url.search, extra);
  // An empty query must lose its `?` too: `search = ''` does that, `search = '?'` would not.
  url.search = query;
  return url.href;
}

/**
 * The normal form of a local `file:` url (the file-system source): dot segments resolved (the WHATWG parser does
 * it), repeated slashes collapsed, percent-encoding normalised as for http, query and fragment dropped (a file has
 * neither). A trailing slash is kept as given: a folder's url ends with one (the file extractor lists folders under
 * that form and answers a folder url without it with a redirect to it). Session parameters are not looked for: a
 * `;` in a file name is part of the name.
 *
 * @returns undefined for a url that is not `file:`, or that names another machine (`file://host/…`)
 */
export function normalizeFileUrl(url: URL): string | undefined {
  if (url.protocol !== 'file:' || url.host !== '') return undefined;
  const path = normalizePercentEncoding(url.pathname).replace(/\/{2,}/g, '/');
  return `file://${path.startsWith('/') ? path : `/${path}`}`;
}

/** The key of a normalised url: sha256 hex (char(64)), the same value as ids.urlHash. */
export function urlKey(normalizedUrl: string): string {
  return urlHash(normalizedUrl);
}
