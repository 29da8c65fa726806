import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ChangeLogEntry, keys, silentLogger } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../../../core/test/support/tmp.js';
import { ClusterNode } from '../../src/cluster-node.js';
import { type TestCluster, testCluster, testRedisUrl, until } from '../support/redis.js';

const log = silentLogger();
const modelDir = fileURLToPath(new URL('../../../core/test/fixtures/models/', import.meta.url));

/**
 * Issue 27 on a cluster: a leader that dies between completing a run and recording its change set. The completion
 * writes `completed` and the owed change set in one script (run-supervisor.ts COMPLETE), so what such a leader leaves
 * in Redis is exactly that: the run completed, its set owed. The next leader records it — one change log entry — and
 * the debt is cleared.
 */
describe('a completed run whose leader died before recording its change set', () => {
  let tmp: TempDir;
  let cluster: TestCluster;
  let node: ClusterNode | undefined;

  beforeAll(async () => {
    tmp = createTempDir('gf-cluster-owed-');
    cluster = await testCluster();
  });
  afterAll(async () => {
    await node?.close().catch(() => undefined);
    await cluster?.close();
    tmp?.remove();
  });

  it('is recorded by the next leader, once', async () => {
    // The state the dead leader left: the run completed, its change set owed (as COMPLETE writes them together).
    const runId = '20261206T051500000Z-merge-n1';
    node = await ClusterNode.start({
      cluster: cluster.name,
      redisUrl: testRedisUrl,
      nodeName: 'n2',
      dataRoot: join(tmp.path, 'n2'),
      settings: { workers: 1, modelDir, textModel: 'tiny-e5' },
      env: {},
      log,
    });
    const catalog = await (await node.gf.catalogs()).create({ url: 'https://fen.example.org/', name: 'fen' });
    // Its version 0, as the run wrote it (the change log lists the versions a catalog keeps).
    await node.gf.blobs.put(keys.settings(catalog.id, 0), JSON.stringify(catalog.settings));
    const entry: ChangeLogEntry = {
      catalogId: catalog.id,
      version: 0,
      action: 'merge',
      at: '2026-12-06T05:15:00.000Z',
      added: ['https://fen.example.org/reeds.html'],
      changed: [{ url: 'https://fen.example.org/heron.html', diff: '- a heron\n+ two herons' }],
      removed: [],
    };
    const run = cluster.keys.run(runId);
    await cluster.redis.set(run.completed, JSON.stringify({ runId }), 'EX', 600);
    await cluster.redis.hset(
      cluster.keys.changesOwed,
      runId,
      JSON.stringify({ info: { catalog, version: 0, action: 'merge' }, entry }),
    );

    await until('n2 leads', () => node?.isLeader() === true, 20_000);
    await until(
      'the owed change set is recorded',
      async () => (await node?.gf.changes.log(catalog))?.length === 1,
      20_000,
    );
    await until('the debt is cleared', async () => (await cluster.redis.hlen(cluster.keys.changesOwed)) === 0, 10_000);
    const latest = await node.gf.changes.changes({ id: catalog.id });
    expect(latest).toMatchObject({
      runs: [{ version: 0, action: 'merge', at: entry.at }],
      added: entry.added,
      changed: entry.changed,
      removed: [],
    });
    // Kept for the members with files of their own, as the leader that completes a run keeps it.
    expect(JSON.parse((await cluster.redis.get(run.changes)) ?? '{}')).toMatchObject({ catalogId: catalog.id });
    expect(await node.gf.changes.log(catalog)).toHaveLength(1);
  }, 60_000);
});
