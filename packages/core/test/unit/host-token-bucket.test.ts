import { describe, expect, it } from 'vitest';
import { HostPoliteness } from '../../src/fetch/politeness.js';

/** Let every settled promise run its callbacks. */
const settle = () => new Promise((r) => setImmediate(r));

/** Issue 26 item 4: the token bucket of HostPoliteness, judged by what is granted and what waits (no clock). */
describe('the token bucket of a host', () => {
  it('burst 3: three starts at once, the fourth waits for a token', async () => {
    const p = new HostPoliteness({ maxPerHost: 10, minIntervalMs: 60_000, burst: 3 });
    const releases = await Promise.all([p.acquire('h'), p.acquire('h'), p.acquire('h')]);
    let fourth = false;
    const pending = p.acquire('h').then(() => {
      fourth = true;
    });
    await settle();
    expect(fourth).toBe(false);
    expect(p.stats('h')).toMatchObject({ inFlight: 3, queued: 1 });
    for (const release of releases) release();
    p.close();
    await pending.catch(() => undefined);
  });

  it('burst 1, the default, is the interval: a second start waits, another host does not', async () => {
    const p = new HostPoliteness({ maxPerHost: 10, minIntervalMs: 60_000 });
    const first = await p.acquire('h');
    let second = false;
    const pending = p.acquire('h').then(() => {
      second = true;
    });
    const other = await p.acquire('other');
    await settle();
    expect(second).toBe(false);
    first();
    other();
    p.close();
    await pending.catch(() => undefined);
  });

  it('a Retry-After pauses the host for every waiter; the pace can be turned off', async () => {
    const p = new HostPoliteness({ maxPerHost: 10, minIntervalMs: 0 });
    p.observe('h', { status: 429, elapsedMs: 3, retryAfterMs: 20_000 });
    let granted = false;
    const pending = p.acquire('h').then(() => {
      granted = true;
    });
    (await p.acquire('other'))();
    await settle();
    expect(granted).toBe(false);
    p.close();
    await pending.catch(() => undefined);

    const fixed = new HostPoliteness({ maxPerHost: 10, minIntervalMs: 0, pace: false });
    fixed.observe('h', { status: 429, elapsedMs: 3, retryAfterMs: 20_000 });
    (await fixed.acquire('h'))();
    fixed.close();
  });

  it('refuses a burst below 1 naming it', () => {
    expect(() => new HostPoliteness({ burst: 0 })).toThrow(/burst must be an integer >= 1/);
  });
});
