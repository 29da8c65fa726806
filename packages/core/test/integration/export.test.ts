import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Greenfinger, type RunReport } from '@greenfinger/core';
import {
  type CrawlerError,
  type ExportFormat,
  ExportService,
  markdownFilePath,
  type ResourceRow,
} from '@greenfinger/core/internal';
import { createLoader, ZipRangeReader } from '@webrecorder/wabac';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CDXIndexer, WARCParser, type WARCRecord } from 'warcio';
import { type Corpus, startCorpus } from '../support/corpus.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/**
 * Exports of a small crawl of the real python docs (40 pages, pictures, vectors), read back with webrecorder's own
 * readers: warcio parses the WARC records and indexes them, wabac's ZipRangeReader (what ReplayWeb.page opens a WACZ
 * with) reads the WACZ's entries, its index and its pages list.
 */
describe('exports of a python docs crawl', () => {
  let corpus: Corpus;
  let tmp: TempDir;
  let gf: Greenfinger;
  let exports: ExportService;
  let report: RunReport;
  let rows: ResourceRow[];
  const catalog = { name: 'python' };

  /** One export into a file under tmp; its summary and its bytes. */
  async function exportFile(format: ExportFormat, extra: { chunks?: boolean } = {}) {
    const plan = await exports.plan({ catalog, format, ...extra });
    const path = join(tmp.path, `${format}-${Date.now()}-${plan.fileName}`);
    const progress: number[] = [];
    const summary = await exports.writeTo(plan, path, { onProgress: (p) => progress.push(p.done) });
    return { summary, path, bytes: readFileSync(path), progress, plan };
  }

  beforeAll(async () => {
    corpus = await startCorpus('python');
    tmp = createTempDir('gf-export-');
    gf = await Greenfinger.open({ settings: { dataStore: join(tmp.path, 'data'), workers: 1 } });
    await (await gf.catalogs()).create({
      name: 'python',
      url: `${new URL(corpus.url).origin}/`,
      startUrl: corpus.startUrl,
      settings: { intervalMs: 0, maxPages: 40, outputs: ['file', 'index', 'vector'], images: true, threads: 4 },
    });
    report = await gf.crawler.crawl({ name: 'python' });
    exports = new ExportService(gf);
    rows = [];
    const db = await gf.database();
    for await (const batch of db.resources.iterateResources(report.catalogId, report.version)) rows.push(...batch);
  }, 600_000);

  afterAll(async () => {
    await gf?.close();
    await corpus?.stop();
    tmp?.remove();
  });

  it('the crawl kept every page with its answer: status line and headers', () => {
    expect(report.produced.saved).toBe(40);
    expect(rows).toHaveLength(40);
    for (const row of rows) {
      expect(row.response).toMatchObject({ protocol: 'HTTP/1.1', status: 200, reason: 'OK' });
      const names = (row.response?.headers ?? []).map(([name]) => name);
      expect(names).toEqual(expect.arrayContaining(['server', 'content-type', 'last-modified', 'etag']));
    }
  });

  it('jsonl: one line per saved page, with text, Markdown, pictures; chunks with their vectors on request', async () => {
    const { summary, bytes, progress } = await exportFile('jsonl', { chunks: true });
    const lines = bytes.toString('utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(40);
    expect(summary).toMatchObject({ format: 'jsonl', pages: 40, missing: 0, version: report.version });
    expect(summary.bytes).toBe(bytes.length);
    expect(progress.at(-1)).toBe(40);
    const pages = lines.map((l) => JSON.parse(l));
    expect(new Set(pages.map((p) => p.url))).toEqual(new Set(rows.map((r) => r.url)));
    const row = rows[0] as ResourceRow;
    const page = pages.find((p) => p.id === row.id);
    expect(page).toMatchObject({
      url: row.url,
      title: row.title,
      version: report.version,
      fetchedAt: row.fetchedAt,
      catalog: { name: 'python' },
    });
    expect(page.text).toBe(await gf.blobs.getText(row.textPath));
    expect(page.markdown).toMatch(/^#/m);
    expect(page.markdown.startsWith('---')).toBe(false);
    const pictured = pages.filter((p) => p.pictures.length > 0);
    expect(pictured.length).toBeGreaterThan(0);
    expect(pictured[0].pictures[0]).toMatchObject({ url: expect.stringMatching(/^http/), contentType: /^image\// });
    for (const p of pages) {
      expect(p.chunks.length).toBeGreaterThan(0);
      expect(p.chunks.map((c: { index: number }) => c.index)).toEqual(p.chunks.map((_: unknown, i: number) => i));
      for (const c of p.chunks) {
        expect(c.vector).toHaveLength(512);
        expect(c.text.length).toBeGreaterThan(0);
      }
    }
  });

  it('warc: a response record per page, the kept status line and headers around the stored body', async () => {
    const { summary, bytes } = await exportFile('warc');
    expect(summary).toMatchObject({ pages: 40, withoutResponse: 0 });
    const records = await readWarc(bytes);
    expect(records[0]?.type).toBe('warcinfo');
    const responses = records.filter((r) => r.type === 'response');
    expect(responses).toHaveLength(40);
    expect(records.filter((r) => r.type === 'resource')).toHaveLength(summary.pictures);
    expect(summary.pictures).toBeGreaterThan(0);
    for (const row of rows) {
      const rec = responses.find((r) => r.url === row.url);
      expect(rec, row.url).toBeDefined();
      expect(rec?.status).toBe(200);
      expect(rec?.date).toBe(row.fetchedAt.replace(/\.\d{3}Z$/, 'Z'));
      expect(Buffer.compare(rec?.payload ?? Buffer.alloc(0), (await gf.blobs.get(row.htmlPath)) as Buffer)).toBe(0);
      expect(rec?.headers.get('server')).toMatch(/nginx/);
      expect(rec?.headers.get('etag')).toBe(row.etag);
      expect(Number(rec?.headers.get('content-length'))).toBe(rec?.payload.length);
      expect(rec?.payloadDigest).toBe(`sha256:${sha256(rec?.payload ?? Buffer.alloc(0))}`);
    }
  });

  it('wacz: wabac reads the package, the digests hold, the index finds every page, one pages entry each', async () => {
    const { summary, bytes } = await exportFile('wacz');
    expect(summary).toMatchObject({ format: 'wacz', pages: 40 });
    const zip = new ZipRangeReader(await createLoader({ url: 'export.wacz', extra: { arrayBuffer: bytes } }));
    const entries = await zip.load();
    expect(Object.keys(entries).sort()).toEqual([
      'archive/data.warc.gz',
      'datapackage-digest.json',
      'datapackage.json',
      'indexes/index.cdxj',
      'pages/pages.jsonl',
    ]);
    const file = async (name: string) => Buffer.from(await (await zip.loadFile(name)).reader.readFully());
    const datapackage = JSON.parse((await file('datapackage.json')).toString('utf8'));
    const digest = JSON.parse((await file('datapackage-digest.json')).toString('utf8'));
    expect(digest).toEqual({ path: 'datapackage.json', hash: `sha256:${sha256(await file('datapackage.json'))}` });
    expect(datapackage).toMatchObject({ profile: 'data-package', wacz_version: '1.1.1', software: 'Greenfinger' });
    expect(datapackage.resources.map((r: { path: string }) => r.path)).toEqual([
      'archive/data.warc.gz',
      'indexes/index.cdxj',
      'pages/pages.jsonl',
    ]);
    for (const r of datapackage.resources) {
      const content = await file(r.path);
      expect(r.bytes, r.path).toBe(content.length);
      expect(r.hash, r.path).toBe(`sha256:${sha256(content)}`);
    }
    const pages = (await file('pages/pages.jsonl'))
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(pages[0]).toEqual({ format: 'json-pages-1.0', id: 'pages', title: 'All Pages' });
    expect(
      pages
        .slice(1)
        .map((p) => p.url)
        .sort(),
    ).toEqual(rows.map((r) => r.url).sort());
    expect(pages.slice(1)).toHaveLength(40);

    // The index: sorted, and each line's offset and length are where warcio's own indexer finds that record.
    const cdxj = (await file('indexes/index.cdxj')).toString('utf8').trimEnd().split('\n');
    expect([...cdxj].sort()).toEqual(cdxj);
    const warc = await file('archive/data.warc.gz');
    const theirs = new Map<string, { offset: number; length: number }>();
    for await (const line of new CDXIndexer({ format: 'cdxj' }).iterIndex([
      { filename: 'data.warc.gz', reader: [warc] },
    ])) {
      if (line.url) theirs.set(String(line.url), { offset: Number(line.offset), length: Number(line.length) });
    }
    for (const line of cdxj) {
      const json = JSON.parse(line.slice(line.indexOf(' {') + 1));
      expect({ offset: Number(json.offset), length: Number(json.length) }).toEqual(theirs.get(json.url));
      expect(json.filename).toBe('data.warc.gz');
    }
    expect(cdxj).toHaveLength(40 + summary.pictures);

    // A page found through the index, read by range from inside the zip, as a replay would.
    const row = rows[3] as ResourceRow;
    const line = cdxj.find((l) => l.includes(`"url":${JSON.stringify(row.url)}`)) as string;
    expect(line.split(' ')[1]).toBe(row.fetchedAt.replace(/[-:T]/g, '').slice(0, 14));
    const at = JSON.parse(line.slice(line.indexOf(' {') + 1));
    const { reader } = await zip.loadFile('archive/data.warc.gz', {
      offset: Number(at.offset),
      length: Number(at.length),
      unzip: true,
    });
    const [record] = await readWarc(Buffer.from(await reader.readFully()));
    expect(record).toMatchObject({ type: 'response', url: row.url, status: 200 });
    expect(Buffer.compare(record?.payload ?? Buffer.alloc(0), (await gf.blobs.get(row.htmlPath)) as Buffer)).toBe(0);
  });

  it('markdown: one .md per page in folders mirroring the site, with front matter', async () => {
    const plan = await exports.plan({ catalog, format: 'markdown' });
    const dir = join(tmp.path, 'tree');
    const summary = await exports.writeTo(plan, dir);
    expect(summary).toMatchObject({ pages: 40, missing: 0 });
    const files = walk(dir);
    expect(files).toHaveLength(40);
    const origin = new URL(corpus.url);
    for (const f of files) expect(f.startsWith(`127.0.0.1_${origin.port}/`), f).toBe(true);
    const row = rows.find((r) => new URL(r.url).pathname.split('/').length > 2) as ResourceRow;
    const path = markdownFilePath(row.url);
    expect(path).toBe(`127.0.0.1_${origin.port}${new URL(row.url).pathname.replace(/\.html$/, '.md')}`);
    const md = readFileSync(join(dir, path), 'utf8');
    expect(md).toMatch(new RegExp(`^---\\ntitle: .*\\nurl: ${JSON.stringify(row.url).replace(/[.?]/g, '\\$&')}\\n`));
    expect(md).toMatch(/\nversion: 0\n/);
    await expect(exports.writeTo(plan, dir)).rejects.toThrow(/is a folder that is not empty/);
  });

  it('a page saved before answers were kept is a resource record, and the summary says how many', async () => {
    const db = await gf.database();
    const row = rows[1] as ResourceRow;
    await db.resources.saveResources([{ ...row, response: null }]);
    try {
      const { summary, bytes } = await exportFile('warc');
      expect(summary).toMatchObject({ pages: 40, withoutResponse: 1 });
      const records = await readWarc(bytes);
      const rec = records.find((r) => r.url === row.url);
      expect(rec).toMatchObject({ type: 'resource', contentType: row.contentType });
      expect(Buffer.compare(rec?.payload ?? Buffer.alloc(0), (await gf.blobs.get(row.htmlPath)) as Buffer)).toBe(0);
    } finally {
      await db.resources.saveResources([row]);
    }
  });

  it('refuses a bad request before writing anything, naming the field', async () => {
    const code = async (p: Promise<unknown>) => ((await p.catch((e: unknown) => e)) as CrawlerError).code;
    await expect(exports.plan({ catalog, format: 'pdf' as ExportFormat })).rejects.toThrow(/^format: "pdf" is not/);
    expect(await code(exports.plan({ catalog, format: 'pdf' as ExportFormat }))).toBe('BAD_INPUT');
    await expect(exports.plan({ catalog, format: 'warc', chunks: true })).rejects.toThrow(/^chunks:/);
    expect(await code(exports.plan({ catalog, format: 'jsonl', version: 7 }))).toBe('NOT_FOUND');
    expect(await code(exports.plan({ catalog: { name: 'nope' }, format: 'jsonl' }))).toBe('NOT_FOUND');
    const plan = await exports.plan({ catalog, format: 'jsonl' });
    const taken = join(tmp.path, 'taken.jsonl');
    await exports.writeTo(plan, taken);
    const size = statSync(taken).size;
    await expect(exports.writeTo(plan, taken)).rejects.toThrow(/exists already/);
    expect(statSync(taken).size).toBe(size);
    expect(existsSync(join(tmp.path, 'no', 'such', 'dir'))).toBe(false);
    await expect(exports.writeTo(plan, join(tmp.path, 'no', 'such', 'dir', 'x.jsonl'))).rejects.toThrow(
      /cannot create it \(ENOENT\)/,
    );
  });
});

interface ReadRecord {
  type: string;
  url: string | null | undefined;
  date: string | null | undefined;
  contentType: string | null | undefined;
  status: number | undefined;
  headers: Headers | Map<string, string>;
  payload: Buffer;
  payloadDigest: string | null | undefined;
}

/** Every record of a (gzipped) WARC, parsed by warcio. */
async function readWarc(bytes: Buffer): Promise<ReadRecord[]> {
  const out: ReadRecord[] = [];
  for await (const record of new WARCParser([bytes]) as AsyncIterable<WARCRecord>) {
    const payload = Buffer.from(await record.readFully(true));
    out.push({
      type: record.warcType,
      url: record.warcTargetURI,
      date: record.warcDate,
      contentType: record.warcContentType,
      status: record.httpHeaders?.statusCode,
      headers: record.httpHeaders?.headers ?? new Map(),
      payload,
      payloadDigest: record.warcPayloadDigest,
    });
  }
  return out;
}

function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const full = join(dir, name);
    if (statSync(full).isFile()) out.push(relative(dir, full));
  }
  return out.sort();
}
