import { HostPoliteness, silentLogger } from '@greenfinger/core/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterPoliteness } from '../src/budgets/cluster-politeness.js';
import { type TestCluster, testCluster } from './support/redis.js';

const log = silentLogger();
const HOST = '127.0.0.1:8080';
let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

/** Two members' politeness on one cluster; each member's own budget is wide, so only the shared one limits. */
async function members(options: { maxPerHost: number; intervalMs: number; leaseMs?: number; crawlDelayMs?: number }) {
  cluster = await testCluster();
  const c = cluster;
  const make = async (member: string) =>
    new ClusterPoliteness({
      local: new HostPoliteness({ maxPerHost: 100, minIntervalMs: 0 }),
      redis: await c.connect(member),
      prefix: c.keys.polite,
      member,
      maxPerHost: options.maxPerHost,
      intervalMs: options.intervalMs,
      crawlDelayMs: async () => options.crawlDelayMs,
      log,
      ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    });
  return [await make('a'), await make('b')] as const;
}

describe('ClusterPoliteness (real Redis)', () => {
  it('holds the per-host limit for the members together: never more than 2 in flight over both', async () => {
    const [a, b] = await members({ maxPerHost: 2, intervalMs: 0 });
    let inFlight = 0;
    let peak = 0;
    const request = async (p: ClusterPoliteness) => {
      const release = await p.acquire(HOST);
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 20));
      inFlight--;
      release();
    };
    await Promise.all(Array.from({ length: 16 }, (_, i) => request(i % 2 ? a : b)));
    expect(peak).toBe(2);
    expect(a.waited + b.waited).toBeGreaterThan(0);
    // Every slot given back: nothing held in Redis.
    expect(await (cluster as TestCluster).redis.zcard(`${(cluster as TestCluster).keys.polite}${HOST}`)).toBe(0);
  });

  it('spaces request starts by the interval over every member', async () => {
    const [a, b] = await members({ maxPerHost: 4, intervalMs: 60 });
    const starts: number[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const release = await (i % 2 ? a : b).acquire(HOST);
        starts.push(Date.now());
        release();
      }),
    );
    starts.sort((x, y) => x - y);
    const gaps = starts.slice(1).map((t, i) => t - (starts[i] as number));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(55);
  });

  it("uses the host's Crawl-delay when it is longer than the interval", async () => {
    const [a, b] = await members({ maxPerHost: 4, intervalMs: 10, crawlDelayMs: 120 });
    const first = await a.acquire(HOST);
    const t0 = Date.now();
    first();
    (await b.acquire(HOST))();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(110);
  });

  it('frees the slots of a member that died holding them once their lease ends', async () => {
    const [, b] = await members({ maxPerHost: 1, intervalMs: 0, leaseMs: 300 });
    // The slot of a member killed while holding it: its holder entry, which nobody renews any more.
    const c = cluster as TestCluster;
    await c.redis.zadd(`${c.keys.polite}${HOST}`, Date.now() + 300, 'dead|0');
    const t0 = Date.now();
    const release = await b.acquire(HOST);
    const waited = Date.now() - t0;
    release();
    expect(waited).toBeGreaterThanOrEqual(250);
    expect(waited).toBeLessThan(2000);
  });

  it('renews the slots it holds, so a long request keeps its slot past the lease', async () => {
    const [a, b] = await members({ maxPerHost: 1, intervalMs: 0, leaseMs: 300 });
    const release = await a.acquire(HOST);
    let bGot = 0;
    const waiting = b.acquire(HOST).then((r) => {
      bGot = Date.now();
      r();
    });
    await new Promise((r) => setTimeout(r, 900));
    expect(bGot).toBe(0);
    const releasedAt = Date.now();
    release();
    await waiting;
    expect(bGot).toBeGreaterThanOrEqual(releasedAt);
  });

  it('a Retry-After one member got pauses the host for every member', async () => {
    const [a, b] = await members({ maxPerHost: 4, intervalMs: 0 });
    (await a.acquire(HOST))();
    // Member a's request was answered 429 with Retry-After: 1 (the answer observed, as the page fetcher does).
    a.observe(HOST, { status: 429, elapsedMs: 5, retryAfterMs: 1000 });
    const t0 = Date.now();
    // The pause reaches Redis in one script, sent without waiting: wait for it there (bounded).
    const c = cluster as TestCluster;
    const next = `${c.keys.polite}${HOST}:pause`;
    for (let i = 0; i < 100 && Number(await c.redis.get(next)) === 0; i++) await new Promise((r) => setTimeout(r, 5));
    (await b.acquire(HOST))();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    // Member a's own pace was halved from unlimited: its next interval is at least 100 ms.
    expect(a.paceFor(HOST)).toBeGreaterThanOrEqual(100);
  });
});
