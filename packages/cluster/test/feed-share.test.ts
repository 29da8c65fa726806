import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisFeedShare } from '../src/run/feed-share.js';
import { type TestCluster, testCluster } from './support/redis.js';

/** The change feeds of a cluster run read once (run/feed-share.ts), against real Redis under a prefix of its own. */
describe('redisFeedShare', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await testCluster();
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it('the reader shares its set; another member takes it, waiting for it', async () => {
    const run = cluster.keys.run('r1');
    const reader = redisFeedShare(cluster.redis, run, { me: 'n1', reader: 'n1' }, 5000);
    const taker = redisFeedShare(cluster.redis, run, { me: 'n2', reader: 'n1' }, 5000);
    expect([reader.reads, taker.reads]).toEqual([true, false]);
    const taken = taker.take();
    const feeds = { set: { changed: ['https://w/a'], deleted: ['https://w/b'] }, summary: 'change feeds: 1 changed' };
    await reader.share(feeds);
    expect(await taken).toEqual(feeds);
  });

  it('a reader whose part ended without sharing ends the wait at once; none within the bound is undefined', async () => {
    const run = cluster.keys.run('r2');
    const taker = redisFeedShare(cluster.redis, run, { me: 'n2', reader: 'n1' }, 30_000);
    await cluster.redis.hset(run.reports, 'n1', JSON.stringify({ error: 'failed' }));
    const t0 = Date.now();
    expect(await taker.take()).toBeUndefined();
    expect(Date.now() - t0).toBeLessThan(10_000);
    const bounded = redisFeedShare(cluster.redis, cluster.keys.run('r3'), { me: 'n2', reader: 'n1' }, 300);
    expect(await bounded.take()).toBeUndefined();
  });
});
