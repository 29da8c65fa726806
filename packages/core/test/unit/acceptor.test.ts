import {
  AcceptorChain,
  type AcceptorContext,
  acceptorFactories,
  acceptorNames,
  assetCheck,
  type Candidate,
  type Catalog,
  type CatalogSettings,
  ConfigError,
  compilePathPattern,
  createAcceptorChain,
  createAssetCheck,
  domainScope,
  maxDepth,
  Outcome,
  pathPatterns,
  type RobotsProvider,
  resolveCatalogSettings,
  robotsTxt,
  StageError,
  startUrlPrefix,
  type UrlPathAcceptor,
  type Verdict,
} from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

function catalog(url: string, settings: Partial<CatalogSettings> = {}): Catalog {
  return {
    id: '018bcfe5-6800-7000-8000-000000000000',
    name: 'test',
    url,
    startUrl: url,
    settings: resolveCatalogSettings(settings),
    indexVersion: 1,
    searchVersion: -1,
    runningState: 'none',
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  };
}

function cand(url: string, d = 0): Candidate {
  return { url, depth: d };
}

/** A RobotsProvider answering from a fixed set of disallowed urls, counting calls. */
class ListRobots implements RobotsProvider {
  calls = 0;
  constructor(private readonly disallowed: Set<string>) {}
  async isAllowed(url: string): Promise<boolean> {
    this.calls++;
    return !this.disallowed.has(url);
  }
  async crawlDelayMs(): Promise<number | undefined> {
    return undefined;
  }
  async sitemaps(): Promise<string[]> {
    return [];
  }
}

function expectRefused(v: Verdict, acceptor: string, outcome: string): void {
  expect(v).toMatchObject({ accept: false, acceptor, outcome });
  if (!v.accept) expect(v.reason.length).toBeGreaterThan(0);
}

describe('domain-scope', () => {
  const a = domainScope({ catalog: catalog('https://docs.example.com/guide/') });
  it('is mandatory', () => expect(a.mandatory).toBe(true));
  it.each([
    'https://docs.example.com/guide/a',
    'http://docs.example.com/other',
    'https://example.com/',
    'https://www.example.com:8443/x',
  ])('accepts %s', (url) => {
    expect(a.check(cand(url))).toEqual({ accept: true });
  });
  it.each(['https://example.org/', 'https://example.com.evil.net/', 'https://notexample.com/'])('refuses %s', (url) => {
    expectRefused(a.check(cand(url)) as Verdict, 'domain-scope', Outcome.REJECTED_OUT_OF_SCOPE);
  });
  it('keeps separate users of a hosting suffix apart', () => {
    const gh = domainScope({ catalog: catalog('https://alice.github.io/') });
    expect(gh.check(cand('https://alice.github.io/x'))).toEqual({ accept: true });
    expectRefused(gh.check(cand('https://bob.github.io/')) as Verdict, 'domain-scope', Outcome.REJECTED_OUT_OF_SCOPE);
  });
  it('throws ConfigError naming --url for a catalog url that is not http(s)', () => {
    expect(() => domainScope({ catalog: catalog('ftp://example.com/') })).toThrow(ConfigError);
    expect(() => startUrlPrefix({ catalog: catalog('nonsense') })).toThrow(/^--url: .*"nonsense"/);
  });
});

describe('start-url-prefix', () => {
  const a = startUrlPrefix({ catalog: catalog('http://example.com/doc') });
  it('is mandatory', () => expect(a.mandatory).toBe(true));
  it.each([
    'http://example.com/doc',
    'https://example.com/doc',
    'http://example.com/doc/',
    'http://example.com/doc/a/b.html',
    'http://example.com/doc?x=1',
  ])('accepts %s', (url) => {
    expect(a.check(cand(url))).toEqual({ accept: true });
  });
  it.each([
    'http://example.com/docs',
    'http://example.com/do',
    'http://example.com/',
    'http://example.com/other/doc',
    'http://www.example.com/doc',
    'http://example.com:8080/doc',
  ])('refuses %s', (url) => {
    expectRefused(a.check(cand(url)) as Verdict, 'start-url-prefix', Outcome.REJECTED_OUT_OF_SCOPE);
  });
  it('a prefix ending in / admits everything below it', () => {
    const b = startUrlPrefix({ catalog: catalog('http://127.0.0.1:8083/en-US/') });
    expect(b.check(cand('http://127.0.0.1:8083/en-US/sect.html'))).toEqual({ accept: true });
    expectRefused(
      b.check(cand('http://127.0.0.1:8083/en-US')) as Verdict,
      'start-url-prefix',
      Outcome.REJECTED_OUT_OF_SCOPE,
    );
    expectRefused(
      b.check(cand('http://127.0.0.1:8083/de-DE/')) as Verdict,
      'start-url-prefix',
      Outcome.REJECTED_OUT_OF_SCOPE,
    );
  });
  it('a root url admits the whole host', () => {
    const b = startUrlPrefix({ catalog: catalog('http://127.0.0.1:8084') });
    expect(b.check(cand('http://127.0.0.1:8084/library/os.html'))).toEqual({ accept: true });
  });
  it('compares normalised forms of catalog.url', () => {
    const b = startUrlPrefix({ catalog: catalog('HTTP://EXAMPLE.com:80/a/./b/#x') });
    expect(b.check(cand('http://example.com/a/b/c'))).toEqual({ accept: true });
  });
});

