import { HttpRobotsProvider, parseRobotsTxt, productToken, type RobotsFetch } from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

function allowed(txt: string, ua: string, path: string): boolean {
  return parseRobotsTxt(txt).policyFor(ua).isAllowed(path);
}

describe('productToken', () => {
  it.each([
    ['Greenfinger/0.1 (+https://github.com/greenfinger)', 'greenfinger'],
    ['Mozilla/5.0 (X11; Linux x86_64)', 'mozilla'],
    ['FooBot', 'foobot'],
    ['  my_bot-2/1', 'my_bot-'],
    ['/x', ''],
  ])('%s → %s', (ua, token) => expect(productToken(ua)).toBe(token));
});

describe('RFC 9309 §5.1 simple example', () => {
  const txt = [
    'User-Agent: *',
    'Disallow: *.gif$',
    'Disallow: /example/',
    'Allow: /publications/',
    '',
    'User-Agent: foobot',
    'Disallow:/',
    'Allow:/example/page.html',
    'Allow:/example/allowed.gif',
    '',
    'User-Agent: barbot',
    'User-Agent: bazbot',
    'Disallow: /example/page.html',
    '',
    'User-Agent: quxbot',
    '',
    'EOF',
  ].join('\n');

  it.each([
    ['foobot', '/example/page.html', true],
    ['foobot', '/example/allowed.gif', true],
    ['foobot', '/example/disallowed.gif', false],
    ['foobot', '/publications/', false],
    ['FooBot/2.1', '/example/page.html', true],
    ['barbot', '/example/page.html', false],
    ['barbot', '/example/other.html', true],
    ['bazbot', '/example/page.html', false],
    ['bazbot', '/a.gif', true],
    ['quxbot', '/example/page.html', true],
    ['quxbot', '/x.gif', true],
    ['otherbot', '/example/page.html', false],
    ['otherbot', '/publications/x.html', true],
    ['otherbot', '/images/x.gif', false],
    ['otherbot', '/images/x.gif?size=2', true],
    ['otherbot', '/index.html', true],
  ])('%s %s → %s', (ua, path, expected) => {
    expect(allowed(txt, ua, path)).toBe(expected);
  });
});

describe('matching', () => {
  it('the longest match wins (RFC 9309 §5.2)', () => {
    const txt = 'User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n';
    expect(allowed(txt, 'foobot', '/example/page/')).toBe(true);
    expect(allowed(txt, 'foobot', '/example/page/x.html')).toBe(true);
    expect(allowed(txt, 'foobot', '/example/page/disallowed.gif')).toBe(false);
  });

  it('the longest match wins whatever the line order', () => {
    const txt = 'User-agent: *\nDisallow: /a/b/\nAllow: /a/\n';
    expect(allowed(txt, 'x', '/a/b/c')).toBe(false);
    expect(allowed(txt, 'x', '/a/c')).toBe(true);
  });

  it('Allow wins a tie of equal length', () => {
    expect(allowed('User-agent: *\nDisallow: /page\nAllow: /page\n', 'x', '/page')).toBe(true);
    expect(allowed('User-agent: *\nAllow: /page\nDisallow: /page\n', 'x', '/page')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /*.php\nAllow: /a.php\n', 'x', '/a.php')).toBe(true);
  });

  it('`*` matches any run of characters, `$` anchors the end', () => {
    const txt = [
      'User-agent: *',
      'Disallow: /this/*/path',
      'Allow: /this/path/exactly$',
      'Disallow: /this/path/',
      'Disallow: /*.pdf$',
      'Disallow: /x$y',
      'Disallow: /**/double',
    ].join('\n');
    expect(allowed(txt, 'x', '/this/a/b/path')).toBe(false);
    expect(allowed(txt, 'x', '/this/a/b/pathology')).toBe(false);
    expect(allowed(txt, 'x', '/this/path')).toBe(true);
    expect(allowed(txt, 'x', '/this/path/exactly')).toBe(true);
    expect(allowed(txt, 'x', '/this/path/exactly/not')).toBe(false);
    expect(allowed(txt, 'x', '/doc.pdf')).toBe(false);
    expect(allowed(txt, 'x', '/doc.pdf?download=1')).toBe(true);
    expect(allowed(txt, 'x', '/x$y/z')).toBe(false);
    expect(allowed(txt, 'x', '/xy')).toBe(true);
    expect(allowed(txt, 'x', '/a/b/double')).toBe(false);
  });

  it('a query is part of the path', () => {
    const txt = 'User-agent: *\nDisallow: /search?\nDisallow: /*?sessionid=\n';
    expect(allowed(txt, 'x', '/search')).toBe(true);
    expect(allowed(txt, 'x', '/search?q=1')).toBe(false);
    expect(allowed(txt, 'x', '/page?sessionid=1')).toBe(false);
    expect(allowed(txt, 'x', 'https://example.com/page?sessionid=1')).toBe(false);
    expect(allowed(txt, 'x', 'https://example.com/page?a=1&sessionid=1')).toBe(true);
  });

  it('normalises percent-encoding on both sides (RFC 9309 §2.2.2)', () => {
    const txt =
      'User-agent: *\nDisallow: /foo/bar/ツ\nDisallow: /a/%62%61%7A\nDisallow: /c/%e3%83%84\nDisallow: /sp%2fx\n';
    expect(allowed(txt, 'x', '/foo/bar/%E3%83%84')).toBe(false);
    expect(allowed(txt, 'x', '/foo/bar/ツ')).toBe(false);
    expect(allowed(txt, 'x', '/a/baz')).toBe(false);
    expect(allowed(txt, 'x', '/a/%62az')).toBe(false);
    expect(allowed(txt, 'x', '/c/%E3%83%84')).toBe(false);
    expect(allowed(txt, 'x', '/sp/x')).toBe(true);
    expect(allowed(txt, 'x', '/sp%2Fx')).toBe(false);
  });

  it('an empty Disallow allows everything; /robots.txt is always allowed', () => {
    expect(allowed('User-agent: *\nDisallow:\n', 'x', '/anything')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /\n', 'x', '/anything')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /\n', 'x', '/robots.txt')).toBe(true);
    expect(allowed('', 'x', '/anything')).toBe(true);
  });
});

