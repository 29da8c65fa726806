import { afterEach, describe, expect, it } from 'vitest';
import { encodeTask } from '../src/plumbing/wire.js';
import { CrawlStreams } from '../src/run/crawl-stream.js';
import { HashRing } from '../src/run/hash-ring.js';
import { seenMember } from '../src/run/url-seen.js';
import { type TestCluster, testCluster } from './support/redis.js';

let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

/** Redis memory per url in flight (docs/cluster.md, "Cost"), measured with MEMORY USAGE on real keys. */
describe('Redis memory per url in flight (real Redis)', () => {
  it('a queued url costs under 200 bytes of stream and under 16 bytes of seen set', async () => {
    cluster = await testCluster();
    const { redis } = cluster;
    const run = cluster.keys.run('mem');
    const streams = new CrawlStreams(redis);
    const key = run.stream('n1');
    await streams.create(key);
    const N = 10_000;
    // Handbook-shaped urls: 60-70 characters, a referrer of the same site, depth and priority.
    const base = 'http://127.0.0.1:8083/en-US/stable/';
    const tasks = Array.from({ length: N }, (_, i) =>
      encodeTask({
        url: `${base}sect.network-config-${i}.html`,
        depth: 3,
        referrer: `${base}network-config.html`,
        priority: 3,
      }),
    );
    for (let i = 0; i < N; i += 1000) await streams.add(key, tasks.slice(i, i + 1000));
    const queued = Number(await redis.memory('USAGE', key, 'SAMPLES', 0)) / N;

    const buckets = 64;
    const p = redis.pipeline();
    for (let i = 0; i < N; i++) {
      const { bucket, member } = seenMember(HashRing.crawlKey('c', 0, `${base}sect.network-config-${i}.html`), buckets);
      p.sadd(run.seen(bucket), member);
    }
    await p.exec();
    let seen = 0;
    for (let b = 0; b < buckets; b++) seen += Number(await redis.memory('USAGE', run.seen(b), 'SAMPLES', 0));
    const perUrl = seen / N;
    expect(await redis.object('ENCODING', run.seen(0))).toBe('intset');

    console.log(
      `${N} queued urls: ${queued.toFixed(1)} bytes each in the stream (a ${tasks[0]?.length}-byte message), ` +
        `${perUrl.toFixed(1)} bytes each in the seen set`,
    );
    expect(queued).toBeLessThan(200);
    expect(perUrl).toBeLessThan(16);
    // Acknowledged entries leave nothing: the stream is trimmed as pages are committed.
    const read = await streams.read(key, 'n1', N);
    await streams.ack(
      key,
      read.map((e) => e.id),
    );
    expect(await streams.length(key)).toBe(0);
  });
});
