import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Greenfinger, type RunReport, type Settings } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientSite, clientFacts, startClientSite } from '../support/client-site.js';
import { chromiumProcesses } from '../support/processes.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/**
 * Peak memory of Chromium's processes while the adaptive crawl runs, in MiB: their proportional set size summed
 * (shared pages counted once over the processes sharing them; summed RSS would count them in each).
 */
const CHROMIUM_PSS_BOUND_MB = 600;

async function crawl(
  site: ClientSite,
  tmp: TempDir,
  extractor: string,
  more: { node?: Partial<Settings>; catalog?: { intervalMs?: number; hostConcurrency?: number } } = {},
): Promise<{ gf: Greenfinger; report: RunReport }> {
  const gf = await Greenfinger.open({
    settings: {
      dataStore: tmp.path,
      workers: 1,
      renderSettleMs: 2500,
      renderIdleMs: 500,
      renderTimeoutMs: 10_000,
      browserPages: 2,
      ...more.node,
    },
  });
  const report = await gf.crawler.crawl({
    url: site.origin,
    startUrl: `${site.origin}/`,
    settings: {
      intervalMs: 0,
      threads: 2,
      hostConcurrency: 2,
      outputs: ['file', 'index'],
      images: false,
      sitemap: false,
      extractor,
      ...more.catalog,
    },
  });
  console.info(
    `${extractor}: ${report.elapsedMs} ms, ${report.produced.saved} saved, rendered ${JSON.stringify(report.rendered ?? {})}`,
  );
  return { gf, report };
}

const paths = async (gf: Greenfinger, q: string) =>
  (await gf.search.search({ q, size: 5 })).results.map((h) => new URL(h.url).pathname);

describe('extractor http: client pages are saved as the shells they are', () => {
  let site: ClientSite;
  let tmp: TempDir;
  let gf: Greenfinger | undefined;
  let report: RunReport;

  beforeAll(async () => {
    site = await startClientSite();
    tmp = createTempDir('gf-render-http-');
    ({ gf, report } = await crawl(site, tmp, 'http'));
  }, 60_000);

  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('renders nothing, starts no browser, and the rendered-only text is not found', async () => {
    expect(report.rendered).toBeUndefined();
    expect(site.requests.some((r) => r.browser)).toBe(false);
    expect(site.requests.map((r) => r.path)).not.toContain('/data/article.json');
    for (const r of clientFacts.rendered) expect(await paths(gf as Greenfinger, r.word)).toEqual([]);
    // The script-only link is never seen.
    expect(site.requests.map((r) => r.path)).not.toContain(clientFacts.linkedOnlyByScript);
  });
});

describe('extractor adaptive: only the shells are rendered, their text is saved and searchable', () => {
  let site: ClientSite;
  let tmp: TempDir;
  let gf: Greenfinger | undefined;
  let report: RunReport;
  let peakChromiumMb = 0;
  let chromiumSeen = 0;
  let chromiumAfter: number[] = [];

  beforeAll(async () => {
    site = await startClientSite();
    tmp = createTempDir('gf-render-adaptive-');
    const sampler = setInterval(() => {
      const procs = chromiumProcesses();
      chromiumSeen = Math.max(chromiumSeen, procs.length);
      peakChromiumMb = Math.max(peakChromiumMb, procs.reduce((a, p) => a + p.pssKb, 0) / 1024);
    }, 200);
    try {
      // The detector's own reasons: every page is put to it (the render memory's word is tested below).
      ({ gf, report } = await crawl(site, tmp, 'adaptive', { node: { renderMemoryRenders: 0 } }));
    } finally {
      clearInterval(sampler);
    }
    chromiumAfter = chromiumProcesses().map((p) => p.pid);
  }, 90_000);

  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('renders exactly the client pages, and says why each was rendered', () => {
    const reasons: Record<string, number> = {};
    for (const r of [...clientFacts.rendered, clientFacts.never]) reasons[r.reason] = (reasons[r.reason] ?? 0) + 1;
    expect(report.rendered).toEqual({
      pages: 4,
      reasons,
      memory: { detected: 8, toBrowser: 0, overHttp: 0, rechecked: 0, staticAfterAll: 0 },
    });
    // Chromium asked for the client pages' scripts and data, never for a document: each page was requested once.
    const browserPaths = site.requests.filter((r) => r.browser).map((r) => r.path);
    expect(browserPaths).toContain('/assets/json-app.js');
    expect(browserPaths).toContain('/data/article.json');
    for (const p of [...clientFacts.staticPaths, ...clientFacts.rendered.map((r) => r.path), clientFacts.never.path]) {
      expect(browserPaths, p).not.toContain(p);
      expect(site.requests.filter((r) => r.path === p).length, p).toBe(1);
    }
  });

  it('saves the rendered text, searchable, and follows the links the script wrote', async () => {
    for (const r of clientFacts.rendered) expect(await paths(gf as Greenfinger, r.word), r.word).toContain(r.path);
    expect(await paths(gf as Greenfinger, clientFacts.beyondScrollBound)).toEqual([]);
    expect(site.requests.map((r) => r.path)).toContain(clientFacts.linkedOnlyByScript);
    expect(report.produced.saved).toBe(clientFacts.staticPaths.length + clientFacts.rendered.length);
  });

  it('names the shell that never renders', () => {
    expect(report.rejected[`REJECTED_UNRENDERED:${clientFacts.never.reason}`]).toBe(1);
    expect(report.examples[`REJECTED_UNRENDERED:${clientFacts.never.reason}`]).toMatch(/still a shell/);
  });

  it('never reaches another host', () => {
    expect(site.otherRequests).toEqual([]);
  });

  it('closes every Chromium process by the end of the crawl, within its memory bound', () => {
    expect(chromiumSeen).toBeGreaterThan(0);
    expect(chromiumAfter).toEqual([]);
    expect(peakChromiumMb).toBeLessThan(CHROMIUM_PSS_BOUND_MB);
    console.info(`chromium: ${chromiumSeen} processes at most, peak PSS ${peakChromiumMb.toFixed(0)} MiB`);
  });
});

