import {
  type Catalog,
  changeFeedProblem,
  changeFeedSpecs,
  changeFeedsProblem,
  defaultCatalogSettings,
  describeChangeFeeds,
  type FeedFetch,
  parseChangeFeed,
  parseFeed,
  readMediaWiki,
  readRss,
  recentChangeUrls,
  titleUrl,
} from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

const limits = () => ({ maxRequests: 50, maxChanges: 10_000, deadline: Date.now() + 10_000 });

/** A WordPress-shaped RSS 2.0 feed: dc:creator, CDATA, a permalink guid on one item, a relative link on none. */
const RSS = `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"
  xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/"
  xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
  <title>Garden notes</title>
  <atom:link href="https://garden.example/feed/" rel="self" type="application/rss+xml" />
  <link>https://garden.example</link>
  <lastBuildDate>Sat, 05 Dec 2026 18:02:11 +0000</lastBuildDate>
  <item>
    <title><![CDATA[Pruning &amp; planting]]></title>
    <link>https://garden.example/2026/12/pruning-planting/</link>
    <dc:creator><![CDATA[ana]]></dc:creator>
    <pubDate>Sat, 05 Dec 2026 18:02:11 +0000</pubDate>
    <guid isPermaLink="false">https://garden.example/?p=812</guid>
    <content:encoded><![CDATA[<p>See <a href="https://garden.example/x">x</a></p>]]></content:encoded>
  </item>
  <item>
    <title>Winter roses</title>
    <pubDate>Thu, 03 Dec 2026 09:15:00 GMT</pubDate>
    <guid>https://garden.example/2026/12/winter-roses/</guid>
  </item>
  <item>
    <title>Old news</title>
    <link>https://garden.example/2026/11/old-news/</link>
    <pubDate>Mon, 02 Nov 2026 07:00:00 GMT</pubDate>
  </item>
</channel></rss>`;

/** A GitHub-style Atom feed, paginated (RFC 5005 rel=next), with a tombstone (RFC 6721). */
const ATOM_1 = `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:at="http://purl.org/atompub/tombstones/1.0" xml:lang="en-US">
  <id>tag:docs.example,2008:/changes</id>
  <link type="text/html" rel="alternate" href="https://docs.example/"/>
  <link type="application/atom+xml" rel="self" href="https://docs.example/changes.atom"/>
  <link rel="next" href="/changes.atom?page=2"/>
  <title>Recent changes</title>
  <updated>2026-12-05T12:00:00Z</updated>
  <entry>
    <id>tag:docs.example,2008:Page/guide</id>
    <published>2026-01-01T00:00:00Z</published>
    <updated>2026-12-05T12:00:00Z</updated>
    <link rel="edit" href="https://docs.example/edit/guide"/>
    <link rel="alternate" type="text/html" href="/guide"/>
    <title>Guide</title>
  </entry>
  <at:deleted-entry ref="https://docs.example/old-page" when="2026-12-05T11:00:00Z">
    <at:comment>moved to the guide</at:comment>
  </at:deleted-entry>
  <entry>
    <id>tag:docs.example,2008:Page/faq</id>
    <updated>2026-12-04T08:30:00+01:00</updated>
    <link href="https://docs.example/faq"/>
    <title>FAQ</title>
  </entry>
</feed>`;

const ATOM_2 = `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <link rel="next" href="/changes.atom?page=3"/>
  <entry><updated>2026-12-03T10:00:00Z</updated><link href="https://docs.example/install"/></entry>
  <entry><updated>2026-11-20T10:00:00Z</updated><link href="https://docs.example/ancient"/></entry>
</feed>`;

/** Answers by url, and every url asked, in order. */
function served(answers: Record<string, string>): { fetch: FeedFetch; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    fetch: async (url) => {
      asked.push(url);
      const text = answers[url];
      return text === undefined ? { status: 404, text: '' } : { status: 200, text };
    },
  };
}

