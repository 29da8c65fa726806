import { type ImageRow, silentLogger } from '@greenfinger/core';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisPictureRegistry } from '../src/budgets/redis-picture-registry.js';
import { type TestCluster, testCluster } from './support/redis.js';

const log = silentLogger();
let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

const URL_A = 'http://127.0.0.1:1/_images/a.png';
const row = (url: string): ImageRow => ({
  id: 'img-1',
  catalogId: 'c',
  version: 0,
  url,
  contentHash: 'h',
  contentType: 'image/png',
  path: 'pages/c/v0/images/img-1.png',
  bytes: 1234,
  width: 200,
  height: 100,
  createdAt: new Date(0).toISOString(),
});

async function members(staleMs?: number) {
  cluster = await testCluster();
  const key = cluster.keys.run('r').pictures;
  const a = new RedisPictureRegistry(await cluster.connect(), key, 'a', log, staleMs);
  const b = new RedisPictureRegistry(await cluster.connect(), key, 'b', log, staleMs);
  return { a, b };
}

describe('RedisPictureRegistry (real Redis)', () => {
  it('lets one member of many fetch a picture; the others wait and link the row it became', async () => {
    const { a, b } = await members();
    expect(await a.claim(URL_A)).toEqual({ fetch: true });
    const waiting = Promise.all([b.claim(URL_A), b.claim(URL_A), a.claim(URL_A)]);
    await new Promise((r) => setTimeout(r, 120));
    await a.settle(URL_A, row(URL_A));
    for (const claim of await waiting) expect(claim).toEqual({ fetch: false, row: row(URL_A) });
    expect(b.linked).toBe(2);
    // Settled: answered at once, no fetch.
    expect(await b.claim(URL_A)).toEqual({ fetch: false, row: row(URL_A) });
  });

  it('answers "not kept" to the others when the fetching member refused the picture', async () => {
    const { a, b } = await members();
    expect((await a.claim(URL_A)).fetch).toBe(true);
    await a.settle(URL_A, undefined);
    expect(await b.claim(URL_A)).toEqual({ fetch: false, row: undefined });
  });

  it('hands a claim left by a member that went away to the next member that asks, once it is stale', async () => {
    const { a, b } = await members(150);
    expect((await a.claim(URL_A)).fetch).toBe(true);
    const started = Date.now();
    // a never settles (killed): b waits out the claim, then fetches itself.
    expect(await b.claim(URL_A)).toEqual({ fetch: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    await b.settle(URL_A, row(URL_A));
    expect(await a.claim(URL_A)).toEqual({ fetch: false, row: row(URL_A) });
  });

  it('keeps one field per picture url under the run prefix', async () => {
    const { a } = await members();
    for (let i = 0; i < 10; i++) {
      const url = `${URL_A}?${i}`;
      await a.claim(url);
      await a.settle(url, row(url));
    }
    const c = cluster as TestCluster;
    expect(await c.redis.hlen(c.keys.run('r').pictures)).toBe(10);
    expect(await c.keysLeft()).toEqual([c.keys.run('r').pictures]);
  });
});
