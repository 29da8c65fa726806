import {
  CrawlEvents,
  canonicalFromLinkHeader,
  combineDirectives,
  defaultCatalogSettings,
  frequencyMs,
  notDue,
  refuseByContent,
  refuseByMetadata,
  resolveCatalogSettings,
  xRobotsTag,
} from '@greenfinger/core/internal';
import pino from 'pino';
import { describe, expect, it } from 'vitest';

const UA = 'Greenfinger/0.1 (+https://github.com/greenfinger)';

describe('X-Robots-Tag', () => {
  it('reads noindex, nofollow and none, for every robot or for ours by name', () => {
    expect(xRobotsTag(undefined, UA)).toEqual({ noindex: false, nofollow: false });
    expect(xRobotsTag('noindex', UA)).toEqual({ noindex: true, nofollow: false });
    expect(xRobotsTag('NOINDEX, nofollow', UA)).toEqual({ noindex: true, nofollow: true });
    expect(xRobotsTag('none', UA)).toEqual({ noindex: true, nofollow: true });
    expect(xRobotsTag('greenfinger: nofollow', UA)).toEqual({ noindex: false, nofollow: true });
  });

  it('ignores directives addressed to another robot and values it does not act on', () => {
    expect(xRobotsTag('googlebot: noindex', UA)).toEqual({ noindex: false, nofollow: false });
    expect(xRobotsTag('googlebot: noindex, greenfinger: nofollow', UA)).toEqual({ noindex: false, nofollow: true });
    expect(xRobotsTag('noarchive, unavailable_after: 25 Jun 2010 15:00:00 PST', UA)).toEqual({
      noindex: false,
      nofollow: false,
    });
  });

  it('adds up with the page meta tag', () => {
    expect(combineDirectives({ noindex: true, nofollow: false }, { noindex: false, nofollow: true })).toEqual({
      noindex: true,
      nofollow: true,
    });
  });
});

describe('canonical Link header', () => {
  it('finds rel=canonical among several links and resolves it against the page', () => {
    const page = 'http://127.0.0.1:8080/docs/print/a.html';
    expect(canonicalFromLinkHeader('</docs/a.html>; rel="canonical"', page)).toBe('http://127.0.0.1:8080/docs/a.html');
    expect(
      canonicalFromLinkHeader('<https://cdn.example/s.css>; rel=preload; as=style, <a.html>; rel=canonical', page),
    ).toBe('http://127.0.0.1:8080/docs/print/a.html');
    expect(canonicalFromLinkHeader('<https://example.com/x>; rel="alternate canonical"', page)).toBe(
      'https://example.com/x',
    );
  });

  it('is undefined without a canonical link', () => {
    expect(canonicalFromLinkHeader(undefined, 'http://a.test/')).toBeUndefined();
    expect(canonicalFromLinkHeader('<http://a.test/next>; rel="next"', 'http://a.test/')).toBeUndefined();
    expect(canonicalFromLinkHeader('garbage', 'http://a.test/')).toBeUndefined();
  });
});

describe('metadata filters', () => {
  const headers = {
    'content-type': 'application/pdf',
    'content-length': '2048000',
    'last-modified': 'Tue, 01 Oct 2019 10:00:00 GMT',
  };

  it('excludes by type pattern, by length and by date', () => {
    const byType = resolveCatalogSettings({ metadataFilters: [{ header: 'Content-Type', match: '^application/pdf' }] });
    expect(refuseByMetadata(byType.metadataFilters, headers)?.why).toMatch(/content-type/);
    const bySize = resolveCatalogSettings({ metadataFilters: [{ header: 'content-length', min: 1_000_000 }] });
    expect(refuseByMetadata(bySize.metadataFilters, headers)).toBeDefined();
    expect(refuseByMetadata(bySize.metadataFilters, { ...headers, 'content-length': '10' })).toBeUndefined();
    const old = resolveCatalogSettings({ metadataFilters: [{ header: 'last-modified', before: '2020-01-01' }] });
    expect(refuseByMetadata(old.metadataFilters, headers)).toBeDefined();
    expect(
      refuseByMetadata(old.metadataFilters, { ...headers, 'last-modified': 'Wed, 01 Jan 2025 00:00:00 GMT' }),
    ).toBeUndefined();
  });

  it('with include filters, keeps only what one of them matches; a missing header matches nothing', () => {
    const only = resolveCatalogSettings({
      metadataFilters: [{ header: 'content-type', match: 'html', onMatch: 'include' }],
    }).metadataFilters;
    expect(refuseByMetadata(only, headers)?.why).toMatch(/none of the 1 include/);
    expect(refuseByMetadata(only, { 'content-type': 'text/html' })).toBeUndefined();
    const exclude = resolveCatalogSettings({ metadataFilters: [{ header: 'x-missing', match: '.' }] }).metadataFilters;
    expect(refuseByMetadata(exclude, headers)).toBeUndefined();
  });

  it('a bad pattern or header name is refused when the catalog is saved, naming the flag', () => {
    expect(() => resolveCatalogSettings({ metadataFilters: [{ header: 'content-type', match: '(' }] })).toThrow(
      /--metadata-filters.*regular expression/,
    );
    expect(() => resolveCatalogSettings({ metadataFilters: [{ header: 'bad header' }] as never })).toThrow(
      /--metadata-filters/,
    );
  });
});

