import { fileURLToPath } from 'node:url';
import { type CrawlEvent, type DocumentConsumer, Greenfinger, type LedgerRow, type RunReport } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOW_OUTCOMES, FLOW_WORDS, type FlowSite, NEVER_REQUESTED, startFlowSite } from '../support/flow-site.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

const modelDir = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const fast = { intervalMs: 0, threads: 4, hostConcurrency: 4, images: false };

/** What the ledger says each path of the flow site ended as: `OUTCOME` or `OUTCOME:detail`. */
async function outcomes(gf: Greenfinger, catalogId: string, origin: string): Promise<Record<string, string>> {
  const db = await gf.database();
  const rows: LedgerRow[] = [];
  for (let page = 0; page < 20; page++) {
    const batch = await db.ledger.list({ catalogId, version: 0, limit: 500, offset: page * 500 });
    rows.push(...batch.items);
    if (batch.items.length < 500) break;
  }
  const out: Record<string, string> = {};
  for (const r of rows) {
    if (!r.url.startsWith(origin)) continue;
    out[r.url.slice(origin.length)] = r.detail && r.outcome !== 'SAVED' ? `${r.outcome}:${r.detail}` : r.outcome;
  }
  return out;
}

async function found(gf: Greenfinger, word: string): Promise<string[]> {
  const hits = await gf.search.search({ q: word });
  return hits.results.map((h) => new URL(h.url).pathname);
}

