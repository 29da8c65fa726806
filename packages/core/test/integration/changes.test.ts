import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Catalog, Greenfinger } from '@greenfinger/core';
import { compareText, normalizeVolatile, shortTextDiff } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../support/tmp.js';

const PAGES = 30;
const EDITED = [3, 12, 21];
const DATE_ONLY = 5;
const DELETED = 7;
const CREATED = 31;
const WORDS = ['amber', 'birch', 'cedar', 'dune', 'ember', 'fern', 'glade', 'heath', 'iris', 'juniper'];

/** The site's state: which pages exist and which were edited since the first crawl. */
const state = { edited: false };

/** Distinct words per page, so no two pages share their text (content dedup). */
function topic(n: number): string {
  return `${WORDS[n % 10]} ${WORDS[Math.floor(n / 10) % 10]} number ${n}`;
}

/**
 * One page: its article names its topic, then volatile lines that differ on every request — the time it was
 * served, a view counter, a relative time, a session token — and a footer with the time of the request.
 */
function page(n: number): string {
  const now = new Date();
  const edited = state.edited && EDITED.includes(n);
  const updated = state.edited && n === DATE_ONLY ? '5 December 2026' : '4 December 2026';
  const views = Math.floor(Math.random() * 100_000).toLocaleString('en-US');
  const token = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `<!doctype html><html><head><title>Page ${n}</title></head><body>
<nav><a href="/">home</a></nav>
<main><article><h1>Page ${n}: ${topic(n)}</h1>
<p>This page is about ${topic(n)}. It tells the long story of the ${topic(n)} grove, how it grew along the river
and how the people of the valley came to care for it over many seasons of rain and sun.</p>
<p>${edited ? `The grove of ${topic(n)} was replanted in spring after the flood washed the old trees away.` : `The grove of ${topic(n)} still stands where it always stood, old and quiet.`}</p>
${edited && n === EDITED[0] ? `<p>Its seedlings went to <a href="${CREATED}.html">a new grove</a>.</p>` : ''}
<p>Updated ${updated}. Page generated at ${now.toISOString()} (${now.toUTCString()}).</p>
<p>${views} views · last comment ${1 + Math.floor(Math.random() * 50)} minutes ago · session: ${token}</p>
</article></main>
<footer>Served at ${now.toTimeString()}</footer></body></html>`;
}

/**
 * The index links every page of the first crawl (the deleted one too: merge revisits it and finds it gone); the new
 * page is linked from the first edited one.
 */
function index(prefix: string): string {
  const links = Array.from(
    { length: PAGES },
    (_, i) => `<li><a href="${prefix}p/${i + 1}.html">Page ${i + 1}</a></li>`,
  );
  return `<!doctype html><html><head><title>Groves</title></head><body><h1>Groves</h1><ul>${links.join('')}</ul>
<p>Generated at ${new Date().toISOString()}</p></body></html>`;
}