describe('RSS 2.0 and Atom', () => {
  it('RSS: each item by its link (else its permalink guid) and pubDate', () => {
    const feed = parseFeed(RSS, 'https://garden.example/feed/');
    expect(feed.entries).toEqual([
      { url: 'https://garden.example/2026/12/pruning-planting/', at: '2026-12-05T18:02:11.000Z', deleted: false },
      { url: 'https://garden.example/2026/12/winter-roses/', at: '2026-12-03T09:15:00.000Z', deleted: false },
      { url: 'https://garden.example/2026/11/old-news/', at: '2026-11-02T07:00:00.000Z', deleted: false },
    ]);
    expect(feed.next).toBeUndefined();
  });

  it('Atom: the alternate link resolved, updated before published, tombstones, the next page', () => {
    const feed = parseFeed(ATOM_1, 'https://docs.example/changes.atom');
    expect(feed.entries).toEqual([
      { url: 'https://docs.example/guide', at: '2026-12-05T12:00:00.000Z', deleted: false },
      { url: 'https://docs.example/old-page', at: '2026-12-05T11:00:00.000Z', deleted: true },
      { url: 'https://docs.example/faq', at: '2026-12-04T07:30:00.000Z', deleted: false },
    ]);
    expect(feed.next).toBe('https://docs.example/changes.atom?page=2');
  });

  it('reading from a position: entries after it, pages followed while they hold one, the newest date kept', async () => {
    const { fetch, asked } = served({
      'https://docs.example/changes.atom': ATOM_1,
      'https://docs.example/changes.atom?page=2': ATOM_2,
    });
    const spec = { kind: 'rss' as const, url: 'https://docs.example/changes.atom', key: 'rss:x' };
    const r = await readRss(spec, '2026-12-01T00:00:00.000Z', fetch, limits());
    expect(r.changes.map((c) => [c.url, c.kind])).toEqual([
      ['https://docs.example/guide', 'changed'],
      ['https://docs.example/old-page', 'deleted'],
      ['https://docs.example/faq', 'changed'],
      ['https://docs.example/install', 'changed'],
    ]);
    // Page 2 reached the position (its last entry is older): page 3 is not asked.
    expect(asked).toEqual(['https://docs.example/changes.atom', 'https://docs.example/changes.atom?page=2']);
    expect(r.position).toBe('2026-12-05T12:00:00.000Z');
    // From that position nothing is new, and page 2 is not asked.
    const again = served({ 'https://docs.example/changes.atom': ATOM_1 });
    const r2 = await readRss(spec, r.position, again.fetch, limits());
    expect(r2.changes).toEqual([]);
    expect(again.asked).toHaveLength(1);
  });

  it('bounded: at most maxRequests pages, the read says it stopped', async () => {
    const { fetch } = served({
      'https://docs.example/changes.atom': ATOM_1,
      'https://docs.example/changes.atom?page=2': ATOM_2,
    });
    const spec = { kind: 'rss' as const, url: 'https://docs.example/changes.atom', key: 'rss:x' };
    const r = await readRss(spec, '2026-01-01T00:00:00Z', fetch, { ...limits(), maxRequests: 1 });
    expect(r.truncated).toBe(true);
    expect(r.requests).toBe(1);
  });
});

