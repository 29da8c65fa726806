import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Candidate, Greenfinger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../support/tmp.js';

const HOSTS = 200;
const PAGES = 5;
const THREADS = 16;
const INTERVAL_MS = 100;
const ANSWER_MS = 60;

/** One request a host's server answered: its host, when it arrived and when its answer was sent. */
interface Hit {
  host: string;
  path: string;
  start: number;
  end: number;
}

/**
 * 200 hosts (one server each on its own loopback port: a host is host:port for politeness), 5 pages each: `/` links
 * to `/p/1` … `/p/4`, and the first host's `/` to every other host's. Every answer takes 60 ms; every request is logged.
 */
async function startHosts(): Promise<{ roots: string[]; hits: Hit[]; close(): Promise<void> }> {
  const hits: Hit[] = [];
  const servers: Server[] = [];
  const roots: string[] = [];
  for (let h = 0; h < HOSTS; h++) {
    const server = createServer((req, res) => {
      const path = req.url ?? '/';
      if (path === '/robots.txt') return void res.writeHead(404).end();
      const host = req.headers.host ?? '';
      const start = Date.now();
      let links = path === '/' ? [1, 2, 3, 4].map((k) => `<a href="/p/${k}">page ${k}</a>`).join(' ') : '';
      // The first host's home page links to every other host's.
      if (h === 0 && path === '/')
        links += roots
          .slice(1)
          .map((r) => ` <a href="${r}">${r}</a>`)
          .join('');
      setTimeout(() => {
        hits.push({ host, path, start, end: Date.now() });
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<html><head><title>${host}${path}</title></head><body><p>Host ${h} page ${path}.</p>${links}</body></html>`,
          );
      }, ANSWER_MS);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    roots.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  }
  return {
    roots,
    hits,
    close: async () => {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((r) => {
              s.closeAllConnections();
              s.close(() => r());
            }),
        ),
      );
    },
  };
}

/** Requests in flight over time: at each request's arrival, how many had arrived and were not yet answered. */
function concurrencyAtStarts(hits: Hit[]): number[] {
  return hits.map((h) => hits.filter((o) => o.start <= h.start && o.end > h.start).length);
}

/**
 * Back queues per host (issue 26 item 3): with urls of 200 hosts, 16 workers take whichever host's time has come,
 * so every worker stays busy while each host gets one request at a time, 100 ms apart (judged from the servers' logs).
 */
describe('back queues on 200 hosts', () => {
  let tmp: TempDir;
  let gf: Greenfinger;
  let site: Awaited<ReturnType<typeof startHosts>>;
  let elapsedMs = 0;

  beforeAll(async () => {
    site = await startHosts();
    tmp = createTempDir('gf-back-queues-');
    const hosts = new Set(site.roots.map((r) => new URL(r).host));
    // A crawl of many hosts: every page of the 200 hosts is in scope (the built-in scope is one host).
    const acceptors = () => ({
      check: (c: Candidate) =>
        hosts.has(new URL(c.url).host)
          ? { accept: true }
          : { accept: false, acceptor: 'hosts', outcome: 'REJECTED_OUT_OF_SCOPE', reason: 'not a host of the test' },
    });
    gf = await Greenfinger.open({
      settings: { dataStore: tmp.path, workers: 1 },
      components: { acceptors } as never,
    });
    const t0 = Date.now();
    const report = await gf.crawler.crawl({
      url: site.roots[0]!,
      settings: {
        threads: THREADS,
        hostConcurrency: 1,
        intervalMs: INTERVAL_MS,
        outputs: ['file'],
        sitemap: false,
      },
    });
    elapsedMs = Date.now() - t0;
    expect(report.produced.saved).toBe(HOSTS * PAGES);
  }, 60_000);

  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('keeps every worker busy: up to 16 requests in flight, most of the time near it', () => {
    // Each host's 5 pages, and its /llms.txt (read once per host, under the same politeness).
    expect(site.hits).toHaveLength(HOSTS * (PAGES + 1));
    const levels = concurrencyAtStarts(site.hits).sort((a, b) => a - b);
    expect(levels.at(-1)).toBeLessThanOrEqual(THREADS);
    expect(levels.at(-1)).toBe(THREADS);
    // The median request started with at least half the workers fetching (the rest parse and store pages).
    expect(levels[Math.floor(levels.length / 2)]).toBeGreaterThanOrEqual(THREADS / 2);
    // 1,000 answers of 60 ms by 16 workers: about 4 s of fetching; one worker per host at a time would take far longer.
    expect(elapsedMs).toBeLessThan(30_000);
  });

  it('never has more than one request in flight to a host, and spaces each host by its interval', () => {
    const byHost = new Map<string, Hit[]>();
    for (const h of site.hits) byHost.set(h.host, [...(byHost.get(h.host) ?? []), h]);
    expect(byHost.size).toBe(HOSTS);
    const gaps: number[] = [];
    for (const hits of byHost.values()) {
      expect(hits).toHaveLength(PAGES + 1);
      hits.sort((a, b) => a.start - b.start);
      for (let i = 1; i < hits.length; i++) {
        // One at a time: each arrives after the one before was answered …
        expect(hits[i]!.start).toBeGreaterThanOrEqual(hits[i - 1]!.end);
        gaps.push(hits[i]!.start - hits[i - 1]!.start);
      }
    }
    // … and the interval after the one before started. The client spaces the starts; the server sees them with the
    // jitter of an event loop shared with the crawl (a request's arrival is stamped late when the loop was busy), so
    // the gaps are judged as a whole: 95 % at least 90 ms, none under half the interval.
    gaps.sort((a, b) => a - b);
    expect(gaps[Math.floor(gaps.length * 0.05)]).toBeGreaterThanOrEqual(INTERVAL_MS * 0.9);
    expect(gaps[0]).toBeGreaterThanOrEqual(INTERVAL_MS / 2);
  });
});
