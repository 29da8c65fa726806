import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../../core/test/support/fixture-site.js';
import { type ApiFixture, openApiFixture } from './support/api-fixture.js';

/** Poll a job until it ends (bounded). */
async function ended(f: ApiFixture, jobId: string, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const job = (await f.call({ method: 'GET', url: `/v2/status/${jobId}`, as: 'support' })).json().data;
    if (job.endedAt) return job;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${jobId} did not end in ${timeoutMs} ms`);
}

describe('a crawl driven over the API (inject)', () => {
  let site: FixtureSite;
  let f: ApiFixture;
  let jobId: string;
  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    f = await openApiFixture();
    const created = await f.call({
      method: 'POST',
      url: '/v2/catalog',
      as: 'admin',
      payload: { name: 'garden', url: `${site.origin}/`, settings: { intervalMs: 0, outputs: ['file', 'index'] } },
    });
    expect(created.statusCode).toBe(201);
    const started = await f.call({ method: 'POST', url: '/v2/crawl/garden', as: 'admin' });
    expect(started.statusCode).toBe(202);
    jobId = started.json().data.jobId;
  });
  afterAll(async () => {
    await f?.close();
    await site?.close();
  });

  it('a second start while it runs is 409, then the job ends done with its report', async () => {
    const again = await f.call({ method: 'POST', url: '/v2/crawl/garden', as: 'admin' });
    const job = await ended(f, jobId);
    // The crawl of the small site may end before the second request: then the second one is a run of its own.
    if (again.statusCode === 409) expect(again.json().message).toMatch(/garden/);
    else await ended(f, again.json().data.jobId);
    expect(job).toMatchObject({ jobId, catalog: 'garden', action: 'crawl', state: 'done', version: 0 });
    expect(job.report.produced.saved ?? job.report.urls.saved).toBeGreaterThan(5);
  });

  it('searches the published version, and a blank query lists what was kept', async () => {
    const r = await f.call({ method: 'GET', url: '/v2/search?q=compost%20heap&catalog=garden', as: 'support' });
    expect(r.statusCode).toBe(200);
    const data = r.json().data;
    expect(data.results[0].title).toMatch(/compost heap/i);
    expect(data.elapsedMillis).toBeGreaterThanOrEqual(0);
    const blank = (await f.call({ method: 'GET', url: '/v2/search?q=&size=3', as: 'support' })).json().data;
    expect(blank.results).toHaveLength(3);
    expect(blank.total).toBeGreaterThan(5);
    const next = (
      await f.call({ method: 'GET', url: `/v2/search?q=&size=3&cursor=${blank.nextCursor}`, as: 'support' })
    ).json().data;
    expect(next.results.map((x: { id: string }) => x.id)).not.toContain(blank.results[0].id);
  });

  it('lists resources, serves a page file by id with inert headers, refuses every traversal', async () => {
    const list = (await f.call({ method: 'GET', url: '/v2/resource?catalog=garden&limit=50', as: 'support' })).json()
      .data;
    const saved = list.items.find((i: { outcome: string }) => i.outcome === 'SAVED');
    expect(saved.resource.title).toBeTruthy();
    const html = await f.call({ method: 'GET', url: `/v2/resource/${saved.urlId ?? saved.id}/html`, as: 'support' });
    expect(html.statusCode).toBe(200);
    expect(html.headers['x-content-type-options']).toBe('nosniff');
    expect(html.headers['content-security-policy']).toMatch(/^sandbox/);
    expect(html.headers['cache-control']).toMatch(/max-age/);
    // A document's original bytes go out as what they are, to download.
    const pdf = list.items.find((i: { url: string }) => i.url.endsWith('/docs/report.pdf'));
    const bytes = await f.call({ method: 'GET', url: `/v2/resource/${pdf.urlId ?? pdf.id}/html`, as: 'support' });
    expect(bytes.statusCode).toBe(200);
    expect(bytes.headers['content-type']).toBe('application/pdf');
    expect(bytes.headers['content-disposition']).toBe('attachment; filename="report.pdf"');
    expect(bytes.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    for (const evil of [
      '/v2/resource/..%2F..%2F..%2Fetc%2Fpasswd/html',
      '/v2/resource/../../etc/passwd',
      '/v2/resource/%2e%2e%2f%2e%2e%2fsystem%2ftoken-secret/text',
      `/v2/resource/${saved.id}/image/..%2f..%2fsystem%2ftoken-secret`,
      '/v2/resource/00000000-0000-4000-8000-000000000000%00.html/html',
      `/v2/resource/${saved.id}/../../system/token-secret`,
    ]) {
      const r = await f.call({ method: 'GET', url: evil, as: 'support' });
      expect([400, 404], evil).toContain(r.statusCode);
      expect(r.body, evil).not.toMatch(/root:|BEGIN|[A-Za-z0-9_-]{43}\n/);
    }
  });

  it('the ledger lists the 404 as failed with its reason, and says why about an off-site url', async () => {
    const failed = (await f.call({ method: 'GET', url: '/v2/urls?status=failed&catalog=garden', as: 'support' })).json()
      .data;
    const missing = failed.items.find((i: { outcome: string }) => i.outcome === 'REJECTED_NOTFOUND');
    expect(missing).toMatchObject({ state: 'failed', status: 404 });
    expect(missing.reason).toBeTruthy();
    const one = (await f.call({ method: 'GET', url: `/v2/urls/${missing.urlId}`, as: 'support' })).json().data;
    expect(one).toMatchObject({ urlId: missing.urlId, url: missing.url, state: 'failed' });
    expect(one.explanation).toBeTruthy();
    // The row carries the form a link wrote the url in: null, as /missing.html is linked in its normal form.
    expect(one).toHaveProperty('foundAs', null);
    // And the priority it was queued with (a link, so the prioritizer scored it: docs/crawling.md).
    expect(one.priority).toMatchObject({ score: expect.any(Number), queue: expect.any(Number) });
    expect(Object.keys(one.priority.parts)).toEqual(['depth', 'type', 'freshness', 'quality', 'sitemap']);
    // A redirect target carries the chain that led to it.
    const target = (await f.call({ method: 'GET', url: '/v2/urls?catalog=garden&q=loop-b', as: 'support' })).json().data
      .items[0];
    expect(target.redirects).toEqual([`${site.origin}/loop-a`]);
    const rejected = (
      await f.call({ method: 'GET', url: '/v2/urls?status=rejected&catalog=garden&limit=1000', as: 'support' })
    ).json().data;
    expect(rejected.total).toBeGreaterThan(0);
    expect(rejected.items.every((i: { state: string }) => i.state === 'rejected')).toBe(true);
  });

  it('deletes one url from every layer, after a dry run that deletes nothing', async () => {
    const hit = (
      await f.call({ method: 'GET', url: '/v2/search?q=compost%20heap&catalog=garden', as: 'support' })
    ).json().data.results[0];
    const dry = await f.call({ method: 'DELETE', url: `/v2/urls/${hit.id}?dryRun=true`, as: 'admin' });
    expect(dry.statusCode).toBe(200);
    expect(
      (await f.call({ method: 'GET', url: '/v2/search?q=compost%20heap&catalog=garden', as: 'support' })).json().data
        .results[0].id,
    ).toBe(hit.id);
    const gone = await f.call({ method: 'DELETE', url: `/v2/urls/${hit.id}?dryRun=false`, as: 'admin' });
    expect(gone.statusCode).toBe(200);
    const after = (
      await f.call({ method: 'GET', url: '/v2/search?q=compost%20heap&catalog=garden', as: 'support' })
    ).json().data;
    expect(after.results.map((x: { id: string }) => x.id)).not.toContain(hit.id);
    expect((await f.call({ method: 'GET', url: `/v2/urls/${hit.id}`, as: 'support' })).json().data.state).toBe(
      'deleted',
    );
  });

  it('deletes versions only with dryRun=false', async () => {
    const dry = await f.call({ method: 'DELETE', url: '/v2/crawl/garden/versions?version=0&force=true', as: 'admin' });
    expect(dry.statusCode).toBe(200);
    expect(dry.json().data.dryRun).toBe(true);
    expect(
      (await f.call({ method: 'GET', url: '/v2/crawl/garden/versions', as: 'support' })).json().data[0].saved,
    ).toBeGreaterThan(0);
    const real = await f.call({
      method: 'DELETE',
      url: '/v2/crawl/garden/versions?version=0&force=true&dryRun=false',
      as: 'admin',
    });
    expect(real.json().data.dryRun).toBe(false);
    const versions = (await f.call({ method: 'GET', url: '/v2/crawl/garden/versions', as: 'support' })).json().data;
    expect(versions.find((v: { version: number }) => v.version === 0)?.saved ?? 0).toBe(0);
  });
});