describe('asset-check', () => {
  const a = assetCheck({ catalog: catalog('http://example.com/') });
  it.each([
    'http://example.com/',
    'http://example.com/page',
    'http://example.com/page.html',
    'http://example.com/page.htm?x=a.css',
    'http://example.com/notes.txt',
    'http://example.com/readme.md',
    // Documents are on by default (the catalog's `documents`): what a parser reads is let through.
    'http://example.com/paper.pdf',
    'http://example.com/plan.DOCX',
    'http://example.com/v1.2/',
    'http://example.com/.well-known',
  ])('accepts %s', (url) => {
    expect(a.check(cand(url))).toEqual({ accept: true });
  });
  it.each([
    'http://example.com/site.css',
    'http://example.com/app.js',
    'http://example.com/font.WOFF2',
    'http://example.com/img/logo.png',
    'http://example.com/a/photo.JPEG?w=100',
    'http://example.com/clip.mp4',
    'http://example.com/src.tar.gz',
    'http://example.com/file.zip',
    // No parser reads these.
    'http://example.com/slides.pptx',
    'http://example.com/old.doc',
  ])('refuses %s', (url) => {
    expectRefused(a.check(cand(url)) as Verdict, 'asset-check', Outcome.REJECTED_ASSET);
  });
  it('lets documents through when documents are on, and refuses them when they are off', () => {
    const b = assetCheck({ catalog: catalog('http://example.com/'), assets: { documents: true } });
    expect(b.check(cand('http://example.com/paper.pdf'))).toEqual({ accept: true });
    expectRefused(b.check(cand('http://example.com/a.png')) as Verdict, 'asset-check', Outcome.REJECTED_ASSET);
    const off = catalog('http://example.com/');
    const c = assetCheck({ catalog: { ...off, settings: { ...off.settings, documents: false } } });
    expectRefused(c.check(cand('http://example.com/paper.pdf')) as Verdict, 'asset-check', Outcome.REJECTED_ASSET);
    expect(c.check(cand('http://example.com/notes.txt'))).toEqual({ accept: true });
  });
  it('takes a custom extension list', () => {
    const b = createAssetCheck({ extensions: ['.PY', 'txt'], documents: true })({
      catalog: catalog('http://example.com/'),
    });
    expectRefused(
      b.check(cand('http://example.com/_downloads/x.py')) as Verdict,
      'asset-check',
      Outcome.REJECTED_ASSET,
    );
    expectRefused(b.check(cand('http://example.com/_sources/x.txt')) as Verdict, 'asset-check', Outcome.REJECTED_ASSET);
    expect(b.check(cand('http://example.com/a.png'))).toEqual({ accept: true });
  });
});

describe('robots-txt', () => {
  const robots = new ListRobots(new Set(['http://example.com/private']));
  it('refuses what the provider disallows', async () => {
    const a = robotsTxt({ catalog: catalog('http://example.com/'), robots });
    expect(await a.check(cand('http://example.com/public'))).toEqual({ accept: true });
    expectRefused(await a.check(cand('http://example.com/private')), 'robots-txt', Outcome.REJECTED_ROBOTS_TXT);
  });
  it('asks nothing when robots is off in the settings', async () => {
    const r = new ListRobots(new Set(['http://example.com/private']));
    const a = robotsTxt({ catalog: catalog('http://example.com/', { robots: false }), robots: r });
    expect(await a.check(cand('http://example.com/private'))).toEqual({ accept: true });
    expect(r.calls).toBe(0);
  });
  it('accepts everything without a provider', async () => {
    const a = robotsTxt({ catalog: catalog('http://example.com/') });
    expect(await a.check(cand('http://example.com/private'))).toEqual({ accept: true });
  });
});

