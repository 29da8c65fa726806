import { silentLogger, urlHash } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureFacts } from '../../../core/test/support/fixture-facts.js';
import { type FixtureSite, startFixtureSite } from '../../../core/test/support/fixture-site.js';
import { createTestDatabase, type TestDatabase } from '../../../core/test/support/pg.js';
import { createTempDir, type TempDir } from '../../../core/test/support/tmp.js';
import { ClusterClient } from '../../src/cluster-client.js';
import type { ClusterNode } from '../../src/cluster-node.js';
import { ControlChannel, type ControlMessage } from '../../src/plumbing/control-channel.js';
import { startMembers } from '../support/members.js';
import { type TestCluster, testCluster, testRedisUrl, until } from '../support/redis.js';

const log = silentLogger();

/** Three ClusterNodes in one process (own data roots, one PostgreSQL), driven by a ClusterClient as the CLI is. */
describe('ClusterNode: a run started through the leader', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let db: TestDatabase;
  let cluster: TestCluster;
  const nodes: ClusterNode[] = [];

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    tmp = createTempDir('gf-cluster-node-');
    db = await createTestDatabase();
    cluster = await testCluster();
  });
  afterAll(async () => {
    for (const n of nodes) await n.close().catch(() => undefined);
    await cluster?.close();
    await db?.drop();
    await site?.close();
    tmp?.remove();
  });

  it('one leader; the run is crawled by every member, published once, merged, and COMPLETED raised once on each', async () => {
    nodes.push(...(await startMembers(cluster, tmp.path, ['a', 'b', 'c'], { settings: { databaseUrl: db.url } })));
    const completed: Record<string, ControlMessage[]> = { a: [], b: [], c: [] };
    for (const n of nodes) n.onCompleted((m) => completed[n.name]?.push(m));
    expect(nodes.filter((n) => n.isLeader())).toHaveLength(1);
    const heard: ControlMessage[] = [];
    await new ControlChannel(cluster.redis, cluster.keys, log).subscribe(await cluster.connect('listener'), (m) => {
      heard.push(m);
    });

    const client = await ClusterClient.open({ cluster: cluster.name, redisUrl: testRedisUrl, log });
    try {
      const status = await client.status();
      expect(status.members.map((m) => m.name)).toEqual(['a', 'b', 'c']);
      expect(status.members.filter((m) => m.leader)).toHaveLength(1);
      expect(status.run).toBeNull();

      const progress: number[] = [];
      const report = await client.crawl(
        { url: site.origin, settings: { intervalMs: 0, outputs: ['file', 'index'], threads: 4 } },
        { onProgress: (p) => progress.push(p.counters.saved), intervalMs: 100 },
      );
      expect(report.nodes).toEqual(['a', 'b', 'c']);
      expect(report.produced.saved).toBe(fixtureFacts.savedCount);
      for (const n of ['a', 'b', 'c']) expect(report.byNode[n]?.produced.saved).toBeGreaterThan(0);
      expect(report.urls.handled).toBe(report.urls.dispatched);
      expect(report.ending).toMatchObject({ reason: 'frontier-drained', published: true });
      expect(progress.length).toBeGreaterThan(0);
      const repeated = site.repeated([...fixtureFacts.retriedPaths, '/robots.txt', '/llms.txt', '/sitemap.xml']);
      // Pictures included: one member fetches each picture, the others link its row (the run's picture registry).
      expect(repeated).toEqual([]);

      // Published once: one PUBLISHED on the control channel, the register holds the version; every member's search
      // registry serves it.
      await until('COMPLETED heard', () => heard.some((m) => m.type === 'COMPLETED'));
      expect(heard.map((m) => m.type)).toEqual(['STARTED', 'PUBLISHED', 'COMPLETED']);
      expect(await cluster.redis.hget(cluster.keys.published(report.catalogId), 'version')).toBe('0');
      await until('every member was told COMPLETED', () => Object.values(completed).every((l) => l.length === 1));
      for (const n of nodes) {
        expect((await n.gf.published.list()).find((c) => c.catalogId === report.catalogId)?.searchVersion).toBe(0);
      }
      const row = await (await nodes[0]!.gf.database()).catalogs.get(report.catalogId);
      expect(row).toMatchObject({ searchVersion: 0, runningState: 'none' });
      // The frontier-dedup channel: every member's url filter knows every page of the run, whoever fetched it.
      const saved: string[] = [];
      for await (const rows of (await nodes[0]!.gf.database()).resources.iterateResources(report.catalogId, 0, 100)) {
        for (const r of rows) saved.push(r.url);
      }
      expect(saved).toHaveLength(fixtureFacts.savedCount);
      for (const n of nodes) {
        const filter = await n.gf.factory.urlFilter();
        const known = await Promise.all(saved.map((u) => filter.has(report.catalogId, 0, urlHash(u))));
        expect(
          known.filter((k) => !k),
          `member ${n.name}`,
        ).toEqual([]);
      }
      expect((await client.status()).run).toBeNull();
    } finally {
      await client.close();
    }
  });

  it('maxPages holds for the members together: a rebuild limited to 5 pages saves 5 over the three, and publishes', async () => {
    const client = await ClusterClient.open({ cluster: cluster.name, redisUrl: testRedisUrl, log });
    try {
      const catalogId = (await (await nodes[0]!.gf.catalogs()).get({ url: site.origin })).id;
      const report = await client.crawl({
        id: catalogId,
        action: 'rebuild',
        settings: { maxPages: 5, threads: 8, minPublishRatio: 0 },
      });
      expect(report.version).toBe(1);
      expect(report.produced.saved).toBe(5);
      expect(Object.values(report.byNode).reduce((a, n) => a + n.produced.saved, 0)).toBe(5);
      expect(report.ending).toMatchObject({ reason: 'max-pages', published: true });
    } finally {
      await client.close();
    }
  });
});