describe('MediaWiki recent changes', () => {
  const api = 'https://wiki.example/w/api.php';
  const siteinfo = JSON.stringify({
    batchcomplete: true,
    query: { general: { mainpage: 'Main Page', server: 'https://wiki.example', articlepath: '/wiki/$1' } },
  });
  // Shaped as en.wikipedia.org answers `list=recentchanges&rcprop=title|timestamp|ids|loginfo&formatversion=2`.
  const page1 = JSON.stringify({
    batchcomplete: true,
    continue: { rccontinue: '20261205101502|1835566', continue: '-||' },
    query: {
      recentchanges: [
        {
          type: 'edit',
          ns: 0,
          title: 'Hazel',
          pageid: 61,
          revid: 901,
          old_revid: 900,
          rcid: 1835560,
          timestamp: '2026-12-05T10:15:00Z',
        },
        {
          type: 'new',
          ns: 0,
          title: 'Río Tinto/Mines',
          pageid: 62,
          revid: 902,
          old_revid: 0,
          rcid: 1835561,
          timestamp: '2026-12-05T10:15:01Z',
        },
      ],
    },
  });
  const page2 = JSON.stringify({
    batchcomplete: true,
    query: {
      recentchanges: [
        {
          type: 'log',
          ns: 0,
          title: 'Old hedge',
          pageid: 0,
          revid: 0,
          old_revid: 0,
          rcid: 1835566,
          timestamp: '2026-12-05T10:15:02Z',
          logid: 77,
          logtype: 'delete',
          logaction: 'delete',
          logparams: {},
        },
        {
          type: 'log',
          ns: 0,
          title: 'Gorse',
          pageid: 63,
          revid: 0,
          old_revid: 0,
          rcid: 1835567,
          timestamp: '2026-12-05T10:15:02Z',
          logid: 78,
          logtype: 'move',
          logaction: 'move',
          logparams: { target_ns: 0, target_title: 'Common gorse' },
        },
        {
          type: 'log',
          ns: 2,
          title: 'User:Ana',
          pageid: 0,
          revid: 0,
          old_revid: 0,
          rcid: 1835568,
          timestamp: '2026-12-05T10:15:03Z',
          logid: 79,
          logtype: 'newusers',
          logaction: 'create',
          logparams: {},
        },
      ],
    },
  });
  const rc = (extra: Record<string, string>) => {
    const u = new URL(api);
    u.search = new URLSearchParams({
      action: 'query',
      list: 'recentchanges',
      rcprop: 'title|timestamp|ids|loginfo',
      rctype: 'edit|new|log',
      rcdir: 'newer',
      rcstart: '2026-12-05T10:00:00Z',
      rclimit: '500',
      format: 'json',
      formatversion: '2',
      ...extra,
    }).toString();
    return u.href;
  };
  const answers = {
    [`${api}?action=query&meta=siteinfo&siprop=general&format=json&formatversion=2`]: siteinfo,
    [rc({ continue: '' })]: page1,
    [rc({ rccontinue: '20261205101502|1835566', continue: '-||' })]: page2,
  };
  const spec = { kind: 'mediawiki' as const, url: api, key: `mediawiki:${api}` };

  it('follows continue to the end; edits, new pages, deletions and moves become urls by the article path', async () => {
    const { fetch, asked } = served(answers);
    const r = await readMediaWiki(spec, '2026-12-05T10:00:00.000Z', fetch, limits());
    expect(asked).toHaveLength(3);
    expect(r.changes.map((c) => [c.url, c.kind])).toEqual([
      ['https://wiki.example/wiki/Hazel', 'changed'],
      ['https://wiki.example/wiki/R%C3%ADo_Tinto/Mines', 'changed'],
      ['https://wiki.example/wiki/Old_hedge', 'deleted'],
      ['https://wiki.example/wiki/Gorse', 'changed'],
      ['https://wiki.example/wiki/Common_gorse', 'changed'],
    ]);
    expect(r.position).toBe('2026-12-05T10:15:03Z|1835568');
    expect(r.truncated).toBe(false);
  });

  it('stopped at a bound, the position is the last change read; from it, what was read is not named again', async () => {
    const { fetch } = served(answers);
    const r = await readMediaWiki(spec, '2026-12-05T10:00:00Z', fetch, { ...limits(), maxRequests: 2 });
    expect(r.truncated).toBe(true);
    expect(r.changes).toHaveLength(2);
    expect(r.position).toBe('2026-12-05T10:15:01Z|1835561');
    expect(recentChangeUrls({ type: 'log', title: 'X', logtype: 'delete', logaction: 'restore' })).toEqual([
      { title: 'X', kind: 'changed' },
    ]);
  });

  it('an api.php that answers an error, or not JSON, fails the read in one line', async () => {
    const err = served({
      [`${api}?action=query&meta=siteinfo&siprop=general&format=json&formatversion=2`]: JSON.stringify({
        error: { code: 'readapidenied', info: 'You need read permission to use this module.' },
      }),
    });
    await expect(readMediaWiki(spec, '2026-12-05T10:00:00Z', err.fetch, limits())).rejects.toThrow(
      /answered the error readapidenied: You need read permission/,
    );
    const html = served({ [`${api}?action=query&meta=siteinfo&siprop=general&format=json&formatversion=2`]: '<html>' });
    await expect(readMediaWiki(spec, '2026-12-05T10:00:00Z', html.fetch, limits())).rejects.toThrow(
      /did not answer JSON/,
    );
  });

  it('titles as the wiki writes them in urls', () => {
    const path = { server: '//wiki.example', articlepath: '/wiki/$1' };
    expect(titleUrl('Talk:A b/c?d', path, api)).toBe('https://wiki.example/wiki/Talk:A_b/c%3Fd');
  });
});

