import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, openApiFixture } from './support/api-fixture.js';

/** The API crawls web sites: a folder of the server's disk is refused however it is named. */
describe('folder urls over HTTP', () => {
  let f: ApiFixture;
  let folder: string;
  beforeAll(async () => {
    f = await openApiFixture();
    const dir = join(f.tmp.path, 'private');
    mkdirSync(dir);
    writeFileSync(join(dir, 'secret.html'), '<p>secret</p>');
    folder = `${pathToFileURL(dir).href}/`;
  });
  afterAll(async () => f?.close());

  it('refuses to create, change or crawl a catalog of a local folder, with 403 and one line', async () => {
    const attempts = [
      { method: 'POST' as const, url: '/v2/catalog', payload: { url: folder } },
      { method: 'POST' as const, url: '/v2/catalog', payload: { url: '/etc' } },
      { method: 'POST' as const, url: '/v2/catalog', payload: { url: 'https://example.com/', startUrl: folder } },
      { method: 'POST' as const, url: '/v2/crawl/start', payload: { crawlPage: folder } },
    ];
    for (const a of attempts) {
      const res = await f.call({ ...a, as: 'admin' });
      expect(res.statusCode, JSON.stringify(a.payload)).toBe(403);
      expect(res.json().message).toMatch(/names a local folder .*the API crawls web sites only/);
    }
    const web = await f.call({
      method: 'POST',
      url: '/v2/catalog',
      payload: { url: 'https://example.com/' },
      as: 'admin',
    });
    expect(web.statusCode).toBe(201);
    const moved = await f.call({
      method: 'PUT',
      url: '/v2/catalog/example.com',
      payload: { url: folder },
      as: 'admin',
    });
    expect(moved.statusCode).toBe(403);
    expect((await (await f.gf.catalogs()).list()).map((c) => c.url)).toEqual(['https://example.com/']);
  });

  it('a folder catalog made on its machine is crawled by name and searched like any other', async () => {
    await (await f.gf.catalogs()).create({ url: folder, settings: { outputs: ['file', 'index'], images: false } });
    const started = await f.call({ method: 'POST', url: '/v2/crawl/private', as: 'admin' });
    expect(started.statusCode).toBe(202);
    const jobId = started.json().data.jobId as string;
    let job: { endedAt?: string; report?: { produced: { saved: number } } } = {};
    for (const until = Date.now() + 60_000; Date.now() < until && !job.endedAt; ) {
      await new Promise((r) => setTimeout(r, 100));
      job = (await f.call({ method: 'GET', url: `/v2/status/${jobId}`, as: 'support' })).json().data;
    }
    expect(job.report?.produced.saved).toBe(1);
    const hits = await f.call({ method: 'GET', url: '/v2/search?q=secret&mode=words', as: 'support' });
    expect(hits.json().data.results.map((h: { url: string }) => h.url)).toEqual([`${folder}secret.html`]);
  });
});
