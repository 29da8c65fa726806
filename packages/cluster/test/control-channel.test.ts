import { silentLogger } from '@greenfinger/core';
import { afterEach, describe, expect, it } from 'vitest';
import { ControlChannel, type ControlMessage, decodeControl } from '../src/plumbing/control-channel.js';
import { type TestCluster, testCluster, until } from './support/redis.js';

const log = silentLogger();
let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

describe('ControlChannel (real Redis)', () => {
  it('every subscriber gets each message, the sender too; unknown fields kept, unknown types dropped', async () => {
    cluster = await testCluster();
    const { keys, redis } = cluster;
    const channel = new ControlChannel(redis, keys, log);
    const got: Record<string, ControlMessage[]> = { a: [], b: [] };
    await channel.subscribe(await cluster.connect('sub-a'), (m) => void got.a?.push(m));
    await channel.subscribe(await cluster.connect('sub-b'), (m) => void got.b?.push(m));

    await redis.publish(keys.control, JSON.stringify({ type: 'REBALANCE', runId: 'r', from: 'x' }));
    await redis.publish(keys.control, 'not json');
    expect(await channel.publish({ type: 'STARTED', runId: 'r', from: 'a', version: 2, addedLater: { x: 1 } })).toBe(2);
    expect(await channel.publish({ type: 'STOP', runId: 'r', from: 'b', reason: 'interrupted' })).toBe(2);
    await until('both got both', () => got.a?.length === 2 && got.b?.length === 2);
    expect(got.a?.map((m) => m.type)).toEqual(['STARTED', 'STOP']);
    expect(got.b?.[0]).toEqual({ type: 'STARTED', runId: 'r', from: 'a', version: 2, addedLater: { x: 1 } });
  });

  it('decodes only what it knows', () => {
    expect(decodeControl('{"type":"PAUSE","runId":"r","from":"n","extra":true}')).toMatchObject({ type: 'PAUSE' });
    expect(decodeControl('{"type":"PAUSE","from":"n"}')).toBeUndefined();
    expect(decodeControl('[1,2]')).toBeUndefined();
  });
});
