import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Greenfinger, HtmlContentExtractor, ReadabilityContentExtractor } from '../packages/core/src/internal.js';
import { type Corpus, startCorpus } from '../packages/core/test/support/corpus.js';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';

const root = fileURLToPath(new URL('..', import.meta.url));

interface Report {
  produced: { saved: number; indexed: number };
  urls: { dispatched: number; handled: number; outstanding: number };
  rejected: Record<string, number>;
  examples: Record<string, string>;
  ending: { published: boolean; reason: string };
}

/**
 * The catalog an example crawls, created beforehand with no wait between requests: the corpus server is this test's
 * own, and the examples' code stays as the guide shows it (a crawl of an existing catalog keeps its settings).
 */
function catalogWithoutWaits(site: string, data: string): void {
  const r = spawnSync(
    process.execPath,
    [join(root, 'packages/shell/dist/bin.js'), 'catalog', 'create', '--url', site, '--interval', '0', '--data', data],
    { cwd: root, encoding: 'utf8', timeout: 60_000 },
  );
  expect(r.status, r.stderr).toBe(0);
}

/** Run an example of docs/developer-guide.md exactly as the guide says, with a bounded time. */
function example(file: string, args: string[]) {
  const dist = join(root, 'packages/core/dist/index.js');
  if (!existsSync(dist)) throw new Error(`${dist} is missing: run \`npm test\` (or pnpm run build) first`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join('examples', file), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 300_000,
    env: { ...process.env, GF_LOG_LEVEL: 'warn' },
  });
  expect(r.status, r.stderr).toBe(0);
  return { report: JSON.parse(r.stdout) as Report, stderr: r.stderr };
}

function addsUp(report: Report): void {
  const u = report.urls;
  expect(u.dispatched).toBe(u.handled + u.outstanding);
  const rejected = Object.values(report.rejected).reduce((sum, n) => sum + n, 0);
  expect(report.produced.saved + rejected).toBe(u.handled);
}

describe('the developer guide examples, run over the python documentation', () => {
  let corpus: Corpus;
  let tmp: TempDir;
  let site: string;

  beforeAll(async () => {
    corpus = await startCorpus('python');
    tmp = createTempDir('gf-examples-');
    site = `${corpus.url}/`;
  });
  afterAll(async () => {
    await corpus?.stop();
    tmp?.remove();
  });

  it('replace-a-component: the counting fetcher saw every request, the extra channel listed every saved page', () => {
    const data = join(tmp.path, 'replace');
    catalogWithoutWaits(site, data);
    const before = corpus.accessLog().length;
    const { report, stderr } = example('replace-a-component.ts', [site, data]);
    const served = corpus.accessLog().length - before;
    const counted = Number(/made (\d+) requests/.exec(stderr)?.[1]);
    expect(report.ending.published).toBe(true);
    expect(report.produced.saved).toBeGreaterThan(500);
    expect(counted).toBe(served);
    const lines = readFileSync(join(data, 'saved-urls.txt'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(report.produced.saved);
    expect(new Set(lines).size).toBe(lines.length);
    expect(report.produced.indexed).toBe(report.produced.saved);
    addsUp(report);
  });

  it('custom-acceptor: an acceptor registered by name refuses what it should, and the report names it', () => {
    catalogWithoutWaits(site, join(tmp.path, 'acceptor'));
    const { report } = example('custom-acceptor.ts', [site, join(tmp.path, 'acceptor'), 'library']);
    expect(report.rejected['REJECTED_FILTER:skip-segment']).toBeGreaterThan(100);
    expect(report.examples['REJECTED_FILTER:skip-segment']).toMatch(/\/library\/.*path has the segment \/library\//);
    expect(report.produced.saved).toBeGreaterThan(50);
    addsUp(report);
  });

  it('readability-extractor: the catalog setting picks Readability, whose article text differs from the default', async () => {
    const data = join(tmp.path, 'readability');
    catalogWithoutWaits(site, data);
    const { report, stderr } = example('readability-extractor.ts', [site, data]);
    expect(report.produced.saved).toBe(20);
    expect(stderr.trim().split('\n').length).toBeGreaterThanOrEqual(5);
    addsUp(report);
    const gf = await Greenfinger.open({ settings: { dataStore: data } });
    try {
      const catalog = await (await gf.catalogs()).get({ url: site });
      expect(catalog.settings.contentExtractor).toBe('readability');
      let compared = 0;
      let differs = 0;
      for await (const rows of (await gf.database()).resources.iterateResources(catalog.id, 0, 20)) {
        for (const row of rows) {
          const html = (await gf.blobs.getText(row.htmlPath)) ?? '';
          const stored = await gf.blobs.getText(row.textPath);
          expect(stored).toBe(new ReadabilityContentExtractor().extract(html, row.url).text);
          if (stored !== new HtmlContentExtractor().extract(html, row.url).text) differs++;
          compared++;
        }
      }
      expect(compared).toBe(20);
      expect(differs).toBeGreaterThan(0);
    } finally {
      await gf.close();
    }
  });
});
