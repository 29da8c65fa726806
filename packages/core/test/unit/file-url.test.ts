import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createAcceptorChain } from '../../src/acceptors/acceptor-chain.js';
import { resolveCatalogSettings } from '../../src/config.js';
import { QueuePipeline } from '../../src/engine/queue-pipeline.js';
import { ConfigError } from '../../src/errors.js';
import type { FetchResult } from '../../src/fetch/extractor.js';
import type { Catalog, CatalogSettings } from '../../src/model.js';
import { Outcome } from '../../src/outcomes.js';
import { folderCatalogName, isFolderUrl } from '../../src/url/file-url.js';
import { normalizeUrl } from '../../src/url/normalize.js';
import { parseUserUrl } from '../../src/url/parse-user-url.js';
import { createTempDir } from '../support/tmp.js';

// Through the page pipeline's own module first, as the engine loads it (the stage module imports from it).
const { NEXT, PageInProgress } = await import('../../src/engine/page.js');
const { children } = await import('../../src/engine/stages/child-paths.js');

const file = { file: true } as const;

describe('file: urls', () => {
  it.each([
    ['file:///srv/docs/', 'file:///srv/docs/'],
    ['file:///srv/docs/a/../b/./c.html', 'file:///srv/docs/b/c.html'],
    ['file:///srv/docs/%2e%2e/x.html', 'file:///srv/x.html'],
    ['file:///srv/docs/a.html?q=1#top', 'file:///srv/docs/a.html'],
    ['file:///srv//docs///a.html', 'file:///srv/docs/a.html'],
    ['file://localhost/srv/docs/', 'file:///srv/docs/'],
    ['FILE:///srv/a b.html', 'file:///srv/a%20b.html'],
    ['file:///srv/caf%c3%a9.html', 'file:///srv/caf%C3%A9.html'],
    ['file:///srv/café/文字.html', 'file:///srv/caf%C3%A9/%E6%96%87%E5%AD%97.html'],
    ['file:///srv/%7euser/100%25.html', 'file:///srv/~user/100%25.html'],
    ['file:///srv/a;jsessionid=1.html', 'file:///srv/a;jsessionid=1.html'],
    ['file:///srv/folder', 'file:///srv/folder'],
  ])('%s → %s', (raw, expected) => {
    expect(normalizeUrl(raw, undefined, file)).toBe(expected);
    expect(normalizeUrl(expected, undefined, file)).toBe(expected);
  });

  it('agrees with node:url for every name a folder can hold', () => {
    for (const name of ['a b.html', '100%.html', 'a#b?c.html', 'ünï 文字.html', '[x]{y}|^`.html']) {
      const href = pathToFileURL(`/srv/${name}`).href;
      expect(normalizeUrl(href, undefined, file)).toBe(href.replace(/%[0-9a-f]{2}/g, (m) => m.toUpperCase()));
    }
  });

  it('is crawlable only when asked for, or as a link of a local file: a web page cannot point at the disk', () => {
    expect(normalizeUrl('file:///etc/passwd')).toBeUndefined();
    expect(normalizeUrl('file:///etc/passwd', 'http://example.com/page.html')).toBeUndefined();
    expect(normalizeUrl('/etc/passwd', 'http://example.com/page.html')).toBe('http://example.com/etc/passwd');
    expect(normalizeUrl('other page.html', 'file:///srv/docs/a.html')).toBe('file:///srv/docs/other%20page.html');
    expect(normalizeUrl('../up/', 'file:///srv/docs/a.html')).toBe('file:///srv/up/');
    expect(normalizeUrl('https://example.com/x', 'file:///srv/docs/a.html')).toBe('https://example.com/x');
  });

  it('file://host/… names another machine and is never crawlable', () => {
    expect(normalizeUrl('file://server/share/a.html', undefined, file)).toBeUndefined();
  });

  it('keeps every http url as before', () => {
    expect(normalizeUrl('HTTP://Example.COM/a/./b/../c?utm_source=x#f', undefined, file)).toBe(
      'http://example.com/a/c',
    );
  });

  it('tells folders from files by the trailing slash, and names a catalog after its folder', () => {
    expect(isFolderUrl('file:///srv/docs/')).toBe(true);
    expect(isFolderUrl('file:///srv/docs/a.html')).toBe(false);
    expect(isFolderUrl('http://example.com/docs/')).toBe(false);
    expect(folderCatalogName('file:///srv/Team%20Docs/')).toBe('Team Docs');
    expect(folderCatalogName('file:///srv/caf%C3%A9/')).toBe('café');
    expect(folderCatalogName('file:///srv/a+b(c)/')).toBe('a-b-c');
    expect(folderCatalogName('file:///')).toBe('files');
  });
});

