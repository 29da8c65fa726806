import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Catalog,
  CrawlerError,
  Greenfinger,
  LevelUrlFilter,
  normalizeUrl,
  SqliteVecStore,
  urlHash,
} from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureFacts } from '../support/fixture-facts.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { createTempDir, type TempDir } from '../support/tmp.js';
import { fileTree } from '../support/tree.js';

const modelDir = fileURLToPath(new URL('../fixtures/models/', import.meta.url));

describe('versions: list, delete (dry run = the same walk), prune', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let gf: Greenfinger;
  let catalog: Catalog;
  const open = () =>
    Greenfinger.open({ settings: { dataStore: tmp.path, modelDir, textModel: 'tiny-e5', workers: 1 } });
  const crawlSettings = { intervalMs: 0, threads: 4, hostConcurrency: 4 };
  /** Crawl the catalog into a new version (what rebuild will do). */
  const crawlNextVersion = async () => {
    const catalogs = await gf.catalogs();
    const current = await catalogs.get({ id: catalog.id });
    await catalogs.save({ ...current, indexVersion: current.indexVersion + 1 });
    return gf.crawler.crawl({ id: catalog.id, settings: crawlSettings });
  };
  const dbCounts = async (version: number) => (await gf.database()).resources.count(catalog.id, version);

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    tmp = createTempDir('gf-versions-');
    gf = await open();
    await gf.crawler.crawl({ url: site.origin, startUrl: `${site.origin}/`, settings: crawlSettings });
    catalog = (await (await gf.catalogs()).list())[0] as Catalog;
    const second = await crawlNextVersion();
    expect(second.ending.published).toBe(true);
  }, 120_000);

  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('lists both versions: the served one and the older published one', async () => {
    const versions = await gf.versions.list({ id: catalog.id });
    expect(versions.map((v) => [v.version, v.state, v.serving, v.published])).toEqual([
      [0, 'published', false, true],
      [1, 'serving', true, true],
    ]);
    for (const v of versions) {
      expect(v.saved).toBe(fixtureFacts.savedCount);
      expect(v.images).toBe(fixtureFacts.keptImageCount);
      expect(v.action).toBe('crawl');
      expect(Date.parse(v.endedAt as string)).toBeGreaterThanOrEqual(Date.parse(v.startedAt as string));
    }
  });

  it('a dry run writes nothing, and counts exactly what the delete then removes, layer by layer', async () => {
    const before = fileTree(tmp.path);
    const countsBefore = await dbCounts(0);
    const preview = await gf.versions.delete({ id: catalog.id }, { version: 0, dryRun: true });
    expect(fileTree(tmp.path)).toEqual(before);
    expect(await dbCounts(0)).toEqual(countsBefore);
    expect(preview.results.map((r) => r.layer)).toEqual(['vector', 'index', 'file', 'db', 'system']);
    const byLayer = Object.fromEntries(preview.results.map((r) => [r.layer, r]));
    expect(byLayer.index?.count).toBe(fixtureFacts.savedCount);
    expect(byLayer.vector?.count).toBeGreaterThanOrEqual(fixtureFacts.savedCount);
    // The url ledger's rows go with the version too.
    const ledgerRows = Object.values(await (await gf.database()).ledger.counts(catalog.id, 0)).reduce((x, y) => x + y);
    expect(ledgerRows).toBeGreaterThan(fixtureFacts.savedCount);
    expect(byLayer.db?.count).toBe(
      countsBefore.resources + countsBefore.images + countsBefore.resourceImages + countsBefore.reports + ledgerRows,
    );
    expect(byLayer.file?.bytes).toBeGreaterThan(0);

    const done = await gf.versions.delete({ id: catalog.id }, { version: 0 });
    expect(done.results.filter((r) => r.error)).toEqual([]);
    expect(done.results).toEqual(preview.results);
    expect(await dbCounts(0)).toEqual({ resources: 0, images: 0, resourceImages: 0, reports: 0 });
    expect(existsSync(join(tmp.path, 'user', 'assets', catalog.id, 'v0'))).toBe(false);
    expect(await gf.index().countVersion(catalog.id, 0)).toBe(0);
    expect(await (await gf.vectors()).countVersion(catalog.id, 0)).toBe(0);
    expect(await gf.index().countVersion(catalog.id, 1)).toBe(fixtureFacts.savedCount);
    expect((await gf.published.resolve(catalog.id))?.versions).toEqual([1]);
    expect((await gf.versions.list({ id: catalog.id })).map((v) => v.version)).toEqual([1]);
    const words = await gf.search.search({ q: 'grow food on balconies', size: 3 });
    expect(words.results[0]?.version).toBe(1);

    const row = await (await gf.database()).resources.findResourceByUrlHash(
      catalog.id,
      1,
      urlHash(normalizeUrl(`${site.origin}/`) as string),
    );
    const hash = row?.urlHash as string;
    expect(hash).toBeDefined();
    await gf.crawler.close();
    const marks = await LevelUrlFilter.open(join(tmp.path, 'system', 'dedup', 'url'));
    try {
      expect(await marks.has(catalog.id, 0, hash)).toBe(false);
      expect(await marks.has(catalog.id, 1, hash)).toBe(true);
    } finally {
      await marks.close();
    }
  });

  it('refuses the served version without force, and names what exists for a missing one', async () => {
    const served = await gf.versions.delete({ id: catalog.id }, { version: 1 }).catch((e: unknown) => e);
    expect(served).toBeInstanceOf(CrawlerError);
    expect((served as CrawlerError).code).toBe('CONFLICT');
    expect((served as CrawlerError).toLine()).toMatch(/search reads.*--force/);
    const missing = await gf.versions.delete({ id: catalog.id }, { version: 7 }).catch((e: unknown) => e);
    expect((missing as CrawlerError).code).toBe('NOT_FOUND');
    expect((missing as CrawlerError).toLine()).toMatch(/no version 7.*existing versions: 1\b/);
    const unknown = await gf.versions.list({ name: 'no such catalog' }).catch((e: unknown) => e);
    expect((unknown as CrawlerError).code).toBe('NOT_FOUND');
    expect(await gf.index().countVersion(catalog.id, 1)).toBe(fixtureFacts.savedCount);
  });

  it('prune keeps maxVersions, never the served version and never the one being written', async () => {
    await crawlNextVersion();
    await crawlNextVersion();
    expect((await gf.versions.list({ id: catalog.id })).map((v) => v.version)).toEqual([1, 2, 3]);
    const catalogs = await gf.catalogs();
    const current = await catalogs.get({ id: catalog.id });
    const serveOld: Catalog = { ...current, searchVersion: 1, settings: { ...current.settings, maxVersions: 1 } };
    await catalogs.save(serveOld);
    const pruned = await gf.versions.prune(serveOld);
    expect(pruned.versions).toEqual([2]);
    expect(pruned.results.filter((r) => r.error)).toEqual([]);
    expect((await gf.versions.list({ id: catalog.id })).map((v) => [v.version, v.state])).toEqual([
      [1, 'serving'],
      [3, 'published'],
    ]);
    expect(existsSync(join(tmp.path, 'user', 'assets', catalog.id, 'v2'))).toBe(false);
    expect(await gf.index().countVersion(catalog.id, 2)).toBe(0);

    const withinLimit = await gf.versions.prune({ ...serveOld, settings: { ...serveOld.settings, maxVersions: 5 } });
    expect(withinLimit.versions).toEqual([]);
  });

  it('shows the version being crawled as running, and refuses to delete or replay it meanwhile', async () => {
    const controller = new AbortController();
    let started: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => {
      started = resolve;
    });
    const crawl = gf.crawler.crawl({ id: catalog.id, signal: controller.signal, onStart: () => started() });
    try {
      await ready;
      const versions = await gf.versions.list({ id: catalog.id });
      expect(versions.find((v) => v.version === 3)?.state).toBe('running');
      await expect(gf.versions.delete({ id: catalog.id }, { version: 3, dryRun: true })).rejects.toThrow(
        /is being crawled by this process/,
      );
      await expect(gf.replay.replay({ id: catalog.id }, { version: 1, layers: ['index'] })).rejects.toThrow(
        /is being crawled/,
      );
    } finally {
      controller.abort();
      await crawl;
    }
    expect((await gf.versions.list({ id: catalog.id })).find((v) => v.version === 3)?.state).not.toBe('running');
  });

  it('keep-latest keeps the newest and the served version; --force deletes the served one and stops serving', async () => {
    const kept = await gf.versions.delete({ id: catalog.id }, { keepLatest: true, dryRun: true });
    expect(kept.versions).toEqual([]);
    const all = await gf.versions.delete({ id: catalog.id }, { all: true, force: true });
    expect(all.versions).toEqual([1, 3]);
    expect(all.searchVersion).toBe(-1);
    expect((await (await gf.catalogs()).get({ id: catalog.id })).searchVersion).toBe(-1);
    expect((await gf.published.resolve(catalog.id))?.searchVersion).toBe(-1);
    await expect(gf.search.search({ q: 'grow food on balconies' })).rejects.toThrow(/nothing has been published/);
    const vectors = new SqliteVecStore({
      root: join(tmp.path, 'user', 'vector'),
      collection: 'greenfinger_text',
      dims: (await gf.vectors()).dims,
    });
    try {
      expect(await vectors.countVersion(catalog.id, 3)).toBe(0);
    } finally {
      await vectors.close();
    }
    const purged = await gf.versions.delete({ id: catalog.id }, { all: true, force: true, purge: true });
    expect(purged.purged).toBe(true);
    expect(await gf.published.resolve(catalog.id)).toBeNull();
    expect(existsSync(join(tmp.path, 'user', 'assets', catalog.id))).toBe(false);
    expect(existsSync(join(tmp.path, 'user', 'index', `greenfinger-${catalog.id}`))).toBe(false);
  });
});
