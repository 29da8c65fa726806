import { Greenfinger, type TestUrlReport } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureFacts } from '../support/fixture-facts.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** The outcome as test-url says it: `OUTCOME`, or `OUTCOME:detail` when a stage of the pipeline gave a detail. */
function sameOutcome(testUrl: TestUrlReport, row: { outcome: string; detail: string }): boolean {
  const [outcome, ...detail] = testUrl.outcome.split(':');
  return outcome === row.outcome && (detail.length === 0 || detail.join(':') === row.detail);
}

/**
 * test-url runs the crawl's own document pipeline in a dry run: for every url of the fixture site whose outcome
 * fixture-facts.ts declares, its verdict equals what a crawl of the site recorded in the url ledger.
 */
describe('test-url agrees with a crawl', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let gf: Greenfinger;
  const catalog = { name: 'garden' };

  beforeAll(async () => {
    site = await startFixtureSite();
    tmp = createTempDir('gf-test-url-agrees-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 1 } });
    await gf.crawler.crawl({
      url: site.origin,
      startUrl: `${site.origin}/`,
      name: catalog.name,
      settings: { intervalMs: 0, threads: 4, outputs: ['file', 'index'] },
    });
  }, 120_000);

  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('gives every declared url of the fixture site the outcome the crawl gave it, writing nothing', async () => {
    const urls = [
      ...fixtureFacts.pages.map((p) => p.path),
      ...fixtureFacts.documents.map((d) => d.path),
      ...fixtureFacts.dropped.map((d) => d.url),
    ].map((u) => site.url(u));
    const before = await gf.ledger.counts(catalog);
    const disagreements: string[] = [];
    const outcomes = new Set<string>();
    for (const url of new Set(urls)) {
      const { row } = await gf.ledger.why(url, { catalog });
      expect(row, `${url} has a ledger row`).toBeDefined();
      if (!row) continue;
      const tested = await gf.testUrl.test({ url, catalog });
      outcomes.add(row.outcome);
      if (!sameOutcome(tested, row)) {
        const stop = tested.stages.find((s) => s.verdict === 'refuse' || s.verdict === 'fail');
        disagreements.push(
          `${url}: crawl ${row.outcome}${row.detail ? `:${row.detail}` : ''}, test-url ${tested.outcome} (${stop?.stage ?? 'no stop'})`,
        );
      }
    }
    expect(disagreements).toEqual([]);
    // The declared outcomes were all met: a page saved, a duplicate, noindex, robots.txt, 404, 500, redirects, scope.
    for (const o of ['SAVED', 'REJECTED_DUPLICATE', 'REJECTED_ROBOTS_META_NOINDEX', 'REJECTED_ROBOTS_TXT']) {
      expect(outcomes).toContain(o);
    }
    for (const o of ['REJECTED_NOTFOUND', 'REJECTED_BAD_STATUS', 'REJECTED_REDIRECT', 'REJECTED_OUT_OF_SCOPE']) {
      expect(outcomes).toContain(o);
    }
    // Nothing was recorded by the dry runs.
    expect((await gf.ledger.counts(catalog)).counts).toEqual(before.counts);
  }, 120_000);
});