describe('depth', () => {
  it('refuses beyond settings.depth', () => {
    const a = maxDepth({ catalog: catalog('http://example.com/', { depth: 2 }) });
    expect(a.check(cand('http://example.com/a', 0))).toEqual({ accept: true });
    expect(a.check(cand('http://example.com/a', 2))).toEqual({ accept: true });
    expectRefused(a.check(cand('http://example.com/a', 3)) as Verdict, 'depth', Outcome.REJECTED_TOO_DEEP);
  });
  it('depth 0 keeps only the start page', () => {
    const a = maxDepth({ catalog: catalog('http://example.com/', { depth: 0 }) });
    expect(a.check(cand('http://example.com/', 0))).toEqual({ accept: true });
    expectRefused(a.check(cand('http://example.com/a', 1)) as Verdict, 'depth', Outcome.REJECTED_TOO_DEEP);
  });
  it('-1 is unlimited', () => {
    const a = maxDepth({ catalog: catalog('http://example.com/', { depth: -1 }) });
    expect(a.check(cand('http://example.com/a', 10_000))).toEqual({ accept: true });
  });
});

describe('path-patterns', () => {
  it.each([
    ['/docs/*', '/docs/a', true],
    ['/docs/*', '/docs/a/b', false],
    ['/docs/**', '/docs/a/b', true],
    ['/docs/**', '/docs/', true],
    ['/docs/**', '/docs', false],
    ['/a/**/b', '/a/b', true],
    ['/a/**/b', '/a/x/y/b', true],
    ['/a/**/b', '/a/x/y/bc', false],
    ['*.pdf', '/x/y/z.pdf', true],
    ['*.pdf', '/x/y/z.pdfx', false],
    ['/search?q=*', '/search?q=abc', true],
    ['/search?q=*', '/searchXq=abc', false],
    ['/a.html', '/aXhtml', false],
    ['/genindex*', '/genindex-all.html', true],
    ['/über/*', '/%C3%BCber/x', true],
    ['/Docs/*', '/docs/x', false],
  ])('%s vs %s → %s', (pattern, path, expected) => {
    expect(compilePathPattern(pattern).regex.test(path)).toBe(expected);
  });

  it('a pattern starting with http matches the whole url', () => {
    const p = compilePathPattern('https://example.com/blog/**');
    expect(p.wholeUrl).toBe(true);
    expect(p.regex.test('https://example.com/blog/2024/post')).toBe(true);
    expect(p.regex.test('http://example.com/blog/2024/post')).toBe(false);
  });

  it('exclude refuses, include must match one', () => {
    const a = pathPatterns({
      catalog: catalog('http://example.com/', {
        include: ['/docs/**', '/blog/*'],
        exclude: ['/docs/private/**', 'http://example.com/docs/old*'],
      }),
    });
    expect(a.check(cand('http://example.com/docs/a/b'))).toEqual({ accept: true });
    expect(a.check(cand('http://example.com/blog/post?page=2'))).toEqual({ accept: true });
    expectRefused(
      a.check(cand('http://example.com/docs/private/x')) as Verdict,
      'path-patterns',
      Outcome.REJECTED_FILTER,
    );
    expectRefused(
      a.check(cand('http://example.com/docs/old-stuff')) as Verdict,
      'path-patterns',
      Outcome.REJECTED_FILTER,
    );
    expectRefused(a.check(cand('http://example.com/shop/')) as Verdict, 'path-patterns', Outcome.REJECTED_FILTER);
    expectRefused(a.check(cand('http://example.com/blog/a/b')) as Verdict, 'path-patterns', Outcome.REJECTED_FILTER);
  });

  it('accepts everything without patterns', () => {
    const a = pathPatterns({ catalog: catalog('http://example.com/') });
    expect(a.check(cand('http://example.com/anything?at=all'))).toEqual({ accept: true });
  });

  it('refuses an empty pattern with a ConfigError naming the option', () => {
    const ctx = {
      catalog: { ...catalog('http://example.com/'), settings: { ...resolveCatalogSettings(), exclude: [' '] } },
    };
    expect(() => pathPatterns(ctx)).toThrow(ConfigError);
    expect(() => pathPatterns(ctx)).toThrow(/--exclude/);
  });
});