describe('parseUserUrl with a folder', () => {
  it('takes file:///path and a plain absolute path, and gives an existing folder its slash', () => {
    using tmp = createTempDir('gf-file-url-');
    mkdirSync(join(tmp.path, 'my docs'));
    const folder = `${pathToFileURL(join(tmp.path, 'my docs')).href}/`;
    expect(parseUserUrl(folder, '--url')).toBe(folder);
    expect(parseUserUrl(folder.slice(0, -1), '--url')).toBe(folder);
    expect(parseUserUrl(join(tmp.path, 'my docs'), '--url')).toBe(folder);
    expect(parseUserUrl(`  ${join(tmp.path, 'my docs')}/ `, '--url')).toBe(folder);
    // A file, or a path that is not there (a file since deleted can still be looked up): as given.
    expect(parseUserUrl(join(tmp.path, 'my docs', 'gone.html'), '--url')).toBe(`${folder}gone.html`);
  });

  it.each([
    ['file://server/share/', /names the machine "server": only a local folder can be crawled/],
    ['./docs', /is a relative path/],
    ['../docs/', /is a relative path/],
    ['file:///a%2Fb/', /names no local path/],
  ])('%j is refused in one line naming the field', (input, message) => {
    let error: unknown;
    try {
      parseUserUrl(input, '--url');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/^--url: /);
    expect((error as ConfigError).message).toMatch(message);
    expect((error as ConfigError).message).not.toContain('\n');
    expect((error as ConfigError).fix).toMatch(/file:\/\/\//);
  });

  it('keeps refusing other schemes with the same line as before', () => {
    expect(() => parseUserUrl('ftp://example.com/', '--url')).toThrow(/ftp: but only http and https/);
  });
});

function catalog(url: string, settings: Partial<CatalogSettings> = {}): Catalog {
  return {
    id: '018bcfe5-6800-7000-8000-000000000000',
    name: 'files',
    url,
    startUrl: url,
    settings: resolveCatalogSettings(settings),
    indexVersion: 0,
    searchVersion: -1,
    runningState: 'none',
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  };
}

describe('the acceptors of a catalog of a folder', () => {
  const root = 'file:///srv/docs/';
  const check = async (url: string, settings: Partial<CatalogSettings> = {}, depth = 1) =>
    createAcceptorChain({ catalog: catalog(root, settings) }).check({ url, depth });

  it('keep it inside its folder', async () => {
    expect((await check('file:///srv/docs/a/b.html')).accept).toBe(true);
    for (const out of [
      'file:///srv/docs-old/a.html',
      'file:///srv/other/',
      'file:///etc/passwd',
      'http://example.com/',
    ]) {
      const v = await check(out);
      expect(v.accept, out).toBe(false);
      expect(!v.accept && v.outcome, out).toBe(Outcome.REJECTED_OUT_OF_SCOPE);
    }
  });

  it('let documents through the asset check, and still refuse assets', async () => {
    for (const doc of ['a.pdf', 'b.docx', 'c.txt', 'd.md', 'e.csv', 'f.html']) {
      expect((await check(`${root}${doc}`)).accept, doc).toBe(true);
    }
    const css = await check(`${root}style.css`);
    expect(!css.accept && css.outcome).toBe(Outcome.REJECTED_ASSET);
    // A web catalog refuses documents when its `documents` is off.
    const off = catalog('https://example.com/');
    const web = await createAcceptorChain({
      catalog: { ...off, settings: { ...off.settings, documents: false } },
    }).check({ url: 'https://example.com/a.pdf', depth: 1 });
    expect(!web.accept && web.outcome).toBe(Outcome.REJECTED_ASSET);
  });

  it('apply depth and path patterns, from the catalog folder; include patterns never refuse a folder', async () => {
    const deep = await check(`${root}a/`, { depth: 1 }, 2);
    expect(!deep.accept && deep.outcome).toBe(Outcome.REJECTED_TOO_DEEP);
    const archive = await check(`${root}archive/`, { exclude: ['/archive/**'] });
    expect(!archive.accept && archive.outcome).toBe(Outcome.REJECTED_FILTER);
    expect((await check(`${root}archive/old.html`, { exclude: ['/archive/**'] })).accept).toBe(false);
    expect((await check(`${root}keep/archive/x.html`, { exclude: ['/archive/**'] })).accept).toBe(true);
    expect((await check(`${root}keep/archive/x.html`, { exclude: ['archive/**'] })).accept).toBe(false);
    expect((await check(`${root}sub/`, { include: ['*.md'] })).accept).toBe(true);
    expect((await check(`${root}sub/a.md`, { include: ['*.md'] })).accept).toBe(true);
    const html = await check(`${root}sub/a.html`, { include: ['*.md'] });
    expect(!html.accept && html.outcome).toBe(Outcome.REJECTED_FILTER);
    expect((await check(`${root}a.html`, { exclude: ['file:///srv/docs/a.*'] })).accept).toBe(false);
  });

  it('ask no robots.txt', async () => {
    let asked = 0;
    const robots = {
      isAllowed: async () => {
        asked++;
        return false;
      },
      crawlDelayMs: async () => undefined,
      sitemaps: async () => [],
    };
    const chain = createAcceptorChain({ catalog: catalog(root), robots });
    expect((await chain.check({ url: `${root}a.html`, depth: 1 })).accept).toBe(true);
    expect(asked).toBe(0);
  });
});

describe('the child-paths stage', () => {
  const root = 'file:///srv/docs/';
  const cat = catalog(root, { exclude: ['/archive/**'] });
  const queue = new QueuePipeline({
    acceptors: createAcceptorChain({ catalog: cat }),
    normalize: (raw, base) => normalizeUrl(raw, base, file),
    catalog: cat,
  });
  const ctx = { queue } as unknown as Parameters<typeof children.run>[1];
  const answer = (children?: string[]): FetchResult => ({
    finalUrl: root,
    redirects: [],
    status: 200,
    contentType: 'inode/directory',
    charset: '',
    headers: {},
    body: Buffer.alloc(0),
    etag: null,
    lastModified: null,
    elapsedMs: 0,
    children,
  });

  it('offers a folder’s children one level deeper and ends it LISTED', async () => {
    const page = new PageInProgress({ url: root, depth: 2, priority: 0, leaseKey: 'k' });
    page.result = answer([`${root}a.html`, `${root}archive/`, `${root}sub/`, 'file:///etc/']);
    const verdict = await children.run(page, ctx);
    expect(verdict).toEqual({ outcome: Outcome.LISTED, why: '4 entries' });
    const offer = page.completion.offer;
    expect(offer?.accepted.map((e) => [e.url, e.depth, e.referrer])).toEqual([
      [`${root}a.html`, 3, root],
      [`${root}sub/`, 3, root],
    ]);
    expect(offer?.refused.map((r) => [r.url, r.outcome])).toEqual([
      [`${root}archive/`, Outcome.REJECTED_FILTER],
      ['file:///etc/', Outcome.REJECTED_OUT_OF_SCOPE],
    ]);
  });

  it('passes anything else on', async () => {
    const page = new PageInProgress({ url: `${root}a.html`, depth: 1, priority: 0, leaseKey: 'k' });
    page.result = { ...answer(), contentType: 'text/html' };
    expect(await children.run(page, ctx)).toBe(NEXT);
    expect(page.completion.offer).toBeUndefined();
    const empty = new PageInProgress({ url: `${root}empty/`, depth: 1, priority: 0, leaseKey: 'k' });
    empty.result = answer([]);
    expect(await children.run(empty, ctx)).toEqual({ outcome: Outcome.LISTED, why: '0 entries' });
  });
});
