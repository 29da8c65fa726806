import { buildApp } from '@greenfinger/api';
import { Greenfinger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../../core/test/support/fixture-site.js';
import { createTempDir, type TempDir } from '../../core/test/support/tmp.js';

describe('REST API over the core services', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let gf: Greenfinger;
  let app: ReturnType<typeof buildApp>;

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    tmp = createTempDir('gf-api-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 0 } });
    app = buildApp(gf);
  });
  afterAll(async () => {
    await app?.close();
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('answers search with a clear 404 before anything is published', async () => {
    const r = await app.inject({ method: 'GET', url: '/v2/search?q=garden' });
    expect(r.statusCode).toBe(404);
    expect(r.json()).toMatchObject({ success: false, message: expect.stringMatching(/nothing has been published/) });
  });

  it('refuses a search without q with a 400 naming the field', async () => {
    const r = await app.inject({ method: 'GET', url: '/v2/search' });
    expect(r.statusCode).toBe(400);
    expect(r.json().message).toMatch(/q/);
  });

  it('lists the catalog a crawl created and searches it by words', async () => {
    await gf.crawler.crawl({ url: site.origin, settings: { intervalMs: 0, outputs: ['file', 'index'], maxPages: 5 } });
    const list = await app.inject({ method: 'GET', url: '/v2/catalog' });
    expect(list.json().data).toHaveLength(1);
    const name = list.json().data[0].name as string;
    const one = await app.inject({ method: 'GET', url: `/v2/catalog/${encodeURIComponent(name)}` });
    expect(one.json().data.searchVersion).toBe(0);
    const r = await app.inject({ method: 'GET', url: '/v2/search?q=balconies&size=3' });
    expect(r.statusCode).toBe(200);
    expect(r.json().data.results[0].highlights[0]).toMatch(/<em>balcon(y|ies)<\/em>/i);
  });

  it('answers 404 for an unknown catalog and an unknown endpoint', async () => {
    expect((await app.inject({ method: 'GET', url: '/v2/catalog/nope' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/v2/nothing-here' })).statusCode).toBe(404);
  });
});
