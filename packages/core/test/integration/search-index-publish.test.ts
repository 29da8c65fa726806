import { join } from 'node:path';
import { Greenfinger } from '@greenfinger/core';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** A crawl optimizes the full-text index of the version it publishes (champion lists, docs/search.md). */
describe('publishing a crawl optimizes its full-text index', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let gf: Greenfinger;

  beforeAll(async () => {
    site = await startFixtureSite({});
    tmp = createTempDir('gf-publish-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 1 } });
  }, 60_000);

  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('records a champion-list build of the version it publishes', async () => {
    const report = await gf.crawler.crawl({
      url: site.origin,
      startUrl: `${site.origin}/`,
      settings: { intervalMs: 0, threads: 4, hostConcurrency: 4, outputs: ['file', 'index'] },
    });
    expect(report.ending.published).toBe(true);
    const file = join(gf.layout.indexRoot, `${gf.settings.indexPrefix}-${report.catalogId}`, 'index.db');
    const db = new Database(file, { readonly: true });
    try {
      const build = db.prepare(`SELECT * FROM champion_builds WHERE version = ?`).get(report.version) as
        | { watermark: number; min_df: number; size: number; terms: number }
        | undefined;
      const docs = db.prepare(`SELECT count(*) AS n, max(rowid) AS max FROM docs`).get() as { n: number; max: number };
      expect(docs.n).toBeGreaterThan(0);
      // The fixture is far below the default threshold (4000 pages): no list, but the build and its watermark.
      expect(build).toMatchObject({ watermark: docs.max, min_df: 4000, size: 1000, terms: 0 });
    } finally {
      db.close();
    }
    const r = await gf.search.search({ q: 'the', mode: 'words', size: 5 });
    expect(r.total).toBeGreaterThan(0);
  }, 120_000);
});
