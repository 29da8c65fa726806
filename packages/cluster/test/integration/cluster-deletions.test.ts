import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keys, type ResourceRow, silentLogger } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureFacts } from '../../../core/test/support/fixture-facts.js';
import { type FixtureSite, startFixtureSite } from '../../../core/test/support/fixture-site.js';
import { createTestDatabase, type TestDatabase } from '../../../core/test/support/pg.js';
import { createTempDir, type TempDir } from '../../../core/test/support/tmp.js';
import { ClusterClient } from '../../src/cluster-client.js';
import { ClusterNode } from '../../src/cluster-node.js';
import { type TestCluster, testCluster, testRedisUrl, until } from '../support/redis.js';

const log = silentLogger();
const modelDir = fileURLToPath(new URL('../../../core/test/fixtures/models/', import.meta.url));
const NAMES = ['a', 'b', 'c'];

/** What one member holds of a catalog version, in each of its own layers. */
async function held(n: ClusterNode, catalogId: string, version: number) {
  const db = await n.gf.database();
  return {
    files: (await n.gf.blobs.stat(keys.version(catalogId, version))).objects,
    onDisk: existsSync(join(n.gf.layout.user, keys.version(catalogId, version), 'pages')),
    documents: await n.gf.index().countVersion(catalogId, version),
    points: await (await n.gf.vectors()).countVersion(catalogId, version),
    rows: (await db.resources.count(catalogId, version)).resources,
  };
}

const NOTHING = { files: 0, onDisk: false, documents: 0, points: 0, rows: 0 };

/** Every layer of the member lacks the version (a walk of a folder being deleted meanwhile counts as not yet). */
async function gone(n: ClusterNode, catalogId: string, version: number): Promise<boolean> {
  const h = await held(n, catalogId, version).catch(() => undefined);
  return h !== undefined && Object.entries(NOTHING).every(([k, v]) => h[k as keyof typeof h] === v);
}

/**
 * Three ClusterNodes in one process, each with its own SQLite, files, index and vectors (per node, replicated by the
 * channels): a version deleted, a url deleted and a version pruned through the leader leave every member's own
 * layers; a member that was away when the version was deleted loses it when it joins again (the deletion log).
 */
