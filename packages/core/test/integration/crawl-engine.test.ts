import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createAcceptorChain } from '../../src/acceptors/acceptor-chain.js';
import { defaultCatalogSettings, loadSettings } from '../../src/config.js';
import { HtmlContentExtractor } from '../../src/content/html-content-extractor.js';
import { MemoryUrlFilter } from '../../src/dedup/memory-url-filter.js';
import { Sha256ContentDedup } from '../../src/dedup/sha256-content-dedup.js';
import type { ExistingUrlPathFilter } from '../../src/dedup/url-filter.js';
import { LocalCrawlCoordinator } from '../../src/engine/crawl-coordinator.js';
import { CrawlEngine, type CrawlEngineDeps, type CrawlResult } from '../../src/engine/crawl-engine.js';
import { InflightStore } from '../../src/engine/inflight-store.js';
import { FetchError } from '../../src/errors.js';
import { decodeBody } from '../../src/fetch/charset.js';
import type { Extractor, FetchResult } from '../../src/fetch/extractor.js';
import { MemoryFrontier } from '../../src/frontier/memory-frontier.js';
import { ids } from '../../src/ids.js';
import type { Catalog } from '../../src/model.js';
import { CompositeOutputChannel } from '../../src/outputs/composite-output-channel.js';
import { FileOutputChannel } from '../../src/outputs/file-output-channel.js';
import type { CrawledPage, OutputChannel } from '../../src/outputs/output-channel.js';
import type { BlobStore } from '../../src/storage/blob-store.js';
import { LocalBlobStore } from '../../src/storage/local-blob-store.js';
import type { ResourceRecordStore } from '../../src/storage/record-store.js';
import { SqliteRecordDatabase } from '../../src/storage/sqlite-record-database.js';
import { normalizeUrl } from '../../src/url/normalize.js';
import { encodePng } from '../support/png.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

const ORIGIN = 'https://docs.example.com';
const OFF_SITE = 'https://elsewhere.example.org/page';
/** Pages whose html carries this are refused by the blob store (a full disk under one page's file). */
const FILE_FAILS = 'THIS-PAGE-CANNOT-BE-WRITTEN';
const EXTRACT_FAILS = 'the extraction worker crashed on this page';

interface Served {
  status?: number;
  type?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Thrown instead of answering (a transport failure after retries). */
  fail?: FetchError;
}

function html(title: string, text: string, links: string[] = [], head = '', extra = ''): string {
  const anchors = links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('');
  return (
    `<!doctype html><html><head><title>${title}</title>${head}</head><body>` +
    `<nav><ul>${anchors}</ul></nav><main><h1>${title}</h1><p>${text}</p>${extra}</main></body></html>`
  );
}

const article = (topic: string) =>
  `This page explains ${topic} in enough words to be an article of its own. `.repeat(6) +
  `Nothing else on the site says exactly this about ${topic}.`;

const aPage = html('Alpha', article('alpha'), ['/'], '', '<img src="/pic.png" width="200" height="200" alt="a chart">');

/** The fixture site, by path. One url for each way a page can end. */
const SITE = new Map<string, Served>([
  [
    '/',
    {
      body: html('Home', article('the home page'), [
        '/a',
        '/copy',
        '/b-old',
        '/missing',
        '/noindex',
        '/broken',
        '/index-fails',
        '/file-fails',
        '/big',
        '/down',
        '/plain',
        OFF_SITE,
      ]),
    },
  ],
  ['/a', { body: aPage }],
  ['/copy', { body: aPage }],
  ['/b-old', { status: 301, headers: { location: '/b' } }],
  ['/b', { body: html('Beta', article('beta')) }],
  [
    '/noindex',
    { body: html('Hidden', article('hidden things'), ['/from-noindex'], '<meta name="robots" content="noindex">') },
  ],
  ['/from-noindex', { body: html('Found', article('a page only a noindex page links')) }],
  ['/broken', { body: html('Broken', article('a page the extractor cannot read')) }],
  ['/index-fails', { body: html('Unindexable', article('a page the index refuses')) }],
  ['/file-fails', { body: html('Unwritable', `${article('a page the disk refuses')} ${FILE_FAILS}`) }],
  [
    '/big',
    {
      fail: new FetchError(`body of ${ORIGIN}/big over the cap`, { reason: 'too-large', retryable: false }),
    },
  ],
  [
    '/down',
    {
      // The message says "too large" on purpose: the outcome comes from the reason, never from the text.
      fail: new FetchError('connect ECONNREFUSED (not because it is too large)', {
        reason: 'connection-refused',
        retryable: true,
      }),
    },
  ],
  ['/plain', { type: 'text/plain', body: 'just some text' }],
  ['/pic.png', { type: 'image/png', body: encodePng(200, 200, (x, y) => [x % 256, y % 256, 128]) }],
]);

