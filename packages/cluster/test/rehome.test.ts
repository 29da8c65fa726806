import { silentLogger } from '@greenfinger/core';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeTask, encodeTask } from '../src/plumbing/wire.js';
import { CrawlStreams } from '../src/run/crawl-stream.js';
import { HashRing } from '../src/run/hash-ring.js';
import { rehome } from '../src/run/rehome.js';
import { CHECK, DISPATCH, JOIN, runState } from '../src/run/routing-scripts.js';
import { RING_POINTS } from '../src/run/run-ring.js';
import { seenMember } from '../src/run/url-seen.js';
import { type TestCluster, testCluster } from './support/redis.js';

const log = silentLogger();
let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

describe('rehome (real Redis)', () => {
  it('moves every entry of a dead member’s stream to its new owner once, counters unchanged', async () => {
    cluster = await testCluster();
    const { redis } = cluster;
    const run = cluster.keys.run('r');
    const names = ['a', 'b', 'c'];
    for (const n of names) await JOIN.run(redis, [run.members, run.counters, run.ending, run.stream(n)], [n]);
    // "a" dispatches 60 urls to their owners over a, b and c, and settles its start token.
    const ring = new HashRing(names, RING_POINTS);
    const urls = Array.from({ length: 60 }, (_, i) => `http://h/p${i}`);
    const keys = [run.counters];
    const args: Array<string | number> = ['a', urls.length, 0, 1];
    const seen: string[] = [];
    const streams: string[] = [];
    for (const url of urls) {
      const key = HashRing.crawlKey('cat', 0, url);
      const { bucket, member } = seenMember(key, 16);
      seen.push(run.seen(bucket));
      streams.push(run.stream(ring.owner(key)));
      args.push(member, encodeTask({ url, depth: 1 }));
    }
    const added = (await DISPATCH.run(redis, [...keys, ...seen, ...streams, run.stream('a')], args)) as number[];
    expect(added.every((x) => x === 1)).toBe(true);
    // The same urls again: all in the seen set, nothing streamed.
    const again = (await DISPATCH.run(redis, [...keys, ...seen, ...streams, run.stream('a')], args)) as number[];
    expect(again.every((x) => x === 0)).toBe(true);

    const s = new CrawlStreams(redis);
    const ofC = await s.length(run.stream('c'));
    expect(ofC).toBeGreaterThan(5);
    const taken = await s.read(run.stream('c'), 'c', 5); // c took 5, then died
    const before = runState(await CHECK.run(redis, [run.counters, run.members, run.ending], [run.stream('')]));
    expect(before).toMatchObject({ dispatched: 63, handled: 1, streamed: 60, members: 3 });

    const opts = { redis, run, dead: 'c', live: ['a', 'b'], catalogId: 'cat', version: 0, log };
    const [one, two] = await Promise.all([rehome({ ...opts, claimant: 'a' }), rehome({ ...opts, claimant: 'b' })]);
    expect((one?.moved ?? 0) + (two?.moved ?? 0)).toBe(ofC);
    expect((one?.claimed ?? 0) + (two?.claimed ?? 0)).toBe(taken.length);
    expect(await s.length(run.stream('c'))).toBe(0);
    expect(await s.pending(run.stream('c'))).toBe(0);

    // Each moved url now sits with the owner the ring of a and b gives it.
    const after = new HashRing(['a', 'b'], RING_POINTS);
    for (const n of ['a', 'b']) {
      for (const e of await s.read(run.stream(n), n, 1000)) {
        const url = decodeTask(e.message)?.url ?? '';
        expect(after.owner(HashRing.crawlKey('cat', 0, url))).toBe(n);
      }
    }
    // Nothing counted twice: 60 urls dispatched, c's unsettled start token settled.
    const state = runState(await CHECK.run(redis, [run.counters, run.members, run.ending], [run.stream('')]));
    expect(state).toMatchObject({ dispatched: 63, handled: 2, streamed: 60 });
    expect(one?.tokenSettled !== two?.tokenSettled).toBe(true);
  });
});
