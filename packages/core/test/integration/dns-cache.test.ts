import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Greenfinger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, FetchError } from '../../src/errors.js';
import { type DnsAddress, DnsCache } from '../../src/fetch/dns-cache.js';
import { HttpExtractor } from '../../src/fetch/http-extractor.js';
import { closeServer } from '../support/loopback.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** A resolver we control: names mapped to loopback addresses, every other name ENOTFOUND; it counts its calls. */
function testResolver(names: Record<string, string>) {
  const calls: string[] = [];
  let gate: Promise<void> | undefined;
  const resolve = async (hostname: string): Promise<DnsAddress[]> => {
    calls.push(hostname);
    if (gate) await gate;
    const address = names[hostname];
    if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return [{ address, family: 4, ttl: 60 }];
  };
  return {
    resolve,
    calls,
    /** Hold every answer until the returned function is called. */
    hold(): () => void {
      let open = (): void => undefined;
      gate = new Promise<void>((r) => {
        open = r;
      });
      return () => {
        gate = undefined;
        open();
      };
    },
  };
}

/**
 * A site on `address`: `/` links to every page of `links` (and calls `onHome`), any other path is a small page. Every
 * answer closes its connection, so each request opens a new one and looks its host up.
 */
async function site(
  address: string,
  links: () => string[],
  onHome?: () => void,
): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.setHeader('connection', 'close');
    if (req.url === '/') {
      onHome?.();
      res.end(
        `<html><body><h1>Home</h1>${links()
          .map((l) => `<a href="${l}">${l}</a>`)
          .join(' ')}</body></html>`,
      );
      return;
    }
    res.end(
      `<html><body><h1>Page ${req.url}</h1><p>${'Some words of a page. '.repeat(20)}${req.url}</p></body></html>`,
    );
  });
  await new Promise<void>((r) => server.listen(0, address, r));
  return { server, port: (server.address() as AddressInfo).port };
}

const fetchSettings = { userAgent: 'gf-test', timeoutMs: 5000, maxBodyBytes: 1 << 20, maxRedirects: 5 };

