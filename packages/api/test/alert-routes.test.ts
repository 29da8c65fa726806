import type { Catalog } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../../core/test/support/fixture-site.js';
import { type ApiFixture, openApiFixture } from './support/api-fixture.js';

/**
 * The alerts routes (issue 27 item 6), in-process: a catalog's saved searches added, listed and removed (writes for
 * an admin only), and a webhook url refused as a 400 naming the field.
 */
describe('the alerts routes', () => {
  let site: FixtureSite;
  let f: ApiFixture;
  let catalog: Catalog;

  beforeAll(async () => {
    site = await startFixtureSite();
    f = await openApiFixture();
    catalog = await (await f.gf.catalogs()).create({ url: site.startUrl, name: 'fx' });
  }, 30_000);
  afterAll(async () => {
    await f?.close();
    await site?.close();
  });

  it('POST adds (admin), GET lists with the webhooks, DELETE removes', async () => {
    const url = `/v2/catalog/${catalog.id}/alerts`;
    const denied = await f.call({ method: 'POST', url, as: 'support', payload: { query: 'fixture' } });
    expect(denied.statusCode).toBe(403);
    const added = await f.call({ method: 'POST', url, as: 'admin', payload: { query: 'fixture', mode: 'words' } });
    expect(added.statusCode).toBe(201);
    const row = added.json().data as { id: string; name: string; lastFiredAt: string | null };
    expect(row).toMatchObject({ name: 'fixture', lastFiredAt: null });
    const twice = await f.call({ method: 'POST', url, as: 'admin', payload: { query: 'fixture' } });
    expect(twice.statusCode).toBe(409);
    const badMode = await f.call({ method: 'POST', url, as: 'admin', payload: { query: 'x', mode: 'fuzzy' } });
    expect(badMode.statusCode).toBe(400);
    expect(badMode.json().message).toContain('mode');

    const listed = await f.call({ method: 'GET', url: `/v2/catalog/fx/alerts`, as: 'support' });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data).toMatchObject({
      catalog: { id: catalog.id, name: 'fx' },
      alerts: [{ id: row.id }],
      webhooks: [],
    });

    const removed = await f.call({ method: 'DELETE', url: `${url}/${row.id}`, as: 'admin' });
    expect(removed.statusCode).toBe(200);
    const again = await f.call({ method: 'DELETE', url: `${url}/${row.id}`, as: 'admin' });
    expect(again.statusCode).toBe(404);
  });

  it('a webhook on a private address is a 400 naming the webhook setting', async () => {
    const put = await f.call({
      method: 'PUT',
      url: `/v2/catalog/${catalog.id}`,
      as: 'admin',
      payload: { settings: { webhooks: ['http://192.168.1.20/hook'] } },
    });
    expect(put.statusCode).toBe(400);
    expect(put.json().message).toMatch(/webhook/);
    expect(put.json().message).toContain('private (192.168.0.0/16) address, refused (SSRF)');
    const ok = await f.call({
      method: 'PUT',
      url: `/v2/catalog/${catalog.id}`,
      as: 'admin',
      payload: { settings: { webhooks: ['https://hooks.example.com/greenfinger'] } },
    });
    expect(ok.statusCode).toBe(200);
    const listed = (await f.call({ method: 'GET', url: `/v2/catalog/${catalog.id}/alerts`, as: 'support' })).json()
      .data;
    expect(listed.webhooks).toEqual([{ url: 'https://hooks.example.com/greenfinger', lastDelivery: null }]);
  });
});
