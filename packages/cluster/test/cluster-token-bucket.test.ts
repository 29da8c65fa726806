import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HostPoliteness, silentLogger } from '@greenfinger/core/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterPoliteness } from '../src/budgets/cluster-politeness.js';
import { type TestCluster, testCluster } from './support/redis.js';

const log = silentLogger();
let cluster: TestCluster | undefined;
let server: Server | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A loopback server that logs when each request arrived (its own clock: the judge). */
async function loggingServer(): Promise<{ host: string; arrivals: number[] }> {
  const arrivals: number[] = [];
  server = createServer((_req, res) => {
    arrivals.push(performance.now());
    res.end('ok');
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { host: `127.0.0.1:${(server.address() as AddressInfo).port}`, arrivals };
}

/** Two members' politeness sharing one key prefix; each member's own budget is wide, so only Redis's bucket limits. */
async function members(intervalMs: number, burst: number) {
  cluster = await testCluster();
  const c = cluster;
  const make = async (member: string) =>
    new ClusterPoliteness({
      local: new HostPoliteness({ maxPerHost: 100, minIntervalMs: 0 }),
      redis: await c.connect(member),
      prefix: c.keys.polite,
      member,
      maxPerHost: 16,
      intervalMs,
      burst,
      crawlDelayMs: async () => undefined,
      log,
    });
  return [await make('a'), await make('b')] as const;
}

/** The most requests the log shows in any window [t_i, t_j], less what a bucket of `burst` allows in it. */
function worstExcess(arrivals: number[], intervalMs: number, burst: number): number {
  const t = [...arrivals].sort((x, y) => x - y);
  let worst = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < t.length; i++) {
    for (let j = i; j < t.length; j++) {
      const allowed = burst + Math.floor(((t[j] as number) - (t[i] as number)) / intervalMs);
      worst = Math.max(worst, j - i + 1 - allowed);
    }
  }
  return worst;
}

describe("a host's token bucket in Redis (GF_CLUSTER_POLITENESS=cluster)", () => {
  it('holds the rate and the burst over both members, judged from the server’s log', async () => {
    const INTERVAL = 100;
    const BURST = 3;
    const { host, arrivals } = await loggingServer();
    const [a, b] = await members(INTERVAL, BURST);
    const request = async (p: ClusterPoliteness) => {
      const release = await p.acquire(host);
      try {
        await (await fetch(`http://${host}/`)).text();
      } finally {
        release();
      }
    };
    // 16 requests, eight from each member, all asking at once.
    await Promise.all(Array.from({ length: 16 }, (_, i) => request(i % 2 ? a : b)));
    expect(arrivals).toHaveLength(16);
    // No window of the server's log holds more than the bucket allows (burst + one per interval); one request of
    // slack for the loopback's jitter between a grant and its arrival.
    expect(worstExcess(arrivals, INTERVAL, BURST)).toBeLessThanOrEqual(1);
    const t = [...arrivals].sort((x, y) => x - y);
    // 13 starts after the burst, one per interval: the span is at least 12 intervals (jitter of one allowed).
    expect((t.at(-1) as number) - (t[0] as number)).toBeGreaterThanOrEqual((16 - BURST - 1) * INTERVAL - 20);
    // The burst was used: at least three of the sixteen got a token without waiting (burst 1 lets one through).
    expect(a.waited + b.waited).toBeLessThanOrEqual(16 - BURST);
  });

  it('burst 1 spaces every request start by the interval over both members (today’s behaviour)', async () => {
    const INTERVAL = 80;
    const { host, arrivals } = await loggingServer();
    const [a, b] = await members(INTERVAL, 1);
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const release = await (i % 2 ? a : b).acquire(host);
        try {
          await (await fetch(`http://${host}/`)).text();
        } finally {
          release();
        }
      }),
    );
    expect(worstExcess(arrivals, INTERVAL, 1)).toBeLessThanOrEqual(1);
    const t = [...arrivals].sort((x, y) => x - y);
    expect((t.at(-1) as number) - (t[0] as number)).toBeGreaterThanOrEqual(6 * INTERVAL - 20);
    // The seven after the first waited for their token (a take delayed past its token's refill would not: 4 allowed).
    expect(a.waited + b.waited).toBeGreaterThanOrEqual(4);
  });

  it('refuses a burst below 1 in one line', () => {
    expect(
      () =>
        new ClusterPoliteness({
          local: new HostPoliteness({ maxPerHost: 1, minIntervalMs: 0 }),
          // biome-ignore lint/suspicious/noExplicitAny: the constructor refuses before it touches Redis
          redis: {} as any,
          prefix: 'x:',
          member: 'a',
          maxPerHost: 1,
          intervalMs: 10,
          burst: 0,
          crawlDelayMs: async () => undefined,
          log,
        }),
    ).toThrow(/burst must be >= 1/);
  });
});
