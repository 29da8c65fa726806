import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pushChangedUrls, silentLogger } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../../../core/test/support/tmp.js';
import { ClusterNode } from '../../src/cluster-node.js';
import { type TestCluster, testCluster, testRedisUrl, until } from '../support/redis.js';

const log = silentLogger();
const modelDir = fileURLToPath(new URL('../../../core/test/fixtures/models/', import.meta.url));

/** The push files a member's own file store holds for a catalog. */
async function pushesOn(node: ClusterNode, catalogId: string): Promise<string[]> {
  const found: string[] = [];
  for await (const key of node.gf.blobs.list(`assets/${catalogId}/feeds/pushed/`)) found.push(key);
  return found;
}

/**
 * Issue 27 on a cluster whose members each keep their own SQLite and files: a saved search added or removed on a
 * member that does not lead goes through the leader's administrative writer (the leader, which matches saved
 * searches after a run, holds it; the member's own database too), and a push of changed urls received by such a
 * member (what `POST /v2/catalog/{ref}/changed` calls) is recorded in the leader's files, where the run's change
 * feeds are read — not in the member's own.
 */
describe('saved searches and pushes through the leader (per-node SQLite and files)', () => {
  let tmp: TempDir;
  let cluster: TestCluster;
  const nodes: ClusterNode[] = [];

  beforeAll(async () => {
    tmp = createTempDir('gf-cluster-alerts-');
    cluster = await testCluster();
    for (const name of ['a', 'b']) {
      nodes.push(
        await ClusterNode.start({
          cluster: cluster.name,
          redisUrl: testRedisUrl,
          nodeName: name,
          dataRoot: join(tmp.path, name),
          settings: { workers: 1, modelDir, textModel: 'tiny-e5' },
          env: {},
          log,
        }),
      );
    }
    await until('one member leads', () => nodes.some((n) => n.isLeader()), 20_000);
  }, 60_000);
  afterAll(async () => {
    for (const n of nodes) await n.close().catch(() => undefined);
    await cluster?.close();
    tmp?.remove();
  });

  it('alert add and remove on a follower are the leader’s writes; a push to a follower lands in the leader’s files', async () => {
    const leader = nodes.find((n) => n.isLeader()) as ClusterNode;
    const follower = nodes.find((n) => !n.isLeader()) as ClusterNode;
    const catalog = await (await follower.gf.catalogs()).create({
      url: 'https://orchard.example.org/',
      name: 'orchard',
    });
    // Created through the leader, mirrored here.
    expect(await (await leader.gf.database()).catalogs.get(catalog.id)).toBeDefined();

    const alert = await follower.gf.alerts.add({ id: catalog.id }, { query: 'grafted quince', name: 'quince' });
    const onLeader = await (await leader.gf.database()).alerts?.list(catalog.id);
    expect(onLeader?.map((a) => a.id)).toEqual([alert.id]);
    const onFollower = await (await follower.gf.database()).alerts?.list(catalog.id);
    expect(onFollower?.map((a) => a.id)).toEqual([alert.id]);
    await follower.gf.alerts.remove({ id: catalog.id }, 'quince');
    expect(await (await leader.gf.database()).alerts?.list(catalog.id)).toEqual([]);
    expect(await (await follower.gf.database()).alerts?.list(catalog.id)).toEqual([]);

    const pushed = await pushChangedUrls(follower.gf.factory.writer, catalog, [
      'https://orchard.example.org/quince.html',
      'https://elsewhere.example/x',
    ]);
    expect(pushed.recorded).toEqual(['https://orchard.example.org/quince.html']);
    expect(pushed.refused).toHaveLength(1);
    expect(await pushesOn(leader, catalog.id)).toHaveLength(1);
    expect(await pushesOn(follower, catalog.id)).toEqual([]);
  }, 60_000);
});
