import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Greenfinger, type ResourceRow } from '../packages/core/src/index.js';
import { fixtureFacts } from '../packages/core/test/support/fixture-facts.js';
import { type FixtureSite, startFixtureSite } from '../packages/core/test/support/fixture-site.js';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';
import { fileTree } from '../packages/core/test/support/tree.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');
const modelDir = join(root, 'packages/core/test/fixtures/models');

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * Run the built CLI as a process. Asynchronously: the fixture site answers from this process, so a
 * synchronous spawn would starve it.
 */
function cli(args: string[], timeoutMs = 60_000): Promise<Run> {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm test\` (or pnpm run build) first`);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      {
        cwd: root,
        timeout: timeoutMs,
        env: { ...process.env, GF_MODEL_DIR: modelDir, GF_TEXT_MODEL: 'tiny-e5', GF_WORKERS: '1' },
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ status: code, stdout, stderr });
      },
    );
  });
}

/** One clear line on stderr, nothing on stdout, the expected exit code. */
function expectOneLine(r: Run, status: number, pattern: RegExp): void {
  expect(r.status, r.stderr).toBe(status);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

describe('greenfinger versions, delete and replay as processes over the fixture site', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let data: string;
  let catalogId: string;
  const crawlArgs = () => ['--interval', '0', '--threads', '4', '--host-concurrency', '4', '--json', '--data', data];
  const searches = async () => {
    const out: unknown[] = [];
    for (const args of [
      ['grow food on balconies'],
      ['winter rye or crimson clover'],
      ['watering the garden while away', '--mode', 'meaning'],
    ]) {
      const r = await cli(['search', ...args, '--json', '--data', data]);
      expect(r.status, r.stderr).toBe(0);
      out.push(JSON.parse(r.stdout));
    }
    return out;
  };
  const withData = async <T>(work: (gf: Greenfinger) => Promise<T>): Promise<T> => {
    const gf = await Greenfinger.open({ settings: { dataStore: data, modelDir, textModel: 'tiny-e5' } });
    try {
      return await work(gf);
    } finally {
      await gf.close();
    }
  };

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    tmp = createTempDir('gf-e2e-versions-');
    data = join(tmp.path, 'data');
    const first = await cli(['crawl', '--url', site.origin, '--name', 'garden', ...crawlArgs()]);
    expect(first.status, first.stderr).toBe(0);
    catalogId = JSON.parse(first.stdout).catalogId;
    // A second version, as rebuild will make it.
    await withData(async (gf) => {
      const catalogs = await gf.catalogs();
      await catalogs.save({ ...(await catalogs.get({ id: catalogId })), indexVersion: 1 });
    });
    const second = await cli(['crawl', '--name', 'garden', ...crawlArgs()]);
    expect(second.status, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ version: 1, ending: { published: true } });
  }, 60_000);

  afterAll(async () => {
    await site?.close();
    tmp?.remove();
  });

  it('versions --json prints one document: the versions, newest served', async () => {
    const r = await cli(['versions', '--name', 'garden', '--json', '--data', data]);
    expect(r.status, r.stderr).toBe(0);
    const versions = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(versions).toHaveLength(2);
    for (const v of versions) {
      expect(Object.keys(v)).toEqual([
        'version',
        'state',
        'published',
        'serving',
        'saved',
        'images',
        'startedAt',
        'endedAt',
        'search',
      ]);
      expect(v).toMatchObject({ published: true, saved: fixtureFacts.savedCount, images: fixtureFacts.keptImageCount });
    }
    expect(versions.map((v) => [v.version, v.state, v.serving])).toEqual([
      [0, 'published', false],
      [1, 'serving', true],
    ]);
    const text = await cli(['versions', '--id', catalogId, '--data', data]);
    expect(text.stdout).toMatch(/^1\s+serving\s+words\+meaning\s+\d+/m);
    expect(versions.map((v) => v.search)).toEqual([
      { words: false, meaning: false, embedding: null },
      { words: true, meaning: true, embedding: null },
    ]);
  });

  it('refuses the served version without --force, and says so in one line for wrong names', async () => {
    expectOneLine(
      await cli(['delete', '--name', 'garden', '--version', '1', '--data', data]),
      1,
      /version 1 of catalog "garden" is the one search reads — add --force/,
    );
    expectOneLine(
      await cli(['delete', '--name', 'no-such-catalog', '--version', '0', '--data', data]),
      2,
      /no catalog with name "no-such-catalog"/,
    );
    expectOneLine(
      await cli(['delete', '--name', 'garden', '--version', '9', '--data', data]),
      2,
      /has no version 9 — existing versions: 0, 1/,
    );
    expectOneLine(
      await cli(['replay', '--name', 'garden', '--version', '9', '--layers', 'index', '--data', data]),
      2,
      /no stored version 9 — stored versions: 0, 1/,
    );
    expectOneLine(await cli(['delete', '--name', 'garden', '--data', data]), 2, /exactly one of --version/);
  });

  it('delete --dry-run writes nothing, and counts what the delete then removes, layer by layer', async () => {
    const counts = () => withData(async (gf) => (await gf.database()).resources.count(catalogId, 0));
    // The url ledger's rows of the version go with it too.
    const ledgerRows = await withData(async (gf) =>
      Object.values(await (await gf.database()).ledger.counts(catalogId, 0)).reduce((x, y) => x + y),
    );
    const before = fileTree(data);
    const rowsBefore = await counts();
    const preview = await cli(['delete', '--name', 'garden', '--version', '0', '--dry-run', '--json', '--data', data]);
    expect(preview.status, preview.stderr).toBe(0);
    expect(fileTree(data)).toEqual(before);
    expect(await counts()).toEqual(rowsBefore);
    const planned = JSON.parse(preview.stdout);
    expect(planned).toMatchObject({ dryRun: true, versions: [0], searchVersion: 1 });
    const layer = (report: { results: Array<{ layer: string; count: number }> }, name: string) =>
      report.results.find((x) => x.layer === name)?.count;
    expect(layer(planned, 'index')).toBe(fixtureFacts.savedCount);
    expect(layer(planned, 'db')).toBe(
      rowsBefore.resources + rowsBefore.images + rowsBefore.resourceImages + rowsBefore.reports + ledgerRows,
    );

    const done = await cli(['delete', '--name', 'garden', '--version', '0', '--json', '--data', data]);
    expect(done.status, done.stderr).toBe(0);
    const removed = JSON.parse(done.stdout);
    expect(removed.results).toEqual(planned.results);
    expect(await counts()).toEqual({ resources: 0, images: 0, resourceImages: 0, reports: 0 });
    expect(existsSync(join(data, 'user', 'assets', catalogId, 'v0'))).toBe(false);
    const versions = JSON.parse((await cli(['versions', '--name', 'garden', '--json', '--data', data])).stdout);
    expect(versions.map((v: { version: number }) => v.version)).toEqual([1]);
  });

  it('replay --layers index+vector rebuilds search from the files with zero requests; twice = the same', async () => {
    const before = await searches();
    rmSync(join(data, 'user', 'index'), { recursive: true });
    rmSync(join(data, 'user', 'vector'), { recursive: true });
    expect((await cli(['search', 'balconies', '--json', '--data', data])).status).not.toBe(0);
    site.clear();

    const first = await cli(['replay', '--name', 'garden', '--layers', 'index+vector', '--json', '--data', data]);
    expect(first.status, first.stderr).toBe(0);
    expect(site.requests).toHaveLength(0);
    const report = JSON.parse(first.stdout);
    expect(report).toMatchObject({
      version: 1,
      requests: 0,
      republished: true,
      layers: { index: { written: fixtureFacts.savedCount, failed: 0 }, vector: { written: fixtureFacts.savedCount } },
    });
    expect(existsSync(join(data, 'user', report.path))).toBe(true);
    expect(await searches()).toEqual(before);

    const second = await cli(['replay', '--name', 'garden', '--layers', 'vector+index', '--json', '--data', data]);
    expect(JSON.parse(second.stdout).layers).toEqual(report.layers);
    expect(await searches()).toEqual(before);
    expect(site.requests).toHaveLength(0);
  });

  it('replay --layers file refetches exactly the pages whose files were deleted', async () => {
    const rows = await withData(async (gf) => {
      const out: ResourceRow[] = [];
      for await (const batch of (await gf.database()).resources.iterateResources(catalogId, 1)) out.push(...batch);
      return out;
    });
    const gone = rows.slice(0, 2);
    for (const r of gone) rmSync(join(data, 'user', r.textPath));
    rmSync(join(data, 'user', (gone[0] as ResourceRow).htmlPath));
    site.clear();
    const r = await cli(['replay', '--name', 'garden', '--layers', 'file', '--json', '--data', data]);
    expect(r.status, r.stderr).toBe(0);
    expect(site.requests.map((q) => new URL(q.path, site.origin).href).sort()).toEqual(gone.map((g) => g.url).sort());
    expect(JSON.parse(r.stdout).layers.file.pages).toEqual({
      checked: fixtureFacts.savedCount,
      intact: fixtureFacts.savedCount - 2,
      written: 2,
      changed: 0,
      unreachable: 0,
    });
    for (const g of gone) expect(readFileSync(join(data, 'user', g.textPath), 'utf8').length).toBe(g.textChars);
  });

  it('catalog delete keeps a catalog with data unless --purge, which removes every layer', async () => {
    expectOneLine(
      await cli(['catalog', 'delete', '--name', 'garden', '--data', data]),
      1,
      /catalog "garden" still holds versions 1 — add --purge/,
    );
    const r = await cli(['catalog', 'delete', '--name', 'garden', '--purge', '--json', '--data', data]);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).purge).toMatchObject({ versions: [1], purged: true, searchVersion: -1 });
    expect(existsSync(join(data, 'user', 'assets', catalogId))).toBe(false);
    expect(existsSync(join(data, 'user', 'index', `greenfinger-${catalogId}`))).toBe(false);
    expect(JSON.parse(readFileSync(join(data, 'user', 'index', 'catalogs.json'), 'utf8')).catalogs).toEqual([]);
    expect(JSON.parse((await cli(['catalogs', '--json', '--data', data])).stdout)).toEqual([]);
    await withData(async (gf) => expect(await (await gf.vectors()).countVersion(catalogId, 1)).toBe(0));
  });

  it('help prints the examples of each verb', async () => {
    for (const verb of ['versions', 'delete', 'replay', 'catalog']) {
      const r = await cli(['help', verb]);
      expect(r.status, verb).toBe(0);
      expect(r.stdout, verb).toMatch(new RegExp(`Examples:\\n\\s+greenfinger ${verb}`));
    }
  });
});

