import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Catalog,
  type CrawledPage,
  type CrawlerError,
  Greenfinger,
  type OutputChannel,
  type ResourceRow,
  type SearchResponse,
} from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureFacts } from '../support/fixture-facts.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

const QUERIES = ['grow food on balconies', 'smooth, shiny sausage', 'winter rye or crimson clover'];

/** An output channel that keeps the pages written to it (what a cluster member sends on to the others). */
class KeptPages implements OutputChannel {
  readonly layer = 'kept';
  readonly pages: CrawledPage[] = [];
  flushes = 0;
  closed = false;
  async write(page: CrawledPage): Promise<void> {
    this.pages.push(page);
  }
  async flush(): Promise<void> {
    this.flushes++;
  }
  async deleteVersion(): Promise<{ count: number; bytes: number }> {
    return { count: 0, bytes: 0 };
  }
  counts() {
    return { written: this.pages.length, failed: 0 };
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

describe('replay in slices: the pages named, under one run lock, republished once at the end', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let gf: Greenfinger;
  let catalog: Catalog;
  let ids: string[];
  let before: SearchResponse[];
  const open = () => Greenfinger.open({ settings: { dataStore: tmp.path, workers: 1 } });
  const user = (key: string) => join(tmp.path, 'user', key);
  const searches = async (): Promise<SearchResponse[]> => {
    const out: SearchResponse[] = [];
    for (const q of QUERIES) out.push(await gf.search.search({ q, size: 5 }));
    return out.map((r) => ({ ...r, elapsedMs: 0 }));
  };

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    tmp = createTempDir('gf-replay-slices-');
    gf = await open();
    const report = await gf.crawler.crawl({
      url: site.origin,
      startUrl: `${site.origin}/`,
      settings: { intervalMs: 0, threads: 4, hostConcurrency: 4, outputs: ['file', 'index'] },
    });
    expect(report.ending.published).toBe(true);
    catalog = (await (await gf.catalogs()).list())[0] as Catalog;
    before = await searches();
    expect(before[0]?.results.length).toBeGreaterThan(0);
    ids = await gf.replay.resourceIds(catalog.id, 0);
  }, 120_000);

  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('lists every page id of the version in id order', async () => {
    expect(ids).toHaveLength(fixtureFacts.savedCount);
    expect(ids).toEqual([...ids].sort());
  });

  it('index in slices of 5 after user/index is deleted: every page once, catalogs.json written only by finish, zero requests', async () => {
    await gf.close();
    rmSync(join(tmp.path, 'user', 'index'), { recursive: true });
    gf = await open();
    site.clear();
    site.other.clear();
    const kept = new KeptPages();
    const session = await gf.replay.open({ id: catalog.id }, { layers: ['index'], indexChannels: [kept] });
    let sum = 0;
    try {
      // The session holds the catalog's run lock from open to close: a crawl of it is refused meanwhile.
      expect((await gf.runs.holder(catalog.id))?.action).toBe('replay');
      await expect(gf.crawler.crawl({ id: catalog.id })).rejects.toMatchObject({ code: 'CONFLICT' });
      for (let i = 0; i < ids.length; i += 5) {
        const slice = await session.run({ resourceIds: ids.slice(i, i + 5), missing: 'absent' });
        expect(slice.absent).toEqual([]);
        expect(slice.layers.index?.failed).toBe(0);
        expect(slice.layers.index?.written).toBe(slice.pages);
        sum += slice.pages;
      }
      // No slice rewrote the search registry: search still has nothing published here.
      expect(existsSync(join(tmp.path, 'user', 'index', 'catalogs.json'))).toBe(false);
      const report = await session.finish();
      expect(report.republished).toBe(true);
      expect(report.layers.index).toEqual({ written: fixtureFacts.savedCount, failed: 0 });
      expect(report.requests).toBe(0);
    } finally {
      await session.close();
    }
    expect(sum).toBe(fixtureFacts.savedCount);
    expect(kept.pages.map((p) => p.resource.id).sort()).toEqual(ids);
    expect(kept.closed).toBe(true);
    expect(await gf.runs.holder(catalog.id)).toBeUndefined();
    expect(site.requests).toHaveLength(0);
    expect(site.other.requests).toHaveLength(0);
    expect(await searches()).toEqual(before);
  });

  it('pages whose files are not here are absent (no request, not failed) until asked to refetch them', async () => {
    const db = await gf.database();
    const slice = ids.slice(0, 8);
    const rows = (await db.resources.resourcesByIds(catalog.id, 0, slice)).filter((r) =>
      r.contentType.startsWith('text/html'),
    );
    const [a, b] = rows as [ResourceRow, ResourceRow];
    const original = new Map([a.htmlPath, a.textPath, b.htmlPath, b.textPath].map((k) => [k, readFileSync(user(k))]));
    for (const key of original.keys()) rmSync(user(key));
    site.clear();

    const session = await gf.replay.open({ id: catalog.id }, { layers: ['file', 'index'] });
    try {
      const first = await session.run({ resourceIds: slice, missing: 'absent' });
      expect(first.absent).toEqual([a.id, b.id].sort());
      expect(first.requests).toBe(0);
      expect(site.requests).toHaveLength(0);
      expect(first.layers.file?.pages).toMatchObject({ checked: slice.length - 2, unreachable: 0, written: 0 });
      expect(first.layers.index).toEqual({ written: slice.length - 2, failed: 0 });

      const second = await session.run({ resourceIds: first.absent, missing: 'refetch' });
      expect(second.absent).toEqual([]);
      expect(second.requests).toBe(2);
      expect(second.layers.file?.pages).toMatchObject({ checked: 2, written: 2, unreachable: 0 });
      expect(second.layers.index).toEqual({ written: 2, failed: 0 });
      const report = await session.finish({ republish: false });
      expect(report.republished).toBe(false);
      expect(report.layers.index).toEqual({ written: slice.length, failed: 0 });
      expect(report.layers.file?.pages.checked).toBe(slice.length);
    } finally {
      await session.close();
    }
    for (const [key, bytes] of original) expect(readFileSync(user(key)).equals(bytes), key).toBe(true);
    expect(await searches()).toEqual(before);
  });

  it('a slice naming ids of no page of the version does nothing; a finished session takes no more slices', async () => {
    const session = await gf.replay.open({ id: catalog.id }, { layers: ['index'] });
    try {
      const none = await session.run({ resourceIds: ['00000000-0000-0000-0000-000000000000'] });
      expect(none.pages).toBe(0);
      expect(none.layers.index).toEqual({ written: 0, failed: 0 });
    } finally {
      await session.close();
    }
    await expect(session.run({ resourceIds: ids.slice(0, 1) })).rejects.toMatchObject({
      code: 'CONFLICT',
    } satisfies Partial<CrawlerError>);
  });
});