/** The crawl flow of seed 002 on the flow site: every stage's outcome by name, documents, events, consumers. */
describe('the crawl flow', () => {
  let site: FlowSite;
  let tmp: TempDir;
  let gf: Greenfinger;
  let report: RunReport;
  const events: CrawlEvent[] = [];
  const consumed: string[] = [];

  beforeAll(async () => {
    site = await startFlowSite();
    tmp = createTempDir('gf-flow-');
    const consumer: DocumentConsumer = {
      name: 'test',
      preImport: (doc) => void consumed.push(`pre:${new URL(doc.url).pathname}:${doc.body.length > 0}`),
      postImport: (doc) => {
        consumed.push(`post:${new URL(doc.url).pathname}:${doc.text.length > 0}`);
        if (doc.url.endsWith('/guide.html')) throw new Error('a consumer that throws');
      },
    };
    gf = await Greenfinger.open({
      settings: { dataStore: tmp.path, modelDir, textModel: 'tiny-e5', workers: 1, logLevel: 'silent' },
      components: {
        consumers: [consumer],
        listeners: [
          {
            event: 'SAVED',
            listener: () => {
              throw new Error('a listener that throws');
            },
          },
        ],
      },
    });
    gf.on('*', (e) => void events.push(e));
    report = await gf.crawler.crawl({ url: site.startUrl, settings: fast });
  }, 120_000);

  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('ends every path of the flow site as the seed names it, and never requests a nofollow target', async () => {
    const catalog = (await (await gf.catalogs()).list())[0]!;
    const got = await outcomes(gf, catalog.id, site.origin);
    for (const [path, outcome] of Object.entries(FLOW_OUTCOMES))
      expect({ path, outcome: got[path] }).toEqual({ path, outcome });
    for (const path of NEVER_REQUESTED) expect(site.count(path)).toBe(0);
    expect(report.urls.dispatched).toBe(report.urls.handled);
    expect(report.ending.published).toBe(true);
  });

  it('saves the documents with their text and finds them by words; the original bytes keep their extension', async () => {
    for (const [word, path] of [
      [FLOW_WORDS.pdf, '/docs/manual.pdf'],
      [FLOW_WORDS.docx, '/docs/plan.docx'],
      [FLOW_WORDS.txt, '/docs/readme.txt'],
      [FLOW_WORDS.md, '/docs/notes.md'],
      [FLOW_WORDS.csv, '/docs/table.csv'],
      [FLOW_WORDS.fromPdf, '/from-pdf.html'],
    ] as const) {
      expect({ word, paths: await found(gf, word) }).toEqual({ word, paths: [path] });
    }
    const db = await gf.database();
    const catalog = (await (await gf.catalogs()).list())[0]!;
    const pdf = await db.resources.findResourceByUrlHash(
      catalog.id,
      0,
      (await import('@greenfinger/core/internal')).urlHash(`${site.origin}/docs/manual.pdf`),
    );
    expect(pdf?.title).toBe('Garden manual');
    expect(pdf?.htmlPath).toMatch(/\.pdf$/);
    const bytes = await gf.blobs.get(pdf!.htmlPath);
    expect(bytes?.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(report.flow?.noted['documents:pdf']).toBe(1);
    expect(report.flow?.noted['documents:docx']).toBe(1);
    expect(report.flow?.noted['documents:text']).toBe(3);
  });

  it('a noncanonical copy is not searchable; a canonical outside the catalog keeps the page and is counted', async () => {
    expect(await found(gf, FLOW_WORDS.guide)).toEqual(['/guide.html']);
    expect(await found(gf, FLOW_WORDS.canonicalTarget)).toEqual(['/canonical-target.html']);
    expect(await found(gf, FLOW_WORDS.sphinx)).toEqual(['/sphinx.html']);
    expect(report.flow?.noted['canonical-outside']).toBe(1);
    expect(report.rejected['REJECTED_NONCANONICAL:html']).toBe(2);
    expect(report.rejected['REJECTED_NONCANONICAL:link-header']).toBe(1);
  });

  it('X-Robots-Tag noindex is not saved but its links are followed; nofollow saves the page and follows nothing', async () => {
    expect(await found(gf, 'noindexword')).toEqual([]);
    expect(await found(gf, FLOW_WORDS.followedFromNoindex)).toEqual(['/followed-from-noindex.html']);
    expect(await found(gf, FLOW_WORDS.headerNofollow)).toEqual(['/header-nofollow.html']);
  });

  it('a document the importer cannot read is REJECTED_IMPORT, counted in the report', () => {
    expect(report.rejected['REJECTED_IMPORT:unreadable']).toBe(1);
    expect(report.examples['REJECTED_IMPORT:unreadable']).toMatch(/broken\.pdf: pdf: /);
  });

  it('fires an event for every outcome and for each import, once committed; a throwing listener fails nothing', () => {
    const byName = (name: string) => events.filter((e) => e.name === name).map((e) => new URL(e.url).pathname);
    expect(byName('REJECTED_NONCANONICAL').sort()).toEqual([
      '/guide-print.html',
      '/header-canonical.html',
      '/print-only.html',
    ]);
    expect(byName('REJECTED_IMPORT')).toEqual(['/docs/broken.pdf']);
    expect(byName('SAVED').length).toBe(report.produced.saved);
    expect(byName('DOCUMENT_POSTIMPORTED').length).toBe(report.produced.saved);
    expect(byName('DOCUMENT_PREIMPORTED')).toContain('/docs/manual.pdf');
    const noncanonical = events.find((e) => e.name === 'REJECTED_NONCANONICAL' && e.url.endsWith('/guide-print.html'));
    expect(noncanonical).toMatchObject({ detail: 'html', why: `canonical is ${site.origin}/guide.html` });
    // Every handled url and every refused link is one event.
    const outcomesHeard = events.filter((e) => !e.name.startsWith('DOCUMENT_')).length;
    expect(outcomesHeard).toBe(report.urls.dispatched);
  });

  it('consumers see every document before and after import; one that throws fails nothing', () => {
    expect(consumed).toContain('pre:/docs/manual.pdf:true');
    expect(consumed).toContain('post:/docs/manual.pdf:true');
    expect(consumed).toContain('post:/guide.html:true');
    expect(consumed.filter((c) => c.startsWith('post:')).length).toBe(report.produced.saved);
  });

  it('merge with the sitemap lastmod unchanged makes no request for the pages it lists', async () => {
    site.clear();
    const listed = (await (await gf.catalogs()).list())[0]!;
    // The recrawl rules of an ordinary merge (no change feed: this site's sitemap would be the default feed, which
    // judges the pages it does not list by their recrawl interval, change-feeds.test.ts).
    const catalog = await (await gf.catalogs()).update(listed.id, { settings: { changeFeeds: ['none'] } });
    const merged = await gf.crawler.crawl({ id: catalog.id, action: 'merge' });
    for (const path of ['/', '/guide.html', '/followed.html', '/sitemap-only.html', '/docs/manual.pdf']) {
      expect({ path, requests: site.count(path) }).toEqual({ path, requests: 0 });
    }
    expect(merged.rejected['REJECTED_PREMATURE:lastmod']).toBe(5);
    // Pages the sitemap does not list are revisited: the site ignores the conditional GET, but answers with the ETag
    // the page was saved with (the metadata checksum).
    expect(site.count('/canonical-target.html')).toBe(1);
    expect(merged.examples.REJECTED_UNMODIFIED).toMatch(/: same ETag "/);
    expect(merged.produced.saved).toBe(0);
    // The X-Robots-Tag nofollow page was not fetched for its links: what it links to is still never requested.
    for (const path of NEVER_REQUESTED) expect(site.count(path)).toBe(0);
    expect(merged.urls.dispatched).toBe(merged.urls.handled);
    // An update reads the known pages' links from their stored html, and still not the nofollow page's.
    const updated = await gf.crawler.crawl({ id: catalog.id, action: 'update' });
    for (const path of NEVER_REQUESTED) expect(site.count(path)).toBe(0);
    expect(updated.produced.saved).toBe(0);
  }, 60_000);
});

describe('the crawl flow: settings', () => {
  let site: FlowSite;
  let tmp: TempDir;
  let gf: Greenfinger;

  beforeAll(async () => {
    site = await startFlowSite();
    tmp = createTempDir('gf-flow-settings-');
    gf = await Greenfinger.open({
      settings: { dataStore: tmp.path, modelDir, textModel: 'tiny-e5', workers: 1, logLevel: 'silent' },
    });
  });
  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('the HEAD pass refuses by metadata before any GET; document filters refuse by content', async () => {
    const r = await gf.crawler.crawl({
      url: site.startUrl,
      settings: {
        ...fast,
        outputs: ['file', 'index'],
        headPass: true,
        metadataFilters: [{ header: 'content-type', match: '^text/csv' }],
        documentFilters: [{ match: FLOW_WORDS.confidential }],
      },
    });
    expect(site.count('/docs/table.csv', 'HEAD')).toBe(1);
    expect(site.count('/docs/table.csv', 'GET')).toBe(0);
    expect(r.rejected['REJECTED_FILTER:metadata']).toBe(1);
    expect(r.rejected['REJECTED_FILTER:document']).toBe(1);
    expect(r.examples['REJECTED_FILTER:document']).toMatch(/confidential\.html: excluded by document filter text/);
    expect(await found(gf, FLOW_WORDS.confidential)).toEqual([]);
    // Every saved page had one HEAD before its GET.
    expect(site.count('/guide.html', 'HEAD')).toBe(1);
    expect(site.count('/guide.html', 'GET')).toBe(1);
    expect(r.urls.dispatched).toBe(r.urls.handled);
  }, 60_000);

  it('documents off: text documents are REJECTED_NOT_MARKUP, PDF and Word refused by extension, nothing parsed', async () => {
    const r = await gf.crawler.crawl({
      url: site.startUrl,
      name: 'no-documents',
      settings: { ...fast, outputs: ['file', 'index'], documents: false },
    });
    expect(r.flow?.noted['documents:pdf']).toBeUndefined();
    expect(r.rejected['REJECTED_IMPORT:unreadable']).toBeUndefined();
    expect(r.rejected['REJECTED_ASSET:asset-check']).toBe(3);
    expect(r.rejected['REJECTED_NOT_MARKUP:text/plain']).toBe(1);
    expect(r.rejected['REJECTED_NOT_MARKUP:text/markdown']).toBe(1);
    expect(r.rejected['REJECTED_NOT_MARKUP:text/csv']).toBe(1);
  }, 60_000);
});

describe('the crawl flow: sitemaps on first contact with each host', () => {
  let a: FlowSite;
  let b: FlowSite;
  let tmp: TempDir;
  let gf: Greenfinger;

  beforeAll(async () => {
    a = await startFlowSite();
    b = await startFlowSite();
    tmp = createTempDir('gf-flow-hosts-');
    const origins = [a.origin, b.origin];
    gf = await Greenfinger.open({
      settings: { dataStore: tmp.path, modelDir, textModel: 'tiny-e5', workers: 1, logLevel: 'silent' },
      components: {
        // A catalog spanning two hosts (a library user's own acceptors: the built-in scope is one host).
        acceptors: () => ({
          check: ({ url }) =>
            origins.some((o) => url.startsWith(`${o}/`))
              ? { accept: true }
              : { accept: false, acceptor: 'two-hosts', outcome: 'REJECTED_OUT_OF_SCOPE', reason: 'another host' },
        }),
      },
    });
  });
  afterAll(async () => {
    await gf?.close();
    await a?.close();
    await b?.close();
    tmp?.remove();
  });

  it("reads the second host's sitemap when its first url is met, and crawls what only that sitemap lists", async () => {
    a.change(
      '/',
      `<!DOCTYPE html><html><head><title>Two hosts</title></head><body><main><p>The start page links one page of
another host, which nothing else links.</p><a href="${b.origin}/guide.html">the other host</a></main></body></html>`,
    );
    const r = await gf.crawler.crawl({ url: a.startUrl, settings: { ...fast, outputs: ['file', 'index'] } });
    expect(a.count('/sitemap.xml')).toBe(1);
    expect(b.count('/sitemap.xml')).toBe(1);
    // Listed only by the second host's sitemap.
    expect(b.count('/sitemap-only.html')).toBe(1);
    expect(r.urls.dispatched).toBe(r.urls.handled);
    // The two hosts serve the same page: one is saved, the other is its duplicate.
    const hits = await gf.search.search({ q: FLOW_WORDS.sitemapOnly });
    expect(hits.results).toHaveLength(1);
    expect(r.rejected.REJECTED_DUPLICATE).toBeGreaterThan(0);
  }, 60_000);

  it('reads a gzipped sitemap (sitemap.xml.gz served as application/gzip) named by robots.txt', async () => {
    const { gzipSync } = await import('node:zlib');
    b.put('/robots.txt', Buffer.from(`User-agent: *\nAllow: /\nSitemap: ${b.origin}/sitemap.xml.gz\n`), 'text/plain');
    b.put(
      '/sitemap.xml.gz',
      gzipSync(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>${b.origin}/gz-only.html</loc></url></urlset>`),
      'application/gzip',
    );
    b.put(
      '/gz-only.html',
      Buffer.from(
        '<html><head><title>Gz</title></head><body><main><p>Only the gzipped sitemap lists this page of tamarisk hedges.</p></main></body></html>',
      ),
      'text/html',
    );
    const r = await gf.crawler.crawl({
      url: b.startUrl,
      name: 'gz',
      settings: { ...fast, outputs: ['file', 'index'] },
    });
    expect(b.count('/sitemap.xml.gz')).toBe(1);
    expect(b.count('/gz-only.html')).toBe(1);
    expect(r.urls.dispatched).toBe(r.urls.handled);
  }, 60_000);
});