describe.each([{ records: 'per-node SQLite' }, { records: 'one PostgreSQL' }])(
  'administrative deletions reach every member’s own layers ($records)',
  ({ records }) => {
    let site: FixtureSite;
    let tmp: TempDir;
    let cluster: TestCluster;
    let pg: TestDatabase | undefined;
    const nodes = new Map<string, ClusterNode>();
    const start = async (name: string) => {
      const node = await ClusterNode.start({
        cluster: cluster.name,
        redisUrl: testRedisUrl,
        nodeName: name,
        dataRoot: join(tmp.path, name),
        settings: { workers: 1, modelDir, textModel: 'tiny-e5', ...(pg ? { databaseUrl: pg.url } : {}) },
        env: {},
        log,
      });
      nodes.set(name, node);
      return node;
    };
    const all = () => NAMES.map((n) => nodes.get(n) as ClusterNode);

    beforeAll(async () => {
      site = await startFixtureSite({ slowDelayMs: 100 });
      tmp = createTempDir('gf-cluster-deletions-');
      cluster = await testCluster();
      if (records === 'one PostgreSQL') pg = await createTestDatabase();
      for (const name of NAMES) await start(name);
    }, 60_000);
    afterAll(async () => {
      for (const n of nodes.values()) await n.close().catch(() => undefined);
      await cluster?.close();
      await pg?.drop();
      await site?.close();
      tmp?.remove();
    });

    it('version, url and prune deletions leave every member; a member away catches up when it joins', async () => {
      const t0 = Date.now();
      const client = await ClusterClient.open({ cluster: cluster.name, redisUrl: testRedisUrl, log });
      try {
        const first = await client.crawl({
          url: site.origin,
          settings: { intervalMs: 0, outputs: ['file', 'index', 'vector'], threads: 4, maxVersions: 3 },
        });
        expect(first.ending.published).toBe(true);
        const catalogId = first.catalogId;
        const second = await client.crawl({ id: catalogId, action: 'rebuild' });
        expect(second.version).toBe(1);
        expect(second.ending.published).toBe(true);
        const whole = await held(all()[0] as ClusterNode, catalogId, 1);
        expect(whole.documents).toBe(fixtureFacts.savedCount);
        expect(whole.points).toBeGreaterThan(0);
        for (const n of all()) {
          for (const v of [0, 1]) {
            const h = await held(n, catalogId, v);
            expect(h, `${n.name} v${v}`).toMatchObject({
              documents: fixtureFacts.savedCount,
              rows: whole.rows,
              onDisk: true,
            });
            expect(h.points, `${n.name} v${v}`).toBe(whole.points);
            expect(h.files, `${n.name} v${v}`).toBeGreaterThan(0);
          }
        }

        // c is away while version 0 is deleted through a follower's admin writer (a request to the leader).
        const cPages = join((nodes.get('c') as ClusterNode).gf.layout.user, keys.version(catalogId, 0), 'pages');
        await nodes.get('c')?.leave();
        nodes.delete('c');
        const caller = all()
          .slice(0, 2)
          .find((n) => !n.isLeader()) as ClusterNode;
        // Every member's search registry reads version 1 for words and for meaning (the leader's publish was
        // complete): version 0 is served by nobody, so it is deleted without force.
        for (const n of all().slice(0, 2)) {
          const entry = (await n.gf.published.list()).find((e) => e.catalogId === catalogId);
          expect(entry, n.name).toMatchObject({ searchVersion: 1 });
          expect(entry?.meaningVersion ?? entry?.searchVersion, n.name).toBe(1);
        }
        const tDelete = Date.now();
        const report = await caller.gf.versions.delete({ id: catalogId }, { version: 0 });
        expect(report.results.some((r) => r.error)).toBe(false);
        for (const n of all().slice(0, 2)) {
          await until(`${n.name} lost version 0`, () => gone(n, catalogId, 0), 10_000);
          expect(await held(n, catalogId, 0), n.name).toEqual(NOTHING);
        }
        const deleteMs = Date.now() - tDelete;
        expect(existsSync(cPages), 'c, away, still holds version 0').toBe(true);
        // c again, on the same data root: the deletion log takes version 0 from it before it joins.
        const c = await start('c');
        expect(await held(c, catalogId, 0)).toEqual(NOTHING);
        for (const n of all()) {
          const h = await held(n, catalogId, 1);
          expect(h, `${n.name} kept v1`).toMatchObject({
            documents: whole.documents,
            points: whole.points,
            rows: whole.rows,
          });
          expect((await n.gf.published.list()).find((e) => e.catalogId === catalogId)?.versions, n.name).toEqual([1]);
        }

        // One url of version 1, deleted through c (not the leader): gone from every member's search, files and rows.
        const db = await c.gf.database();
        let page: ResourceRow | undefined;
        for await (const batch of db.resources.iterateResources(catalogId, 1)) {
          page ??= batch.find((r) => r.url.endsWith('/article-2.html'));
        }
        expect(page).toBeDefined();
        const row = await db.ledger.get(page?.id as string);
        expect(row).toBeDefined();
        const search = async (n: ClusterNode) =>
          (await n.gf.search.search({ q: 'damping off seedlings', size: 20 })).results.map((r) => r.url);
        for (const n of all()) expect(await search(n), n.name).toContain(page?.url);
        await c.gf.ledger.deleteUrl(row?.id as string);
        for (const n of all()) {
          await until(`${n.name} lost the url`, async () => !(await search(n)).includes(page?.url as string), 10_000);
          const own = await n.gf.database();
          expect(await own.resources.getResource(page?.id as string), n.name).toBeUndefined();
          expect((await own.ledger.get(page?.id as string))?.state, n.name).toBe('deleted');
          expect(await n.gf.blobs.exists(page?.htmlPath as string), n.name).toBe(false);
          expect(await n.gf.index().countVersion(catalogId, 1), n.name).toBe(whole.documents - 1);
        }

        // A prune after a publish: with maxVersions 1, publishing version 2 prunes version 1 on the leader, and so on
        // every member.
        await (await caller.gf.catalogs()).update(catalogId, { settings: { maxVersions: 1 } });
        const third = await client.crawl({ id: catalogId, action: 'rebuild', settings: { maxVersions: 1 } });
        expect(third.version).toBe(2);
        for (const n of all()) {
          await until(`${n.name} pruned version 1`, () => gone(n, catalogId, 1), 15_000);
          expect(await held(n, catalogId, 1), n.name).toEqual(NOTHING);
          expect((await held(n, catalogId, 2)).documents, n.name).toBe(fixtureFacts.savedCount);
        }
        console.log(
          `deletions over three in-process members (${records}, file+index+vector): version 0 gone from both live members ${deleteMs} ms after the call; ` +
            `the member away caught up at join; url and prune reached all three; ${((Date.now() - t0) / 1000).toFixed(1)} s in all`,
        );
      } finally {
        await client.close();
      }
    }, 120_000);
  },
);