describe('groups', () => {
  it('matches user agents case-insensitively by product token, falling back to *', () => {
    const txt = 'User-agent: *\nDisallow: /\n\nuser-AGENT: GreenFinger\nDISALLOW: /private\n';
    expect(allowed(txt, 'Greenfinger/0.1 (+https://x)', '/public')).toBe(true);
    expect(allowed(txt, 'greenfinger', '/private/x')).toBe(false);
    expect(allowed(txt, 'Greenfingers/1', '/public')).toBe(false);
  });

  it('merges every group naming the agent, and ignores the * group then', () => {
    const txt = [
      'User-agent: a',
      'Disallow: /one',
      'User-agent: *',
      'Disallow: /star',
      'User-agent: A',
      'Disallow: /two',
    ].join('\n');
    const p = parseRobotsTxt(txt).policyFor('a');
    expect(p.isAllowed('/one')).toBe(false);
    expect(p.isAllowed('/two')).toBe(false);
    expect(p.isAllowed('/star')).toBe(true);
    const star = parseRobotsTxt(txt).policyFor('b');
    expect(star.isAllowed('/star')).toBe(false);
    expect(star.isAllowed('/one')).toBe(true);
  });

  it('merges several * groups', () => {
    const txt = 'User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n';
    expect(allowed(txt, 'x', '/a')).toBe(false);
    expect(allowed(txt, 'x', '/b')).toBe(false);
  });

  it('ignores rules before the first user-agent, comments, unknown keys and garbage', () => {
    const txt = [
      '\uFEFFDisallow: /before',
      '# a comment',
      'User-agent: * # everyone',
      'Foo: bar',
      'this line is nonsense',
      'Disallow: /x # trailing comment',
      'Noindex: /y',
    ].join('\r\n');
    expect(allowed(txt, 'x', '/before')).toBe(true);
    expect(allowed(txt, 'x', '/x')).toBe(false);
    expect(allowed(txt, 'x', '/x%20')).toBe(false);
    expect(allowed(txt, 'x', '/y')).toBe(true);
  });

  it('a user-agent line after rules starts a new group', () => {
    const txt = 'User-agent: a\nDisallow: /a\nUser-agent: b\nDisallow: /b\n';
    expect(allowed(txt, 'a', '/b')).toBe(true);
    expect(allowed(txt, 'b', '/a')).toBe(true);
    expect(allowed(txt, 'b', '/b')).toBe(false);
  });

  it('reads Crawl-delay of the matching group and global Sitemap lines', () => {
    const txt = [
      'Sitemap: https://example.com/sitemap.xml',
      'User-agent: *',
      'Crawl-delay: 2.5',
      'Disallow: /x',
      'Sitemap: /relative-sitemap.xml',
      'User-agent: slowbot',
      'Crawl-delay: 10',
      'Sitemap: https://example.com/sitemap.xml',
      'Sitemap: not a url',
      'Sitemap: relative.xml',
    ].join('\n');
    const parsed = parseRobotsTxt(txt, 'https://example.com/robots.txt');
    expect(parsed.sitemaps).toEqual(['https://example.com/sitemap.xml', 'https://example.com/relative-sitemap.xml']);
    expect(parsed.policyFor('x').crawlDelayMs).toBe(2500);
    expect(parsed.policyFor('slowbot').crawlDelayMs).toBe(10_000);
    expect(parsed.policyFor('slowbot').sitemaps).toHaveLength(2);
    expect(parseRobotsTxt('User-agent: *\nCrawl-delay: soon\n').policyFor('x').crawlDelayMs).toBeUndefined();
  });

  it('reads only the first 500 KiB', () => {
    const filler = `# ${'x'.repeat(1000)}\n`.repeat(520);
    const txt = `User-agent: *\nDisallow: /early\n${filler}Disallow: /late\n`;
    expect(Buffer.byteLength(txt)).toBeGreaterThan(500 * 1024);
    expect(allowed(txt, 'x', '/early')).toBe(false);
    expect(allowed(txt, 'x', '/late')).toBe(true);
    expect(allowed(txt.replace(filler, ''), 'x', '/late')).toBe(false);
  });
});

