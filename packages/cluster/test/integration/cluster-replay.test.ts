import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureFacts } from '../../../core/test/support/fixture-facts.js';
import { type FixtureSite, startFixtureSite } from '../../../core/test/support/fixture-site.js';
import { createTestDatabase, type TestDatabase } from '../../../core/test/support/pg.js';
import { createTempDir, type TempDir } from '../../../core/test/support/tmp.js';
import { ClusterClient } from '../../src/cluster-client.js';
import type { ClusterNode } from '../../src/cluster-node.js';
import { startMembers } from '../support/members.js';
import { type TestCluster, testCluster, testRedisUrl } from '../support/redis.js';

const log = silentLogger();
const modelDir = fileURLToPath(new URL('../../../core/test/fixtures/models/', import.meta.url));
const NAMES = ['a', 'b', 'c'];
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');

/** The CLI as a user runs it (asynchronously: the members answer from this same process). */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    env: { ...process.env, GF_REDIS_URL: testRedisUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (b: Buffer) => {
    stdout += b.toString();
  });
  child.stderr?.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

/**
 * Three ClusterNodes in one process (own data roots and vector stores, one PostgreSQL) on the fixture site: a replay of
 * the index and vector layers in slices of 5, after every member lost both, leaves every member with every document
 * and every point again (the replay's search and vectors streams), and the same answers to a meaning query.
 */
describe('replay --cluster of the index and vector layers, in-process members', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let db: TestDatabase;
  let cluster: TestCluster;
  const nodes: ClusterNode[] = [];
  let catalogId = '';

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    tmp = createTempDir('gf-cluster-replay-');
    db = await createTestDatabase();
    cluster = await testCluster();
    nodes.push(
      ...(await startMembers(cluster, tmp.path, NAMES, {
        settings: { databaseUrl: db.url, modelDir, textModel: 'tiny-e5' },
      })),
    );
  }, 60_000);
  afterAll(async () => {
    for (const n of nodes) await n.close().catch(() => undefined);
    await cluster?.close();
    await db?.drop();
    await site?.close();
    tmp?.remove();
  });

  it('every member did slices, and each holds every document and every point again', async () => {
    const client = await ClusterClient.open({ cluster: cluster.name, redisUrl: testRedisUrl, log });
    try {
      const crawled = await client.crawl({
        url: site.origin,
        settings: { intervalMs: 0, outputs: ['file', 'index', 'vector'], threads: 4 },
      });
      expect(crawled.ending.published).toBe(true);
      catalogId = crawled.catalogId;
      const meaning = async (n: ClusterNode) =>
        (await n.gf.search.search({ q: 'watering the garden while away', mode: 'meaning', size: 5 })).results.map(
          (r) => r.url,
        );
      const points = await (await nodes[0]?.gf.vectors())?.countVersion(catalogId, 0);
      expect(points).toBeGreaterThan(0);
      const before = await meaning(nodes[0] as ClusterNode);
      expect(before.length).toBeGreaterThan(0);
      for (const n of nodes) {
        expect(await (await n.gf.vectors()).countVersion(catalogId, 0), n.name).toBe(points);
        await (await n.gf.vectors()).deleteVersion(catalogId, 0);
        await n.gf.index().deleteVersion(catalogId, 0);
        expect(await (await n.gf.vectors()).countVersion(catalogId, 0)).toBe(0);
      }
      site.clear();
      const progress: number[] = [];
      const r = await client.replay(
        { id: catalogId, layers: ['vector', 'index'], slicePages: 5 },
        { onProgress: (p) => progress.push(p.done), intervalMs: 50 },
      );
      expect(site.requests).toHaveLength(0);
      expect(r.requests).toBe(0);
      expect(r.nodes).toEqual(NAMES);
      expect(r.missing, JSON.stringify(r.missing)).toBeUndefined();
      expect(Object.values(r.byNode).reduce((a, n) => a + n.pages, 0)).toBe(fixtureFacts.savedCount);
      expect(Object.values(r.byNode).filter((n) => n.slices > 0).length).toBeGreaterThanOrEqual(2);
      expect(r.layers.index).toEqual({ written: fixtureFacts.savedCount, failed: 0 });
      expect(r.layers.vector).toMatchObject({ written: fixtureFacts.savedCount, failed: 0 });
      expect(r.republished).toBe(true);
      expect(progress.at(-1) ?? 0).toBeLessThanOrEqual(fixtureFacts.savedCount);
      for (const n of nodes) {
        expect(await (await n.gf.vectors()).countVersion(catalogId, 0), n.name).toBe(points);
        expect(await n.gf.index().countVersion(catalogId, 0), n.name).toBe(fixtureFacts.savedCount);
        expect(await meaning(n), n.name).toEqual(before);
      }
      console.log(
        `replay of index+vector over three in-process members, slices of 5: ${NAMES.map((n) => `${n} ${r.byNode[n]?.slices}/${r.byNode[n]?.pages}`).join(', ')}; ` +
          `${points} points on every member again; ${(r.elapsedMs / 1000).toFixed(1)} s`,
      );
    } finally {
      await client.close();
    }
  }, 180_000);

  // A starved asker (its event loop stalled past the heartbeat's 3 s) lets its heartbeat lapse until it writes it
  // again. The parts took that for its death and stopped, and the asker gathered for ever (seen on a loaded machine).
  it('the asker’s heartbeat missing for two seconds: every part goes on and the replay completes', async () => {
    const client = await ClusterClient.open({ cluster: cluster.name, redisUrl: testRedisUrl, log });
    let lapse: Promise<void> | undefined;
    try {
      const r = await client.replay(
        { id: catalogId, layers: ['index'], slicePages: 1 },
        {
          intervalMs: 50,
          onStarted: (started) => {
            // Deleted again every 50 ms for 2 s, as if the asker could not renew it.
            lapse = (async () => {
              const until = Date.now() + 2000;
              while (Date.now() < until) {
                await cluster.redis.del(cluster.keys.member(started.from));
                await new Promise((resolve) => setTimeout(resolve, 50));
              }
            })();
          },
        },
      );
      expect(r.missing, JSON.stringify(r.missing)).toBeUndefined();
      expect(r.layers.index).toEqual({ written: fixtureFacts.savedCount, failed: 0 });
      expect(Object.values(r.byNode).reduce((a, n) => a + n.pages, 0)).toBe(fixtureFacts.savedCount);
    } finally {
      await lapse;
      await client.close();
    }
  }, 60_000);

  it('the CLI: replay --cluster prints the summary with a line per member; a version not stored is one line', async () => {
    const { code, stdout, stderr } = await cli([
      'replay',
      '--cluster',
      cluster.name,
      '--id',
      catalogId,
      '--layers',
      'index',
    ]);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(new RegExp(`on cluster "${cluster.name}": ${fixtureFacts.savedCount} pages in 1 slices`));
    expect(stdout).toContain(`index: ${fixtureFacts.savedCount} documents, 0 failed`);
    expect(stdout).toContain('by member:');
    expect(stdout).toMatch(new RegExp(`\\n  [abc]: 1 slices, ${fixtureFacts.savedCount} pages, 0 requests\\n`));
    const unknown = await cli([
      'replay',
      '--cluster',
      cluster.name,
      '--id',
      catalogId,
      '--version',
      '7',
      '--layers',
      'index',
    ]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/no stored version 7/);
    console.log(`replay --cluster, as printed:\n${stdout}`);
  }, 60_000);
});
