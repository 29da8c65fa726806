import { join } from 'node:path';
import { type Catalog, Greenfinger, silentLogger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../../../core/test/support/fixture-site.js';
import { createTempDir, type TempDir } from '../../../core/test/support/tmp.js';
import { ClusterClient } from '../../src/cluster-client.js';

import { LeaderGateway } from '../../src/membership/leader-gateway.js';
import { clusterEnv, type Proc, runCli, startNode, stopAll } from '../support/processes.js';
import { type TestCluster, testCluster, testRedisUrl, until } from '../support/redis.js';

const log = silentLogger();

/**
 * The one-line administrative verbs with `--cluster` as CLI processes (written by the leader, and into the caller's
 * own SQLite after), and CatalogCatchUp: a member started after catalogs were created, changed and published on the
 * leader holds their rows and its search registry serves the published version.
 */
describe('admin verbs and shell with --cluster, and the catalog catch-up of a member joining late', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let cluster: TestCluster;
  let client: ClusterClient;
  let gateway: LeaderGateway;
  const procs: Proc[] = [];
  const env = clusterEnv;
  const member = (name: string, extra: Record<string, string> = {}) => {
    const p = startNode(cluster.name, tmp.path, name, env(extra));
    procs.push(p);
    return p;
  };
  const leaderRow = async (name: string) =>
    (await gateway.call<Catalog[]>('catalogs.rows', [])).find((c) => c.name === name);
  const cliRoot = () => join(tmp.path, 'cli');

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    tmp = createTempDir('gf-e2e-cluster-admin-');
    cluster = await testCluster();
    client = await ClusterClient.open({ cluster: cluster.name, redisUrl: testRedisUrl, log });
    gateway = new LeaderGateway(cluster.redis, cluster.keys, { redisUrl: testRedisUrl, from: 'test', log });
    member('n1');
    await until('n1 leads', async () => (await client.status()).leader?.name === 'n1', 30_000);
  }, 60_000);

  afterAll(async () => {
    await stopAll(procs);
    await client?.close();
    await cluster?.close();
    await site?.close();
    tmp?.remove();
  });

  it('catalog create and update --cluster: the leader writes, the caller’s own database takes the same row', async () => {
    const created = await runCli(
      [
        'catalog',
        'create',
        '--cluster',
        cluster.name,
        '--data',
        cliRoot(),
        '--url',
        `${site.origin}/`,
        '--name',
        'docs',
        '--max-pages',
        '50',
        '--interval',
        '0',
        '--outputs',
        'file+index',
        '--json',
      ],
      env(),
    );
    expect(created.code, created.stderr).toBe(0);
    const row = JSON.parse(created.stdout) as Catalog;
    expect(row).toMatchObject({ name: 'docs', settings: { maxPages: 50 } });
    expect(await leaderRow('docs')).toMatchObject({ id: row.id, settings: { maxPages: 50 } });

    const updated = await runCli(
      ['catalog', 'update', 'docs', '--cluster', cluster.name, '--data', cliRoot(), '--max-pages', '70', '--json'],
      env(),
    );
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ id: row.id, settings: { maxPages: 70 } });
    const onLeader = await leaderRow('docs');
    expect(onLeader).toMatchObject({ settings: { maxPages: 70 } });
    // The caller's own SQLite holds the leader's row as it is (same update time).
    const mine = await runCli(['catalog', 'show', '--name', 'docs', '--data', cliRoot(), '--json'], env());
    expect(mine.code, mine.stderr).toBe(0);
    expect(JSON.parse(mine.stdout)).toMatchObject({ id: row.id, updatedAt: onLeader?.updatedAt });
  }, 60_000);

  it('user add --cluster: the leader’s database and the caller’s own hold the user', async () => {
    const added = await runCli(
      ['user', 'add', 'ada', '--role', 'admin', '--password-stdin', '--cluster', cluster.name, '--data', cliRoot()],
      env(),
      30_000,
      'a long enough password\n',
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toBe('added user "ada" (admin)\n');
    for (const root of [join(tmp.path, 'n1'), cliRoot()]) {
      const listed = await runCli(['user', 'list', '--data', root, '--json'], env());
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ name: 'ada', role: 'admin' })]);
    }
  }, 60_000);

  it('a cluster nobody runs: one line saying so, with the fix', async () => {
    const r = await runCli(
      ['catalog', 'create', '--cluster', 'nobody-here', '--data', cliRoot(), '--url', `${site.origin}/x/`],
      env(),
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/cluster "nobody-here" has no member running — start one with `greenfinger node --cluster/),
    ]);
  }, 30_000);

  it('a member started after the catalog was created, changed and published holds its row and serves it', async () => {
    const crawled = await runCli(['crawl', '--cluster', cluster.name, '--name', 'docs', '--json'], env(), 90_000);
    expect(crawled.code, crawled.stderr).toBe(0);
    expect(JSON.parse(crawled.stdout).ending.published).toBe(true);
    const published = await leaderRow('docs');
    expect(published).toMatchObject({ searchVersion: 0, settings: { maxPages: 70 } });

    const late = member('n2', { GF_LOG_LEVEL: 'info' });
    await until('n2 listed', async () => (await client.status()).members.some((m) => m.name === 'n2'), 30_000);
    await until('n2 caught up', () => /catalog rows caught up from the leader/.test(late.stderr()), 10_000);
    const line = late
      .stderr()
      .split('\n')
      .find((l) => l.includes('catalog rows caught up'));
    expect(JSON.parse(line ?? '{}')).toMatchObject({ created: 1, updated: 0, republished: 1 });
    // Once it says it runs (its signal handlers are on), SIGTERM makes it leave gracefully.
    await until('n2 running', () => /member "n2" of cluster/.test(late.stderr()), 10_000);
    late.child.kill('SIGTERM');
    expect(await late.exited).toBe(0);

    const gf = await Greenfinger.open({ settings: { dataStore: join(tmp.path, 'n2') }, log });
    try {
      const row = await (await gf.database()).catalogs.get(published?.id ?? '');
      expect(row).toMatchObject({ name: 'docs', searchVersion: 0, updatedAt: published?.updatedAt });
      expect(row?.settings.maxPages).toBe(70);
      const entry = (await gf.published.list()).find((c) => c.catalogId === published?.id);
      expect(entry).toMatchObject({ name: 'docs', searchVersion: 0 });
    } finally {
      await gf.close();
    }
  }, 120_000);

  it('shell --cluster: the prompt is a member; its rebuild is a cluster run, published by the leader', async () => {
    const prompt = await runCli(
      ['shell', '--cluster', cluster.name, '--node-name', 'p1', '--data', join(tmp.path, 'p1')],
      env(),
      90_000,
      'rebuild --name docs\nstatus --all\n',
    );
    expect(prompt.code, prompt.stderr).toBe(0);
    expect(prompt.stdout).toMatch(/^Published: catalog "docs" version 1 — saved \d+ pages/m);
    expect(prompt.stdout).toMatch(/docs · rebuild v1 · done/);
    expect(await leaderRow('docs')).toMatchObject({ searchVersion: 1, runningState: 'none' });
    // It took part (its report sits in its own data root) and left: n1 is the only member again.
    expect((await client.status()).members.map((m) => m.name)).toEqual(['n1']);
  }, 120_000);
});
