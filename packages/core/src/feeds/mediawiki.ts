import type { ChangeFeedSpec, FeedChange, FeedFetch, FeedLimits, FeedRead } from './types.js';

/** Changes asked for per request (the API's limit for a client without the apihighlimits right). */
const BATCH = 500;

/** One row of `list=recentchanges` (formatversion=2). */
interface RecentChange {
  type?: string;
  rcid?: number;
  title?: string;
  timestamp?: string;
  logtype?: string;
  logaction?: string;
  logparams?: { target_title?: string };
}

/** The parts of an api.php answer a read uses. */
interface ApiAnswer {
  query?: {
    recentchanges?: RecentChange[];
    general?: { server?: string; articlepath?: string };
  };
  continue?: Record<string, string>;
  error?: { code?: string; info?: string };
}

/** How a wiki's page titles become urls: `server` + `articlepath` with `$1` the title (siteinfo). */
export interface ArticlePath {
  server: string;
  articlepath: string;
}

/** A page title as the wiki writes it in a url: spaces as underscores, percent-encoded but for `/` and `:`. */
export function titleUrl(title: string, path: ArticlePath, base: string): string {
  const encoded = encodeURIComponent(title.replace(/ /g, '_'))
    .replace(/%2F/g, '/')
    .replace(/%3A/g, ':')
    .replace(/%2C/g, ',');
  return new URL(path.server + path.articlepath.replace('$1', encoded), base).href;
}

/**
 * What one recent change says of which urls: an edit or a new page changed its page; a deletion (log `delete`)
 * deleted it, a restore changed it; a move (log `move`) changed the old title (now a redirect, or gone) and the new
 * one. Other log entries (uploads, user rights, blocks) name no page of the collection.
 */
export function recentChangeUrls(rc: RecentChange): Array<{ title: string; kind: FeedChange['kind'] }> {
  if (!rc.title) return [];
  if (rc.type === 'edit' || rc.type === 'new') return [{ title: rc.title, kind: 'changed' }];
  if (rc.type !== 'log') return [];
  if (rc.logtype === 'delete') {
    if (rc.logaction === 'delete') return [{ title: rc.title, kind: 'deleted' }];
    if (rc.logaction === 'restore') return [{ title: rc.title, kind: 'changed' }];
    return [];
  }
  if (rc.logtype === 'move') {
    const target = rc.logparams?.target_title;
    return [{ title: rc.title, kind: 'changed' }, ...(target ? [{ title: target, kind: 'changed' as const }] : [])];
  }
  return [];
}

/** A time as the API writes it, to the second (`2026-12-06T01:50:00Z`); what does not parse is kept. */
function wikiTime(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

async function ask(fetch: FeedFetch, url: string): Promise<ApiAnswer> {
  const answer = await fetch(url);
  if (answer.status < 200 || answer.status >= 300) throw new Error(`${url} answered HTTP ${answer.status}`);
  let body: ApiAnswer;
  try {
    body = JSON.parse(answer.text) as ApiAnswer;
  } catch {
    throw new Error(`${url} did not answer JSON: is it a MediaWiki api.php?`);
  }
  if (body.error) throw new Error(`${url} answered the error ${body.error.code}: ${body.error.info ?? ''}`.trim());
  return body;
}

/** The wiki's article path, asked of `meta=siteinfo` (one request). */
export async function articlePath(api: string, fetch: FeedFetch): Promise<ArticlePath> {
  const u = new URL(api);
  u.search = new URLSearchParams({
    action: 'query',
    meta: 'siteinfo',
    siprop: 'general',
    format: 'json',
    formatversion: '2',
  }).toString();
  const general = (await ask(fetch, u.href)).query?.general;
  if (!general?.articlepath?.includes('$1')) throw new Error(`${api}: siteinfo names no article path`);
  return { server: general.server ?? u.origin, articlepath: general.articlepath };
}

/**
 * Read a MediaWiki wiki's recent changes (`api.php?action=query&list=recentchanges`, edits, new pages and log
 * entries: deletions, restores, moves), oldest first from a position (the timestamp of the last change the last
 * read saw, with its rcid: `2026-12-06T01:50:00Z|4711`; none: from now, nothing read), following `continue` until
 * the end or a limit. Titles become urls by the wiki's article path (`meta=siteinfo`: `server` + `articlepath`).
 * The next position is the last change read.
 */
export async function readMediaWiki(
  spec: ChangeFeedSpec,
  position: string | undefined,
  fetch: FeedFetch,
  limits: FeedLimits,
): Promise<FeedRead> {
  const api = spec.url ?? '';
  if (!position) return { changes: [], position: new Date().toISOString(), requests: 0, truncated: false };
  const path = await articlePath(api, fetch);
  let requests = 1;
  const changes: FeedChange[] = [];
  // The position is `<timestamp>|<rcid>` of the last change read: the API's rcstart is inclusive and to the second,
  // so a change of that second already read (its rcid not above the last) is skipped.
  const [at = position, id = '0'] = position.split('|');
  const start = wikiTime(at);
  let last = { at: start, rcid: Number(id) || 0 };
  let cont: Record<string, string> | undefined = { continue: '' };
  let truncated = false;
  while (cont) {
    if (requests >= limits.maxRequests || Date.now() >= limits.deadline || changes.length >= limits.maxChanges) {
      truncated = true;
      break;
    }
    const u = new URL(api);
    u.search = new URLSearchParams({
      action: 'query',
      list: 'recentchanges',
      rcprop: 'title|timestamp|ids|loginfo',
      rctype: 'edit|new|log',
      rcdir: 'newer',
      rcstart: start,
      rclimit: String(BATCH),
      format: 'json',
      formatversion: '2',
      ...cont,
    }).toString();
    requests++;
    const body = await ask(fetch, u.href);
    for (const rc of body.query?.recentchanges ?? []) {
      const time = rc.timestamp ? wikiTime(rc.timestamp) : undefined;
      const rcid = rc.rcid ?? 0;
      if (time === start && rcid <= Number(id)) continue;
      for (const { title, kind } of recentChangeUrls(rc)) {
        changes.push({ url: titleUrl(title, path, api), kind, at: rc.timestamp });
      }
      if (time && (time > last.at || (time === last.at && rcid > last.rcid))) last = { at: time, rcid };
    }
    cont = body.continue;
  }
  return { changes, position: `${last.at}|${last.rcid}`, requests, truncated };
}
