import { describe, expect, it } from 'vitest';
import { HostPoliteness } from '../../src/fetch/politeness.js';

describe('HostPoliteness.pace: requests inside a slot already held', () => {
  it('spaces them by the interval without a slot of their own: no deadlock with every slot held', async () => {
    const p = new HostPoliteness({ maxPerHost: 1, minIntervalMs: 150 });
    const t0 = Date.now();
    const release = await p.acquire('a.test');
    // The host's only slot is held (a page rendering); a page waits for it behind.
    const second = p.acquire('a.test').then((r) => {
      starts.push(['page', Date.now() - t0]);
      return r;
    });
    const starts: [string, number][] = [['page', 0]];
    for (let i = 0; i < 3; i++) {
      await p.pace('a.test');
      starts.push(['sub', Date.now() - t0]);
    }
    expect(p.stats('a.test')).toMatchObject({ inFlight: 1, queued: 1 });
    release();
    (await second)();
    expect(starts.map((s) => s[0])).toEqual(['page', 'sub', 'sub', 'sub', 'page']);
    // Every start, pages' and subresources' alike, at least the interval after the one before (timer slack: 10 ms).
    for (let i = 1; i < starts.length; i++) {
      expect((starts[i]?.[1] ?? 0) - (starts[i - 1]?.[1] ?? 0), `start ${i}`).toBeGreaterThanOrEqual(140);
    }
    expect(p.maxInFlightObserved).toBe(1);
    p.close();
  });

  it('is served before the pages waiting for a slot, and other hosts are not held by it', async () => {
    const p = new HostPoliteness({ maxPerHost: 1, minIntervalMs: 200 });
    const release = await p.acquire('a.test');
    const order: string[] = [];
    const page = p.acquire('a.test').then((r) => {
      order.push('page');
      return r;
    });
    const sub = p.pace('a.test').then(() => order.push('sub'));
    const t = Date.now();
    await p.pace('b.test');
    expect(Date.now() - t).toBeLessThan(100);
    await sub;
    release();
    (await page)();
    expect(order).toEqual(['sub', 'page']);
    p.close();
  });

  it('an aborted wait rejects and leaves the queue moving; close rejects the waiters', async () => {
    const p = new HostPoliteness({ maxPerHost: 1, minIntervalMs: 10_000 });
    const release = await p.acquire('a.test');
    const stop = new AbortController();
    const waiting = p.pace('a.test', stop.signal);
    stop.abort(new Error('page closed'));
    await expect(waiting).rejects.toThrow('page closed');
    expect(p.stats('a.test').queued).toBe(0);
    const closing = p.pace('a.test');
    p.close();
    await expect(closing).rejects.toMatchObject({ code: 'STAGE' });
    release();
  });
});
