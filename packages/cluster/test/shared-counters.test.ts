import { silentLogger } from '@greenfinger/core';
import { afterEach, describe, expect, it } from 'vitest';
import { SharedCounters } from '../src/budgets/shared-counters.js';
import { type TestCluster, testCluster, until } from './support/redis.js';

const log = silentLogger();
let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

describe('SharedCounters (real Redis)', () => {
  it('increments of two members reach every reader within 500 ms, in one hash', async () => {
    cluster = await testCluster();
    const key = cluster.keys.run('r').progress;
    const a = new SharedCounters(await cluster.connect(), key, 'a', { log });
    const b = new SharedCounters(await cluster.connect(), key, 'b', { log });
    const reader = new SharedCounters(cluster.redis, key, 'reader', { log });
    a.start();
    b.start();
    for (let i = 0; i < 1000; i++) a.add('saved');
    b.add('saved', 7);
    b.set('progress', JSON.stringify({ queued: 3 }));
    // Flushed by the members' own timers, before stop(): the deadline bounds it, not one measured duration.
    await until(
      'both flushed',
      async () => {
        const r = await reader.read();
        return r.get('a')?.saved === '1000' && r.get('b')?.saved === '7';
      },
      5000,
    );
    expect(JSON.parse((await reader.read()).get('b')?.progress ?? '{}')).toEqual({ queued: 3 });
    a.add('saved', 5);
    await a.stop();
    await b.stop();
    expect((await reader.read()).get('a')?.saved).toBe('1005');
  });
});
