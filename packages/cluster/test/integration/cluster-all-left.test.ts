import { CrawlerError, silentLogger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../../../core/test/support/fixture-site.js';
import { createTempDir, type TempDir } from '../../../core/test/support/tmp.js';
import { ClusterClient } from '../../src/cluster-client.js';
import type { ClusterNode } from '../../src/cluster-node.js';
import type { RunStarted } from '../../src/run/run-info.js';
import { resumableRun } from '../../src/run/run-resume.js';
import { startMembers } from '../support/members.js';
import { type TestCluster, testCluster, testRedisUrl } from '../support/redis.js';

const log = silentLogger();

/**
 * A run whose every member's part fails (CI once saw both followers stop on a database error while the leader was
 * killed; the run then waited for ever): the leader ends it as `error`, unpublished, its queue kept for a resume.
 */
describe('a cluster run that every member left', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let cluster: TestCluster;
  let client: ClusterClient;
  const nodes: ClusterNode[] = [];

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    tmp = createTempDir('gf-cluster-all-left-');
    cluster = await testCluster();
    nodes.push(...(await startMembers(cluster, tmp.path, ['a', 'b'])));
    client = await ClusterClient.open({ cluster: cluster.name, redisUrl: testRedisUrl, log });
  });
  afterAll(async () => {
    await client?.close();
    for (const n of nodes) await n.close().catch(() => undefined);
    await cluster?.close();
    await site?.close();
    tmp?.remove();
  });

  it('ends as error once no member is left in it: one line naming each part’s failure, its queue kept for resume', async () => {
    let broken = false;
    let started: RunStarted | undefined;
    const err = await client
      .crawl(
        { url: site.origin, settings: { intervalMs: 300, threads: 2, hostConcurrency: 1, outputs: ['file'] } },
        {
          intervalMs: 50,
          onStarted: (s) => {
            started = s;
          },
          onProgress: (p) => {
            if (broken || (p.counters.saved ?? 0) < 2) return;
            broken = true;
            // Every member's record database goes away: each part fails on its next commit and leaves the run.
            for (const n of nodes) void n.gf.database().then((db) => db.close());
          },
        },
      )
      .catch((e: unknown) => e);
    expect(broken).toBe(true);
    expect(err).toBeInstanceOf(CrawlerError);
    const message = (err as CrawlerError).message;
    expect(message).toMatch(
      /^run \S+ ended \(error\) without a report from any member — a: .*database.*; b: .*database/,
    );
    expect(message).not.toContain('\n');
    expect((err as CrawlerError).fix).toContain(
      `greenfinger resume --cluster ${cluster.name} --id ${started?.catalogId}`,
    );
    const stopped = await resumableRun(cluster.redis, cluster.keys, started?.catalogId ?? '');
    expect(stopped).toMatchObject({ runId: started?.runId, reason: 'error' });
    expect(stopped?.left).toBeGreaterThan(0);
  }, 40_000);
});
