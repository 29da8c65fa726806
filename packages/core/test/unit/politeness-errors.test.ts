import { CrawlerError, HostPoliteness } from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

describe('HostPoliteness errors', () => {
  it('a closed HostPoliteness refuses with a CrawlerError that has a code and a fix', async () => {
    const p = new HostPoliteness({ maxPerHost: 1, minIntervalMs: 0 });
    const release = await p.acquire('a.test');
    const waiting = p.acquire('a.test');
    p.close();
    const err = await waiting.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CrawlerError);
    expect(err).toMatchObject({ code: 'STAGE', message: expect.stringMatching(/closed while waiting/) });
    expect((err as CrawlerError).fix).toBeTruthy();
    release();
    const after = await p.acquire('a.test').catch((e: unknown) => e);
    expect(after).toMatchObject({ code: 'STAGE', message: 'politeness: HostPoliteness is closed' });
    expect((after as CrawlerError).fix).toMatch(/new HostPoliteness/);
  });
});
