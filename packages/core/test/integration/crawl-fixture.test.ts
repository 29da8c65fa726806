import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fanout, Greenfinger, type RunReport } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureFacts } from '../support/fixture-facts.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { chromiumProcesses } from '../support/processes.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

const modelDir = fileURLToPath(new URL('../fixtures/models/', import.meta.url));

/** One full crawl of the fixture site with all three outputs (the tiny ONNX model stands in for e5). */
describe('crawl of the fixture site', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let gf: Greenfinger;
  let report: RunReport;
  let chromiumSeen = 0;
  const open = () =>
    Greenfinger.open({ settings: { dataStore: tmp.path, modelDir, textModel: 'tiny-e5', workers: 1 } });

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 300 });
    tmp = createTempDir('gf-crawl-');
    gf = await open();
    // The default extractor (adaptive) on a site that needs no browser: none may start.
    const sampler = setInterval(() => {
      chromiumSeen = Math.max(chromiumSeen, chromiumProcesses().length);
    }, 100);
    try {
      report = await gf.crawler.crawl({
        url: site.origin,
        startUrl: `${site.origin}/`,
        settings: { intervalMs: 0, threads: 4, hostConcurrency: 4 },
      });
    } finally {
      clearInterval(sampler);
    }
  }, 120_000);

  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('saves every unique page exactly once and publishes', () => {
    expect(report.produced.saved).toBe(fixtureFacts.savedCount);
    expect(report.ending).toMatchObject({ reason: 'frontier-drained', published: true, fullyCrawled: true });
    expect(report.produced.indexed).toBe(fixtureFacts.savedCount);
    expect(report.produced.vectored).toBe(fixtureFacts.savedCount);
    expect(report.produced.images).toBe(fixtureFacts.keptImageCount);
  });

  it('crawls with the default extractor, adaptive: every page put to the detector, no browser started', () => {
    expect(report.rendered).toMatchObject({ pages: 0, reasons: {}, memory: { toBrowser: 0, staticAfterAll: 0 } });
    expect(report.rendered?.memory?.detected).toBeGreaterThan(0);
    expect(chromiumSeen).toBe(0);
  });

  it('adds up: every dispatched url is handled under a name', () => {
    const u = report.urls;
    expect(u.dispatched).toBe(u.handled);
    expect(u.outstanding).toBe(0);
    const named = Object.values(report.rejected).reduce((a, b) => a + b, 0);
    expect(report.produced.saved + named).toBe(u.handled);
  });

  it('counts each drop under its outcome', () => {
    const outcomes = Object.keys(report.rejected).map((k) => k.split(':')[0]);
    for (const d of fixtureFacts.dropped) {
      const ok = outcomes.includes(d.outcome) || (d.or !== undefined && outcomes.includes(d.or));
      expect(ok, `${d.url} should be counted as ${d.outcome}`).toBe(true);
    }
    expect(report.rejected['REJECTED_ROBOTS_TXT:robots-txt']).toBe(1);
    expect(report.rejected.REJECTED_DUPLICATE).toBe(1);
    expect(report.rejected.REJECTED_NOTFOUND).toBe(1);
  });

  it('requests no page twice, and never a disallowed or off-site one', () => {
    expect(site.repeated([...fixtureFacts.retriedPaths])).toEqual([]);
    for (const p of fixtureFacts.neverRequested) expect(site.count(p)).toBe(0);
    expect(site.other.requests).toHaveLength(0);
    expect(site.count('/robots.txt')).toBe(1);
  });

  it('writes the storage layout: pages, text and pictures by id, settings.json and the report', async () => {
    const db = await gf.database();
    const catalog = (await (await gf.catalogs()).list())[0];
    expect(catalog).toBeDefined();
    const id = catalog?.id as string;
    const counts = await db.resources.count(id, 0);
    expect(counts.resources).toBe(fixtureFacts.savedCount);
    expect(counts.images).toBe(fixtureFacts.keptImageCount);
    expect(counts.resourceImages).toBe(fixtureFacts.keptImageRefs);
    for await (const rows of db.resources.iterateResources(id, 0)) {
      for (const r of rows) {
        // A document keeps its original bytes under its own extension.
        const extension = r.contentType.startsWith('text/html')
          ? '.html'
          : r.url.endsWith('.pdf')
            ? '.original.pdf'
            : '.original.txt';
        expect(r.htmlPath).toBe(`assets/${id}/v0/pages/${fanout(r.id)}/${r.id}${extension}`);
        expect(existsSync(join(tmp.path, 'user', r.htmlPath))).toBe(true);
        expect(readFileSync(join(tmp.path, 'user', r.textPath), 'utf8').length).toBe(r.textChars);
      }
    }
    for await (const rows of db.resources.iterateImages(id, 0)) {
      for (const img of rows) expect(existsSync(join(tmp.path, 'user', img.path))).toBe(true);
    }
    const settings = JSON.parse(readFileSync(join(tmp.path, 'user', 'assets', id, 'v0', 'settings.json'), 'utf8'));
    expect(settings.published).toBe(true);
    expect(settings.lastRun.produced.saved).toBe(fixtureFacts.savedCount);
    expect(existsSync(join(tmp.path, 'user', report.path as string))).toBe(true);
    expect((await db.resources.getReport(id, 0))?.published).toBe(true);
  });

  it('decodes legacy charsets into the saved text', async () => {
    for (const p of fixtureFacts.pages.filter((x) => x.charset !== 'utf-8')) {
      const r = await gf.search.search({ q: p.phrase, size: 3 });
      expect(r.results.map((h) => new URL(h.url).pathname)).toContain(p.path);
    }
  });

  it('finds each saved page by a phrase of its article, and answers by meaning', async () => {
    for (const path of fixtureFacts.savedPaths) {
      const page = [...fixtureFacts.pages, ...fixtureFacts.documents].find((p) => p.path === path);
      const r = await gf.search.search({ q: page?.phrase as string, size: 5 });
      // Of the byte-identical twins, whichever was handled first is the one saved (four threads: either may be).
      const held = path === '/same-a.html' ? ['/same-a.html', '/same-b.html'] : [path];
      expect(
        r.results.map((h) => new URL(h.url).pathname).filter((p) => held.includes(p)),
        page?.phrase,
      ).toHaveLength(1);
    }
    const meaning = await gf.search.search({ q: 'tomatoes and compost', mode: 'meaning', size: 5 });
    expect(meaning.results.length).toBeGreaterThan(0);
    expect(new Set(meaning.results.map((h) => h.id)).size).toBe(meaning.results.length);
  });

  it('keeps answering both searches with system/ deleted', async () => {
    const words = await gf.search.search({ q: 'balconies', size: 10 });
    const meaning = await gf.search.search({ q: 'watering the garden', mode: 'meaning', size: 5 });
    await gf.close();
    rmSync(join(tmp.path, 'system'), { recursive: true, force: true });
    gf = await open();
    const words2 = await gf.search.search({ q: 'balconies', size: 10 });
    const meaning2 = await gf.search.search({ q: 'watering the garden', mode: 'meaning', size: 5 });
    expect(words2).toEqual({ ...words, elapsedMs: words2.elapsedMs });
    expect(meaning2).toEqual({ ...meaning, elapsedMs: meaning2.elapsedMs });
    expect(existsSync(join(tmp.path, 'system'))).toBe(false);
  });
});