/** An in-process Extractor serving SITE: no sockets. */
class SiteFetcher implements Extractor {
  readonly name = 'site';
  readonly requests: string[] = [];

  async fetch(url: string): Promise<FetchResult> {
    this.requests.push(url);
    const u = new URL(url);
    const served = u.origin === ORIGIN ? SITE.get(u.pathname) : undefined;
    if (served?.fail) throw served.fail;
    const status = served ? (served.status ?? 200) : 404;
    const contentType = served?.type ?? 'text/html; charset=utf-8';
    return {
      finalUrl: url,
      redirects: [],
      status,
      contentType,
      charset: '',
      headers: { 'content-type': contentType, ...served?.headers },
      body: Buffer.from(served?.body ?? ''),
      etag: null,
      lastModified: null,
      elapsedMs: 0,
    };
  }

  async close(): Promise<void> {}
}

/** The index layer, refusing one page: counted by the composite, never the page's failure. */
class RefusingIndex implements OutputChannel {
  readonly layer = 'index';
  written = 0;
  async write(page: CrawledPage): Promise<void> {
    if (page.resource.url.endsWith('/index-fails')) throw new Error('index writer: document too strange');
    this.written++;
  }
  async flush(): Promise<void> {}
  async deleteVersion() {
    return { count: 0, bytes: 0 };
  }
  counts() {
    return { written: this.written, failed: 0 };
  }
  async close(): Promise<void> {}
}