/** The site under any one-letter prefix (`/a/`, `/b/`): one catalog each, one shared state. */
function startSite(): Promise<Server> {
  const server = createServer((req, res) => {
    const m = /^\/([a-z])\/(?:p\/(\d+)\.html)?$/.exec(req.url ?? '');
    const n = Number(m?.[2]);
    const exists = m && (!m[2] || (n >= 1 && n <= PAGES) || (state.edited && n === CREATED));
    if (!m || !exists || (state.edited && n === DELETED)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(m[2] ? page(n) : index(`/${m[1]}/`));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/**
 * Changes that ignore noise, and the change log (issue 27 items 4 and 5), on a site of 30 pages whose every
 * answer differs in its times, counters and tokens: after the first crawl 3 pages are edited, 1 changes only its
 * date, 1 is deleted and 1 created. Catalog /a/ is merged (the run's own change set), catalog /b/ rebuilt (its new
 * version compared with the old one): both tell the same change.
 */
describe('changes', () => {
  let server: Server;
  let tmp: TempDir;
  let gf: Greenfinger;
  let origin: string;
  let merged: Catalog;
  let rebuilt: Catalog;
  const url = (prefix: string, n: number) => `${origin}/${prefix}/p/${n}.html`;
  const settings = { intervalMs: 0, threads: 4, hostConcurrency: 4, outputs: ['file', 'index'] as ['file', 'index'] };

  beforeAll(async () => {
    server = await startSite();
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    tmp = createTempDir('gf-changes-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 1 } });
    for (const prefix of ['a', 'b']) {
      const report = await gf.crawler.crawl({ url: `${origin}/${prefix}/`, settings });
      expect(report.ending).toMatchObject({ reason: 'frontier-drained', published: true });
      expect(report.produced.saved).toBe(PAGES + 1);
    }
    [merged, rebuilt] = (await Promise.all(
      ['a', 'b'].map(async (p) => (await gf.catalogs()).get({ url: `${origin}/${p}/` })),
    )) as [Catalog, Catalog];
    state.edited = true;
    const merge = await gf.crawler.crawl({ id: merged.id, action: 'merge' });
    expect(merge.ending).toMatchObject({ published: true });
    const rebuild = await gf.crawler.crawl({ id: rebuilt.id, action: 'rebuild' });
    expect(rebuild.ending).toMatchObject({ published: true });
  }, 60_000);
  afterAll(async () => {
    await gf?.close();
    await new Promise((resolve) => server?.close(resolve));
    tmp?.remove();
  });

  /** The change set a prefix's catalog should show. */
  const expected = (prefix: string) => ({
    added: [url(prefix, CREATED)],
    changed: EDITED.map((n) => url(prefix, n)).sort(),
    removed: [url(prefix, DELETED)],
  });
  const urlsOf = (set: { added: string[]; changed: Array<{ url: string }>; removed: string[] }) => ({
    added: set.added,
    changed: set.changed.map((c) => c.url),
    removed: set.removed,
  });

  it('merge: exactly the 3 edited pages changed, the new one added, the deleted one removed', async () => {
    const latest = await gf.changes.changes({ id: merged.id });
    expect(latest.runs).toEqual([expect.objectContaining({ version: 0, action: 'merge' })]);
    expect(urlsOf(latest)).toEqual(expected('a'));
    const diff = latest.changed[0]?.diff ?? '';
    expect(diff).toMatch(/^- The grove of .* still stands where it always stood, old and quiet\.$/m);
    expect(diff).toMatch(/^\+ The grove of .* was replanted in spring after the flood washed the old trees away\.$/m);
    expect(diff).not.toMatch(/generated at|views|Updated/);

    // The date-only page was fetched, judged unchanged, and `why` says so; its stored text is the first crawl's.
    const fate = await gf.ledger.why(url('a', DATE_ONLY), { catalog: { id: merged.id } });
    expect(fate.row?.outcome).toBe('REJECTED_UNMODIFIED');
    expect(fate.explanation).toContain('unchanged: only volatile text differed');
    const gone = await gf.ledger.why(url('a', DELETED), { catalog: { id: merged.id } });
    expect(gone.row?.outcome).toBe('REJECTED_NOTFOUND');
  });

  it('the change log: the first crawl added every page; --since a version or a date folds the runs after it', async () => {
    const log = await gf.changes.log(merged);
    expect(log.map((e) => e.action)).toEqual(['crawl', 'merge']);
    expect(log[0]?.added).toHaveLength(PAGES + 1);
    const sinceV0 = await gf.changes.changes({ id: merged.id }, { sinceVersion: 0 });
    expect(sinceV0.runs.map((r) => r.action)).toEqual(['merge']);
    expect(urlsOf(sinceV0)).toEqual(expected('a'));
    // Since before the first crawl: the crawl's additions and the merge fold into one set.
    const all = await gf.changes.changes({ id: merged.id }, { sinceDate: new Date(0) });
    expect(all.runs).toHaveLength(2);
    expect(all.added).toHaveLength(PAGES + 1);
    expect(all.added).toContain(url('a', CREATED));
    expect(all.added).not.toContain(url('a', DELETED));
    expect(all.changed).toEqual([]);
    expect(all.removed).toEqual([]);
  });

  it('rebuild and diff: version 1 compared with version 0 tells the same change', async () => {
    const diff = await gf.changes.diff({ id: rebuilt.id }, 0, 1);
    expect({ from: diff.from, to: diff.to }).toEqual({ from: 0, to: 1 });
    expect(urlsOf(diff)).toEqual(expected('b'));
    const latest = await gf.changes.changes({ id: rebuilt.id });
    expect(latest.runs).toEqual([expect.objectContaining({ version: 1, action: 'rebuild' })]);
    expect(urlsOf(latest)).toEqual(expected('b'));
    expect(latest.changed.map((c) => c.diff)).toEqual(diff.changed.map((c) => c.diff));
    // Backwards it is the other way round.
    const back = await gf.changes.diff({ id: rebuilt.id }, 1, 0);
    expect(urlsOf(back)).toEqual({
      added: [url('b', DELETED)],
      changed: expected('b').changed,
      removed: [url('b', CREATED)],
    });
    await expect(gf.changes.diff({ id: rebuilt.id }, 0, 7)).rejects.toThrow(/keeps no version 7 \(kept: 0, 1\)/);
  });

  it('what counts as volatile: dates, times, relative times, counters, tokens — and not an edit', () => {
    const a = 'Updated 4 December 2026 at 10:15 UTC. 1,204 views. 3 minutes ago. csrf_token=abc123XYZ. Price 12 EUR.';
    const b = 'Updated Dec 5, 2026 at 11:02:09 UTC. 9 views. an hour ago. csrf_token=zz9. Price 12 EUR.';
    expect(normalizeVolatile(a)).toBe(normalizeVolatile(b));
    expect(compareText(a, b)).toBe('volatile');
    expect(compareText(a, a.replace('12 EUR', '13 EUR'))).toBe('changed');
    expect(compareText('Release 2026-12-04, version 3.11', 'Release 2026-12-05, version 3.12')).toBe('changed');
    expect(shortTextDiff('one\ntwo\nthree at 10:00', 'one\n2\nthree at 11:00')).toBe('- two\n+ 2');
  });
});
