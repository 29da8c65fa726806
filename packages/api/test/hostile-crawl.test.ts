import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../../core/test/support/fixture-site.js';
import { type ApiFixture, openApiFixture, SUPPORT } from './support/api-fixture.js';
import { routeTable } from './support/route-table.js';

/** Poll a job until it ends (bounded). */
async function ended(f: ApiFixture, jobId: string, timeoutMs = 90_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const job = (await f.call({ method: 'GET', url: `/v2/status/${jobId}`, as: 'admin' })).json().data;
    if (job.endedAt) return job;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${jobId} did not end in ${timeoutMs} ms`);
}

const A30 = `${'a'.repeat(30)}!`;

describe('a crawl under hostile settings and clients', () => {
  let site: FixtureSite;
  let f: ApiFixture;
  /** Times (ms) between /v2/health answers, polled every 20 ms while the crawl with the catastrophic pattern ran. */
  const health: number[] = [];
  let job: { state: string; jobId: string };
  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    site.addPage('/aaaa.html', `<html><head><title>${A30}</title></head><body><p>${A30}</p></body></html>`);
    site.addPage('/doc-%C0%AF.txt', 'A plain text document whose url holds an escape that is not UTF-8.\n');
    f = await openApiFixture();
    const created = await f.call({
      method: 'POST',
      url: '/v2/catalog',
      as: 'admin',
      payload: {
        name: 'garden',
        url: `${site.origin}/`,
        settings: {
          intervalMs: 0,
          outputs: ['file', 'index'],
          seedUrls: [site.url('/aaaa.html'), site.url('/doc-%C0%AF.txt')],
          documentFilters: [{ field: 'text', match: '(a+)+$', onMatch: 'exclude' }],
        },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const started = await f.call({ method: 'POST', url: '/v2/crawl/garden', as: 'admin' });
    expect(started.statusCode).toBe(202);
    const jobId = started.json().data.jobId as string;
    const until = Date.now() + 90_000;
    // Each probe's time counts from the end of the previous one: a loop frozen between two probes shows too.
    let last = performance.now();
    while (Date.now() < until) {
      const h = await f.call({ method: 'GET', url: '/v2/health' });
      const now = performance.now();
      health.push(now - last);
      last = now;
      expect(h.statusCode).toBe(200);
      if (f.gf.jobs.get(jobId)?.endedAt) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    job = await ended(f, jobId);
  });
  afterAll(async () => {
    await f?.close();
    await site?.close();
  });

  it("a user's regex cannot freeze the server: (a+)+$ against 30 a's and a '!' keeps /v2/health fast", async () => {
    expect(job.state).toBe('done');
    expect(health.length).toBeGreaterThan(3);
    // Generous bounds on a loaded machine: a backtracking engine takes ~10 s on this page, with the loop frozen.
    const sorted = [...health].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThan(500);
    expect(sorted[sorted.length - 1]).toBeLessThan(4000);
    // The filter ran: the text ends with '!', so the pattern does not match and the page is kept.
    const why = await f.call({
      method: 'GET',
      url: `/v2/urls/why?url=${encodeURIComponent(site.url('/aaaa.html'))}`,
      as: 'admin',
    });
    expect(why.json().data.row).toMatchObject({ outcome: 'SAVED' });
  });

  it('a pattern the linear-time engine cannot run is refused in the settings, naming the field', async () => {
    const r = await f.call({
      method: 'PUT',
      url: '/v2/catalog/garden',
      as: 'admin',
      payload: { settings: { documentFilters: [{ field: 'text', match: '(a)\\1' }] } },
    });
    expect(r.statusCode).toBe(400);
    expect(r.json().message).toMatch(/document-?filters.*RE2/i);
  });

  it('a document crawled at /doc-%C0%AF.txt is served, not 500 URI malformed', async () => {
    const list = (
      await f.call({ method: 'GET', url: '/v2/resource?catalog=garden&q=doc-&limit=10', as: 'admin' })
    ).json().data;
    const doc = list.items.find((i: { url: string }) => i.url.includes('/doc-'));
    expect(doc, JSON.stringify(list.items.map((i: { url: string }) => i.url))).toBeDefined();
    for (const kind of ['', '/html', '/text']) {
      const r = await f.call({ method: 'GET', url: `/v2/resource/${doc.urlId ?? doc.id}${kind}`, as: 'support' });
      expect(r.statusCode, `${kind}: ${r.body.slice(0, 200)}`).toBe(200);
    }
  });

  it('searches by words run on the search threads and answer what the service answers in-process', async () => {
    for (const qs of ['q=compost%20heap', 'q=garden&size=3', 'q=', 'q=garden&size=2&cursor=bogus']) {
      const r = await f.call({ method: 'GET', url: `/v2/search?${qs}&catalog=garden`, as: 'support' });
      const params = new URLSearchParams(qs);
      const direct = await f.gf.search
        .search({
          q: params.get('q') ?? '',
          catalogs: ['garden'],
          size: Number(params.get('size') ?? 10),
          cursor: params.get('cursor') ?? undefined,
        })
        .then(
          (x) => ({ ok: true as const, x }),
          (err: Error) => ({ ok: false as const, err }),
        );
      if (!direct.ok) {
        expect(r.statusCode, qs).toBe(400);
        expect(r.json().message).toContain(direct.err.message);
        continue;
      }
      expect(r.statusCode, r.body).toBe(200);
      const data = r.json().data;
      expect(data.total, qs).toBe(direct.x.total);
      expect(data.results.map((h: { id: string }) => h.id)).toEqual(direct.x.results.map((h) => h.id));
      expect(data.nextCursor).toBe(direct.x.nextCursor);
    }
  });

  it('GET /v2/search/semantic on a catalog without vectors answers total 0 with a note', async () => {
    for (const qs of ['q=compost', 'q=compost&offset=1000', 'q=compost&size=1000']) {
      const r = await f.call({ method: 'GET', url: `/v2/search/semantic?${qs}&catalog=garden`, as: 'support' });
      expect(r.statusCode, r.body).toBe(200);
      const data = r.json().data;
      expect(data.results, qs).toHaveLength(0);
      expect(data.total, qs).toBe(0);
      expect(data.note).toMatch(/no text vectors.*garden/);
    }
  });

  it('GET /v2/storage sums the trees of the data root: files.bytes > 0 and matches du', async () => {
    const r = await f.call({ method: 'GET', url: '/v2/storage', as: 'support' });
    const files = r.json().data.files;
    expect(files.complete).toBe(true);
    expect(files.bytes).toBeGreaterThan(0);
    const user = f.gf.layout.user;
    const sh = (cmd: string) => execFileSync('sh', ['-c', cmd], { encoding: 'utf8' }).trim();
    const found = Number(
      sh(
        `find '${user}' -path '${join(user, 'index')}' -prune -o -path '${join(user, 'vector')}' -prune -o -type f -printf '%s\\n' | awk '{s+=$1} END {print s+0}'`,
      ),
    );
    expect(files.bytes).toBe(found);
    // du counts the folders too (a block each): the files' sum is du's less at most that.
    const du = Number(
      sh(`du -sb --exclude='${join(user, 'index')}' --exclude='${join(user, 'vector')}' '${user}' | cut -f1`),
    );
    const dirs = Number(
      sh(
        `find '${user}' -path '${join(user, 'index')}' -prune -o -path '${join(user, 'vector')}' -prune -o -type d -print | wc -l`,
      ),
    );
    expect(files.bytes).toBeLessThanOrEqual(du);
    expect(files.bytes).toBeGreaterThanOrEqual(du - dirs * 4096);
    expect(r.json().data.system.bytes).toBeGreaterThan(0);
  });

  it('every destructive route previews by default: nothing is deleted without dryRun=false', async () => {
    // Routes that delete stored pages, versions or catalogs. Removing a saved search (`…/alerts/{alert}`) deletes no
    // page: it answers at once, as `greenfinger alert remove` does.
    const deletes = (await routeTable(f.app)).filter((r) => r.method === 'DELETE' && !r.path.includes('/alerts/'));
    expect(deletes.map((r) => r.path).sort()).toEqual([
      '/v2/catalog/{ref}',
      '/v2/crawl/{ref}/versions',
      '/v2/urls/{id}',
    ]);
    for (const r of deletes) expect(r.query, r.path).toContain('dryRun');
    const hit = (
      await f.call({ method: 'GET', url: '/v2/search?q=compost%20heap&catalog=garden', as: 'support' })
    ).json().data.results[0];
    const url = await f.call({ method: 'DELETE', url: `/v2/urls/${hit.id}`, as: 'admin' });
    expect(url.statusCode).toBe(200);
    expect(url.json()).toMatchObject({ message: expect.stringMatching(/^dry run/), data: { dryRun: true } });
    expect((await f.call({ method: 'GET', url: `/v2/urls/${hit.id}`, as: 'admin' })).json().data.state).not.toBe(
      'deleted',
    );
    // A catalog holding versions: refused without purge, as the deletion itself would be.
    expect((await f.call({ method: 'DELETE', url: '/v2/catalog/garden', as: 'admin' })).statusCode).toBe(409);
    const preview = await f.call({ method: 'DELETE', url: '/v2/catalog/garden?purge=true', as: 'admin' });
    expect(preview.statusCode, preview.body).toBe(200);
    const data = preview.json().data;
    expect(data).toMatchObject({ dryRun: true, deleted: { name: 'garden' }, purge: { dryRun: true, versions: [0] } });
    const files = data.purge.results.filter((x: { layer: string }) => x.layer === 'file');
    expect(files.reduce((a: number, x: { count: number }) => a + x.count, 0)).toBeGreaterThan(0);
    expect((await f.call({ method: 'GET', url: '/v2/catalog/garden', as: 'admin' })).statusCode).toBe(200);
    const after = await f.call({ method: 'GET', url: '/v2/search?q=compost%20heap&catalog=garden', as: 'support' });
    expect(after.json().data.results[0].id).toBe(hit.id);
  });

  it('an event stream stops when its token is signed out', async () => {
    site.setSlowDelay(4000);
    const created = await f.call({
      method: 'POST',
      url: '/v2/catalog',
      as: 'admin',
      payload: { name: 'slow', url: site.url('/slow.html'), settings: { intervalMs: 0, outputs: ['file'], depth: 0 } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const started = await f.call({ method: 'POST', url: '/v2/crawl/slow', as: 'admin' });
    const jobId = started.json().data.jobId as string;
    await f.app.listen({ host: '127.0.0.1', port: 0 });
    const address = f.app.server.address() as { port: number };
    const base = `http://127.0.0.1:${address.port}`;
    const token = (await f.app.inject({ method: 'POST', url: '/v2/login', payload: SUPPORT })).json().data
      .token as string;
    const res = await fetch(`${base}/v2/crawl/slow/events`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/^event: progress/);
    expect((await f.call({ method: 'POST', url: '/v2/logout', as: token })).statusCode).toBe(200);
    let rest = '';
    const deadline = setTimeout(() => void reader.cancel(), 10_000);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    clearTimeout(deadline);
    expect(rest).toMatch(/event: signed-out/);
    site.setSlowDelay(0);
    await ended(f, jobId);
  });
});