/** A blob store that cannot write the files of one page (ENOSPC), and writes every other. */
function refusingBlobs(blobs: BlobStore): BlobStore {
  return new Proxy(blobs, {
    get(target, prop) {
      if (prop === 'put') {
        return async (key: string, data: Uint8Array | string) => {
          if (Buffer.from(data).includes(FILE_FAILS)) {
            throw Object.assign(new Error(`ENOSPC: no space left on device, write ${key}`), { code: 'ENOSPC' });
          }
          return target.put(key, data);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

interface Rig {
  engine: CrawlEngine;
  fetcher: SiteFetcher;
  outputs: CompositeOutputChannel;
  db: SqliteRecordDatabase;
  catalog: Catalog;
  close(): Promise<void>;
}

async function rig(
  tmp: TempDir,
  change: (deps: CrawlEngineDeps) => Partial<CrawlEngineDeps> = () => ({}),
): Promise<Rig> {
  const now = new Date().toISOString();
  const catalog: Catalog = {
    id: ids.catalog(),
    name: 'docs',
    url: ORIGIN,
    startUrl: `${ORIGIN}/`,
    settings: { ...defaultCatalogSettings, threads: 3, intervalMs: 0, robots: false, sitemap: false },
    indexVersion: 0,
    searchVersion: -1,
    runningState: 'crawl',
    createdAt: now,
    updatedAt: now,
  };
  const log = pino({ level: 'silent' });
  const db = await SqliteRecordDatabase.open({ file: join(tmp.path, 'greenfinger.db') });
  const blobs = new LocalBlobStore(join(tmp.path, 'store'));
  const outputs = new CompositeOutputChannel([new FileOutputChannel(refusingBlobs(blobs)), new RefusingIndex()], log);
  const frontier = new MemoryFrontier();
  const urlFilter = new MemoryUrlFilter();
  const contentDedup = await Sha256ContentDedup.open(join(tmp.path, 'dedup'));
  const inflight = new InflightStore(join(tmp.path, 'inflight'));
  const fetcher = new SiteFetcher();
  const extractor = new HtmlContentExtractor();
  const deps: CrawlEngineDeps = {
    catalog,
    version: 0,
    action: 'crawl',
    settings: loadSettings({ dataStore: tmp.path }, {}),
    frontier,
    coordinator: new LocalCrawlCoordinator(frontier),
    urlFilter,
    contentDedup,
    acceptors: createAcceptorChain({ catalog }),
    pageFetcher: fetcher,
    imageFetcher: fetcher,
    politeness: { acquire: async () => () => undefined },
    extract: async (body, url, contentType) => {
      if (url === `${ORIGIN}/broken`) throw new Error(EXTRACT_FAILS);
      return extractor.extract(typeof body === 'string' ? body : decodeBody(body, contentType).text, url);
    },
    normalize: (raw, base) => normalizeUrl(raw, base),
    outputs,
    records: db.resources,
    blobs,
    inflight,
    log,
  };
  const engine = new CrawlEngine({ ...deps, ...change(deps) });
  return {
    engine,
    fetcher,
    outputs,
    db,
    catalog,
    close: async () => {
      await inflight.close(true);
      await contentDedup.close();
      await urlFilter.close();
      await frontier.close();
      await db.close();
    },
  };
}

describe('CrawlEngine on an in-process site', () => {
  let tmp: TempDir | undefined;
  let open: Rig | undefined;
  afterEach(async () => {
    await open?.close();
    tmp?.remove();
    open = undefined;
    tmp = undefined;
  });

  it('ends every url under its outcome, a page failing alone, and publishes', async () => {
    tmp = createTempDir('gf-engine-');
    open = await rig(tmp);
    const result: CrawlResult = await open.engine.run();
    const c = result.counters;

    expect(result).toMatchObject({ reason: 'frontier-drained', published: true, fullyCrawled: true, outstanding: 0 });
    expect(result.error).toBeUndefined();
    expect(c.rejected).toEqual({
      REJECTED_DUPLICATE: 1,
      REJECTED_REDIRECT: 1,
      REJECTED_NOTFOUND: 1,
      REJECTED_ROBOTS_META_NOINDEX: 1,
      'REJECTED_ERROR:extract': 1,
      'REJECTED_ERROR:file': 1,
      REJECTED_TOO_LARGE: 1,
      REJECTED_UNREACHABLE: 1,
      'REJECTED_NOT_MARKUP:text/plain': 1,
      'REJECTED_OUT_OF_SCOPE:domain-scope': 1,
    });
    // The page whose extraction threw: its stage is the detail, the thrown message is in the example.
    expect(c.examples['REJECTED_ERROR:extract']).toBe(`${ORIGIN}/broken: ${EXTRACT_FAILS}`);
    expect(c.examples['REJECTED_ERROR:file']).toMatch(
      new RegExp(`^${ORIGIN}/file-fails: file: cannot write ${ORIGIN}/file-fails: ENOSPC: no space left on device`),
    );
    expect(c.examples.REJECTED_REDIRECT).toBe(`${ORIGIN}/b-old: HTTP 301 to /b`);
    expect(c.examples.REJECTED_NOTFOUND).toBe(`${ORIGIN}/missing: HTTP 404`);
    expect(c.examples.REJECTED_ROBOTS_META_NOINDEX).toBe(`${ORIGIN}/noindex`);
    expect(c.examples.REJECTED_TOO_LARGE).toMatch(new RegExp(`^${ORIGIN}/big: `));
    expect(c.examples.REJECTED_UNREACHABLE).toMatch(new RegExp(`^${ORIGIN}/down: `));
    expect(c.examples['REJECTED_OUT_OF_SCOPE:domain-scope']).toMatch(new RegExp(`^${OFF_SITE}: `));

    // The saved pages: the home page, one of the two copies, the redirect's target, the noindex page's link, and
    // the page the index refused (the file layer has it; replay fills the index).
    const saved: string[] = [];
    for await (const rows of open.db.resources.iterateResources(open.catalog.id, 0)) {
      saved.push(...rows.map((r) => new URL(r.url).pathname));
    }
    saved.sort();
    expect(saved).toHaveLength(5);
    expect(saved.filter((p) => p === '/a' || p === '/copy')).toHaveLength(1);
    expect(saved.filter((p) => p !== '/a' && p !== '/copy')).toEqual(['/', '/b', '/from-noindex', '/index-fails']);
    expect(c.examples.REJECTED_DUPLICATE).toMatch(/\/(a|copy): same content as resource [0-9a-f-]{36}$/);

    // The counters add up: dispatched = handled + outstanding, handled = saved + Σ rejected.
    const rejected = Object.values(c.rejected).reduce((a, b) => a + b, 0);
    expect(c.dispatched).toBe(15);
    expect(c.handled).toBe(c.dispatched);
    expect(c.saved).toBe(5);
    expect(c.saved + rejected).toBe(c.handled);
    expect(c.failures).toBe(3); // extract, file, too large
    expect(c.images).toBe(1);
    expect(await open.db.resources.count(open.catalog.id, 0)).toMatchObject({
      resources: 5,
      images: 1,
      resourceImages: 1,
    });

    // The index failing for one page is counted by the output chain, not the page's failure.
    const stats = open.outputs.stats();
    expect(stats.index).toMatchObject({ written: 4, failed: 1, lastError: 'index writer: document too strange' });
    expect(stats.file?.failed).toBe(1);

    // Each url is requested once, the off-site one never; the stage timings keep their names.
    expect(new Set(open.fetcher.requests).size).toBe(open.fetcher.requests.length);
    expect(open.fetcher.requests).not.toContain(OFF_SITE);
    expect(open.fetcher.requests).toContain(`${ORIGIN}/pic.png`);
    expect(Object.keys(result.stages).sort()).toEqual([
      'commit',
      'dedup',
      'extract',
      'fetch',
      'head',
      'images',
      'import',
      'output',
    ]);
  });

  it('a page failing at the file layer leaves its text free: the same text at another url is saved', async () => {
    tmp = createTempDir('gf-engine-');
    open = await rig(tmp, (deps) => {
      const real = new FileOutputChannel(deps.blobs);
      let failures = 1;
      const flaky: OutputChannel = {
        layer: 'file',
        write: async (page) => {
          if (failures-- > 0) throw new Error('disk hiccup');
          await real.write(page);
        },
        flush: () => real.flush(),
        deleteVersion: (...a) => real.deleteVersion(...a),
        counts: () => real.counts(),
        close: () => real.close(),
      };
      // Two urls with the same text, one after the other; their links are too deep to follow.
      const catalog = { ...deps.catalog, settings: { ...deps.catalog.settings, threads: 1, depth: 0, images: false } };
      return {
        seeds: [`${ORIGIN}/a`, `${ORIGIN}/copy`],
        catalog,
        acceptors: createAcceptorChain({ catalog }),
        outputs: new CompositeOutputChannel([flaky], deps.log),
      };
    });
    const result = await open.engine.run();
    const c = result.counters;
    expect(result).toMatchObject({ reason: 'frontier-drained', published: true });
    expect(c.rejected['REJECTED_ERROR:file']).toBe(1);
    expect(c.examples['REJECTED_ERROR:file']).toMatch(/\/(a|copy): file: cannot write/);
    // Without the failed page's fingerprint forgotten, the second copy would be a "duplicate" of a page never saved.
    expect(c.rejected.REJECTED_DUPLICATE).toBeUndefined();
    expect(c.saved).toBe(1);
    expect(c.rejected['REJECTED_TOO_DEEP:depth']).toBe(1);
  });
});

describe('CrawlEngine when a store of the committer fails', () => {
  let tmp: TempDir | undefined;
  let open: Rig | undefined;
  afterEach(async () => {
    await open?.close();
    tmp?.remove();
    open = undefined;
    tmp = undefined;
  });

  const diskFull = () =>
    Object.assign(new Error('SQLite save crawler_resource failed: database or disk is full'), { code: 'SQLITE_FULL' });

  it('the record database refusing rows ends the run unpublished, with one line naming the store and the fix', async () => {
    tmp = createTempDir('gf-engine-');
    open = await rig(tmp, (deps) => {
      const records: ResourceRecordStore = { ...deps.records, saveResources: () => Promise.reject(diskFull()) };
      return { records };
    });
    const result = await open.engine.run();
    expect(result.reason).toBe('error');
    expect(result.published).toBe(false);
    expect(result.fullyCrawled).toBe(false);
    expect(result.error).toBe(
      'the record database could not be written: SQLite save crawler_resource failed: database or disk is full ' +
        '(SQLITE_FULL) — free disk space, then run resume',
    );
    // Nothing it could not record was acknowledged: the urls are still outstanding for resume.
    expect(result.outstanding).toBeGreaterThan(0);
  });

  it('the url filter refusing its marks ends the run the same way, naming the url filter', async () => {
    tmp = createTempDir('gf-engine-');
    open = await rig(tmp, (deps) => {
      const filter = deps.urlFilter;
      const urlFilter: ExistingUrlPathFilter = {
        has: (...a) => filter.has(...a),
        mark: (...a) => filter.mark(...a),
        markAll: () => Promise.reject(new Error('connection to the url filter lost')),
        clearVersion: (...a) => filter.clearVersion(...a),
        close: () => filter.close(),
      };
      return { urlFilter };
    });
    const result = await open.engine.run();
    expect(result).toMatchObject({ reason: 'error', published: false });
    expect(result.error).toBe(
      'the url filter could not be written: connection to the url filter lost — check that the url filter is ' +
        'reachable and writable, then run resume',
    );
    expect(result.error).not.toContain('\n');
  });
});
