import { CrawlerError, silentLogger } from '@greenfinger/core';
import { afterEach, describe, expect, it } from 'vitest';
import { Membership, type MembershipChange } from '../src/membership/membership.js';
import { type TestCluster, testCluster, until } from './support/redis.js';

const log = silentLogger();
let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

describe('Membership (real Redis)', () => {
  it('lists live members, refuses a second member of the same name, and drops one that stops its heartbeat', async () => {
    cluster = await testCluster();
    const { keys } = cluster;
    const a = new Membership(await cluster.connect(), keys, { name: 'a', ttlMs: 600, log, info: { threads: 4 } });
    const b = new Membership(await cluster.connect(), keys, { name: 'b', ttlMs: 600, log });
    await a.join();
    const changes: MembershipChange[] = [];
    a.watch((c) => changes.push(c));
    await b.join();
    expect((await a.live()).map((m) => m.name)).toEqual(['a', 'b']);
    expect((await a.live())[0]?.threads).toBe(4);
    await until('a sees b join', () => changes.some((c) => c.joined.includes('b')));

    const again = new Membership(await cluster.connect(), keys, { name: 'b', ttlMs: 600, log });
    const refused = await again.join().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CrawlerError);
    expect((refused as CrawlerError).code).toBe('CONFLICT');
    expect((refused as CrawlerError).message).toMatch(/already in cluster/);

    // b freezes: no more heartbeats. It is off the live list within the expiry, and in dead() until forgotten.
    b.halt();
    // The deadline (3 s, five times the 600 ms expiry) is the bound; one measured duration would time the machine.
    await until('b drops out', async () => !(await a.live()).some((m) => m.name === 'b'), 3000);
    expect(await a.dead()).toEqual(['b']);
    await until('a is told b left', () => changes.some((c) => c.left.includes('b')));
    expect(await a.forget('b')).toBe(true);
    expect(await a.dead()).toEqual([]);

    await a.leave();
    expect(await a.live()).toEqual([]);
    expect(await cluster.keysLeft()).toEqual([]);
  });

  it('a live member is not forgotten', async () => {
    cluster = await testCluster();
    const a = new Membership(await cluster.connect(), cluster.keys, { name: 'a', ttlMs: 1000, log });
    await a.join();
    expect(await a.forget('a')).toBe(false);
    expect((await a.live()).map((m) => m.name)).toEqual(['a']);
    await a.leave();
  });
});
