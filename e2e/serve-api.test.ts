import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Corpus, startCorpus } from '../packages/core/test/support/corpus.js';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';
import { addUsers, startServe } from './support/serve-process.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');
const PASSWORD = 'a long admin password';

/** `greenfinger serve` as a process, driven over HTTP only, through a whole crawl of the python docs. */
describe('greenfinger serve over HTTP', () => {
  let corpus: Corpus;
  let tmp: TempDir;
  let server: ChildProcess;
  let base = '';
  let stderrOf = () => '';
  let token = '';
  let supportToken = '';
  const env = () => ({ ...process.env, GF_DATA_STORE: join(tmp.path, 'data'), GF_LOG_LEVEL: 'warn', GF_WORKERS: '1' });
  const api = async (method: string, path: string, body?: unknown, as = token) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(as ? { authorization: `Bearer ${as}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
  };

  beforeAll(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run pnpm run build first`);
    corpus = await startCorpus('python');
    tmp = createTempDir('gf-serve-');
    addUsers(
      bin,
      env(),
      [
        ['admin', 'admin'],
        ['helpdesk', 'support'],
      ],
      PASSWORD,
    );
    const serve = await startServe(bin, env());
    server = serve.process;
    base = serve.base;
    stderrOf = serve.stderr;
  }, 120_000);

  afterAll(async () => {
    if (server && server.exitCode === null) server.kill('SIGKILL');
    await corpus?.stop();
    tmp?.remove();
  });

  it('signs in; refuses writes without a token and to the support role', async () => {
    const login = await api('POST', '/v2/login', { username: 'admin', password: PASSWORD }, '');
    expect(login.status).toBe(200);
    token = login.json().data.token;
    supportToken = (await api('POST', '/v2/login', { username: 'helpdesk', password: PASSWORD }, '')).json().data.token;
    const origin = new URL(corpus.url).origin;
    const body = {
      name: 'python',
      url: `${origin}/`,
      startUrl: corpus.startUrl,
      settings: { intervalMs: 0, outputs: ['file', 'index'] },
    };
    expect((await api('POST', '/v2/catalog', body, '')).status).toBe(401);
    expect((await api('POST', '/v2/catalog', body, supportToken)).status).toBe(403);
    expect((await api('GET', '/v2/catalog', undefined, '')).status).toBe(401);
    const created = await api('POST', '/v2/catalog', body);
    expect(created.status, created.text).toBe(201);
  });

  it('starts the crawl, streams its events to the end, and searches it', async () => {
    expect((await api('POST', '/v2/crawl/python', undefined, supportToken)).status).toBe(403);
    const started = await api('POST', '/v2/crawl/python');
    expect(started.status, started.text).toBe(202);
    const { jobId } = started.json().data;
    const events = await fetch(`${base}/v2/crawl/python/events`, { headers: { authorization: `Bearer ${token}` } });
    expect(events.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = await events.text(); // the stream closes after the `end` event
    expect(stream).toMatch(/^event: progress$/m);
    expect(stream).toMatch(/^event: end$/m);
    const job = (await api('GET', `/v2/status/${jobId}`)).json().data;
    expect(job).toMatchObject({ jobId, catalog: 'python', action: 'crawl', state: 'done' });
    expect(job.report.ending.published).toBe(true);
    const hits = (await api('GET', '/v2/search?q=json%20dumps&catalog=python', undefined, supportToken)).json().data
      .results;
    expect(
      hits
        .slice(0, 3)
        .map((h: { url: string }) => h.url)
        .join(' '),
    ).toMatch(/library\/json\.html/);
  }, 300_000);

  it('the ledger lists the corpus 404 as failed with its reason, and says why an off-site url was refused', async () => {
    const failed = (await api('GET', '/v2/urls?status=failed&catalog=python')).json().data;
    const missing = failed.items.find((i: { status: number }) => i.status === 404);
    expect(missing, JSON.stringify(failed.items.slice(0, 3))).toMatchObject({
      state: 'failed',
      outcome: 'REJECTED_NOTFOUND',
    });
    expect(missing.reason).toBeTruthy();
    const rejected = (await api('GET', '/v2/urls?status=rejected&catalog=python&limit=1000')).json().data;
    const offsite = rejected.items.find((i: { url: string }) => !i.url.startsWith(new URL(corpus.url).origin));
    expect(offsite, 'the python docs link to python.org and others').toBeDefined();
    const why = (await api('GET', `/v2/urls/${offsite.urlId}`)).json().data;
    expect(why).toMatchObject({ state: 'rejected', outcome: expect.stringMatching(/^REJECTED_/) });
    expect(why.detail).toBeTruthy();
    expect(why.explanation).toContain(why.detail);
    const byUrl = (await api('GET', `/v2/urls/why?url=${encodeURIComponent(offsite.url)}&catalog=python`)).json().data;
    expect(byUrl.row.urlId).toBe(offsite.urlId);
  });

  it('deletes versions only with dryRun=false, and the metrics count the run', async () => {
    const dry = await api('DELETE', '/v2/crawl/python/versions?version=0&force=true');
    expect(dry.json().data.dryRun).toBe(true);
    expect((await api('GET', '/v2/search?q=json%20dumps&catalog=python')).status).toBe(200);
    const metrics = await api('GET', '/v2/metrics');
    expect(metrics.text).toMatch(/greenfinger_urls_total\{[^}]*catalog="python"[^}]*outcome="SAVED"[^}]*\} [1-9]/);
    const real = await api('DELETE', '/v2/crawl/python/versions?version=0&force=true&dryRun=false');
    expect(real.json().data.dryRun).toBe(false);
    expect((await api('GET', '/v2/search?q=json%20dumps&catalog=python')).status).toBe(404);
  });

  it('a second server on the same port stops at start in one line, exit 2', () => {
    const port = new URL(base).port;
    const r = spawnSync(process.execPath, [bin, 'serve', '--port', port], {
      env: env(),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/--port: 127\.0\.0\.1:\d+ is already in use — choose another/),
    ]);
  });

  it('closes on SIGTERM with exit code 0', async () => {
    const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderrOf()).toMatch(/SIGTERM: closing/);
  }, 60_000);
});
