import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, openApiFixture } from './support/api-fixture.js';
import { OPEN, type RouteCase, routeTable } from './support/route-table.js';

describe('every route: access, envelope, errors', () => {
  let f: ApiFixture;
  let routes: RouteCase[];
  beforeAll(async () => {
    f = await openApiFixture();
    routes = await routeTable(f.app);
  });
  afterAll(async () => f?.close());

  it('the description lists the whole surface', () => {
    const names = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const must of [
      'POST /v2/login',
      'POST /v2/logout',
      'GET /v2/me',
      'GET /v2/version',
      'GET /v2/node',
      'GET /v2/outputs',
      'GET /v2/health',
      'GET /v2/catalog',
      'GET /v2/catalog/cats',
      'GET /v2/catalog/running',
      'GET /v2/catalog/schedules',
      'GET /v2/catalog/{ref}',
      'GET /v2/catalog/{ref}/details',
      'GET /v2/catalog/{ref}/summary',
      'POST /v2/catalog',
      'DELETE /v2/catalog/{ref}',
      'POST /v2/crawl/{ref}',
      'POST /v2/crawl/{ref}/{verb}',
      'GET /v2/status/{jobId}',
      'GET /v2/crawl/{ref}/reports',
      'GET /v2/crawl/{ref}/versions',
      'DELETE /v2/crawl/{ref}/versions',
      'GET /v2/crawl/{ref}/events',
      'GET /v2/search',
      'GET /v2/resource',
      'GET /v2/resource/{id}/html',
      'GET /v2/storage',
      'POST /v2/seed/urls',
      'POST /v2/limits',
      'GET /v2/metrics',
      'POST /v2/crawl/start',
      'POST /v2/crawl/stop',
      'GET /v2/urls',
      'GET /v2/urls/{id}',
      'DELETE /v2/urls/{id}',
    ]) {
      expect(names, must).toContain(must);
    }
  });

  it('every route but the open ones answers 401 without a token, in the envelope', async () => {
    for (const r of routes) {
      if (OPEN.has(`${r.method} ${r.path}`)) continue;
      const res = await f.call({ method: r.method, url: r.url, payload: r.write ? {} : undefined });
      expect(res.statusCode, `${r.method} ${r.url}`).toBe(401);
      expect(res.json(), `${r.method} ${r.url}`).toMatchObject({
        success: false,
        data: null,
        message: expect.any(String),
      });
    }
  });

  it('every write route answers 403 to the support role, and changes nothing', async () => {
    const before = (await f.call({ method: 'GET', url: '/v2/catalog', as: 'admin' })).json().data;
    const writes = routes.filter((r) => r.write && !OPEN.has(`${r.method} ${r.path}`) && r.path !== '/v2/logout');
    expect(writes.length).toBeGreaterThan(10);
    for (const r of writes) {
      const res = await f.call({
        method: r.method,
        url: r.url,
        payload: { url: 'http://127.0.0.1:9/' },
        as: 'support',
      });
      expect(res.statusCode, `${r.method} ${r.url}`).toBe(403);
      expect(res.json().message).toMatch(/support role/);
    }
    expect((await f.call({ method: 'GET', url: '/v2/catalog', as: 'admin' })).json().data).toEqual(before);
  });

  it('reads are open to the support role', async () => {
    for (const url of ['/v2/catalog', '/v2/node', '/v2/outputs', '/v2/storage', '/v2/crawl/status', '/v2/settings']) {
      const res = await f.call({ method: 'GET', url, as: 'support' });
      expect(res.statusCode, url).toBe(200);
      expect(res.json().success, url).toBe(true);
    }
  });

  it('no route answers 5xx to the sample urls, signed in as admin', async () => {
    for (const r of routes) {
      // Signing out would end the admin's session for the tests after this one.
      if (r.path.endsWith('/events') || r.path === '/v2/logout') continue;
      const res = await f.call({ method: r.method, url: r.url, payload: r.write ? {} : undefined, as: 'admin' });
      expect(res.statusCode, `${r.method} ${r.url}: ${res.body.slice(0, 200)}`).toBeLessThan(500);
    }
  });

  it('unknown endpoints and unknown catalogs are 404 in the envelope', async () => {
    const nothing = await f.call({ method: 'GET', url: '/v2/nothing-here', as: 'admin' });
    expect(nothing.statusCode).toBe(404);
    expect(nothing.json()).toMatchObject({
      success: false,
      message: expect.stringMatching(/no endpoint GET \/v2\/nothing-here/),
    });
    const cat = await f.call({ method: 'GET', url: '/v2/catalog/ghost', as: 'admin' });
    expect(cat.statusCode).toBe(404);
    expect(cat.json().message).toMatch(/no catalog with name "ghost"/);
    const job = await f.call({ method: 'GET', url: '/v2/status/nope', as: 'admin' });
    expect(job.statusCode).toBe(404);
  });

  it('a 400 names the field: a bad type, a missing field, an unknown field', async () => {
    const bad = await f.call({ method: 'GET', url: '/v2/search?q=x&size=many', as: 'admin' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/size/);
    const missing = await f.call({ method: 'POST', url: '/v2/login', payload: { username: 'x' } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toMatch(/"password" is required/);
    const unknown = await f.call({
      method: 'POST',
      url: '/v2/catalog',
      as: 'admin',
      payload: { url: 'http://127.0.0.1:9/', settings: { depht: 2 } },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().message).toMatch(/unknown field "settings.depht"/);
    const wrongType = await f.call({
      method: 'POST',
      url: '/v2/catalog',
      as: 'admin',
      payload: { url: 'http://127.0.0.1:9/', settings: { depth: 'deep' } },
    });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().message).toMatch(/settings\.depth/);
  });

  it('the orphans setting is one of ignore, delete and process', async () => {
    const create = (orphans: string) =>
      f.call({
        method: 'POST',
        url: '/v2/catalog',
        as: 'admin',
        payload: { name: 'orphans', url: 'http://127.0.0.1:9/', settings: { orphans } },
      });
    const bad = await create('sometimes');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/settings\.orphans/);
    const created = await create('delete');
    expect(created.statusCode).toBe(201);
    expect(created.json().data.settings.orphans).toBe('delete');
    const del = await f.call({ method: 'DELETE', url: '/v2/catalog/orphans?dryRun=false', as: 'admin' });
    expect(del.statusCode).toBe(200);
  });

  it('a catalog with a schedule is listed with its next run; a schedule it cannot run is a 400 naming the field', async () => {
    const create = (schedule: string) =>
      f.call({
        method: 'POST',
        url: '/v2/catalog',
        as: 'admin',
        payload: { name: 'nightly', url: 'http://127.0.0.1:9/', settings: { schedule } },
      });
    const bad = await create('every tuesday');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/schedule.*every tuesday.*every 6h/);
    const before = Date.now();
    expect((await create('0 3 * * *')).statusCode).toBe(201);
    const listed = await f.call({ method: 'GET', url: '/v2/catalog/schedules', as: 'support' });
    expect(listed.statusCode).toBe(200);
    const [entry] = listed.json().data;
    expect(entry).toMatchObject({ catalog: 'nightly', schedule: '0 3 * * *', lastRunAt: null, running: false });
    const next = new Date(entry.nextRunAt);
    expect([next.getHours(), next.getMinutes()]).toEqual([3, 0]);
    expect(next.getTime() - before).toBeGreaterThan(0);
    expect(next.getTime() - before).toBeLessThanOrEqual(86_400_000);
    expect((await f.call({ method: 'DELETE', url: '/v2/catalog/nightly?dryRun=false', as: 'admin' })).statusCode).toBe(
      200,
    );
  });

  it('creates a catalog from a partial body, merges a later patch, and deletes it', async () => {
    const created = await f.call({
      method: 'POST',
      url: '/v2/catalog',
      as: 'admin',
      payload: { name: 'local', url: 'http://127.0.0.1:9/', settings: { depth: 2 } },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().data).toMatchObject({
      name: 'local',
      url: 'http://127.0.0.1:9/',
      settings: { depth: 2, maxPages: 10000 },
    });
    const patched = await f.call({
      method: 'POST',
      url: '/v2/catalog',
      as: 'admin',
      payload: { name: 'local', settings: { maxPages: 7 } },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data.settings).toMatchObject({ depth: 2, maxPages: 7 });
    const shown = await f.call({ method: 'GET', url: '/v2/catalog/local', as: 'support' });
    // The body `catalog show --json` prints can be sent back as it is.
    const again = await f.call({ method: 'POST', url: '/v2/catalog', as: 'admin', payload: shown.json().data });
    expect(again.statusCode).toBe(200);
    const cats = await f.call({ method: 'GET', url: '/v2/catalog/cats', as: 'support' });
    expect(cats.json().data).toContainEqual({ cat: 'other', catalogs: 1 });
    const del = await f.call({ method: 'DELETE', url: '/v2/catalog/local?dryRun=false', as: 'admin' });
    expect(del.statusCode).toBe(200);
    expect((await f.call({ method: 'GET', url: '/v2/catalog/local', as: 'admin' })).statusCode).toBe(404);
  });

  it('serves the description and the docs page without a token', async () => {
    const spec = await f.call({ method: 'GET', url: '/v2/openapi.json' });
    expect(spec.json().openapi).toMatch(/^3\./);
    const docs = await f.call({ method: 'GET', url: '/v2/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toMatch(/swagger/i);
  });

  it('answers Prometheus text', async () => {
    const m = await f.call({ method: 'GET', url: '/v2/metrics', as: 'support' });
    expect(m.statusCode).toBe(200);
    expect(m.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(m.body).toMatch(/^# (HELP|TYPE) greenfinger_/m);
  });

  it('masks secrets in the settings', async () => {
    const s = (await f.call({ method: 'GET', url: '/v2/settings', as: 'admin' })).json().data;
    expect(s.tokenSecret).not.toMatch(/.{8,}/);
  });
});

describe('GF_API_WEB', () => {
  it('true: / is the page (web.test.ts has the details); false: REST only, / is a 404 in the envelope', async () => {
    const on = await openApiFixture();
    const off = await openApiFixture({ settings: { apiWeb: false } });
    try {
      const page = await on.call({ method: 'GET', url: '/' });
      expect(page.statusCode).not.toBe(404);
      const none = await off.call({ method: 'GET', url: '/' });
      expect(none.statusCode).toBe(404);
      expect(none.json()).toMatchObject({ success: false, data: null });
      expect((await off.call({ method: 'GET', url: '/v2/version' })).statusCode).toBe(200);
    } finally {
      await on.close();
      await off.close();
    }
  });
});