describe('the corpus rules of /work/shared/tools', () => {
  it('python docs: Disallow /_sources/ and /genindex', () => {
    const p = parseRobotsTxt(
      'User-agent: BadBot\nDisallow: /\n\nUser-agent: *\nDisallow: /_sources/\nDisallow: /genindex\n',
    ).policyFor('Greenfinger/0.1');
    expect(p.isAllowed('http://127.0.0.1:8084/index.html')).toBe(true);
    expect(p.isAllowed('http://127.0.0.1:8084/library/os.html')).toBe(true);
    expect(p.isAllowed('http://127.0.0.1:8084/_sources/library/os.rst.txt')).toBe(false);
    expect(p.isAllowed('http://127.0.0.1:8084/genindex.html')).toBe(false);
    expect(p.isAllowed('http://127.0.0.1:8084/genindex-all.html')).toBe(false);
    expect(p.isAllowed('http://127.0.0.1:8084/library/genindex.html')).toBe(true);
    expect(parseRobotsTxt('User-agent: BadBot\nDisallow: /\n').policyFor('BadBot/1.0').isAllowed('/index.html')).toBe(
      false,
    );
  });

  it('debian handbook: Disallow /zh-TW/ and /ja-JP/, Allow /ja-JP/index.html', () => {
    const p = parseRobotsTxt(
      'User-agent: *\nDisallow: /zh-TW/\nDisallow: /ja-JP/\nAllow: /ja-JP/index.html\n',
    ).policyFor('Greenfinger/0.1');
    expect(p.isAllowed('http://127.0.0.1:8083/')).toBe(true);
    expect(p.isAllowed('http://127.0.0.1:8083/en-US/index.html')).toBe(true);
    expect(p.isAllowed('http://127.0.0.1:8083/zh-TW/index.html')).toBe(false);
    expect(p.isAllowed('http://127.0.0.1:8083/zh-TW/')).toBe(false);
    expect(p.isAllowed('http://127.0.0.1:8083/zh-CN/index.html')).toBe(true);
    expect(p.isAllowed('http://127.0.0.1:8083/ja-JP/index.html')).toBe(true);
    expect(p.isAllowed('http://127.0.0.1:8083/ja-JP/sect.basic.html')).toBe(false);
    expect(p.isAllowed('http://127.0.0.1:8083/ja-JP/')).toBe(false);
  });
});

