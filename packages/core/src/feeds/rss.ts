import { Parser } from 'htmlparser2';
import type { ChangeFeedSpec, FeedChange, FeedFetch, FeedLimits, FeedRead } from './types.js';

/** One entry of an RSS 2.0 or Atom document: its url, its date, or a tombstone (a deleted entry). */
export interface FeedEntry {
  url: string;
  /** ISO; undefined when the entry has no date that parses. */
  at: string | undefined;
  deleted: boolean;
}

/** An RSS 2.0 or Atom document: its entries in document order, and the url of its next page (RFC 5005). */
export interface ParsedFeed {
  entries: FeedEntry[];
  next: string | undefined;
}

/** A date of an RSS (`Tue, 03 Jun 2026 09:39:21 GMT`) or Atom (`2026-06-03T09:39:21Z`) document, as ISO. */
function isoDate(text: string): string | undefined {
  const ms = Date.parse(text.trim());
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

const local = (name: string) => name.slice(name.indexOf(':') + 1).toLowerCase();

/**
 * Parse an RSS 2.0 or Atom document, without building a DOM (htmlparser2 in XML mode). RSS: each `<item>`'s
 * `<link>` (else a permalink `<guid>`) and `<pubDate>` (else `<dc:date>`); Atom: each `<entry>`'s alternate
 * `<link href>` and `<updated>` (else `<published>`), and tombstones (RFC 6721 `<at:deleted-entry ref when>`, its
 * `<link href>` else its `ref`) as deletions. The next page is a feed-level `<link rel="next">` (Atom, or
 * `<atom:link>` in RSS). Relative urls resolve against `base`.
 */
export function parseFeed(xml: string, base: string): ParsedFeed {
  const entries: FeedEntry[] = [];
  let next: string | undefined;
  let entry: { url?: string; guid?: string; at?: string; deleted: boolean; permalink: boolean } | undefined;
  let field: string | undefined;
  let text = '';
  const resolve = (href: string | undefined) => {
    if (!href) return undefined;
    try {
      return new URL(href.trim(), base).href;
    } catch {
      return undefined;
    }
  };
  const parser = new Parser(
    {
      onopentag(raw, attrs) {
        const name = local(raw);
        if (name === 'item' || name === 'entry') {
          entry = { deleted: false, permalink: true };
          return;
        }
        if (name === 'deleted-entry') {
          const ref = resolve(attrs.ref);
          entry = {
            deleted: true,
            permalink: true,
            guid: ref?.startsWith('http') ? ref : undefined,
            at: isoDate(attrs.when ?? ''),
          };
          return;
        }
        if (name === 'link' && attrs.href !== undefined) {
          const rel = (attrs.rel ?? 'alternate').toLowerCase();
          if (!entry && rel === 'next') next = resolve(attrs.href);
          else if (entry && rel === 'alternate' && !entry.url) entry.url = resolve(attrs.href);
          return;
        }
        if (entry && ['link', 'guid', 'pubdate', 'date', 'updated', 'published'].includes(name)) {
          field = name;
          text = '';
          if (name === 'guid') entry.permalink = (attrs.ispermalink ?? attrs.isPermaLink ?? 'true') !== 'false';
        }
      },
      ontext(t) {
        if (field) text += t;
      },
      onclosetag(raw) {
        const name = local(raw);
        if (entry && field === name) {
          const value = text.trim();
          if (name === 'link' && !entry.url) entry.url = resolve(value);
          else if (name === 'guid' && entry.permalink) entry.guid = resolve(value);
          else if (name === 'pubdate' || name === 'updated') entry.at = isoDate(value) ?? entry.at;
          else if ((name === 'date' || name === 'published') && !entry.at) entry.at = isoDate(value);
          field = undefined;
        }
        if (entry && (name === 'item' || name === 'entry' || name === 'deleted-entry')) {
          const url = entry.url ?? entry.guid;
          if (url?.startsWith('http')) entries.push({ url, at: entry.at, deleted: entry.deleted });
          entry = undefined;
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(xml);
  parser.end();
  return { entries, next };
}

/**
 * Read an RSS 2.0 or Atom feed from a position (the newest entry date the last read saw): the entries dated after
 * it are changes (a tombstone a deletion, anything else a change); an entry without a date is always one. Pages
 * (`rel="next"`) are followed while every entry of a page is after the position (feeds list the newest first),
 * within the limits. The next position is the newest date seen.
 */
export async function readRss(
  spec: ChangeFeedSpec,
  position: string | undefined,
  fetch: FeedFetch,
  limits: FeedLimits,
): Promise<FeedRead> {
  const since = position ? Date.parse(position) : Number.NaN;
  const changes: FeedChange[] = [];
  let newest = Number.isNaN(since) ? undefined : since;
  let url: string | undefined = spec.url;
  let requests = 0;
  let truncated = false;
  const seen = new Set<string>();
  while (url && !seen.has(url)) {
    if (requests >= limits.maxRequests || Date.now() >= limits.deadline || changes.length >= limits.maxChanges) {
      truncated = true;
      break;
    }
    seen.add(url);
    requests++;
    const answer = await fetch(url);
    if (answer.status < 200 || answer.status >= 300) {
      throw new Error(`the feed ${url} answered HTTP ${answer.status}`);
    }
    const page = parseFeed(answer.text, url);
    let newer = 0;
    let older = 0;
    for (const e of page.entries) {
      const at = e.at ? Date.parse(e.at) : Number.NaN;
      if (!Number.isNaN(at) && !Number.isNaN(since) && at <= since) {
        older++;
        continue;
      }
      newer++;
      if (!Number.isNaN(at)) newest = Math.max(newest ?? at, at);
      if (changes.length < limits.maxChanges)
        changes.push({ url: e.url, kind: e.deleted ? 'deleted' : 'changed', at: e.at });
    }
    // Feeds list the newest first: a page that reached the position ends the read.
    url = newer > 0 && older === 0 ? page.next : undefined;
  }
  return {
    changes,
    position: newest === undefined ? position : new Date(newest).toISOString(),
    requests,
    truncated,
  };
}