describe('extractor adaptive: a crawl stopped while pages render leaves no Chromium', () => {
  let site: ClientSite;
  let tmp: TempDir;
  let gf: Greenfinger | undefined;

  beforeAll(async () => {
    site = await startClientSite();
    tmp = createTempDir('gf-render-stop-');
    gf = await Greenfinger.open({
      settings: { dataStore: tmp.path, workers: 1, renderSettleMs: 30_000, renderIdleMs: 300 },
    });
  });

  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('stops (the path of Ctrl-C and SIGTERM): the job ends stopped, every browser closed', async () => {
    const g = gf as Greenfinger;
    const job = await g.jobs.start({
      url: site.origin,
      settings: {
        intervalMs: 0,
        threads: 2,
        outputs: ['file', 'index'],
        images: false,
        sitemap: false,
        extractor: 'adaptive',
      },
    });
    const end = Date.now() + 20_000;
    while (chromiumProcesses().length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    expect(chromiumProcesses().length).toBeGreaterThan(0);
    const stopping = Date.now();
    await g.jobs.stop({ jobId: job.jobId });
    const stopMs = Date.now() - stopping;
    expect(g.jobs.get(job.jobId)?.state).toBe('stopped');
    expect(chromiumProcesses()).toEqual([]);
    console.info(`stopped with pages rendering in ${stopMs} ms`);
  }, 60_000);
});

describe("the render memory: a second run takes the first one's word", () => {
  let site: ClientSite;
  let tmp: TempDir;
  let first: RunReport;
  let second: RunReport;
  let secondRequests: ClientSite['requests'] = [];

  beforeAll(async () => {
    site = await startClientSite();
    tmp = createTempDir('gf-render-memory-');
    // A static pattern is remembered after 2 pages here (20 by default), so the fixture's three static pages show it.
    const node = { renderMemoryStatic: 2 };
    let gf: Greenfinger | undefined;
    try {
      ({ gf, report: first } = await crawl(site, tmp, 'adaptive', { node }));
    } finally {
      await gf?.close();
    }
    const from = site.requests.length;
    try {
      // A new version of the same catalog (rebuild): every page is fetched again, by a new process's memory.
      gf = await Greenfinger.open({
        settings: { dataStore: tmp.path, workers: 1, renderSettleMs: 2500, renderIdleMs: 500, ...node },
      });
      second = await gf.crawler.crawl({ action: 'rebuild', url: site.origin });
      secondRequests = site.requests.slice(from);
    } finally {
      await gf?.close();
    }
  }, 120_000);

  afterAll(async () => {
    await site?.close();
    tmp?.remove();
  });

  it('keeps one JSON file per host under system/render-memory, with the counts of each url pattern', () => {
    const dir = join(tmp.path, 'system', 'render-memory');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(1);
    const host = JSON.parse(readFileSync(join(dir, files[0] as string), 'utf8'));
    expect(host).toMatchObject({ format: 1, host: new URL(site.origin).host });
    // The four client pages share /client/*: 4 renders needed per run (the never-rendering shell is one too).
    expect(host.patterns['/client/*']).toMatchObject({ rendered: 8, static: 0, streak: 8 });
    expect(host.patterns['/static/*'].streak).toBeLessThanOrEqual(-2);
    expect(host.patterns['/']).toMatchObject({ http: 2, streak: -2 });
    expect(first.rendered?.pages).toBe(4);
  });

  it('sends the remembered shells straight to the browser and keeps the static pattern off the detector', () => {
    expect(second.rendered).toEqual({
      pages: 4,
      reasons: { remembered: 4 },
      // `/` once more through the detector; /static/* on the memory's word.
      memory: { detected: 1, toBrowser: 4, overHttp: 3, rechecked: 0, staticAfterAll: 0 },
    });
    expect(second.produced.saved).toBe(clientFacts.staticPaths.length + clientFacts.rendered.length);
    expect(second.rejected['REJECTED_UNRENDERED:remembered']).toBe(1);
  });

  it('still requests each document once, over http, and the browser only its scripts and data', () => {
    for (const p of [...clientFacts.staticPaths, ...clientFacts.rendered.map((r) => r.path), clientFacts.never.path]) {
      expect(
        secondRequests.filter((r) => r.path === p).map((r) => r.browser),
        p,
      ).toEqual([false]);
    }
    expect(secondRequests.filter((r) => r.browser).map((r) => r.path)).toContain('/data/article.json');
  });
});

describe("politeness: a rendered page's own requests share its host's slot and interval", () => {
  const INTERVAL_MS = 400;
  let site: ClientSite;
  let tmp: TempDir;
  let gf: Greenfinger | undefined;
  let report: RunReport;

  beforeAll(async () => {
    site = await startClientSite();
    tmp = createTempDir('gf-render-polite-');
    // One slot for the host: a page rendering holds it while its script and data come (no second slot, no deadlock).
    ({ gf, report } = await crawl(site, tmp, 'adaptive', {
      node: { renderSettleMs: 4000, renderIdleMs: 1500 },
      catalog: { intervalMs: INTERVAL_MS, hostConcurrency: 1 },
    }));
  }, 120_000);

  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it("spaces every request to the host, the browser's too, by the interval, one at a time", () => {
    expect(report.rendered?.pages).toBe(4);
    // robots.txt is read before the crawl's first page, outside the page slots.
    const log = site.requests.filter((r) => r.path !== '/robots.txt').sort((a, b) => a.at - b.at);
    const browser = log.filter((r) => r.browser).map((r) => r.path);
    expect(browser).toEqual(expect.arrayContaining(['/assets/json-app.js', '/data/article.json']));
    const gaps = log.slice(1).map((r, i) => r.at - (log[i] as { at: number }).at);
    console.info(
      `interval ${INTERVAL_MS} ms: ${log.length} requests (${browser.length} by the browser), smallest gap ${Math.min(...gaps)} ms`,
    );
    // 25 ms of timer and socket slack where the crawler sends the request itself. Chromium sends its own some time
    // after the pacer lets it go (route.continue), and that time varies with the machine's load: two of them can
    // reach the server closer than the interval the pacer kept (356 ms for 400 in a fresh-clone run), so between
    // two browser requests half the interval is what the server can be held to.
    for (const [i, gap] of gaps.entries()) {
      const slack = log[i]?.browser && log[i + 1]?.browser ? INTERVAL_MS / 2 : 25;
      expect(gap, `${log[i]?.path} → ${log[i + 1]?.path}`).toBeGreaterThanOrEqual(INTERVAL_MS - slack);
    }
    // One request at a time: each answered before the next arrived.
    for (let i = 1; i < log.length; i++) {
      expect((log[i] as { at: number }).at, log[i]?.path).toBeGreaterThanOrEqual((log[i - 1] as { end: number }).end);
    }
  });

  it('renders the script-built page all the same: its text is saved and searchable', async () => {
    expect(await paths(gf as Greenfinger, 'zephyrquill')).toContain('/client/json');
  });
});
