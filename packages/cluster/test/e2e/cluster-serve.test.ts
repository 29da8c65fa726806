import { join } from 'node:path';
import { silentLogger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUsers } from '../../../../e2e/support/serve-process.js';
import { fixtureFacts } from '../../../core/test/support/fixture-facts.js';
import { type FixtureSite, startFixtureSite } from '../../../core/test/support/fixture-site.js';
import { createTempDir, type TempDir } from '../../../core/test/support/tmp.js';
import { ClusterClient } from '../../src/cluster-client.js';
import type { ClusterRunReport } from '../../src/run/cluster-report.js';
import { bin, clusterEnv, type Proc, startNode, startProc, stopAll } from '../support/processes.js';
import { type TestCluster, testCluster, testRedisUrl, until } from '../support/redis.js';

const log = silentLogger();
const PASSWORD = 'a long admin password';

/**
 * `greenfinger serve --cluster` as a third member beside two `greenfinger node` processes, each on its own data root
 * and its own SQLite: the API creates a catalog (through the leader), starts a crawl job that runs on the cluster
 * (live progress, the merged report with every member), and searches from its own index.
 */
describe('serve --cluster: the REST API of a member', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let cluster: TestCluster;
  let client: ClusterClient;
  const procs: Proc[] = [];
  let serve: Proc;
  let base = '';
  let token = '';
  const env = clusterEnv;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, json: () => JSON.parse(text) };
  };

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    tmp = createTempDir('gf-e2e-cluster-serve-');
    cluster = await testCluster();
    client = await ClusterClient.open({ cluster: cluster.name, redisUrl: testRedisUrl, log });
    for (const name of ['n1', 'n2']) {
      procs.push(startNode(cluster.name, tmp.path, name, env()));
      // n1 first: it leads.
      await until(`${name} listed`, async () => (await client.status()).members.some((m) => m.name === name), 30_000);
    }
    const apiRoot = join(tmp.path, 'api');
    addUsers(bin, env({ GF_DATA_STORE: apiRoot }), [['admin', 'admin']], PASSWORD);
    serve = startProc(
      'api',
      ['serve', '--cluster', cluster.name, '--node-name', 'api', '--data', apiRoot, '--port', '0'],
      env(),
    );
    procs.push(serve);
    // Both of its lines: the address, then (a separate write, which may reach the pipe later) the membership.
    await until(
      'serve listening as a member',
      () => /serving http:\/\/[^\s/]+\/v2/.test(serve.stderr()) && /member "api" of cluster/.test(serve.stderr()),
      60_000,
    ).catch(() => {
      throw new Error(`serve did not start: ${serve.stderr()}`);
    });
    base = /serving (http:\/\/[^\s/]+)\/v2/.exec(serve.stderr())?.[1] ?? '';
  }, 120_000);

  afterAll(async () => {
    await stopAll(procs);
    await client?.close();
    await cluster?.close();
    await site?.close();
    tmp?.remove();
  });

  it('joins as a member (not leading), and signs in from its own users', async () => {
    expect(serve.stderr()).toMatch(/member "api" of cluster "t[0-9a-f]+" \(follower\)/);
    const status = await client.status();
    expect(status.members.map((m) => m.name)).toEqual(['api', 'n1', 'n2']);
    expect(status.leader?.name).toBe('n1');
    const login = await api('POST', '/v2/login', { username: 'admin', password: PASSWORD });
    expect(login.status, login.text).toBe(200);
    token = login.json().data.token;
    // GET /v2/cluster: the members and the leader as status --cluster reads them.
    const view = (await api('GET', '/v2/cluster')).json().data;
    expect(view).toMatchObject({ cluster: cluster.name, leader: { name: 'n1' }, run: null });
    expect(view.members.map((m: { name: string }) => m.name)).toEqual(['api', 'n1', 'n2']);
  });

  it('creates a catalog through the leader, runs a crawl job on the cluster with live progress, and searches', async () => {
    const created = await api('POST', '/v2/catalog', {
      name: 'site',
      url: `${site.origin}/`,
      // 250 ms between a member's requests: the run lasts a few of the members' 500 ms progress flushes, so the job
      // is seen running with pages saved (with no wait the 23 pages are done before the first flush reaches it).
      settings: { intervalMs: 250, hostConcurrency: 1, outputs: ['file', 'index'], threads: 2 },
    });
    expect(created.status, created.text).toBe(201);
    const started = await api('POST', '/v2/crawl/site');
    expect(started.status, started.text).toBe(202);
    const { jobId } = started.json().data;
    const t0 = Date.now();
    // The job follows the cluster run: running with the members' counters added up, then the merged report.
    const seen: Array<{ state: string; saved: number }> = [];
    let job = {} as {
      state: string;
      error: unknown;
      counters: { saved: number } | null;
      report: ClusterRunReport;
    };
    await until(
      'the job ended',
      async () => {
        job = (await api('GET', `/v2/status/${jobId}`)).json().data;
        seen.push({ state: job.state, saved: job.counters?.saved ?? 0 });
        return job.state !== 'running' && job.state !== 'queued';
      },
      90_000,
    );
    const wallMs = Date.now() - t0;
    expect(job.state, JSON.stringify(job.error)).toBe('done');
    expect(seen.some((s) => s.state === 'running' && s.saved > 0)).toBe(true);
    const report = job.report;
    expect(report.nodes).toEqual(['api', 'n1', 'n2']);
    expect(Object.keys(report.byNode).sort()).toEqual(['api', 'n1', 'n2']);
    for (const n of ['api', 'n1', 'n2']) expect(report.byNode[n]?.produced.saved).toBeGreaterThan(0);
    expect(report.produced.saved).toBe(fixtureFacts.savedCount);
    expect(report.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    expect(report.runId).toBeTruthy();
    // Pages are fetched once across the cluster (pictures may be fetched by more than one member).
    const repeated = site.repeated([...fixtureFacts.retriedPaths, '/robots.txt', '/llms.txt', '/sitemap.xml']);
    expect(repeated.filter((p) => !p.startsWith('/images/'))).toEqual([]);
    console.log(`cluster-serve: crawl job of ${report.produced.saved} pages on 3 members took ${wallMs} ms`);

    // Reads answer from this member's stores: its index got every page over the search channel.
    const q = `/v2/search?q=${encodeURIComponent('grow food on balconies')}&catalog=site`;
    await until('search answers', async () => (await api('GET', q)).status === 200);
    const hits = (await api('GET', q)).json().data.results;
    expect(hits.map((h: { url: string }) => new URL(h.url).pathname)).toContain('/');
    const versions = (await api('GET', '/v2/crawl/site/versions')).json().data;
    expect(JSON.stringify(versions)).toMatch(/"serving":true/);
    expect((await client.status()).run).toBeNull();
  }, 120_000);

  it('stopping a job stops the run on every member (pause --cluster)', async () => {
    // A merge with 1.5 s between pages of the host, so the run is still going when it is stopped: one that revisits
    // every held page on every member (the catalog names no change feed: the site's sitemap would be the default one,
    // which asks none of them yet).
    const none = await api('PUT', '/v2/catalog/site', { settings: { changeFeeds: ['none'] } });
    expect(none.status, none.text).toBe(200);
    const started = await api('POST', '/v2/crawl/site/merge', { settings: { intervalMs: 1500 } });
    expect(started.status, started.text).toBe(202);
    const { jobId } = started.json().data;
    await until('the run is listed', async () => (await client.status()).run?.action === 'merge', 20_000);
    const stopped = await api('POST', '/v2/crawl/stop', { jobId });
    expect(stopped.status, stopped.text).toBe(202);
    const job = stopped.json().data.job;
    expect(job.state).toBe('stopped');
    expect(job.report.ending).toMatchObject({ reason: 'interrupted', published: false });
    expect(Object.keys(job.report.byNode).sort()).toEqual(['api', 'n1', 'n2']);
    expect((await client.status()).run).toBeNull();
  }, 60_000);

  it('SIGTERM leaves the cluster gracefully, exit 0', async () => {
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    await until('api no longer listed', async () => !(await client.status()).members.some((m) => m.name === 'api'));
    expect((await client.status()).members.map((m) => m.name)).toEqual(['n1', 'n2']);
  }, 60_000);
});
