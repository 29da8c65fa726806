import type { AddressInfo } from 'node:net';
import type { ResourceRow } from '@greenfinger/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../../core/test/support/fixture-site.js';
import { type ApiFixture, openApiFixture } from './support/api-fixture.js';

/**
 * The Markdown route and `/mcp` of the REST app in this process (the serve-process tests in the shell prove the same
 * over a real `serve`): a crawl of the fixture site, then the official MCP client over HTTP with each role's token.
 */
describe('GET /v2/resource/{id}/markdown and /mcp, in process', () => {
  let f: ApiFixture;
  let site: FixtureSite;
  let page: ResourceRow;
  let base = '';

  beforeAll(async () => {
    site = await startFixtureSite();
    f = await openApiFixture();
    const report = await f.gf.crawler.crawl({
      url: site.origin,
      name: 'garden',
      settings: { intervalMs: 0, outputs: ['file', 'index'] },
    });
    expect(report.ending.published).toBe(true);
    const db = await f.gf.database();
    const rows: ResourceRow[] = [];
    for await (const batch of db.resources.iterateResources(report.catalogId, 0)) rows.push(...batch);
    page = rows.find((r) => r.title.trim() !== '') as ResourceRow;
    expect(page).toBeDefined();
    await f.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(f.app.server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    await f?.close();
    await site?.close();
  });

  it('answers a page as Markdown with its front matter; a download is named; bad input is a 400 or 404', async () => {
    const res = await f.call({ method: 'GET', url: `/v2/resource/${page.id}/markdown`, as: 'support' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/markdown/);
    expect(res.body.startsWith('---\n')).toBe(true);
    expect(res.body).toMatch(/^url: /m);
    expect(res.body).toContain(page.url);
    expect(res.headers['x-markdown-source']).toBeDefined();
    const download = await f.call({
      method: 'GET',
      url: `/v2/resource/${page.id}/markdown?download=true`,
      as: 'admin',
    });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-disposition']).toMatch(/^attachment; filename=".+\.md"$/);
    expect((await f.call({ method: 'GET', url: `/v2/resource/${page.id}/markdown` })).statusCode).toBe(401);
    const bad = await f.call({ method: 'GET', url: `/v2/resource/${page.id}/markdown?download=maybe`, as: 'admin' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('download');
    const unknown = '01a24300-0000-7000-8000-000000000000';
    expect((await f.call({ method: 'GET', url: `/v2/resource/${unknown}/markdown`, as: 'admin' })).statusCode).toBe(
      404,
    );
  });

  it('the MCP client lists the tools, searches with citations, reads a page; support may not crawl', async () => {
    const connect = async (token: string) => {
      const client = new Client({ name: 'greenfinger-api-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      return client;
    };
    const admin = await connect(f.admin);
    try {
      const tools = (await admin.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(['search', 'get_page', 'list_catalogs', 'why', 'crawl', 'status']));
      const word = (page.title.match(/[A-Za-z]{4,}/) ?? [''])[0];
      const found = await admin.callTool({ name: 'search', arguments: { query: word, catalog: 'garden' } });
      expect(found.isError).toBeFalsy();
      const results = (found.structuredContent as { results: Array<Record<string, unknown>> }).results;
      expect(results.length).toBeGreaterThan(0);
      expect(results[0]).toMatchObject({ catalog: 'garden', version: 0 });
      const got = await admin.callTool({ name: 'get_page', arguments: { url: page.url } });
      expect(got.isError).toBeFalsy();
      expect((got.structuredContent as { title: string }).title).toBe(page.title);
    } finally {
      await admin.close();
    }
    const support = await connect(f.support);
    try {
      expect((await support.callTool({ name: 'search', arguments: { query: 'garden' } })).isError).toBeFalsy();
      expect((await support.callTool({ name: 'crawl', arguments: { url: site.origin } })).isError).toBe(true);
    } finally {
      await support.close();
    }
    expect((await fetch(`${base}/mcp`, { method: 'POST', body: '{}' })).status).toBe(401);
    expect((await fetch(`${base}/mcp`, { headers: { authorization: `Bearer ${f.admin}` } })).status).toBe(405);
  });
});