describe('HttpRobotsProvider', () => {
  type Answer = { status: number; text: string } | Error | 'hang';
  function server(answers: Record<string, Answer>, delayMs = 0): { fetch: RobotsFetch; requests: string[] } {
    const requests: string[] = [];
    const fetch: RobotsFetch = async (url) => {
      requests.push(url);
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      const a = answers[url] ?? { status: 404, text: 'not found' };
      if (a === 'hang') return new Promise(() => {});
      if (a instanceof Error) throw a;
      return a;
    };
    return { fetch, requests };
  }
  const UA = 'Greenfinger/0.1';

  it('fetches /robots.txt once per origin, sharing concurrent requests', async () => {
    const s = server(
      {
        'http://a.test/robots.txt': {
          status: 200,
          text: 'User-agent: *\nDisallow: /x\nCrawl-delay: 1\nSitemap: http://a.test/s.xml',
        },
      },
      20,
    );
    await using p = new HttpRobotsProvider({ fetch: s.fetch, userAgent: UA });
    const answers = await Promise.all([
      p.isAllowed('http://a.test/x/1'),
      p.isAllowed('http://a.test/y'),
      p.crawlDelayMs('http://a.test/z'),
      p.sitemaps('http://a.test/'),
    ]);
    expect(answers).toEqual([false, true, 1000, ['http://a.test/s.xml']]);
    expect(await p.isAllowed('http://a.test/x')).toBe(false);
    expect(s.requests).toEqual(['http://a.test/robots.txt']);
    expect(p.fetchCount).toBe(1);
    expect(await p.isAllowed('https://a.test/x')).toBe(true);
    expect(await p.isAllowed('http://a.test:8080/x')).toBe(true);
    expect(s.requests).toEqual([
      'http://a.test/robots.txt',
      'https://a.test/robots.txt',
      'http://a.test:8080/robots.txt',
    ]);
  });

  it('4xx allows everything', async () => {
    const s = server({ 'http://b.test/robots.txt': { status: 403, text: 'forbidden' } });
    const p = new HttpRobotsProvider({ fetch: s.fetch, userAgent: UA });
    expect(await p.isAllowed('http://b.test/anything')).toBe(true);
    expect(await p.isAllowed('http://missing.test/anything')).toBe(true);
    expect(await p.crawlDelayMs('http://b.test/')).toBeUndefined();
    await p.close();
  });

  it.each<[string, Answer]>([
    ['5xx', { status: 503, text: 'busy' }],
    ['429', { status: 429, text: 'slow down' }],
    ['a network error', new Error('ECONNREFUSED')],
  ])('%s disallows the whole origin by default, and allows when configured', async (_name, answer) => {
    const s = server({ 'http://c.test/robots.txt': answer });
    const strict = new HttpRobotsProvider({ fetch: s.fetch, userAgent: UA });
    expect(await strict.isAllowed('http://c.test/')).toBe(false);
    expect(await strict.isAllowed('http://c.test/page')).toBe(false);
    expect(await strict.isAllowed('http://c.test/robots.txt')).toBe(true);
    expect(await strict.sitemaps('http://c.test/')).toEqual([]);
    const lenient = new HttpRobotsProvider({ fetch: s.fetch, userAgent: UA, onUnreachable: 'allow' });
    expect(await lenient.isAllowed('http://c.test/page')).toBe(true);
    expect(s.requests).toHaveLength(2);
  });

  it('a robots.txt that never answers counts as unreachable after timeoutMs', async () => {
    const s = server({ 'http://d.test/robots.txt': 'hang' });
    const p = new HttpRobotsProvider({ fetch: s.fetch, userAgent: UA, timeoutMs: 50 });
    // The robots.txt never answers: without the timeout this would wait for ever, so the test's timeout is the deadline.
    expect(await p.isAllowed('http://d.test/page')).toBe(false);
  }, 10_000);

  it('close() forgets the cache', async () => {
    const s = server({ 'http://e.test/robots.txt': { status: 200, text: 'User-agent: *\nDisallow: /' } });
    const p = new HttpRobotsProvider({ fetch: s.fetch, userAgent: UA });
    expect(await p.isAllowed('http://e.test/a')).toBe(false);
    await p.close();
    expect(await p.isAllowed('http://e.test/a')).toBe(false);
    expect(s.requests).toHaveLength(2);
  });

  it('rejects something that is not a url', async () => {
    const p = new HttpRobotsProvider({ fetch: server({}).fetch, userAgent: UA });
    await expect(p.isAllowed('not a url')).rejects.toThrow(/not a url/);
  });
});
