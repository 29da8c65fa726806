import { type LeasedEntry, MemoryFrontier, silentLogger } from '@greenfinger/core';
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterCrawlCoordinator } from '../src/run/cluster-crawl-coordinator.js';
import { CrawlStreams } from '../src/run/crawl-stream.js';
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
 * Issue 30, item 4: a member killed mid-crawl refetched up to its whole read-ahead (63 pages with a window of 64).
 * What a dead member leaves fetched and not recorded is what it had handed out and not acknowledged: at most its
 * threads. Its read-ahead is twice its threads, and a place in it is freed by the commit that acknowledges a page.
 */
describe('a member killed mid-crawl refetches at most its threads (real Redis)', () => {
  it('hands out at most `threads` urls unacknowledged, reads ahead at most twice that, reads on once a commit acknowledges', async () => {
    cluster = await testCluster();
    const { redis } = cluster;
    const run = cluster.keys.run('r');
    await JOIN.run(redis, [run.members, run.counters, run.ending, run.stream('b')], ['b']);
    const threads = 4;
    const frontier = new RevocableFrontier(new MemoryFrontier(), { leases: threads });
    coordinator = new ClusterCrawlCoordinator(frontier, {
      redis,
      reader: await cluster.connect('reader'),
      run,
      node: 'b',
      ring: { owner: () => 'b' } as unknown as RunRing,
      catalogId: 'cat',
      version: 0,
      buckets: 16,
      threads,
      log,
    });
    const streams = new CrawlStreams(redis);
    const urls = Array.from({ length: 40 }, (_, i) => `http://h/p${i}`);
    await coordinator.dispatch(urls.map((url) => ({ url, depth: 1 })));
    await until('b read its window', () => coordinator?.held === 2 * threads);
    expect(await streams.pending(run.stream('b'))).toBe(2 * threads);

    // Every worker polls at once: `threads` leases, the others nothing, though urls are queued.
    const polled = await Promise.all(Array.from({ length: 3 * threads }, () => frontier.poll()));
    const leases = polled.filter((e): e is LeasedEntry => e !== undefined);
    expect(leases).toHaveLength(threads);
    expect(await frontier.size()).toBe(threads);
    expect(await frontier.poll()).toBeUndefined();

    // Two pages recorded: acknowledged in the commit, so two more can be handed out and two more read.
    await coordinator.dispatch([], { acks: leases.slice(0, 2) });
    expect(frontier.inFlight()).toBe(threads - 2);
    await until('b read two more', async () => (await frontier.size()) === threads + 2);
    expect(coordinator.held).toBe(2 * threads);
    expect(await streams.pending(run.stream('b'))).toBe(2 * threads);
    const next = [await frontier.poll(), await frontier.poll()];
    expect(next.every((e) => e !== undefined)).toBe(true);
    expect(await frontier.poll()).toBeUndefined();
    // Were b killed now: of its 8 pending entries, the 4 leased may have been fetched; the 4 queued never were.
    expect(frontier.inFlight()).toBe(threads);
  });
});
