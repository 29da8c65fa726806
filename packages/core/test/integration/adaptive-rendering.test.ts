import { Greenfinger, type RunReport } from '@greenfinger/core';
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
): Promise<{ gf: Greenfinger; report: RunReport }> {
  const gf = await Greenfinger.open({
    settings: {
      dataStore: tmp.path,
      workers: 1,
      renderSettleMs: 2500,
      renderIdleMs: 500,
      renderTimeoutMs: 10_000,
      browserPages: 2,
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
      ({ gf, report } = await crawl(site, tmp, 'adaptive'));
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
    expect(report.rendered).toEqual({ pages: 4, reasons });
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