describe('the DNS cache (issue 26 item 5)', () => {
  let one: { server: Server; port: number };
  let two: { server: Server; port: number };

  beforeAll(async () => {
    one = await site('127.0.0.1', () => []);
    two = await site('127.0.0.2', () => []);
  });
  afterAll(async () => {
    await closeServer(one.server);
    await closeServer(two.server);
  });

  it('connects to the address the resolver gives, and answers again from the cache', async () => {
    const r = testResolver({ 'one.test': '127.0.0.1', 'two.test': '127.0.0.2' });
    const dns = new DnsCache({ resolver: r.resolve });
    // A fresh fetcher per request: a new connection each time, so each one looks its host up.
    for (let i = 0; i < 3; i++) {
      for (const [name, s] of [
        ['one.test', one],
        ['two.test', two],
      ] as const) {
        const http = new HttpExtractor({ settings: fetchSettings, lookup: dns.lookup });
        const res = await http.fetch(`http://${name}:${s.port}/p${i}`);
        expect(res.status).toBe(200);
        expect(res.text).toContain(`Page /p${i}`);
        await http.close();
      }
    }
    expect(r.calls).toEqual(['one.test', 'two.test']);
    expect(dns.stats()).toMatchObject({ misses: 2, hits: 4, failures: 0, entries: 2 });
  });

  it('shares one lookup among concurrent ones, and asks again once the TTL (within floor and ceiling) ran out', async () => {
    let now = 1_000_000;
    const r = testResolver({ 'one.test': '127.0.0.1' });
    const dns = new DnsCache({ resolver: r.resolve, minTtlMs: 5_000, maxTtlMs: 30_000, now: () => now });
    const open = r.hold();
    const answers = Promise.all(Array.from({ length: 8 }, () => dns.resolve('one.test')));
    open();
    expect((await answers).map((a) => a[0]?.address)).toEqual(Array(8).fill('127.0.0.1'));
    expect(r.calls).toHaveLength(1);
    expect(dns.stats()).toMatchObject({ misses: 1, shared: 7 });
    // The answer's TTL is 60 s; the ceiling keeps it 30 s.
    now += 29_000;
    await dns.resolve('one.test');
    expect(r.calls).toHaveLength(1);
    now += 2_000;
    await dns.resolve('one.test');
    expect(r.calls).toHaveLength(2);
  });

  it('keeps a failure briefly: a name that does not resolve fails every fetch with one lookup', async () => {
    let now = 0;
    const r = testResolver({});
    const dns = new DnsCache({ resolver: r.resolve, negativeTtlMs: 10_000, now: () => now });
    const http = new HttpExtractor({ settings: fetchSettings, lookup: dns.lookup });
    for (let i = 0; i < 5; i++) {
      const err = await http.fetch(`http://gone.test:${one.port}/p${i}`).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FetchError);
      expect((err as FetchError).reason).toBe('dns');
      expect((err as FetchError).retryable).toBe(false);
    }
    expect(r.calls).toEqual(['gone.test']);
    expect(dns.stats()).toMatchObject({ misses: 1, negativeHits: 4, failures: 1 });
    now += 10_001;
    await expect(dns.resolve('gone.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(r.calls).toHaveLength(2);
    await http.close();
  });

  it('refuses a floor above the ceiling in one line naming the setting', () => {
    expect(() => new DnsCache({ minTtlMs: 10, maxTtlMs: 5 })).toThrow(ConfigError);
    expect(() => new DnsCache({ minTtlMs: 10, maxTtlMs: 5 })).toThrow(/GF_DNS_TTL_MIN_MS.*GF_DNS_TTL_MAX_MS/);
  });
});

describe('a site whose host name stops resolving during the crawl', () => {
  let tmp: TempDir;
  let gf: Greenfinger;
  let home: { server: Server; port: number };
  const names: Record<string, string> = { 'www.site.test': '127.0.0.1' };
  const r = testResolver(names);
  let now = 0;

  beforeAll(async () => {
    tmp = createTempDir('gf-dns-');
    // Once the start page is served, the name goes away and the kept answer runs out.
    home = await site(
      '127.0.0.1',
      () => Array.from({ length: 12 }, (_, i) => `/p${i}`),
      () => {
        delete names['www.site.test'];
        now += 60 * 60_000;
      },
    );
    gf = await Greenfinger.open({
      settings: { dataStore: tmp.path, workers: 1 },
      components: { dnsCache: new DnsCache({ resolver: r.resolve, now: () => now }) },
    });
  });
  afterAll(async () => {
    await gf?.close();
    await closeServer(home.server);
    tmp?.remove();
  });

  it('ends each of its urls REJECTED_UNREACHABLE after one lookup, and /v2/metrics counts the cache', async () => {
    const report = await gf.crawler.crawl({
      url: `http://www.site.test:${home.port}/`,
      settings: { intervalMs: 0, outputs: ['file'], robots: false, sitemap: false, maxConsecutiveFailures: 100 },
    });
    expect(report.produced.saved).toBe(1);
    expect(report.rejected).toEqual({ REJECTED_UNREACHABLE: 12 });
    // One lookup for the start page, one for the 12 pages after the name went away (not 12).
    expect(r.calls).toEqual(['www.site.test', 'www.site.test']);

    const text = await gf.metrics.render();
    const count = (result: string) =>
      Number(
        new RegExp(`^greenfinger_dns_lookups_total\\{node="[^"]+",result="${result}"\\} (\\d+)$`, 'm').exec(text)?.[1],
      );
    expect(count('miss')).toBe(2);
    // Every attempt after the failure (retries included) is answered by the cache.
    expect(count('negative') + count('shared')).toBeGreaterThanOrEqual(11);
    expect(text).toMatch(/^greenfinger_dns_failures_total\{node="[^"]+"\} 1$/m);
    expect(text).toMatch(/^greenfinger_dns_cache_entries\{node="[^"]+"\} 1$/m);
  }, 30_000);
});