describe('acceptor chain', () => {
  const disallowed = new Set(['http://example.com/docs/secret', 'http://example.com/docs/secret/deep']);

  function ctx(settings: Partial<CatalogSettings> = {}): AcceptorContext & { robots: ListRobots } {
    return {
      catalog: catalog('http://example.com/docs/', { depth: 2, exclude: ['**/draft*'], ...settings }),
      robots: new ListRobots(disallowed),
    };
  }

  it('registry lists the six in the documented order', () => {
    expect(acceptorNames).toEqual([
      'domain-scope',
      'start-url-prefix',
      'asset-check',
      'robots-txt',
      'depth',
      'path-patterns',
    ]);
    expect(Object.keys(acceptorFactories)).toEqual(acceptorNames);
    const chain = createAcceptorChain(ctx());
    expect(chain.names).toEqual(acceptorNames);
  });

  it('accepts a url every acceptor accepts', async () => {
    expect(await createAcceptorChain(ctx()).check(cand('http://example.com/docs/a', 1))).toEqual({ accept: true });
  });

  it.each([
    ['http://other.org/docs/a', 0, 'domain-scope', Outcome.REJECTED_OUT_OF_SCOPE],
    ['http://other.org/docs/a.png', 9, 'domain-scope', Outcome.REJECTED_OUT_OF_SCOPE],
    ['http://example.com/blog/a', 0, 'start-url-prefix', Outcome.REJECTED_OUT_OF_SCOPE],
    ['http://example.com/blog/a.png', 9, 'start-url-prefix', Outcome.REJECTED_OUT_OF_SCOPE],
    ['http://example.com/docs/a.png', 9, 'asset-check', Outcome.REJECTED_ASSET],
    ['http://example.com/docs/secret', 9, 'robots-txt', Outcome.REJECTED_ROBOTS_TXT],
    ['http://example.com/docs/secret', 1, 'robots-txt', Outcome.REJECTED_ROBOTS_TXT],
    ['http://example.com/docs/draft-1', 3, 'depth', Outcome.REJECTED_TOO_DEEP],
    ['http://example.com/docs/draft-1', 1, 'path-patterns', Outcome.REJECTED_FILTER],
  ])('%s at depth %i is refused first by %s', async (url, d, acceptor, outcome) => {
    expectRefused(await createAcceptorChain(ctx()).check(cand(url, d)), acceptor, outcome);
  });

  it('stops at the first refusal: robots.txt is not asked for out-of-scope urls', async () => {
    const c = ctx();
    const chain = createAcceptorChain(c);
    await chain.check(cand('http://other.org/docs/secret'));
    await chain.check(cand('http://example.com/docs/x.css'));
    expect(c.robots.calls).toBe(0);
    await chain.check(cand('http://example.com/docs/page'));
    expect(c.robots.calls).toBe(1);
  });

  it('answers synchronously while every acceptor does', () => {
    const chain = createAcceptorChain(ctx({ robots: false }));
    const v = chain.check(cand('http://example.com/docs/a.png'));
    expect(v).not.toBeInstanceOf(Promise);
    expect(v).toMatchObject({ accept: false, acceptor: 'asset-check' });
    expect(chain.check(cand('http://example.com/docs/a'))).toEqual({ accept: true });
  });

  it('picks optional acceptors by name, keeps the mandatory two and the documented order', async () => {
    const chain = createAcceptorChain(ctx(), ['path-patterns', 'depth']);
    expect(chain.names).toEqual(['domain-scope', 'start-url-prefix', 'depth', 'path-patterns']);
    expect(await chain.check(cand('http://example.com/docs/a.png', 1))).toEqual({ accept: true });
    expect(createAcceptorChain(ctx(), []).names).toEqual(['domain-scope', 'start-url-prefix']);
  });

  it('refuses an unknown acceptor name with a ConfigError listing the known ones', () => {
    let error: unknown;
    try {
      createAcceptorChain(ctx(), ['depth', 'same-host']);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe('acceptors');
    expect((error as ConfigError).message).toContain('"same-host"');
    expect((error as ConfigError).fix).toContain('domain-scope');
    expect(() => createAcceptorChain(ctx(), ['toString'])).toThrow(ConfigError);
  });

  it('turns an acceptor that throws into a StageError naming it', async () => {
    const boom: UrlPathAcceptor = {
      name: 'boom',
      check: () => {
        throw new Error('kaputt');
      },
    };
    const asyncBoom: UrlPathAcceptor = { name: 'async-boom', check: async () => Promise.reject(new Error('later')) };
    expect(() => new AcceptorChain([boom]).check(cand('http://example.com/'))).toThrow(StageError);
    expect(() => new AcceptorChain([boom]).check(cand('http://example.com/'))).toThrow(/acceptor boom: kaputt/);
    await expect(new AcceptorChain([asyncBoom]).check(cand('http://example.com/'))).rejects.toThrow(
      /acceptor async-boom: later/,
    );
  });

  it('continues after an async acceptor in order', async () => {
    const seen: string[] = [];
    const mk = (name: string, accept: boolean, isAsync: boolean): UrlPathAcceptor => ({
      name,
      check: () => {
        seen.push(name);
        const v: Verdict = accept ? { accept: true } : { accept: false, acceptor: name, outcome: 'X', reason: 'no' };
        return isAsync ? Promise.resolve(v) : v;
      },
    });
    const chain = new AcceptorChain([
      mk('a', true, false),
      mk('b', true, true),
      mk('c', false, false),
      mk('d', false, true),
    ]);
    expect(await chain.check(cand('http://example.com/'))).toMatchObject({ accept: false, acceptor: 'c' });
    expect(seen).toEqual(['a', 'b', 'c']);
  });
});
