import { Greenfinger, type LedgerRow, normalizeUrl, type RunReport } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Corpus, startCorpus } from '../support/corpus.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/**
 * The url ledger as a user meets it: crawl the real Python docs (served on loopback, with their one broken link),
 * then ask why about a saved page, the 404 and an off-site link, list by state, and delete one page by hand.
 */
describe('the url ledger over the python corpus', () => {
  let corpus: Corpus;
  let tmp: TempDir;
  let gf: Greenfinger;
  let report: RunReport;
  let origin = '';
  const catalog = { name: 'python' };

  beforeAll(async () => {
    corpus = await startCorpus('python');
    origin = new URL(corpus.url).origin;
    tmp = createTempDir('gf-ledger-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 1 } });
    await (await gf.catalogs()).create({
      name: 'python',
      url: `${origin}/`,
      startUrl: corpus.startUrl,
      settings: { intervalMs: 0, outputs: ['file', 'index'], images: false, threads: 8, hostConcurrency: 8 },
    });
    report = await gf.crawler.crawl({ name: 'python' });
  }, 600_000);

  afterAll(async () => {
    await gf?.close();
    await corpus?.stop();
    tmp?.remove();
  });

  it('a saved page is done/SAVED with its status, fetch time, depth and referrer', async () => {
    const fate = await gf.ledger.why(`${origin}/library/json.html`);
    expect(fate.catalog.name).toBe('python');
    expect(fate.version).toBe(0);
    expect(fate.row).toMatchObject({ state: 'done', outcome: 'SAVED', status: 200 });
    expect(Date.parse(fate.row?.fetchedAt ?? '')).toBeGreaterThan(Date.now() - 3_600_000);
    expect(fate.row?.referrer).toMatch(new RegExp(`^${origin}/`));
    // The docs link their pages with fragments (`json.html#module-json`): the first link's form, when it had one.
    expect(fate.explanation).toMatch(
      /^saved \(HTTP 200\) on \d{4}-\d\d-\d\dT.*, depth \d+(, found as http\S+)?, linked from http/,
    );
    const foundAs = fate.row?.foundAs;
    if (foundAs) expect(normalizeUrl(foundAs)).toBe(fate.url);
  });

  it("the corpus's 404 is failed/REJECTED_NOTFOUND with status 404, and why says so", async () => {
    const failed = await gf.ledger.list({ catalog, state: 'failed', outcome: 'REJECTED_NOTFOUND' });
    expect(failed.total).toBeGreaterThanOrEqual(1);
    const missing = failed.items[0] as LedgerRow;
    expect(missing).toMatchObject({ state: 'failed', outcome: 'REJECTED_NOTFOUND', status: 404 });
    expect(missing.reason).toBe('HTTP 404');
    expect(missing.fetchedAt).toBeTruthy();
    const fate = await gf.ledger.why(missing.url);
    expect(fate.explanation).toMatch(/^not found \(HTTP 404\) on .*linked from http/);
  });

  it('an off-site link is rejected by the domain-scope acceptor before any request', async () => {
    const rejected = await gf.ledger.list({ catalog, state: 'rejected', outcome: 'REJECTED_OUT_OF_SCOPE' });
    const offsite = rejected.items.find((r) => !r.url.startsWith(origin));
    expect(offsite, JSON.stringify(rejected.items.slice(0, 3))).toMatchObject({
      state: 'rejected',
      detail: 'domain-scope',
      status: null,
      fetchedAt: null,
    });
    const fate = await gf.ledger.why((offsite as LedgerRow).url, { catalog });
    expect(fate.explanation).toMatch(
      new RegExp(`^refused by the domain-scope acceptor before any request: .* is outside ${origin}/`),
    );
    // Not linked by any page: never dispatched, and it would be refused.
    const never = await gf.ledger.why('http://never-linked.example/', { catalog });
    expect(never.row).toBeUndefined();
    expect(never.explanation).toMatch(/^never dispatched in version 0 of "python": no page of that run linked/);
    expect(never.explanation).toContain(`outside ${origin}/`);
  });

  it('dispatched equals the rows in end states plus the queued ones; saved equals the SAVED rows', async () => {
    const { counts } = await gf.ledger.counts(catalog);
    expect(counts.crawling).toBe(0);
    expect(counts.deleted).toBe(0);
    expect(counts.queued).toBe(0); // the frontier drained
    expect(counts.done + counts.failed + counts.rejected + counts.queued).toBe(report.urls.dispatched);
    // Every url handled has one row: the refusals and the failures the report counts by outcome, the rest done.
    expect(counts.rejected).toBe(reported(/^REJECTED_(OUT_OF_SCOPE|FILTER|ROBOTS_TXT|TOO_DEEP|ASSET|TRAP)\b/));
    expect(counts.failed).toBe(reported(/^REJECTED_(NOTFOUND|BAD_STATUS|UNREACHABLE|TOO_LARGE|ERROR)\b/));
    expect(counts.failed).toBeGreaterThanOrEqual(1);
    expect(counts.done).toBe(report.produced.saved + reported(/^REJECTED_(NOT_MARKUP|DUPLICATE|REDIRECT)\b/));
    const saved = await gf.ledger.list({ catalog, outcome: 'SAVED', limit: 1 });
    expect(saved.total).toBe(report.produced.saved);
    const page = await gf.ledger.list({ catalog, state: 'done', limit: 10, offset: 10 });
    expect(page.items).toHaveLength(10);
    expect(page.items.map((r) => r.url)).toEqual([...page.items.map((r) => r.url)].sort());
  });

  it('gets one url by id; a bad id is BAD_INPUT, an unknown one NOT_FOUND', async () => {
    const fate = await gf.ledger.why(`${origin}/library/json.html`);
    expect(await gf.ledger.get(fate.row?.id as string)).toEqual(fate.row);
    await expect(gf.ledger.get('not-a-uuid')).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(gf.ledger.get('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(gf.ledger.why('http://never-linked.example/')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('deleteUrl removes the page from search, and a following update does not queue it again', async () => {
    const url = `${origin}/library/json.html`;
    const found = async () => (await gf.search.search({ q: 'json dumps', size: 50 })).results.map((h) => h.url);
    expect(await found()).toContain(url);
    const id = (await gf.ledger.why(url)).row?.id as string;

    const dry = await gf.ledger.deleteUrl(id, { dryRun: true });
    expect(dry.layers.map((l) => l.layer)).toEqual(['vector', 'index', 'file', 'db']);
    expect(dry.layers.find((l) => l.layer === 'index')?.count).toBe(1);
    expect(await found()).toContain(url);

    const done = await gf.ledger.deleteUrl(id);
    expect(done).toMatchObject({ urlId: id, url, catalog: { name: 'python' }, version: 0, dryRun: false });
    expect(done.layers).toEqual(dry.layers);
    // Its html and its text: a crawl writes no Markdown (made on read; replay writes it, and it is deleted too then).
    expect(done.layers.find((l) => l.layer === 'file')?.count).toBe(2);
    expect(await found()).not.toContain(url);
    const after = await gf.ledger.why(url);
    expect(after.row).toMatchObject({ state: 'deleted', outcome: 'SAVED', status: 200 });
    expect(after.explanation).toMatch(/^deleted by hand from version 0 of "python"/);

    const before = corpus.accessLog().length;
    const update = await gf.crawler.crawl({ name: 'python', action: 'update' });
    expect(update.ending.published).toBe(true);
    const paths = corpus
      .accessLog()
      .slice(before)
      .map((l) => l.path);
    expect(paths).not.toContain('/library/json.html');
    expect(update.rejected['REJECTED_FILTER:deleted-urls']).toBe(1);
    expect((await gf.ledger.why(url)).row?.state).toBe('deleted');
    expect(await found()).not.toContain(url);
    const { counts } = await gf.ledger.counts(catalog);
    expect(counts.deleted).toBe(1);
    expect(counts.queued).toBe(0);
  }, 300_000);

  /** The urls the run's report counts under outcomes matching `key` (`OUTCOME` or `OUTCOME:detail`). */
  function reported(key: RegExp): number {
    return Object.entries(report.rejected)
      .filter(([k]) => key.test(k))
      .reduce((a, [, n]) => a + n, 0);
  }
});
