import { silentLogger } from '@greenfinger/core';
import { afterEach, describe, expect, it } from 'vitest';
import { LeaderLease } from '../src/membership/leader-lease.js';
import { Membership } from '../src/membership/membership.js';
import { type TestCluster, testCluster, until } from './support/redis.js';

const log = silentLogger();
let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

describe('LeaderLease (real Redis)', () => {
  it('one holder at a time; a new holder gets a larger token; a stale holder is refused', async () => {
    cluster = await testCluster();
    const { keys, redis } = cluster;
    // Leases alone here (no heartbeats): only expiry hands one over.
    const a = new LeaderLease(redis, keys, { name: 'a', instance: 'ia', ttlMs: 300, takeOverDead: false, log });
    const b = new LeaderLease(redis, keys, { name: 'b', instance: 'ib', ttlMs: 300, takeOverDead: false, log });
    const t1 = await a.tryAcquire();
    expect(t1).toBeGreaterThan(0);
    expect(await b.tryAcquire()).toBe(0);
    expect(await a.tryAcquire()).toBe(t1); // taking it again renews
    expect(await a.renew()).toBe(true);
    expect(await a.holder()).toMatchObject({ name: 'a', instance: 'ia', token: t1 });

    // a stops renewing (paused); after the expiry b takes it with a larger token.
    let t2 = 0;
    await until(
      'the lease expires and b takes it',
      async () => {
        t2 = await b.tryAcquire();
        return t2 > 0;
      },
      5000,
    );
    expect(t2).toBeGreaterThan(t1);
    expect(await a.renew()).toBe(false);
    expect(a.token).toBe(0);

    // Fenced writes: the stale token is refused, the current one written.
    const key = `${keys.prefix}fenced-test`;
    expect(await a.fencedSet(t1, key, 'from a')).toBe(false);
    expect(await redis.get(key)).toBeNull();
    expect(await b.fencedSet(t2, key, 'from b')).toBe(true);
    expect(await redis.get(key)).toBe('from b');

    // The published register only moves forward, and only under the current token.
    expect(await b.fencedPublish(t2, 'cat', 3)).toBe('ok');
    expect(await b.fencedPublish(t2, 'cat', 3)).toBe('ok');
    expect(await b.fencedPublish(t2, 'cat', 2)).toBe('backwards');
    expect(await a.fencedPublish(t1, 'cat', 4)).toBe('stale');
    expect(await redis.hget(keys.published('cat'), 'version')).toBe('3');
    // Once per run: a second publish of the same run is 'done', whoever asks.
    const once = `${keys.prefix}run:r:published`;
    expect(await b.fencedPublish(t2, 'cat', 4, once)).toBe('ok');
    expect(await b.fencedPublish(t2, 'cat', 4, once)).toBe('done');
    expect(await redis.hget(keys.published('cat'), 'version')).toBe('4');

    await b.release();
    expect(await b.holder()).toBeUndefined();
    const t3 = await a.tryAcquire();
    expect(t3).toBeGreaterThan(t2);
  });

  it('a holder whose heartbeat is gone loses the lease at once, long before it expires', async () => {
    cluster = await testCluster();
    const { keys, redis } = cluster;
    const ma = new Membership(await cluster.connect(), keys, { name: 'a', ttlMs: 300, log });
    const mb = new Membership(await cluster.connect(), keys, { name: 'b', ttlMs: 300, log });
    await ma.join();
    await mb.join();
    const a = new LeaderLease(redis, keys, { name: 'a', instance: ma.info.instance, ttlMs: 60_000, log });
    const b = new LeaderLease(redis, keys, { name: 'b', instance: mb.info.instance, ttlMs: 60_000, log });
    const t1 = await a.tryAcquire();
    expect(t1).toBeGreaterThan(0);
    expect(await b.tryAcquire()).toBe(0); // a is alive: its lease holds
    ma.halt(); // a freezes: its heartbeat expires in 300 ms, its lease would last a minute
    await until('a’s heartbeat expired', async () => (await redis.exists(keys.member('a'))) === 0, 3000);
    const t2 = await b.tryAcquire();
    expect(t2).toBeGreaterThan(t1);
    expect(await a.renew()).toBe(false);
    expect(await a.fencedSet(t1, `${keys.prefix}x`, 'stale')).toBe(false);
    await mb.leave();
  });
});
