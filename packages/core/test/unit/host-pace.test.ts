import { AdaptivePace, HostPoliteness, MAX_PAUSE_MS } from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

const ok = (elapsedMs: number) => ({ status: 200, elapsedMs });

/** The rules of a host's adaptive pace (fetch/host-pace.ts), answer by answer, on a clock given to it. */
describe('AdaptivePace', () => {
  it('halves the rate on a 429 or 503, and a Retry-After of at most 30 s pauses the host (a longer one does not)', () => {
    const pace = new AdaptivePace(200);
    pace.observe({ status: 429, elapsedMs: 10 }, 200, 1_000);
    expect(pace.effective(200)).toBe(400);
    expect(pace.pausedUntil).toBe(0);
    pace.observe({ status: 503, elapsedMs: 10, retryAfterMs: 2_000 }, 200, 1_000);
    expect(pace.effective(200)).toBe(800);
    expect(pace.pausedUntil).toBe(3_000);
    pace.observe({ status: 429, elapsedMs: 10, retryAfterMs: MAX_PAUSE_MS }, 200, 1_000);
    expect(pace.pausedUntil).toBe(1_000 + MAX_PAUSE_MS);
    // Beyond the longest wait the url's retry honours: the url is given up, the host goes on (rate halved).
    const late = new AdaptivePace(200);
    late.observe({ status: 429, elapsedMs: 10, retryAfterMs: 86_400_000 }, 200, 1_000);
    expect(late.pausedUntil).toBe(0);
    expect(late.effective(200)).toBe(400);
    // Unlimited (interval 0): the first 429 spaces the host by 100 ms.
    const open = new AdaptivePace(0);
    open.observe({ status: 429, elapsedMs: 10 }, 0);
    expect(open.effective(0)).toBe(100);
  });

  it('slows a host whose answers grow slower, no further than one request per answer time', () => {
    const pace = new AdaptivePace(0);
    for (let i = 0; i < 10; i++) pace.observe(ok(10), 0);
    expect(pace.effective(0)).toBe(0);
    const seen: number[] = [];
    for (let i = 0; i < 40; i++) {
      pace.observe(ok(500), 0);
      seen.push(pace.effective(0));
    }
    // Slower answer after answer, then held at the answer time (500 ms): 2 requests a second.
    expect(seen[0]).toBe(50);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]!);
    expect(seen.at(-1)).toBeGreaterThan(450);
    expect(seen.at(-1)).toBeLessThanOrEqual(500);
  });

  it('earns the rate back with runs of fast answers, up to the setting and no further', () => {
    const pace = new AdaptivePace(100);
    pace.observe(ok(10), 100);
    pace.observe({ status: 429, elapsedMs: 10 }, 100);
    pace.observe({ status: 429, elapsedMs: 10 }, 100);
    expect(pace.effective(100)).toBe(400);
    for (let i = 0; i < 4; i++) pace.observe(ok(10), 100);
    expect(pace.effective(100)).toBe(400); // 4 fast answers: not yet a run
    pace.observe(ok(10), 100);
    expect(pace.effective(100)).toBe(320);
    for (let i = 0; i < 200; i++) pace.observe(ok(10), 100);
    expect(pace.effective(100)).toBe(100);
    expect(pace.atSetting(100)).toBe(true);
    // A host that is slow from the start is not slowed: only a slowdown counts.
    const slow = new AdaptivePace(0);
    for (let i = 0; i < 20; i++) slow.observe(ok(800), 0);
    expect(slow.effective(0)).toBe(0);
  });
});

/** The token bucket of HostPoliteness: burst starts at once after a quiet spell, then one per interval. */
describe('HostPoliteness token bucket', () => {
  it('lets `burst` requests start at once, then spaces them by the interval', async () => {
    using polite = new HostPoliteness({ maxPerHost: 10, minIntervalMs: 80, burst: 3 });
    const t0 = Date.now();
    const starts: number[] = [];
    await Promise.all(
      Array.from({ length: 5 }, async () => {
        (await polite.acquire('a.test'))();
        starts.push(Date.now() - t0);
      }),
    );
    starts.sort((a, b) => a - b);
    expect(starts[2]).toBeLessThan(60); // the three tokens of the full bucket
    expect(starts[3]).toBeGreaterThanOrEqual(75); // then one token per 80 ms
    expect(starts[4]! - starts[3]!).toBeGreaterThanOrEqual(75);
  });

  it('pauses every request to a host after a Retry-After, and says so in its rates', async () => {
    using polite = new HostPoliteness({ maxPerHost: 4, minIntervalMs: 0 });
    (await polite.acquire('b.test'))();
    polite.observe('b.test', { status: 429, elapsedMs: 5, retryAfterMs: 300 });
    expect(polite.readyIn('b.test')).toBeGreaterThan(250);
    const rates = polite.rates();
    expect(rates).toHaveLength(1);
    expect(rates[0]).toMatchObject({ host: 'b.test', ratePerSecond: 10, settingPerSecond: null });
    expect(rates[0]!.pausedForMs).toBeGreaterThan(250);
    const t = Date.now();
    await Promise.all([0, 1].map(async () => (await polite.acquire('b.test'))()));
    expect(Date.now() - t).toBeGreaterThanOrEqual(250);
    // Another host is not held by it.
    expect(polite.readyIn('c.test')).toBe(0);
  });
});
