import { discoverSitemapUrls, HttpRobotsProvider, parseSitemap, type RobotsFetch } from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

function urlset(locs: string[], extra = ''): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
${locs.map((l) => `  <url><loc>${l}</loc>${extra}</url>`).join('\n')}
</urlset>`;
}

function sitemapIndex(locs: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${locs.map((l) => `  <sitemap><loc>${l}</loc><lastmod>2024-05-01</lastmod></sitemap>`).join('\n')}
</sitemapindex>`;
}

describe('parseSitemap', () => {
  it('reads <loc>, <lastmod> and <changefreq> of a urlset, normalising urls and decoding entities', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url>
    <loc> http://Example.com/a?b=2&amp;a=1 </loc>
    <lastmod>2024-01-02T03:04:05+00:00</lastmod>
    <changefreq>daily</changefreq>
    <image:image><image:loc>http://example.com/pic.png</image:loc></image:image>
  </url>
  <url><loc><![CDATA[http://example.com/b?x=1&y=2]]></loc></url>
  <url><loc>mailto:someone@example.com</loc></url>
  <url><loc></loc></url>
  <!-- <url><loc>http://example.com/commented</loc></url> -->
</urlset>`;
    expect(parseSitemap(xml)).toEqual({
      kind: 'urlset',
      entries: [
        { loc: 'http://example.com/a?a=1&b=2', lastmod: '2024-01-02T03:04:05+00:00', changefreq: 'daily' },
        { loc: 'http://example.com/b?x=1&y=2' },
      ],
      truncated: false,
    });
  });

  it('reads <priority> from 0.0 to 1.0, and leaves out one that is not a number in that range', () => {
    const xml = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>http://example.com/a</loc><priority>1.0</priority></url>
  <url><loc>http://example.com/b</loc><priority> 0.3 </priority><changefreq>weekly</changefreq></url>
  <url><loc>http://example.com/c</loc><priority>high</priority></url>
  <url><loc>http://example.com/d</loc><priority>1.5</priority></url>
</urlset>`;
    expect(parseSitemap(xml).entries).toEqual([
      { loc: 'http://example.com/a', priority: 1 },
      { loc: 'http://example.com/b', priority: 0.3, changefreq: 'weekly' },
      { loc: 'http://example.com/c' },
      { loc: 'http://example.com/d' },
    ]);
  });

  it('reads a sitemap index', () => {
    const parsed = parseSitemap(sitemapIndex(['http://example.com/s1.xml', 'http://example.com/s2.xml']));
    expect(parsed.kind).toBe('sitemapindex');
    expect(parsed.entries).toEqual([
      { loc: 'http://example.com/s1.xml', lastmod: '2024-05-01' },
      { loc: 'http://example.com/s2.xml', lastmod: '2024-05-01' },
    ]);
  });

  it('ignores namespace prefixes on the sitemap elements', () => {
    const xml =
      '<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>http://example.com/p</sm:loc></sm:url></sm:urlset>';
    expect(parseSitemap(xml).entries).toEqual([{ loc: 'http://example.com/p' }]);
  });

  it('drops an entry the file ends inside (a cut-off download) and says so', () => {
    const cut =
      '<urlset><url><loc>https://e.com/a</loc></url><url><loc>https://e.com/b</loc></url><url><loc>https://e.c';
    const r = parseSitemap(cut);
    expect(r.entries.map((e) => e.loc)).toEqual(['https://e.com/a', 'https://e.com/b']);
    expect(r.truncated).toBe(true);
    const whole = parseSitemap('<urlset><url><loc>https://e.com/a</loc></url></urlset>');
    expect(whole).toMatchObject({ kind: 'urlset', truncated: false });
  });

  it('keeps at most maxUrls entries and says so', () => {
    const locs = Array.from({ length: 30 }, (_, i) => `http://example.com/p${i}`);
    const parsed = parseSitemap(urlset(locs), { maxUrls: 10 });
    expect(parsed.entries).toHaveLength(10);
    expect(parsed.entries[9]?.loc).toBe('http://example.com/p9');
    expect(parsed.truncated).toBe(true);
    expect(parseSitemap(urlset(locs)).truncated).toBe(false);
  });

  it('reads plain-text sitemaps, one url a line', () => {
    const parsed = parseSitemap('http://example.com/a\n\nhttps://example.com/b#x\nnot a url\n');
    expect(parsed).toEqual({
      kind: 'text',
      entries: [{ loc: 'http://example.com/a' }, { loc: 'https://example.com/b' }],
      truncated: false,
    });
  });

  it('says unknown for something that is not a sitemap', () => {
    expect(parseSitemap('<html><body><a href="http://example.com/">x</a></body></html>').kind).toBe('unknown');
    expect(parseSitemap('<html><body><url><loc>http://example.com/</loc></url></body></html>').entries).toEqual([]);
    expect(parseSitemap('').kind).toBe('unknown');
  });

  // The timeout is the deadline (a parser gone quadratic would take minutes); how fast it is belongs to bench/.
  it('parses 50,000 urls within the deadline', () => {
    const locs = Array.from({ length: 50_000 }, (_, i) => `http://example.com/section/page-${i}.html`);
    const parsed = parseSitemap(urlset(locs, '<lastmod>2024-01-01</lastmod>'));
    expect(parsed.entries).toHaveLength(50_000);
  }, 20_000);
});

describe('discoverSitemapUrls', () => {
  function site(files: Record<string, string | number>): { fetch: RobotsFetch; requests: string[] } {
    const requests: string[] = [];
    return {
      requests,
      fetch: async (url) => {
        requests.push(url);
        const f = files[url];
        if (f === undefined) return { status: 404, text: 'not found' };
        if (typeof f === 'number') return { status: f, text: '' };
        return { status: 200, text: f };
      },
    };
  }

  it('falls back to /sitemap.xml', async () => {
    const s = site({ 'http://h.test/sitemap.xml': urlset(['http://h.test/a', 'http://h.test/b', 'http://h.test/a']) });
    const found = await discoverSitemapUrls({ siteUrl: 'http://h.test/docs/', fetch: s.fetch });
    expect(found.urls.map((u) => u.loc)).toEqual(['http://h.test/a', 'http://h.test/b']);
    expect(found.sitemaps).toEqual(['http://h.test/sitemap.xml']);
    expect(found.errors).toEqual([]);
    expect(found.truncated).toBe(false);
  });

  it('uses the Sitemap lines of robots.txt and follows indexes', async () => {
    const s = site({
      'http://h.test/robots.txt':
        'User-agent: *\nDisallow: /x\nSitemap: http://h.test/index.xml\nSitemap: http://h.test/extra.xml',
      'http://h.test/index.xml': sitemapIndex([
        'http://h.test/s1.xml',
        'http://h.test/s2.xml',
        'http://h.test/gone.xml',
      ]),
      'http://h.test/s1.xml': urlset(['http://h.test/1', 'http://h.test/2']),
      'http://h.test/s2.xml': urlset(['http://h.test/2', 'http://h.test/3']),
      'http://h.test/extra.xml': 'http://h.test/4\n',
      'http://h.test/sitemap.xml': urlset(['http://h.test/never']),
    });
    const robots = new HttpRobotsProvider({ fetch: s.fetch, userAgent: 'Greenfinger' });
    const found = await discoverSitemapUrls({ siteUrl: 'http://h.test/', fetch: s.fetch, robots });
    expect(found.urls.map((u) => u.loc)).toEqual([
      'http://h.test/4',
      'http://h.test/1',
      'http://h.test/2',
      'http://h.test/3',
    ]);
    expect(found.sitemaps).toEqual([
      'http://h.test/index.xml',
      'http://h.test/extra.xml',
      'http://h.test/s1.xml',
      'http://h.test/s2.xml',
    ]);
    expect(found.errors).toEqual(['http://h.test/gone.xml: status 404']);
    expect(s.requests).not.toContain('http://h.test/sitemap.xml');
    await robots.close();
  });

  it('stops at maxDepth levels of indexes and never fetches a sitemap twice', async () => {
    const s = site({
      'http://h.test/sitemap.xml': sitemapIndex(['http://h.test/l1.xml', 'http://h.test/sitemap.xml']),
      'http://h.test/l1.xml': sitemapIndex(['http://h.test/l2.xml']),
      'http://h.test/l2.xml': sitemapIndex(['http://h.test/l3.xml']),
      'http://h.test/l3.xml': urlset(['http://h.test/deep']),
    });
    const found = await discoverSitemapUrls({ siteUrl: 'http://h.test/', fetch: s.fetch });
    expect(found.urls).toEqual([]);
    expect(found.truncated).toBe(true);
    expect(s.requests).toEqual(['http://h.test/sitemap.xml', 'http://h.test/l1.xml', 'http://h.test/l2.xml']);
    const deeper = await discoverSitemapUrls({ siteUrl: 'http://h.test/', fetch: s.fetch, maxDepth: 3 });
    expect(deeper.urls.map((u) => u.loc)).toEqual(['http://h.test/deep']);
  });

  it('stops at maxUrls across sitemaps', async () => {
    const s = site({
      'http://h.test/sitemap.xml': sitemapIndex(['http://h.test/a.xml', 'http://h.test/b.xml']),
      'http://h.test/a.xml': urlset(['http://h.test/1', 'http://h.test/2', 'http://h.test/3']),
      'http://h.test/b.xml': urlset(['http://h.test/4', 'http://h.test/5']),
    });
    const found = await discoverSitemapUrls({ siteUrl: 'http://h.test/', fetch: s.fetch, maxUrls: 4 });
    expect(found.urls.map((u) => u.loc)).toEqual([
      'http://h.test/1',
      'http://h.test/2',
      'http://h.test/3',
      'http://h.test/4',
    ]);
    expect(found.truncated).toBe(true);
  });

  it('records failures instead of throwing', async () => {
    const s = site({ 'http://h.test/sitemap.xml': '<html><body>soft 404</body></html>' });
    const found = await discoverSitemapUrls({ siteUrl: 'http://h.test/', fetch: s.fetch });
    expect(found.urls).toEqual([]);
    expect(found.errors).toEqual(['http://h.test/sitemap.xml: not a sitemap']);
    const broken: RobotsFetch = async () => {
      throw new Error('ECONNRESET');
    };
    const failed = await discoverSitemapUrls({ siteUrl: 'http://h.test/', fetch: broken });
    expect(failed.errors).toEqual(['http://h.test/sitemap.xml: ECONNRESET']);
  });
});