describe('--change-feed values', () => {
  it('mediawiki:URL, rss:URL and sitemap; anything else is one line naming the forms', () => {
    expect(parseChangeFeed('sitemap')).toEqual({ kind: 'sitemap', key: 'sitemap' });
    expect(parseChangeFeed('RSS:https://a.example/feed')).toEqual({
      kind: 'rss',
      url: 'https://a.example/feed',
      key: 'rss:https://a.example/feed',
    });
    expect(parseChangeFeed('atom:https://a.example/feed')).toMatch(
      /use mediawiki:URL .*, rss:URL .*, sitemap, or none/,
    );
    expect(parseChangeFeed('mediawiki:wiki.example/api.php')).toMatch(/takes an http\(s\) url, e\.g\. mediawiki:https/);
    expect(parseChangeFeed('rss:ftp://a.example/feed')).toMatch(/takes an http\(s\) url/);
  });

  it('none is a value of its own, alone', () => {
    expect(changeFeedProblem('none')).toBeUndefined();
    expect(changeFeedsProblem(['none'])).toBeUndefined();
    expect(changeFeedsProblem(['none', 'sitemap'])).toMatch(/"none" opts out of every feed: give it alone/);
  });

  it('naming none, the sitemap by default — unless it is not read, the interval is off or frequency rules are set', () => {
    const catalog = (settings: Partial<Catalog['settings']>, url = 'https://a.example/'): Catalog =>
      ({ id: 'c', name: 'a', url, startUrl: url, settings: { ...defaultCatalogSettings, ...settings } }) as Catalog;
    expect(changeFeedSpecs(catalog({}))).toEqual([{ kind: 'sitemap', key: 'sitemap', byDefault: true }]);
    expect(describeChangeFeeds(catalog({}))).toMatch(/^sitemap by default, when the site has one/);
    expect(changeFeedSpecs(catalog({ changeFeeds: ['none'] }))).toEqual([]);
    expect(changeFeedSpecs(catalog({ changeFeeds: ['rss:https://a.example/f'] }))).toEqual([
      { kind: 'rss', url: 'https://a.example/f', key: 'rss:https://a.example/f' },
    ]);
    for (const off of [
      { sitemap: false },
      { recrawlSitemap: false },
      { recrawlMax: '0' },
      { recrawlFrequencies: [{ pattern: '.*', every: '1d' }] },
    ] as Array<Partial<Catalog['settings']>>) {
      expect(changeFeedSpecs(catalog(off)), JSON.stringify(off)).toEqual([]);
    }
    expect(changeFeedSpecs(catalog({}, 'file:///srv/docs/'))).toEqual([]);
  });
});
