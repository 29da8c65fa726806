import { afterEach, describe, expect, it } from 'vitest';
import { CrawlStreams } from '../src/run/crawl-stream.js';
import { type TestCluster, testCluster } from './support/redis.js';

let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

describe('CrawlStreams (real Redis)', () => {
  it('batched adds, group reads, ack+delete trims, a dead consumer’s pending entries are claimed', async () => {
    cluster = await testCluster();
    const streams = new CrawlStreams(cluster.redis);
    const key = cluster.keys.run('r1').stream('a');
    await streams.create(key);
    await streams.create(key); // idempotent
    const messages = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ u: `http://h/p${i}`, d: 1 }));
    const ids = await streams.add(key, messages);
    expect(ids).toHaveLength(1000);
    expect(await streams.length(key)).toBe(1000);

    const first = await streams.read(key, 'a', 100);
    expect(first.map((e) => e.message)).toEqual(messages.slice(0, 100));
    expect(await streams.pending(key)).toBe(100);
    expect(
      await streams.ack(
        key,
        first.map((e) => e.id),
      ),
    ).toBe(100);
    expect(await streams.length(key)).toBe(900);
    expect(await streams.pending(key)).toBe(0);

    // "a" takes 50 more and dies before acknowledging them; "b" claims exactly those, then reads the rest.
    const lost = await streams.read(key, 'a', 50);
    expect(await streams.pendingOf(key, 'a', 100)).toHaveLength(50);
    const claimed = await streams.claim(key, 'b', 1000);
    expect(claimed.map((e) => e.id)).toEqual(lost.map((e) => e.id));
    expect(await streams.pendingOf(key, 'a', 100)).toHaveLength(0);
    expect(await streams.pendingOf(key, 'b', 100)).toHaveLength(50);
    const rest = await streams.read(key, 'b', 10_000);
    expect(rest).toHaveLength(850);
    expect(
      await streams.ack(
        key,
        [...claimed, ...rest].map((e) => e.id),
      ),
    ).toBe(900);
    expect(await streams.length(key)).toBe(0);
    // Acknowledging again deletes nothing: a page committed twice is counted once.
    expect(await streams.ack(key, [claimed[0]?.id ?? ''])).toBe(0);
  });

  it('a blocking read waits for the next entry', async () => {
    cluster = await testCluster();
    const streams = new CrawlStreams(cluster.redis);
    const key = cluster.keys.run('r2').stream('a');
    await streams.create(key);
    const reader = await cluster.connect('reader');
    const started = Date.now();
    const waiting = streams.read(key, 'a', 10, 2000, reader);
    setTimeout(() => void streams.add(key, ['{"u":"http://h/x","d":0}']), 150);
    const got = await waiting;
    expect(got.map((e) => e.message)).toEqual(['{"u":"http://h/x","d":0}']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(await streams.read(key, 'a', 10, 0)).toEqual([]);
  });
});
