import { CrawlerError, silentLogger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureFacts } from '../../../core/test/support/fixture-facts.js';
import { type FixtureSite, startFixtureSite } from '../../../core/test/support/fixture-site.js';
import { createTempDir, type TempDir } from '../../../core/test/support/tmp.js';
import { ClusterClient } from '../../src/cluster-client.js';
import type { ClusterNode } from '../../src/cluster-node.js';
import { ControlChannel, type ControlMessage } from '../../src/plumbing/control-channel.js';
import type { ClusterRunReport } from '../../src/run/cluster-report.js';
import { resumableRun } from '../../src/run/run-resume.js';
import { startMembers } from '../support/members.js';
import { type TestCluster, testCluster, testRedisUrl, until } from '../support/redis.js';

const log = silentLogger();
/** Paths the fixture answers more than once on purpose (a retried 5xx), and files read by every member. */
const EXCEPT = [...fixtureFacts.retriedPaths, '/robots.txt', '/llms.txt', '/sitemap.xml'];

/**
 * `resume --cluster`: three ClusterNodes in one process (per-node SQLite), the fixture site answering slowly so a
 * pause lands part way; the stopped run's queue (its members' streams, seen set, page budget) is taken over by the
 * resumed run, so every page is fetched once over both runs.
 */
describe('resume --cluster: a stopped run continued', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let cluster: TestCluster;
  let client: ClusterClient;
  const nodes: ClusterNode[] = [];
  const heard: ControlMessage[] = [];

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    tmp = createTempDir('gf-cluster-resume-');
    cluster = await testCluster();
    nodes.push(...(await startMembers(cluster, tmp.path, ['a', 'b', 'c'])));
    client = await ClusterClient.open({ cluster: cluster.name, redisUrl: testRedisUrl, log });
    await new ControlChannel(cluster.redis, cluster.keys, log).subscribe(await cluster.connect('listener'), (m) => {
      heard.push(m);
    });
  });
  afterAll(async () => {
    await client?.close();
    for (const n of nodes) await n.close().catch(() => undefined);
    await cluster?.close();
    await site?.close();
    tmp?.remove();
  });

  /**
   * A crawl verb through the leader, stopped once `stopAt` pages are saved over the cluster and `ready` (checked
   * every 20 ms from the run's start) has answered true once.
   */
  async function runUntil(
    req: Parameters<ClusterClient['crawl']>[0],
    stopAt: number,
    ready?: (runId: string) => Promise<boolean>,
  ): Promise<ClusterRunReport> {
    const controller = new AbortController();
    let isReady = ready === undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await client.crawl(req, {
        signal: controller.signal,
        intervalMs: 50,
        onStarted: ({ runId }) => {
          if (!ready) return;
          const check = async () => {
            isReady = await ready(runId).catch(() => false);
            if (!isReady) timer = setTimeout(check, 20);
          };
          void check();
        },
        onProgress: (p) => {
          if (isReady && p.counters.saved >= stopAt) controller.abort();
        },
      });
    } finally {
      clearTimeout(timer);
    }
  }

  it('a paused crawl resumed by the three members: every page fetched once over both runs, the report continues', async () => {
    // 300 ms between two requests of a member to the host: about 10 pages a second over the three, so the stop (the
    // members' progress is flushed every 500 ms) lands while most of the site is still queued.
    const settings = {
      intervalMs: 300,
      outputs: ['file', 'index'] as Array<'file' | 'index'>,
      threads: 2,
      hostConcurrency: 1,
    };
    const first = await runUntil({ url: site.origin, settings }, 3);
    expect(first.ending).toMatchObject({ reason: 'interrupted', published: false });
    expect(first.produced.saved).toBeLessThan(fixtureFacts.savedCount);
    const stopped = await resumableRun(cluster.redis, cluster.keys, first.catalogId);
    expect(stopped).toMatchObject({ runId: first.runId, action: 'crawl', version: 0, reason: 'interrupted' });
    expect(stopped?.left).toBeGreaterThan(0);
    // status --cluster --json lists it, with what a resume would continue.
    expect((await client.status()).stopped).toEqual([
      expect.objectContaining({ runId: first.runId, catalogId: first.catalogId, version: 0, reason: 'interrupted' }),
    ]);

    await until('the stopped run COMPLETED', () => heard.some((m) => m.type === 'COMPLETED'));
    expect(heard.map((m) => m.type)).toEqual(['STARTED', 'STOP', 'COMPLETED']);
    const resumed = await client.crawl({ id: first.catalogId, action: 'resume' });
    await until('the resumed run COMPLETED', () => heard.filter((m) => m.type === 'COMPLETED').length === 2);
    // Published once, by the resumed run.
    expect(heard.map((m) => m.type)).toEqual(['STARTED', 'STOP', 'COMPLETED', 'STARTED', 'PUBLISHED', 'COMPLETED']);
    expect(resumed.action).toBe('resume');
    expect(resumed.version).toBe(0);
    expect(resumed.resumed).toMatchObject({ runId: first.runId, reason: 'interrupted', saved: first.produced.saved });
    expect(resumed.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    // The counters continue: both runs' pages, as one process's resume reports them.
    expect(resumed.produced.saved).toBe(fixtureFacts.savedCount);
    expect(resumed.startedAt).toBe(first.startedAt);
    expect(site.repeated(EXCEPT)).toEqual([]);
    expect(resumed.routing).toMatchObject({ streamed: 0 });
    expect(resumed.routing?.dispatched).toBe(resumed.routing?.handled);
    // Resumed once: the stopped run's record is gone.
    expect(await resumableRun(cluster.redis, cluster.keys, first.catalogId)).toBeUndefined();
    for (const n of nodes) {
      expect((await n.gf.published.list()).find((c) => c.catalogId === first.catalogId)?.searchVersion).toBe(0);
    }
  });

  it('nothing to resume is one line with the fix', async () => {
    const catalogId = (await (await nodes[0]!.gf.catalogs()).get({ url: site.origin })).id;
    const err = await client.crawl({ id: catalogId, action: 'resume' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CrawlerError);
    expect((err as CrawlerError).code).toBe('NOT_FOUND');
    expect((err as CrawlerError).message).toMatch(/^nothing to resume: cluster "t[0-9a-f]+" holds no stopped run of/);
    expect((err as CrawlerError).message).not.toContain('\n');
    expect((err as CrawlerError).fix).toMatch(/crawl or update it instead/);
  });

  it('a stopped rebuild resumed after a follower left: its stream goes to the two left, nothing fetched twice', async () => {
    const catalogId = (await (await nodes[0]!.gf.catalogs()).get({ url: site.origin })).id;
    site.clear();
    // Paced (one request at a time per member, 300 ms apart) and stopped while a follower's stream holds more
    // entries than it can be fetching, so some of its queue is still in Redis when it leaves (the read-ahead is
    // bounded: at a bare page count a member may hold none yet). The follower holding the most entries leaves.
    const settings = { minPublishRatio: 0, intervalMs: 300, threads: 2, hostConcurrency: 1 };
    const held = async (runId: string, member: string) => cluster.redis.xlen(cluster.keys.run(runId).stream(member));
    const first = await runUntil(
      { id: catalogId, action: 'rebuild', settings },
      3,
      async (runId) => Math.max(await held(runId, 'b'), await held(runId, 'c')) >= 3,
    );
    expect(first).toMatchObject({ version: 1, action: 'rebuild' });
    expect(first.ending.reason).toBe('interrupted');
    const stopped = await resumableRun(cluster.redis, cluster.keys, catalogId);
    expect(stopped?.members).toEqual(['a', 'b', 'c']);

    const [heldB, heldC] = [await held(first.runId, 'b'), await held(first.runId, 'c')];
    const leaving = heldB > heldC ? 'b' : 'c';
    expect(Math.max(heldB, heldC)).toBeGreaterThan(0);
    const gone = nodes.splice(
      nodes.findIndex((n) => n.name === leaving),
      1,
    )[0] as ClusterNode;
    await gone.leave();
    await until('two members listed', async () => (await client.status()).members.length === 2);
    const resumed = await client.crawl({ id: catalogId, action: 'resume' });
    expect(resumed).toMatchObject({ version: 1, action: 'resume' });
    expect(Object.keys(resumed.byNode)).toEqual(['a', 'b', 'c'].filter((m) => m !== leaving));
    expect(resumed.missing?.[leaving]).toMatch(/^took no part: its queue from the stopped run .* went to the others$/);
    expect(resumed.resumed).toMatchObject({ runId: first.runId, action: 'rebuild' });
    expect(resumed.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    expect(resumed.produced.saved).toBe(fixtureFacts.savedCount);
    expect(site.repeated(EXCEPT)).toEqual([]);
    expect(resumed.rehomed?.[leaving]?.moved).toBe(Math.max(heldB, heldC));
    for (const n of nodes) {
      expect((await n.gf.published.list()).find((c) => c.catalogId === catalogId)?.searchVersion).toBe(1);
    }
  });

  it('a run that starts afresh supersedes a stopped one: its queue leaves Redis', async () => {
    const catalogId = (await (await nodes[0]!.gf.catalogs()).get({ url: site.origin })).id;
    const first = await runUntil({ id: catalogId, action: 'rebuild', settings: { minPublishRatio: 0 } }, 3);
    expect(first.ending.reason).toBe('interrupted');
    const stopped = await resumableRun(cluster.redis, cluster.keys, catalogId);
    expect(stopped).toBeDefined();
    const streams = (stopped?.members ?? []).map((m) => cluster.keys.run(first.runId).stream(m));
    expect(await cluster.redis.exists(...streams)).toBeGreaterThan(0);
    await client.crawl({ id: catalogId, action: 'update' });
    expect(await resumableRun(cluster.redis, cluster.keys, catalogId)).toBeUndefined();
    expect(await cluster.redis.exists(...streams)).toBe(0);
  });

  it('a stopped run whose queue is gone from Redis is not resumed: one line, nothing started, nothing published', async () => {
    const catalogId = (await (await nodes[0]!.gf.catalogs()).get({ url: site.origin })).id;
    const first = await runUntil({ id: catalogId, action: 'rebuild', settings: { minPublishRatio: 0 } }, 3);
    expect(first.ending.reason).toBe('interrupted');
    const stopped = await resumableRun(cluster.redis, cluster.keys, catalogId);
    const streams = (stopped?.members ?? []).map((m) => cluster.keys.run(first.runId).stream(m));
    expect(await cluster.redis.del(...streams)).toBeGreaterThan(0);
    const before = heard.length;
    const err = await client.crawl({ id: catalogId, action: 'resume' }).catch((e: unknown) => e);
    expect((err as CrawlerError).code).toBe('NOT_FOUND');
    expect((err as CrawlerError).message).toMatch(
      /^nothing to resume: the queue of stopped run .* is no longer in Redis$/,
    );
    expect((await client.status()).run).toBeNull();
    expect(heard.slice(before).map((m) => m.type)).toEqual([]);
    const row = await (await nodes[0]!.gf.database()).catalogs.get(catalogId);
    expect(row?.runningState).toBe('none');
  });
});
