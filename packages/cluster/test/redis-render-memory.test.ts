import { adviseRender, DEFAULT_RENDER_POLICY, silentLogger } from '@greenfinger/core/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisRenderMemory } from '../src/budgets/redis-render-memory.js';
import { type TestCluster, testCluster } from './support/redis.js';

const log = silentLogger();
let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

const render = { needed: 'render', checked: true } as const;
const http = { needed: 'http', checked: true } as const;

describe('RedisRenderMemory (real Redis)', () => {
  it("one member's renders become every member's advice, and two members' counts add up", async () => {
    cluster = await testCluster();
    const a = new RedisRenderMemory(await cluster.connect(), cluster.keys, { log, flushMs: 60_000 });
    const b = new RedisRenderMemory(await cluster.connect(), cluster.keys, { log, flushMs: 60_000 });
    for (let i = 0; i < 2; i++) await a.record('spa.test', '/app/*', render);
    await b.record('spa.test', '/app/*', render);
    await b.record('spa.test', '/blog/*', http);
    await Promise.all([a.flush(), b.flush()]);

    const c = new RedisRenderMemory(await cluster.connect(), cluster.keys, { log });
    const app = await c.get('spa.test', '/app/*');
    expect(app).toMatchObject({ rendered: 3, streak: 3 });
    // Three renders in a row anywhere in the cluster: the next page goes straight to the browser.
    expect(adviseRender(app, DEFAULT_RENDER_POLICY)).toBe('render');
    expect(await c.get('spa.test', '/blog/*')).toMatchObject({ http: 1, streak: -1 });
    expect(await c.get('other.test', '/app/*')).toBeUndefined();
    // One hash per host, under the cluster's prefix, with an expiry.
    const key = `${cluster.keys.prefix}render:spa.test`;
    expect(await cluster.redis.ttl(key)).toBeGreaterThan(0);
    expect(await cluster.keysLeft()).toEqual([key]);
    await Promise.all([a.close(), b.close(), c.close()]);
  });

  it('a member sees what it counted before its flush, and a record that is not one is ignored', async () => {
    cluster = await testCluster();
    const a = new RedisRenderMemory(await cluster.connect(), cluster.keys, { log, flushMs: 60_000 });
    await a.record('x.test', '/p/*', render);
    expect(await a.get('x.test', '/p/*')).toMatchObject({ rendered: 1 });
    await cluster.redis.hset(`${cluster.keys.prefix}render:y.test`, '/q/*', '{"not":"a record"}');
    expect(await a.get('y.test', '/q/*')).toBeUndefined();
    await a.close();
    // After close nothing more is written.
    await a.record('x.test', '/p/*', render);
    const b = new RedisRenderMemory(await cluster.connect(), cluster.keys, { log });
    expect(await b.get('x.test', '/p/*')).toMatchObject({ rendered: 1 });
    await b.close();
  });
});
