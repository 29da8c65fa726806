import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HostPoliteness, HttpExtractor } from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('HostPoliteness', () => {
  it('spaces request starts to one host by the minimum interval, FIFO', async () => {
    using polite = new HostPoliteness({ maxPerHost: 4, minIntervalMs: 60 });
    const starts: number[] = [];
    const order: number[] = [];
    await Promise.all(
      [0, 1, 2, 3].map(async (i) => {
        const release = await polite.acquire('a.test');
        starts.push(Date.now());
        order.push(i);
        release();
      }),
    );
    expect(order).toEqual([0, 1, 2, 3]);
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(55);
  });

  it('caps requests in flight per host and keeps hosts independent', async () => {
    using polite = new HostPoliteness({ maxPerHost: 2, minIntervalMs: 0 });
    let inFlight = 0;
    let max = 0;
    let hostMax = 0;
    const job = async (host: string) => {
      const release = await polite.acquire(host);
      inFlight++;
      max = Math.max(max, inFlight);
      hostMax = Math.max(hostMax, polite.stats('a.test').inFlight);
      await sleep(25);
      inFlight--;
      release();
      release();
    };
    await Promise.all([
      ...Array.from({ length: 6 }, () => job('a.test')),
      ...Array.from({ length: 6 }, () => job('b.test')),
    ]);
    expect(hostMax).toBe(2);
    expect(polite.maxInFlightObserved).toBe(2);
    expect(max).toBe(4);
    expect(polite.trackedHosts).toBe(0);
  });

  it('applies a longer crawl-delay for one host', async () => {
    using polite = new HostPoliteness({ maxPerHost: 1, minIntervalMs: 10 });
    polite.setCrawlDelay('slow.test', 120);
    expect(polite.intervalFor('slow.test')).toBe(120);
    expect(polite.intervalFor('fast.test')).toBe(10);
    (await polite.acquire('slow.test'))();
    const t = Date.now();
    (await polite.acquire('slow.test'))();
    expect(Date.now() - t).toBeGreaterThanOrEqual(110);
  });

  it('drops a waiter whose signal aborts and forgets idle hosts', async () => {
    using polite = new HostPoliteness({ maxPerHost: 1, minIntervalMs: 30 });
    const release = await polite.acquire('c.test');
    const ac = new AbortController();
    const waiting = polite.acquire('c.test', ac.signal);
    expect(polite.stats('c.test').queued).toBe(1);
    ac.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(polite.stats('c.test').queued).toBe(0);
    release();
    expect(polite.trackedHosts).toBe(1);
    // Forgotten once its interval has passed: wait for that, with a deadline.
    for (const until = Date.now() + 5000; polite.trackedHosts > 0 && Date.now() < until; ) await sleep(10);
    expect(polite.trackedHosts).toBe(0);
  });

  it('rejects waiters on close', async () => {
    const polite = new HostPoliteness({ maxPerHost: 1, minIntervalMs: 0 });
    await polite.acquire('d.test');
    const waiting = polite.acquire('d.test');
    polite.close();
    await expect(waiting).rejects.toThrow(/closed/);
  });

  it('spaces real fetches to a local server (server-side arrival times)', async () => {
    const arrivals: number[] = [];
    let concurrent = 0;
    let maxConcurrent = 0;
    const server = createServer((_req, res) => {
      arrivals.push(Date.now());
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      setTimeout(() => {
        concurrent--;
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<p>ok</p>');
      }, 40);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const ex = new HttpExtractor({
      settings: { userAgent: 't', timeoutMs: 2000, maxBodyBytes: 10_000, maxRedirects: 3 },
    });
    using polite = new HostPoliteness({ maxPerHost: 2, minIntervalMs: 30 });
    try {
      await Promise.all(
        Array.from({ length: 6 }, async (_, i) => {
          const release = await polite.acquire(new URL(base).host);
          try {
            expect((await ex.fetch(`${base}/p${i}`)).status).toBe(200);
          } finally {
            release();
          }
        }),
      );
    } finally {
      await ex.close();
      server.closeAllConnections();
      server.close();
    }
    expect(maxConcurrent).toBeLessThanOrEqual(2);
    // Starts are 30 ms apart at the client; connection setup blurs single gaps at the server, not the span.
    arrivals.sort((a, b) => a - b);
    expect(arrivals.length).toBe(6);
    expect(arrivals[5]! - arrivals[0]!).toBeGreaterThanOrEqual(5 * 30 - 40);
  });
});
