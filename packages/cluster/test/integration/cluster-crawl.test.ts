import { join } from 'node:path';
import { contentDedupRegistry, Greenfinger, type RunReport, silentLogger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureFacts } from '../../../core/test/support/fixture-facts.js';
import { type FixtureSite, startFixtureSite } from '../../../core/test/support/fixture-site.js';
import { createTestDatabase, type TestDatabase } from '../../../core/test/support/pg.js';
import { createTempDir, type TempDir } from '../../../core/test/support/tmp.js';
import { ClusterContentDedup } from '../../src/budgets/cluster-content-dedup.js';
import { Membership } from '../../src/membership/membership.js';
import { ClusterCrawlCoordinator } from '../../src/run/cluster-crawl-coordinator.js';
import { CHECK, JOIN, runState } from '../../src/run/routing-scripts.js';
import { RunRing } from '../../src/run/run-ring.js';
import { type TestCluster, testCluster } from '../support/redis.js';

const log = silentLogger();

/**
 * Three members in one process, each with its own data root, one shared PostgreSQL, routing through the
 * ClusterCrawlCoordinator over real Redis: the real CrawlEngine on every member, the fixture site's request log as
 * the judge of "fetched once".
 */
describe('ClusterCrawlCoordinator: three members crawl one site', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let db: TestDatabase;
  let cluster: TestCluster;
  const gfs: Greenfinger[] = [];

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    tmp = createTempDir('gf-cluster-crawl-');
    db = await createTestDatabase();
    cluster = await testCluster();
  });
  afterAll(async () => {
    for (const gf of gfs) await gf.close();
    await cluster?.close();
    await db?.drop();
    await site?.close();
    tmp?.remove();
  });

  it('every page fetched once, every member a share, the totals meet, nothing left in the streams', async () => {
    const names = ['a', 'b', 'c'];
    const shared = await cluster.connect('dedup');
    for (const node of names) {
      gfs.push(
        await Greenfinger.open({
          settings: { dataStore: join(tmp.path, node), databaseUrl: db.url, node, workers: 1 },
          log,
          components: {
            contentDedup: async (ctx) =>
              new ClusterContentDedup(
                await contentDedupRegistry.get(ctx.settings.contentDedup)(ctx),
                shared,
                cluster.keys,
              ),
          },
        }),
      );
    }
    const catalogs = await gfs[0]!.catalogs();
    const { catalog } = await catalogs.resolve({
      url: site.origin,
      settings: { intervalMs: 0, outputs: ['file', 'index'], threads: 4 },
    });
    const run = cluster.keys.run('r1');
    const coordinators: ClusterCrawlCoordinator[] = [];
    const members = await Promise.all(
      names.map(async (node) => {
        const redis = await cluster.connect(node);
        const membership = new Membership(redis, cluster.keys, { name: node, ttlMs: 3000, log });
        await membership.join();
        await JOIN.run(redis, [run.members, run.counters, run.ending, run.stream(node)], [node]);
        const ring = new RunRing(redis, cluster.keys, run, { self: node, log });
        await ring.start();
        return { node, redis, reader: await cluster.connect(`${node}-reader`), membership, ring };
      }),
    );
    for (const m of members) await m.ring.refresh();
    expect(members[0]?.ring.members).toEqual(names);

    const reports: RunReport[] = await Promise.all(
      members.map((m, i) =>
        gfs[i]!.crawler.crawl({
          id: catalog.id,
          coordinator: (frontier) => {
            const c = new ClusterCrawlCoordinator(frontier, {
              redis: m.redis,
              reader: m.reader,
              run,
              node: m.node,
              ring: m.ring,
              catalogId: catalog.id,
              version: 0,
              buckets: 16,
              log,
            });
            coordinators.push(c);
            return c;
          },
        }),
      ),
    );
    for (const c of coordinators) await c.close();
    for (const m of members) {
      m.ring.stop();
      await m.membership.leave();
    }

    // Fetched once: every page at most once (robots.txt is read by each member for itself, /broken.html is retried).
    // Pictures are not crawl urls: each member fetches the ones its pages show, so one shown on pages of two members
    // is fetched by both (at most once per member).
    const repeated = site.repeated([...fixtureFacts.retriedPaths, '/robots.txt', '/llms.txt', '/sitemap.xml']);
    expect(repeated.filter((p) => !p.startsWith('/images/'))).toEqual([]);
    for (const p of repeated) expect(site.count(p)).toBeLessThanOrEqual(names.length);
    const saved = reports.map((r) => r.produced.saved);
    expect(saved.reduce((a, b) => a + b, 0)).toBe(fixtureFacts.savedCount);
    for (const s of saved) expect(s).toBeGreaterThan(0);
    for (const r of reports) expect(r.ending.reason).toBe('frontier-drained');
    // The merged totals meet: what the members dispatched is what they handled.
    const dispatched = reports.reduce((a, r) => a + r.urls.dispatched, 0);
    const handled = reports.reduce((a, r) => a + r.urls.handled, 0);
    expect(handled).toBe(dispatched);
    expect(coordinators.reduce((a, c) => a + c.duplicates, 0)).toBe(0);

    const state = runState(await CHECK.run(cluster.redis, [run.counters, run.members, run.ending], [run.stream('')]));
    expect(state).toMatchObject({ ending: 'frontier-drained', streamed: 0, members: 3 });
    expect(state.dispatched).toBe(state.handled);
  });
});
