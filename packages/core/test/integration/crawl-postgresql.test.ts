import { Greenfinger } from '@greenfinger/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureFacts } from '../support/fixture-facts.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { createTestDatabase, type TestDatabase } from '../support/pg.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** The same crawl with DATABASE_URL pointing at a real PostgreSQL server: schema applied at start, rows there. */
describe('crawl with PostgreSQL as the record database', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let db: TestDatabase;
  let gf: Greenfinger;

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    tmp = createTempDir('gf-crawl-pg-');
    db = await createTestDatabase();
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, databaseUrl: db.url, workers: 1 } });
  });
  afterAll(async () => {
    await gf?.close();
    await db?.drop();
    await site?.close();
    tmp?.remove();
  });

  it('records the crawl in PostgreSQL and nothing in SQLite, and search answers', async () => {
    const report = await gf.crawler.crawl({
      url: site.origin,
      settings: { intervalMs: 0, outputs: ['file', 'index'] },
    });
    expect(report.produced.saved).toBe(fixtureFacts.savedCount);
    expect(report.ending.published).toBe(true);

    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const rows = await client.query(
        'SELECT count(*)::int AS n FROM crawler_resource WHERE catalog_id = $1 AND version = 0',
        [report.catalogId],
      );
      expect(rows.rows[0].n).toBe(fixtureFacts.savedCount);
      const catalog = await client.query('SELECT search_version FROM crawler_catalog WHERE id = $1', [
        report.catalogId,
      ]);
      expect(catalog.rows[0].search_version).toBe(0);
      const reports = await client.query('SELECT count(*)::int AS n FROM crawler_report WHERE catalog_id = $1', [
        report.catalogId,
      ]);
      expect(reports.rows[0].n).toBe(1);
    } finally {
      await client.end();
    }
    expect((await import('node:fs')).existsSync(gf.layout.sqliteFile)).toBe(false);
    const hits = await gf.search.search({ q: 'balconies' });
    expect(hits.results.length).toBeGreaterThan(0);
  });
});
