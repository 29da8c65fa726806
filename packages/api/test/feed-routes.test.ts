import type { Catalog } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, openApiFixture } from './support/api-fixture.js';

/**
 * POST /v2/catalog/{ref}/changed (issue 27 item 1, pushed changes), in-process: urls recorded for the next merge,
 * urls outside the catalog refused and listed, the admin role required, bad input a 400 naming the field. That a
 * merge then fetches them is judged in core's integration/change-feeds.test.ts.
 */
describe('POST /v2/catalog/{ref}/changed', () => {
  let f: ApiFixture;
  let catalog: Catalog;
  const site = 'https://wiki.example.org/';

  beforeAll(async () => {
    f = await openApiFixture();
    catalog = await (await f.gf.catalogs()).create({ url: site, settings: { changeFeeds: ['sitemap'] } });
  });
  afterAll(async () => {
    await f?.close();
  });

  const post = (payload: unknown, as: 'admin' | 'support' = 'admin', ref = catalog.id) =>
    f.call({ method: 'POST', url: `/v2/catalog/${encodeURIComponent(ref)}/changed`, payload: payload as object, as });

  it('records the urls under the catalog, normalised; refuses and lists the others', async () => {
    const r = await post({ urls: [`${site}wiki/Hazel#history`, 'https://elsewhere.example/a', 'not a url'] });
    expect(r.statusCode).toBe(200);
    const data = r.json().data;
    expect(data.catalog).toEqual({ id: catalog.id, name: catalog.name });
    expect(data.recorded).toEqual([`${site}wiki/Hazel`]);
    expect(data.refused.map((x: { url: string }) => x.url)).toEqual(['https://elsewhere.example/a', 'not a url']);
    expect(data.refused[0].reason).toMatch(/not under https:\/\/wiki\.example\.org\//);
    expect(r.json().message).toBe('1 recorded for the next merge, 2 refused');
    // By name too.
    expect((await post({ urls: [`${site}wiki/Gorse`] }, 'admin', catalog.name)).statusCode).toBe(200);
  });

  it('the admin role: a support user is refused with a 403', async () => {
    const r = await post({ urls: [`${site}wiki/Hazel`] }, 'support');
    expect(r.statusCode).toBe(403);
  });

  it('bad input: a 400 naming the field', async () => {
    for (const payload of [{}, { urls: [] }, { urls: 'x' }, { urls: [`${site}a`], other: 1 }]) {
      const r = await post(payload);
      expect(r.statusCode, JSON.stringify(payload)).toBe(400);
      expect(r.json().message, JSON.stringify(payload)).toMatch(/urls|other/);
    }
    const none = await post({ urls: ['https://elsewhere.example/a'] });
    expect(none.statusCode).toBe(400);
    expect(none.json().message).toMatch(/^urls: none is a url under https:\/\/wiki\.example\.org\//);
    expect((await post({ urls: [`${site}a`] }, 'admin', 'no-such-catalog')).statusCode).toBe(404);
  });

  it('the setting through the catalog routes: changeFeeds stored and shown; a bad one a 400 naming it', async () => {
    const put = (changeFeeds: string[]) =>
      f.call({ method: 'PUT', url: `/v2/catalog/${catalog.id}`, payload: { settings: { changeFeeds } }, as: 'admin' });
    const ok = await put([`rss:${site}feed.xml`, 'sitemap']);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.settings.changeFeeds).toEqual([`rss:${site}feed.xml`, 'sitemap']);
    const bad = await put(['atom:https://wiki.example.org/feed']);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/changeFeeds|change-feed/);
    expect(bad.json().message).toMatch(/is not a change feed: use mediawiki:URL/);
  });
});