describe('document filters', () => {
  const doc = {
    url: 'http://a.test/x.pdf',
    title: 'Quarterly report',
    text: 'Revenue grew.',
    contentType: 'application/pdf',
  };
  it('exclude on text, include on title', () => {
    const ex = resolveCatalogSettings({ documentFilters: [{ match: 'revenue' }] }).documentFilters;
    expect(refuseByContent(ex, doc)?.why).toMatch(/document filter text/);
    const inc = resolveCatalogSettings({
      documentFilters: [{ field: 'title', match: '^annual', onMatch: 'include' }],
    }).documentFilters;
    expect(refuseByContent(inc, doc)).toBeDefined();
    expect(refuseByContent(inc, { ...doc, title: 'Annual report' })).toBeUndefined();
    expect(refuseByContent(defaultCatalogSettings.documentFilters, doc)).toBeUndefined();
  });
});

describe('recrawlable resolver', () => {
  const now = Date.parse('2026-06-10T12:00:00Z');
  const page = { url: 'http://a.test/news/1', contentType: 'text/html', fetchedAt: '2026-06-10T00:00:00Z' };

  it('reads frequencies', () => {
    expect(frequencyMs('daily')).toBe(86_400_000);
    expect(frequencyMs('12h')).toBe(43_200_000);
    expect(frequencyMs('90s')).toBe(90_000);
    expect(frequencyMs('never')).toBe(Number.POSITIVE_INFINITY);
    expect(frequencyMs('sometimes')).toBeUndefined();
  });

  it('a lastmod not after the fetch is not due; a later one is', () => {
    expect(notDue(page, { lastmod: '2026-06-09' }, [], now)?.detail).toBe('lastmod');
    expect(notDue(page, { lastmod: '2026-06-10T06:00:00Z' }, [], now)).toBeUndefined();
  });

  it('changefreq counts from the fetch when there is no lastmod', () => {
    expect(notDue(page, { changefreq: 'daily' }, [], now)?.detail).toBe('changefreq');
    expect(notDue(page, { changefreq: 'hourly' }, [], now)).toBeUndefined();
    expect(notDue(page, { changefreq: 'always' }, [], now)).toBeUndefined();
  });

  it('a catalog rule decides alone, first match wins; nothing known means due', () => {
    const rules = resolveCatalogSettings({
      recrawlFrequencies: [
        { match: '/news/', every: '1h' },
        { match: '.', every: 'weekly' },
      ],
    }).recrawlFrequencies;
    expect(notDue(page, { lastmod: '2020-01-01' }, rules, now)).toBeUndefined();
    expect(notDue({ ...page, url: 'http://a.test/about' }, undefined, rules, now)?.detail).toBe('frequency');
    expect(notDue(page, undefined, [], now)).toBeUndefined();
    expect(notDue({ ...page, fetchedAt: 'garbage' }, { lastmod: '2020-01-01' }, [], now)).toBeUndefined();
  });
});

describe('crawl events', () => {
  const event = { catalogId: 'c', catalog: 'c', version: 0, url: 'http://a.test/' } as const;

  it('reaches listeners by name and *, and a throwing listener does not stop the others', async () => {
    const events = new CrawlEvents(pino({ level: 'silent' }));
    const heard: string[] = [];
    events.on('REJECTED_NONCANONICAL', () => {
      throw new Error('boom');
    });
    events.on('REJECTED_NONCANONICAL', (e) => void heard.push(`one:${e.name}`));
    events.on('*', async (e) => {
      heard.push(`all:${e.name}`);
      throw new Error('async boom');
    });
    events.emit({ name: 'REJECTED_NONCANONICAL', ...event });
    const off = events.on('SAVED', (e) => void heard.push(`saved:${e.url}`));
    events.emit({ name: 'SAVED', ...event });
    off();
    events.emit({ name: 'SAVED', ...event });
    // Every listener has run (the async one up to its throw); one turn of the loop lets its rejection be handled.
    await new Promise((r) => setImmediate(r));
    expect(heard).toEqual([
      'one:REJECTED_NONCANONICAL',
      'all:REJECTED_NONCANONICAL',
      'saved:http://a.test/',
      'all:SAVED',
      'all:SAVED',
    ]);
  });
});