describe('greenfinger catalog as a process', () => {
  let tmp: TempDir;
  let data: string;
  beforeAll(() => {
    tmp = createTempDir('gf-e2e-catalog-');
    data = join(tmp.path, 'data');
  });
  afterAll(() => tmp?.remove());

  it('creates, lists, shows, updates and deletes a definition', async () => {
    const created = await cli([
      'catalog',
      'create',
      '--url',
      'http://127.0.0.1:9/',
      '--start-url',
      'http://127.0.0.1:9/docs/',
      '--name',
      'docs',
      '--max-pages',
      '50',
      '--no-images',
      '--outputs',
      'file+index',
      '--json',
      '--data',
      data,
    ]);
    expect(created.status, created.stderr).toBe(0);
    const c = JSON.parse(created.stdout);
    expect(c).toMatchObject({ name: 'docs', startUrl: 'http://127.0.0.1:9/docs/', searchVersion: -1 });
    expect(c.settings).toMatchObject({
      maxPages: 50,
      images: false,
      outputs: ['file', 'index'],
      depth: -1,
      robots: true,
    });

    const list = await cli(['catalogs', '--json', '--data', data]);
    expect(JSON.parse(list.stdout).map((x: { id: string }) => x.id)).toEqual([c.id]);
    expect((await cli(['catalog', 'list', '--data', data])).stdout).toMatch(
      /^docs\s+[0-9a-f-]{36}\s+http:\/\/127\.0\.0\.1:9\//m,
    );

    const shown = await cli(['catalog', 'show', '--id', c.id, '--data', data]);
    expect(shown.stdout).toMatch(/max pages 50 .*\n.*\n.*images no/);

    const updated = await cli([
      'catalog',
      'update',
      'docs',
      '--name',
      'manual',
      '--images',
      '--interval',
      '250',
      '--json',
      '--data',
      data,
    ]);
    expect(updated.status, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({
      id: c.id,
      name: 'manual',
      settings: { images: true, intervalMs: 250, maxPages: 50 },
    });

    expectOneLine(
      await cli(['catalog', 'create', '--url', 'http://127.0.0.1:9/', '--name', 'manual', '--data', data]),
      1,
      /a catalog named "manual" already exists/,
    );
    const deleted = await cli(['catalog', 'delete', '--name', 'manual', '--data', data]);
    expect(deleted.status, deleted.stderr).toBe(0);
    expect(JSON.parse((await cli(['catalogs', '--json', '--data', data])).stdout)).toEqual([]);
    expectOneLine(
      await cli(['catalog', 'show', '--name', 'manual', '--data', data]),
      2,
      /no catalog with name "manual"/,
    );
  });
});
