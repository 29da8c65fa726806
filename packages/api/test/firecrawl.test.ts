import type { AddressInfo } from 'node:net';
import Firecrawl, { FirecrawlAppV1 } from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Corpus, startCorpus } from '../../core/test/support/corpus.js';
import { type ApiFixture, openApiFixture } from './support/api-fixture.js';

type Schema = { properties?: Record<string, unknown> };

/**
 * Firecrawl's API on the REST app, in this process, with Firecrawl's official SDK as the client (its v2 client and
 * its v1 one) over a depth-1 crawl of the python docs from json.html: scrape, map, search, crawl with a limit,
 * status paging, cancel, and what each role may do.
 */
describe('the Firecrawl-compatible API with the official SDK', () => {
  let f: ApiFixture;
  let corpus: Corpus;
  let base = '';
  let jsonUrl = '';
  let saved = 0;
  const client = (token: string) => new Firecrawl({ apiKey: token, apiUrl: `${base}/firecrawl`, maxRetries: 1 });

  beforeAll(async () => {
    corpus = await startCorpus('python');
    jsonUrl = `${corpus.url}/library/json.html`;
    f = await openApiFixture();
    const report = await f.gf.crawler.crawl({
      url: `${corpus.url}/`,
      startUrl: jsonUrl,
      name: 'python',
      settings: { depth: 1, intervalMs: 0, outputs: ['file', 'index'] },
    });
    expect(report.ending.published).toBe(true);
    saved = report.produced.saved;
    await f.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(f.app.server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    await f?.close();
    await corpus?.[Symbol.asyncDispose]();
  });

  it('scrape: json.html through the pipeline, Markdown first with its title, nothing stored', async () => {
    const before = await f.gf.ledger.list({ catalog: { name: 'python' }, limit: 1 });
    const doc = await client(f.support).scrape(jsonUrl, { formats: ['markdown', 'html', 'rawHtml', 'links'] });
    expect(doc.metadata).toMatchObject({ sourceURL: jsonUrl, url: jsonUrl, statusCode: 200, language: 'en' });
    const title = String(doc.metadata?.title);
    expect(title).toMatch(/^json — JSON encoder and decoder/);
    expect(doc.markdown?.split('\n')[0]).toMatch(/^# .*json.* — JSON encoder and decoder/);
    expect(doc.markdown).toContain('json.dumps');
    expect(doc.html?.startsWith('<')).toBe(true);
    expect(doc.html).not.toContain('<script');
    expect(doc.rawHtml).toContain('<html');
    expect(doc.links).toContain(`${corpus.url}/library/pickle.html`);
    expect((await f.gf.ledger.list({ catalog: { name: 'python' }, limit: 1 })).total).toBe(before.total);
    // The v1 client (scrapeUrl) and the default format (markdown only).
    const v1 = await new FirecrawlAppV1({ apiKey: f.support, apiUrl: `${base}/firecrawl` }).scrapeUrl(jsonUrl, {});
    expect(v1).toMatchObject({ success: true, markdown: doc.markdown });
    expect('html' in v1).toBe(false);
  });

  it('map: the urls of the site from the ledger, json.html among them, titled', async () => {
    const mapped = await client(f.support).map(`${corpus.url}/`);
    expect(mapped.links.length).toBeGreaterThanOrEqual(saved);
    expect(mapped.links.every((l) => l.url.startsWith(`${corpus.url}/`))).toBe(true);
    expect(mapped.links.find((l) => l.url === jsonUrl)?.title).toMatch(/^json/);
    const searched = await client(f.support).map(`${corpus.url}/`, { search: 'pickle' });
    expect(searched.links.length).toBeGreaterThan(0);
    expect(searched.links.every((l) => `${l.url} ${l.title}`.toLowerCase().includes('pickle'))).toBe(true);
    const v1 = await new FirecrawlAppV1({ apiKey: f.support, apiUrl: `${base}/firecrawl` }).mapUrl(
      `${corpus.url}/`,
      {},
    );
    expect(v1).toMatchObject({ success: true });
    expect((v1 as { links: string[] }).links).toContain(jsonUrl);
  });

  it('search: "json dumps" answers json.html first, from the collection, with its Markdown when asked', async () => {
    const found = await client(f.support).search('json dumps', { scrapeOptions: { formats: ['markdown'] } });
    const first = found.web?.[0] as { url: string; title: string; markdown?: string; metadata?: { catalog: string } };
    expect(first.url).toBe(jsonUrl);
    expect(first.metadata?.catalog).toBe('python');
    expect(first.markdown?.startsWith('# ')).toBe(true);
    const v1 = await new FirecrawlAppV1({ apiKey: f.support, apiUrl: `${base}/firecrawl` }).search('json dumps', {});
    expect(v1.data[0]?.url).toBe(jsonUrl);
  });

  it('crawl: a limit of 50 completes with 50 pages, paged by next; status, cancel, and who may', async () => {
    await expect(client(f.support).crawl(`${corpus.url}/`, { limit: 5 })).rejects.toMatchObject({ status: 403 });
    const job = await client(f.admin).crawl(`${corpus.url}/`, { limit: 50, delay: 0, pollInterval: 1 });
    expect(job.status).toBe('completed');
    expect(job.completed).toBe(50);
    expect(job.data).toHaveLength(50);
    expect(new Set(job.data.map((d) => d.metadata?.sourceURL)).size).toBe(50);
    expect(job.data.every((d) => typeof d.markdown === 'string' && d.markdown.length > 0)).toBe(true);
    expect(job.data[0]?.metadata).toMatchObject({ catalog: `firecrawl-127.0.0.1:${corpus.port}`, statusCode: 200 });
    // One page at a time, without the SDK's paging: next names the rest.
    const page = await fetch(`${base}/firecrawl/v2/crawl/${job.id}?limit=20`, {
      headers: { authorization: `Bearer ${f.support}` },
    });
    const body = (await page.json()) as { data: unknown[]; next?: string; total: number };
    expect(body.data).toHaveLength(20);
    expect(body.next).toBe(`${base}/firecrawl/v2/crawl/${job.id}?skip=20&limit=20`);
    // v1's crawlUrl, and a cancel that stops a running crawl.
    const v1 = await new FirecrawlAppV1({ apiKey: f.admin, apiUrl: `${base}/firecrawl` }).crawlUrl(
      `${corpus.url}/`,
      { limit: 5, delay: 0 },
      1,
    );
    expect(v1).toMatchObject({ success: true, status: 'completed', completed: 5 });
    const started = await client(f.admin).startCrawl(`${corpus.url}/`, { limit: 400, delay: 0.05 });
    expect(await client(f.admin).cancelCrawl(started.id)).toBe(true);
    expect((await client(f.support).getCrawlStatus(started.id)).status).toBe('cancelled');
  }, 60_000);

  it('bad input: a 400 naming the field, 401 without a token, 404 for an unknown job; never a 5xx', async () => {
    const denied = await f.call({ method: 'POST', url: '/firecrawl/v2/map', payload: { url: jsonUrl } });
    expect(denied.statusCode).toBe(401);
    expect(denied.json()).toMatchObject({ success: false, error: expect.stringMatching(/sign in/) });
    const post = (path: string, body: unknown, token: string | null = f.admin) =>
      fetch(`${base}/firecrawl${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
    const unknown = await post('/v2/scrape', { url: jsonUrl, actions: [] });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ success: false, error: expect.stringMatching(/"actions"/) });
    const format = await post('/v2/scrape', { url: jsonUrl, formats: ['screenshot'] });
    expect(format.status).toBe(400);
    expect(((await format.json()) as { error: string }).error).toMatch(/formats "screenshot"/);
    expect((await post('/v2/scrape', { url: 'file:///etc/passwd' })).status).toBe(403);
    expect((await post('/v2/scrape', { url: 'not a url' })).status).toBe(400);
    expect((await post('/v2/search', { query: 'json' }, null)).status).toBe(401);
    expect((await post('/v2/map', { url: 'http://127.0.0.1:9/' })).status).toBe(404);
    expect((await post('/v2/crawl', { url: `${corpus.url}/`, webhook: 'http://127.0.0.1:9/' })).status).toBe(400);
    const ghost = await fetch(`${base}/firecrawl/v2/crawl/nope`, { headers: { authorization: `Bearer ${f.admin}` } });
    expect(ghost.status).toBe(404);
    const described = (await (await fetch(`${base}/firecrawl/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
    };
    expect(Object.keys(described.paths)).toEqual(
      expect.arrayContaining(['/firecrawl/v2/scrape', '/firecrawl/v2/crawl/{id}', '/firecrawl/v1/search']),
    );
    // Every declared body field with a value of every JSON type, beside a url or query that cannot be fetched.
    const values = ['123', '-1', '1.5', '1e309', 'true', 'null', '"x"', '""', '[]', '[1,"a",null]', '{}', '{"a":[1]}'];
    for (const [path, methods] of Object.entries(described.paths)) {
      const fields = Object.keys(methods.post?.requestBody?.content['application/json']?.schema.properties ?? {});
      for (const field of fields) {
        for (const value of values) {
          const first = path.endsWith('search') ? '"query":"zzz"' : '"url":"x"';
          const payload = `{${first},"${field}":${value}}`;
          const res = await f.call({
            method: 'POST',
            url: path,
            payload,
            headers: { 'content-type': 'application/json' },
            as: 'admin',
          });
          expect(res.statusCode, `${path} ${payload}: ${res.body.slice(0, 200)}`).toBeLessThan(500);
        }
      }
    }
  });
});
