import { join } from 'node:path';
import { silentLogger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../../../core/test/support/fixture-site.js';
import { createTestDatabase, type TestDatabase } from '../../../core/test/support/pg.js';
import { createTempDir, type TempDir } from '../../../core/test/support/tmp.js';
import { ClusterClient, type ClusterStatus } from '../../src/cluster-client.js';
import type { ClusterRunReport } from '../../src/run/cluster-report.js';
import { clusterEnv, type Proc, runCli, startNode, stopAll, untilMembers } from '../support/processes.js';
import { type TestCluster, testCluster, testRedisUrl, until } from '../support/redis.js';

const log = silentLogger();

/** A run's merged report (the rows of the members' own parts have no `nodes`). */
type Merged = ClusterRunReport & { nodes: string[] };

/**
 * The catalogs' schedules on a cluster (docs/freshness.md, docs/cluster.md): two `greenfinger node` processes on one
 * shared PostgreSQL, a catalog with `--schedule "every 2s"`: only the leader starts its runs, each a cluster run over
 * both members, one at a time; the leader killed (kill -9), the other member takes the schedule over.
 */
describe('schedules on a cluster: the leader runs them', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let db: TestDatabase;
  let cluster: TestCluster;
  let client: ClusterClient;
  const members = new Map<string, Proc>();
  const env = () => clusterEnv({ DATABASE_URL: db.url });

  /**
   * The merged reports of the cluster's completed runs, oldest first, as the completing leader wrote them to Redis
   * (`run:<id>:completed`, kept an hour; the database keeps one report row per version, the latest).
   */
  const runs = async (): Promise<Merged[]> => {
    const completed = (await cluster.keysLeft()).filter((k) => /:run:[^:]+:completed$/.test(k));
    const out: Merged[] = [];
    for (const k of completed) out.push(JSON.parse((await cluster.redis.get(k)) ?? '{}') as Merged);
    return out.filter((r) => Array.isArray(r.nodes)).sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  };

  beforeAll(async () => {
    site = await startFixtureSite();
    tmp = createTempDir('gf-e2e-cluster-schedules-');
    db = await createTestDatabase();
    cluster = await testCluster();
    client = await ClusterClient.open({ cluster: cluster.name, redisUrl: testRedisUrl, log });
    members.set('n1', startNode(cluster.name, tmp.path, 'n1', env()));
    // n1 first: it leads.
    await until('n1 leads', async () => (await client.status()).leader?.name === 'n1', 30_000);
    members.set('n2', startNode(cluster.name, tmp.path, 'n2', env()));
    await untilMembers(cluster.name, 2, 30_000);
  }, 60_000);

  afterAll(async () => {
    await stopAll([...members.values()]);
    await client?.close();
    await cluster?.close();
    await db?.drop();
    await site?.close();
    tmp?.remove();
  });

  it('the leader starts each due run on every member, one at a time; status --cluster shows the next', async () => {
    const t0 = Date.now();
    const created = await runCli(
      [
        'catalog',
        'create',
        '--cluster',
        cluster.name,
        '--data',
        join(tmp.path, 'cli'),
        '--url',
        `${site.origin}/`,
        '--name',
        'site',
        '--interval',
        '0',
        '--schedule',
        'every 2s',
        '--json',
      ],
      env(),
    );
    expect(created.code, created.stderr).toBe(0);
    const catalogId = (JSON.parse(created.stdout) as { id: string }).id;
    // Two runs by the schedule alone: the first crawls, the next (2 s after it ended) merges.
    await until('two scheduled runs completed', async () => (await runs()).length >= 2, 30_000).catch((err) => {
      throw new Error(`${err}\nn1: ${members.get('n1')?.stderr().slice(-3000)}`);
    });
    const done = (await runs()).slice(0, 2);
    console.log(`cluster-schedules: two scheduled runs completed ${Date.now() - t0} ms after the catalog was created`);
    expect(done.map((r) => r.nodes)).toEqual([
      ['n1', 'n2'],
      ['n1', 'n2'],
    ]);
    expect(done.map((r) => r.ending.reason)).toEqual(['frontier-drained', 'frontier-drained']);
    expect(done.map((r) => [r.catalogId, r.action])).toEqual([
      [catalogId, 'crawl'],
      [catalogId, 'merge'],
    ]);
    // Started by the leader only.
    const started = /the schedule of "site" started a (\w+) on the cluster/g;
    expect([...(members.get('n1')?.stderr() ?? '').matchAll(started)].length).toBeGreaterThanOrEqual(2);
    expect(members.get('n2')?.stderr()).not.toMatch(started);
    // status --cluster: the leader's view of the schedules, with the next run.
    const status = await runCli(['status', '--cluster', cluster.name, '--json'], env());
    expect(status.code, status.stderr).toBe(0);
    const view = (JSON.parse(status.stdout) as ClusterStatus).schedules;
    expect(view?.leader).toBe('n1');
    expect(view?.catalogs).toEqual([
      expect.objectContaining({ catalog: 'site', schedule: 'every 2s', nextRunAt: expect.any(String) }),
    ]);
    const text = await runCli(['status', '--cluster', cluster.name], env());
    expect(text.stdout).toMatch(/scheduled \(the leader n1 starts them on every member/);
    expect(text.stdout).toMatch(/site\s+every 2s/);
  }, 60_000);

  it('the leader killed: the other member takes the schedule over; no two runs ever overlap', async () => {
    const n1 = members.get('n1') as Proc;
    const killedAt = new Date().toISOString();
    const t0 = Date.now();
    n1.child.kill('SIGKILL');
    await n1.exited;
    await until('n2 leads', async () => (await client.status()).leader?.name === 'n2', 20_000);
    // A run the new leader started (after the kill), and completed on the member left.
    await until(
      'a run started by n2',
      async () => (await runs()).some((r) => r.startedAt > killedAt && r.ending.reason === 'frontier-drained'),
      30_000,
    );
    console.log(`cluster-schedules: a run by the new leader completed ${Date.now() - t0} ms after the kill -9`);
    expect(members.get('n2')?.stderr()).toMatch(/the schedule of "site" started a merge on the cluster/);
    const all = await runs();
    expect(all.filter((r) => r.startedAt > killedAt).every((r) => r.nodes.join() === 'n2')).toBe(true);
    // One run at a time: each started after the one before it ended, every run id once.
    for (let i = 1; i < all.length; i++) {
      expect(all[i]?.startedAt >= (all[i - 1]?.endedAt ?? '')).toBe(true);
    }
    expect(new Set(all.map((r) => r.runId)).size).toBe(all.length);
    const view = (await client.status()).schedules;
    expect(view?.leader).toBe('n2');
  }, 60_000);
});
