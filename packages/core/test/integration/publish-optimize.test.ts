import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Catalog, Greenfinger } from '@greenfinger/core';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureFacts } from '../support/fixture-facts.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

const modelDir = fileURLToPath(new URL('../fixtures/models/', import.meta.url));

/**
 * What a publish leaves behind in the full-text index, with champion lists and word pairs built even for the small
 * fixture site: a catalog at its maxVersions, whose prune after publishing removes its oldest version.
 */
describe('publish: the index is optimized after the versions the prune removes have left it', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let gf: Greenfinger;
  let catalog: Catalog;
  const crawlSettings = { intervalMs: 0, threads: 4, hostConcurrency: 4, maxVersions: 2 };
  const crawlNextVersion = async () => {
    const catalogs = await gf.catalogs();
    const current = await catalogs.get({ id: catalog.id });
    await catalogs.save({ ...current, indexVersion: current.indexVersion + 1 });
    return gf.crawler.crawl({ id: catalog.id, settings: crawlSettings });
  };
  const indexState = () => {
    const db = new Database(join(tmp.path, 'user', 'index', `greenfinger-${catalog.id}`, 'index.db'), {
      readonly: true,
    });
    try {
      const meta = Object.fromEntries(
        (db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>).map((r) => [
          r.key,
          r.value,
        ]),
      );
      const builds = db.prepare('SELECT version, changes FROM champion_builds ORDER BY version').all();
      const versions = db.prepare('SELECT DISTINCT version FROM docs ORDER BY version').all();
      return { meta, builds, versions };
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    tmp = createTempDir('gf-publish-optimize-');
    gf = await Greenfinger.open({
      settings: { dataStore: tmp.path, modelDir, textModel: 'tiny-e5', workers: 1, championMinDf: 3, pairsMinDocs: 3 },
    });
    await gf.crawler.crawl({ url: site.origin, startUrl: `${site.origin}/`, settings: crawlSettings });
    catalog = (await (await gf.catalogs()).list())[0] as Catalog;
    expect((await crawlNextVersion()).ending.published).toBe(true);
  }, 120_000);

  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('the third version: version 0 pruned before the lists and pairs are built, so both stay current', async () => {
    expect((await crawlNextVersion()).ending.published).toBe(true);
    const { meta, builds, versions } = indexState();
    // Version 0 is gone (pruned), 1 and 2 remain; the build of 2 saw every change the file has had.
    expect(versions).toEqual([{ version: 1 }, { version: 2 }]);
    expect((await gf.versions.list({ id: catalog.id })).map((v) => v.version)).toEqual([1, 2]);
    expect(builds).toContainEqual({ version: 2, changes: Number(meta.changes) });
    expect(meta.pairs_changes).toBe(meta.changes);
    const hits = await gf.search.search({ q: 'balconies', size: 5 });
    expect(hits.results.length).toBeGreaterThan(0);
    expect(hits.results.every((h) => h.version === 2)).toBe(true);
    expect(await gf.index().countVersion(catalog.id, 2)).toBe(fixtureFacts.savedCount);
  });
});
