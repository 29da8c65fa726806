import { type LeasedEntry, MemoryFrontier, silentLogger } from '@greenfinger/core';
import { afterEach, describe, expect, it } from 'vitest';
import { Membership } from '../src/membership/membership.js';
import { ClusterCrawlCoordinator } from '../src/run/cluster-crawl-coordinator.js';
import { CrawlStreams } from '../src/run/crawl-stream.js';
import { rehome } from '../src/run/rehome.js';
import { RevocableFrontier } from '../src/run/revocable-frontier.js';
import { JOIN } from '../src/run/routing-scripts.js';
import type { RunRing } from '../src/run/run-ring.js';
import { type TestCluster, testCluster, until } from './support/redis.js';

const log = silentLogger();
let cluster: TestCluster | undefined;
let coordinator: ClusterCrawlCoordinator | undefined;
afterEach(async () => {
  await coordinator?.close();
  coordinator = undefined;
  await cluster?.close();
  cluster = undefined;
});

/**
 * A member taken for dead while it was only stalled: the leader re-homed its stream, whose entries it had read ahead
 * into its frontier. On waking (its heartbeat found expired), it takes them out, so they are fetched once, by their
 * new owner — the pages it was already fetching aside.
 */
describe('a member whose heartbeat lapsed (real Redis)', () => {
  it('takes the urls re-homed meanwhile out of its frontier; only those in flight stay', async () => {
    cluster = await testCluster();
    const { redis } = cluster;
    const run = cluster.keys.run('r');
    for (const n of ['a', 'b']) await JOIN.run(redis, [run.members, run.counters, run.ending, run.stream(n)], [n]);
    const frontier = new RevocableFrontier(new MemoryFrontier());
    const ownerB = { owner: () => 'b' } as unknown as RunRing;
    coordinator = new ClusterCrawlCoordinator(frontier, {
      redis,
      reader: await cluster.connect('reader'),
      run,
      node: 'b',
      ring: ownerB,
      catalogId: 'cat',
      version: 0,
      buckets: 16,
      log,
    });
    const urls = Array.from({ length: 20 }, (_, i) => `http://h/p${i}`);
    await coordinator.dispatch(urls.map((url) => ({ url, depth: 1 })));
    await until('b read its stream ahead', async () => (await frontier.size()) === 20);
    const inFlight = [(await frontier.poll()) as LeasedEntry, (await frontier.poll()) as LeasedEntry];

    // The leader, b's heartbeat gone, moves b's stream to a: the 20 entries, 20 of them delivered to b.
    const moved = await rehome({
      redis,
      run,
      dead: 'b',
      live: ['a'],
      catalogId: 'cat',
      version: 0,
      claimant: 'a',
      log,
    });
    expect(moved).toMatchObject({ moved: 20, claimed: 20 });

    // b wakes: everything it held was moved; the 18 still queued never reach a worker.
    expect(await coordinator.revalidate()).toBe(20);
    expect(coordinator.revoked).toBe(20);
    expect(await frontier.poll()).toBeUndefined();
    expect(frontier.skipped).toBe(18);
    expect(frontier.inFlight()).toBe(2);
    for (const e of inFlight) await frontier.ack(e);
    expect(await new CrawlStreams(redis).length(run.stream('a'))).toBe(20);
    // An entry coming back to b later (forwarded by a ring that moved again) is queued and fetched there after all.
    const back = inFlight[0]?.url === 'http://h/p5' ? 'http://h/p6' : 'http://h/p5';
    expect(await frontier.put({ url: back, depth: 1 })).toBe(true);
    expect((await frontier.poll())?.url).toBe(back);
  });

  it('a worker polling on waking, before the heartbeat tick finds the lapse, takes nothing that was re-homed', async () => {
    // On SIGCONT the fetches that were in flight answer first and their workers poll again, before the heartbeat's
    // timer runs: the poll itself finds the lapse (Membership.checkLapse) and waits for the revalidation.
    cluster = await testCluster();
    const { redis } = cluster;
    const run = cluster.keys.run('r');
    for (const n of ['a', 'b']) await JOIN.run(redis, [run.members, run.counters, run.ending, run.stream(n)], [n]);
    const m = new Membership(redis, cluster.keys, { name: 'b', ttlMs: 300, log });
    await m.join();
    const frontier = new RevocableFrontier(new MemoryFrontier(), { leases: 16, checkLapse: () => m.checkLapse() });
    coordinator = new ClusterCrawlCoordinator(frontier, {
      redis,
      reader: await cluster.connect('reader'),
      run,
      node: 'b',
      ring: { owner: () => 'b' } as unknown as RunRing,
      catalogId: 'cat',
      version: 0,
      buckets: 16,
      log,
    });
    const c = coordinator;
    let lapses = 0;
    m.onLapse(() => {
      lapses++;
      void c.revalidate();
    });
    await c.dispatch(Array.from({ length: 10 }, (_, i) => ({ url: `http://h/q${i}`, depth: 1 })));
    await until('b read its stream ahead', async () => (await frontier.size()) === 10);
    m.halt();
    await until('the heartbeat expired', async () => (await m.live()).length === 0, 5_000);
    expect(
      await rehome({ redis, run, dead: 'b', live: ['a'], catalogId: 'cat', version: 0, claimant: 'a', log }),
    ).toMatchObject({ moved: 10 });
    // No tick has run since the freeze (halted): the poll is the first to look.
    expect(await frontier.poll()).toBeUndefined();
    expect(lapses).toBe(1);
    expect(frontier.skipped).toBe(10);
    expect(frontier.inFlight()).toBe(0);
    // Told once per lapse: another poll does not tell the watchers again.
    expect(await frontier.poll()).toBeUndefined();
    expect(lapses).toBe(1);
    await m.leave();
  });

  it('a member learns its heartbeat lapsed when it renews it again', async () => {
    cluster = await testCluster();
    const m = new Membership(cluster.redis, cluster.keys, { name: 'b', ttlMs: 300, log });
    await m.join();
    let lapses = 0;
    m.onLapse(() => lapses++);
    m.halt();
    await until('the heartbeat expired', async () => (await m.live()).length === 0, 5_000);
    m.thaw();
    await until('the lapse was noticed', () => lapses === 1, 5_000);
    expect((await m.live()).map((x) => x.name)).toEqual(['b']);
    await m.leave();
  });
});
