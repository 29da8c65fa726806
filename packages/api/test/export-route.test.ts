import type { AddressInfo } from 'node:net';
import type { ResourceRow } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../../core/test/support/fixture-site.js';
import { type ApiFixture, openApiFixture } from './support/api-fixture.js';

/**
 * `GET /v2/catalog/{ref}/export` in process over a crawl of the fixture site: each format streams with its media
 * type and file name, any signed-in role may read it, and a bad request is a 400 or 404 before any byte.
 */
describe('GET /v2/catalog/{ref}/export', () => {
  let f: ApiFixture;
  let site: FixtureSite;
  let rows: ResourceRow[];

  beforeAll(async () => {
    site = await startFixtureSite();
    f = await openApiFixture();
    const report = await f.gf.crawler.crawl({
      url: site.origin,
      name: 'garden',
      settings: { intervalMs: 0, outputs: ['file', 'index'] },
    });
    expect(report.ending.published).toBe(true);
    rows = [];
    for await (const batch of (await f.gf.database()).resources.iterateResources(report.catalogId, 0)) {
      rows.push(...batch);
    }
    expect(rows.length).toBeGreaterThan(2);
  }, 60_000);
  afterAll(async () => {
    await f?.close();
    await site?.close();
  });

  it('streams jsonl, one line per page, to the support role too', async () => {
    const res = await f.call({ method: 'GET', url: '/v2/catalog/garden/export?format=jsonl', as: 'support' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(res.headers['content-disposition']).toBe('attachment; filename="garden-v0.jsonl"');
    const lines = res.body
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.url).sort()).toEqual(rows.map((r) => r.url).sort());
    expect(lines[0]).toMatchObject({ version: 0, catalog: { name: 'garden' } });
  });

  it('streams a wacz and a warc over a real connection; markdown comes as a zip', async () => {
    await f.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(f.app.server.address() as AddressInfo).port}`;
    const get = (q: string) =>
      fetch(`${base}/v2/catalog/garden/export?${q}`, { headers: { authorization: `Bearer ${f.admin}` } });
    const wacz = await get('format=wacz&version=0');
    expect(wacz.status).toBe(200);
    expect(wacz.headers.get('content-type')).toBe('application/wacz');
    const zip = Buffer.from(await wacz.arrayBuffer());
    expect(zip.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
    expect(zip.includes(Buffer.from('pages/pages.jsonl'))).toBe(true);
    const warc = await get('format=warc');
    expect(warc.headers.get('content-disposition')).toBe('attachment; filename="garden-v0.warc.gz"');
    const gz = Buffer.from(await warc.arrayBuffer());
    expect(gz.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const md = await get('format=markdown');
    expect(md.headers.get('content-type')).toBe('application/zip');
    expect(Buffer.from(await md.arrayBuffer()).includes(Buffer.from('.md'))).toBe(true);
  });

  it('a bad format, an unknown catalog or version, or no token: 400, 404, 401, never a 5xx', async () => {
    const bad = await f.call({ method: 'GET', url: '/v2/catalog/garden/export?format=pdf', as: 'admin' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error ?? bad.body).toMatch(/format/);
    const missing = await f.call({ method: 'GET', url: '/v2/catalog/garden/export', as: 'admin' });
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('format');
    const chunks = await f.call({
      method: 'GET',
      url: '/v2/catalog/garden/export?format=warc&chunks=true',
      as: 'admin',
    });
    expect(chunks.statusCode).toBe(400);
    expect(chunks.body).toContain('chunks');
    const version = await f.call({
      method: 'GET',
      url: '/v2/catalog/garden/export?format=jsonl&version=9',
      as: 'admin',
    });
    expect(version.statusCode).toBe(404);
    const nobody = await f.call({ method: 'GET', url: '/v2/catalog/nobody/export?format=jsonl', as: 'admin' });
    expect(nobody.statusCode).toBe(404);
    expect((await f.call({ method: 'GET', url: '/v2/catalog/garden/export?format=jsonl' })).statusCode).toBe(401);
  });
});
