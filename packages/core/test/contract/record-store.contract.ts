import { randomBytes } from 'node:crypto';
import {
  type Catalog,
  type CatalogSettings,
  CrawlerError,
  defaultCatalogSettings,
  type ImageRow,
  ids,
  type RecordDatabase,
  type ReportRow,
  type ResourceImageRow,
  type ResourceRow,
  type RunReport,
  sha256Hex,
  urlHash,
} from '@greenfinger/core/internal';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Every field set (the defaults fill in any field added later), most of them away from their default. */
const settings: CatalogSettings = {
  ...defaultCatalogSettings,
  depth: 3,
  maxPages: 100,
  durationMinutes: 5,
  intervalMs: 100,
  threads: 4,
  hostConcurrency: 2,
  include: ['/docs/**'],
  exclude: ['/private/*'],
  outputs: ['file', 'index'],
  images: true,
  maxVersions: 10,
  maxRetries: 1,
  robots: true,
  sitemap: false,
  maxConsecutiveFailures: 20,
  acceptors: ['depth', 'path-patterns'],
  fetcher: 'http',
  contentExtractor: 'readability',
  contentDedup: 'simhash',
};

export function makeCatalog(overrides: Partial<Catalog> = {}): Catalog {
  const id = ids.catalog();
  return {
    id,
    name: `site-${randomBytes(4).toString('hex')}`,
    url: 'https://example.test/',
    startUrl: 'https://example.test/docs/',
    settings,
    indexVersion: 1,
    searchVersion: -1,
    runningState: 'none',
    createdAt: '2024-05-01T10:00:00.000Z',
    updatedAt: '2024-05-01T10:00:00.000Z',
    ...overrides,
  };
}

export function makeResource(catalogId: string, version: number, path: string, extra: Partial<ResourceRow> = {}) {
  const url = `https://example.test${path}`;
  const hash = urlHash(url);
  const id = ids.resource(catalogId, version, hash);
  const row: ResourceRow = {
    id,
    catalogId,
    version,
    url,
    urlHash: hash,
    title: `Title of ${path} — "quoted", {braces}, back\\slash`,
    contentType: 'text/html',
    charset: 'utf-8',
    status: 200,
    depth: 1,
    contentHash: sha256Hex(`body ${path}`),
    etag: null,
    lastModified: null,
    htmlPath: `assets/${catalogId}/v${version}/pages/${id.slice(0, 2)}/${id.slice(2, 4)}/${id}.html`,
    textPath: `assets/${catalogId}/v${version}/pages/${id.slice(0, 2)}/${id.slice(2, 4)}/${id}.txt`,
    htmlBytes: 1234,
    textChars: 567,
    linkDensity: 0.125,
    fetchedAt: '2024-05-01T10:00:01.250Z',
    ...extra,
  };
  return row;
}

export function makeImage(catalogId: string, version: number, name: string, extra: Partial<ImageRow> = {}): ImageRow {
  const contentHash = sha256Hex(`image ${name}`);
  return {
    id: ids.image(catalogId, version, contentHash),
    catalogId,
    version,
    url: `https://example.test/img/${name}.png`,
    contentHash,
    contentType: 'image/png',
    path: `assets/${catalogId}/v${version}/images/${name}.png`,
    bytes: 4096,
    width: 640,
    height: null,
    createdAt: '2024-05-01T10:00:02.000Z',
    ...extra,
  };
}

export function makeRef(resource: ResourceRow, image: ImageRow, alt: string): ResourceImageRow {
  return {
    id: ids.resourceImage(resource.catalogId, resource.version, resource.id, image.id),
    catalogId: resource.catalogId,
    version: resource.version,
    resourceId: resource.id,
    imageId: image.id,
    alt,
    surroundingText: `text around ${alt}`,
  };
}

export function makeReport(catalogId: string, version: number, saved: number, published = true): ReportRow {
  const report: RunReport = {
    node: 'node1',
    catalogId,
    catalog: 'site',
    version,
    action: 'crawl',
    refresh: false,
    startedAt: '2024-05-01T10:00:00.000Z',
    endedAt: '2024-05-01T10:01:00.000Z',
    elapsedMs: 60_000,
    produced: { saved, images: 1, indexed: saved, vectored: 0 },
    urls: {
      dispatched: saved,
      handled: saved,
      outstanding: 0,
      alreadySeen: 2,
      filtered: 1,
      unreachable: 0,
      duplicateContent: 0,
      failures: 0,
      abandoned: 0,
      unmodified: 0,
      redirected: 0,
    },
    rejected: { 'max-depth': 1 },
    outputs: { file: { written: saved, failed: 0 } },
    ending: { reason: 'done', fullyCrawled: true, published },
  };
  return { catalogId, version, action: 'crawl', published, report, createdAt: '2024-05-01T10:01:00.000Z' };
}

async function collect<T>(iterable: AsyncIterable<T[]>): Promise<T[][]> {
  const batches: T[][] = [];
  for await (const batch of iterable) batches.push(batch);
  return batches;
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<CrawlerError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CrawlerError);
  expect((err as CrawlerError).code).toBe(code);
  return err as CrawlerError;
}

/**
 * One suite for every RecordDatabase. `open` is called once for the suite; each test works in catalogs of its own,
 * so the database may be shared.
 */
export function describeRecordDatabaseContract(name: string, open: () => Promise<RecordDatabase>): void {
  describe(`RecordDatabase contract: ${name}`, () => {
    let db: RecordDatabase;
    beforeAll(async () => {
      db = await open();
    });
    afterAll(async () => {
      await db?.close();
    });

    describe('catalogs', () => {
      it('creates, reads back every field, finds by name and url, and lists', async () => {
        const catalog = makeCatalog({ url: `https://${randomBytes(3).toString('hex')}.test/` });
        await db.catalogs.create(catalog);
        expect(await db.catalogs.get(catalog.id)).toEqual(catalog);
        expect(await db.catalogs.findByName(catalog.name)).toEqual(catalog);
        expect(await db.catalogs.findByName('no-such-catalog')).toBeUndefined();
        expect(await db.catalogs.get(ids.catalog())).toBeUndefined();

        // A catalog stored before a settings field existed reads back with that field's default.
        const { fetcher: _f, contentExtractor: _c, acceptors: _a, contentDedup: _d, ...older } = settings;
        const old = makeCatalog({ settings: older as CatalogSettings });
        await db.catalogs.create(old);
        expect((await db.catalogs.get(old.id))?.settings).toEqual({
          ...settings,
          fetcher: 'http',
          contentExtractor: 'html',
          acceptors: [],
          contentDedup: '',
        });
        await db.catalogs.delete(old.id);

        const sibling = makeCatalog({ url: catalog.url, createdAt: '2024-05-02T00:00:00.000Z' });
        await db.catalogs.create(sibling);
        expect((await db.catalogs.findByUrl(catalog.url)).map((c) => c.id)).toEqual([catalog.id, sibling.id]);
        expect(await db.catalogs.findByUrl('https://nowhere.test/')).toEqual([]);

        const listed = await db.catalogs.list();
        expect(listed.filter((c) => c.id === catalog.id || c.id === sibling.id)).toHaveLength(2);
        const names = listed.map((c) => c.name);
        expect(names).toEqual([...names].sort());
      });

      it('normalises instants to the ISO form with milliseconds', async () => {
        const catalog = makeCatalog({ createdAt: '2024-05-01T12:00:00+02:00', updatedAt: '2024-05-01T10:00:00Z' });
        await db.catalogs.create(catalog);
        const back = await db.catalogs.get(catalog.id);
        expect(back?.createdAt).toBe('2024-05-01T10:00:00.000Z');
        expect(back?.updatedAt).toBe('2024-05-01T10:00:00.000Z');
      });

      it('rejects a second catalog with the same name as CONFLICT, and the same id too', async () => {
        const catalog = makeCatalog();
        await db.catalogs.create(catalog);
        const err = await expectCode(db.catalogs.create(makeCatalog({ name: catalog.name })), 'CONFLICT');
        expect(err.message).toContain(catalog.name);
        await expectCode(db.catalogs.create({ ...catalog, name: `${catalog.name}-2` }), 'CONFLICT');
        expect(await db.catalogs.findByName(`${catalog.name}-2`)).toBeUndefined();
      });

      it('updates every field but the id; a missing id is NOT_FOUND, a taken name CONFLICT', async () => {
        const catalog = makeCatalog();
        const other = makeCatalog();
        await db.catalogs.create(catalog);
        await db.catalogs.create(other);
        const changed: Catalog = {
          ...catalog,
          name: `${catalog.name}-renamed`,
          url: 'https://changed.test/',
          startUrl: 'https://changed.test/start',
          settings: { ...settings, depth: -1, include: [] },
          indexVersion: 3,
          searchVersion: 2,
          runningState: 'rebuild',
          updatedAt: '2024-06-01T00:00:00.000Z',
        };
        await db.catalogs.update(changed);
        expect(await db.catalogs.get(catalog.id)).toEqual(changed);
        expect(await db.catalogs.findByName(catalog.name)).toBeUndefined();
        await expectCode(db.catalogs.update(makeCatalog()), 'NOT_FOUND');
        await expectCode(db.catalogs.update({ ...changed, name: other.name }), 'CONFLICT');
        expect(await db.catalogs.get(catalog.id)).toEqual(changed);
      });

      it('deletes a catalog with all its rows and reports whether it existed', async () => {
        const catalog = makeCatalog();
        const keep = makeCatalog();
        await db.catalogs.create(catalog);
        await db.catalogs.create(keep);
        for (const c of [catalog, keep]) {
          const r = makeResource(c.id, 1, '/a');
          const i = makeImage(c.id, 1, 'a');
          await db.resources.saveResources([r]);
          await db.resources.saveImages([i]);
          await db.resources.saveResourceImages([makeRef(r, i, 'a')]);
          await db.resources.saveReport(makeReport(c.id, 1, 1));
        }
        expect(await db.catalogs.delete(catalog.id)).toBe(true);
        expect(await db.catalogs.get(catalog.id)).toBeUndefined();
        expect(await db.resources.count(catalog.id, 1)).toEqual({
          resources: 0,
          images: 0,
          resourceImages: 0,
          reports: 0,
        });
        expect(await db.resources.versions(catalog.id)).toEqual([]);
        expect(await db.catalogs.delete(catalog.id)).toBe(false);
        expect(await db.resources.count(keep.id, 1)).toEqual({
          resources: 1,
          images: 1,
          resourceImages: 1,
          reports: 1,
        });
      });
    });

    describe('resources', () => {
      it('saves and reads back every field, by id and by url hash', async () => {
        const catalog = makeCatalog();
        const row = makeResource(catalog.id, 1, '/docs/a', {
          etag: '"abc"',
          lastModified: 'Wed, 01 May 2024 10:00:00 GMT',
        });
        await db.resources.saveResources([row]);
        expect(await db.resources.getResource(row.id)).toEqual(row);
        expect(await db.resources.findResourceByUrlHash(catalog.id, 1, row.urlHash)).toEqual(row);
        expect(await db.resources.findResourceByUrlHash(catalog.id, 2, row.urlHash)).toBeUndefined();
        expect(await db.resources.getResource(ids.resource(catalog.id, 9, row.urlHash))).toBeUndefined();
      });

      it('keeps the response a page was saved from (status line, headers in order, repeats); none reads back absent', async () => {
        const catalog = makeCatalog();
        const response = {
          protocol: 'HTTP/1.1',
          status: 200,
          reason: 'OK',
          headers: [
            ['content-type', 'text/html; charset=utf-8'],
            ['set-cookie', 'a=1'],
            ['set-cookie', 'b="2"; Path=/'],
            ['x-note', 'ünïcode \\ "quoted"'],
          ] as Array<[string, string]>,
        };
        const kept = makeResource(catalog.id, 1, '/kept', { response });
        const none = makeResource(catalog.id, 1, '/none', { response: null });
        await db.resources.saveResources([kept, none]);
        expect(await db.resources.getResource(kept.id)).toEqual(kept);
        const back = await db.resources.getResource(none.id);
        expect(back).toBeDefined();
        expect(back && 'response' in back).toBe(false);
        const streamed = [];
        for await (const batch of db.resources.iterateResources(catalog.id, 1)) streamed.push(...batch);
        expect(streamed.find((r) => r.id === kept.id)?.response).toEqual(response);
      });

      it('upserts: the same id replaces the row, also twice within one batch (last wins)', async () => {
        const catalog = makeCatalog();
        const first = makeResource(catalog.id, 1, '/x');
        await db.resources.saveResources([first]);
        const second = { ...first, title: 'second', status: 304, linkDensity: 0.5, etag: 'W/"1"' };
        const third = { ...first, title: 'third' };
        await db.resources.saveResources([second, makeResource(catalog.id, 1, '/y'), third]);
        expect(await db.resources.getResource(first.id)).toEqual(third);
        expect((await db.resources.count(catalog.id, 1)).resources).toBe(2);
        await db.resources.saveResources([second]);
        expect(await db.resources.getResource(first.id)).toEqual(second);
        await db.resources.saveResources([]);
      });

      it('refuses another id for a url already saved in the version, writing nothing of the batch', async () => {
        const catalog = makeCatalog();
        const row = makeResource(catalog.id, 1, '/dup');
        await db.resources.saveResources([row]);
        const fresh = makeResource(catalog.id, 1, '/fresh');
        const clash = { ...makeResource(catalog.id, 1, '/other'), urlHash: row.urlHash };
        await expectCode(db.resources.saveResources([fresh, clash]), 'CONFLICT');
        expect(await db.resources.getResource(fresh.id)).toBeUndefined();
        expect((await db.resources.count(catalog.id, 1)).resources).toBe(1);
      });

      it('iterates one version in id order, batch rows at a time', async () => {
        const catalog = makeCatalog();
        const rows = Array.from({ length: 23 }, (_, i) => makeResource(catalog.id, 2, `/p/${i}`));
        await db.resources.saveResources(rows);
        await db.resources.saveResources([makeResource(catalog.id, 3, '/p/other-version')]);
        await db.resources.saveResources([makeResource(makeCatalog().id, 2, '/p/other-catalog')]);
        const batches = await collect(db.resources.iterateResources(catalog.id, 2, 5));
        expect(batches.map((b) => b.length)).toEqual([5, 5, 5, 5, 3]);
        const expected = [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
        expect(batches.flat()).toEqual(expected);
        expect(batches.flat().map((r) => r.id)).toEqual(expected.map((r) => r.id));
        expect(await collect(db.resources.iterateResources(catalog.id, 2, 23))).toHaveLength(1);
        expect(await collect(db.resources.iterateResources(catalog.id, 7))).toEqual([]);
        expect((await collect(db.resources.iterateResources(catalog.id, 2))).flat()).toHaveLength(23);
      });

      it("lists a version's page ids in id order and reads rows back by id (replay slices)", async () => {
        const catalog = makeCatalog();
        const rows = Array.from({ length: 12 }, (_, i) => makeResource(catalog.id, 4, `/s/${i}`));
        await db.resources.saveResources(rows);
        await db.resources.saveResources([makeResource(catalog.id, 5, '/s/other-version')]);
        const expected = [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
        const ids = await db.resources.listResourceIds(catalog.id, 4);
        expect(ids).toEqual(expected.map((r) => r.id));
        expect(ids).toEqual((await collect(db.resources.iterateResources(catalog.id, 4, 5))).flat().map((r) => r.id));
        const slice = [ids[7], ids[2], ids[5], 'not-a-page-of-this-version'] as string[];
        expect(await db.resources.resourcesByIds(catalog.id, 4, slice)).toEqual(
          expected.filter((r) => slice.includes(r.id)),
        );
        expect(await db.resources.resourcesByIds(catalog.id, 5, slice)).toEqual([]);
        expect(await db.resources.resourcesByIds(catalog.id, 4, [])).toEqual([]);
        expect(await db.resources.listResourceIds(catalog.id, 9)).toEqual([]);
      });

      it('lists a version newest fetch first (ties by id), a keyset page at a time (the blank search)', async () => {
        const catalog = makeCatalog();
        const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i % 4)).toISOString();
        const rows = Array.from({ length: 11 }, (_, i) => makeResource(catalog.id, 6, `/n/${i}`, { fetchedAt: at(i) }));
        await db.resources.saveResources(rows);
        await db.resources.saveResources([makeResource(catalog.id, 7, '/n/other-version', { fetchedAt: at(9) })]);
        const expected = [...rows].sort(
          (a, b) => Date.parse(b.fetchedAt) - Date.parse(a.fetchedAt) || (a.id < b.id ? -1 : 1),
        );
        const seen: string[] = [];
        let after: { fetchedAt: string; id: string } | undefined;
        for (let i = 0; i < 10; i++) {
          const page = await db.resources.newestResources(catalog.id, 6, 4, after);
          seen.push(...page.map((r) => r.id));
          const last = page.at(-1);
          if (page.length < 4 || !last) break;
          after = { fetchedAt: last.fetchedAt, id: last.id };
        }
        expect(seen).toEqual(expected.map((r) => r.id));
        expect(await db.resources.newestResources(catalog.id, 9, 4)).toEqual([]);
      });

      it('writes a large batch in one call', async () => {
        const catalog = makeCatalog();
        const rows = Array.from({ length: 3000 }, (_, i) => makeResource(catalog.id, 1, `/bulk/${i}`));
        // The test's timeout is the deadline; how fast the batch is written belongs to bench/.
        await db.resources.saveResources(rows);
        expect((await db.resources.count(catalog.id, 1)).resources).toBe(3000);
      });
    });

    describe('images', () => {
      it('saves images and references, iterates images, and lists the images of a page with alt text', async () => {
        const catalog = makeCatalog();
        const page = makeResource(catalog.id, 1, '/gallery');
        const otherPage = makeResource(catalog.id, 1, '/other');
        const images = Array.from({ length: 7 }, (_, i) => makeImage(catalog.id, 1, `pic${i}`));
        await db.resources.saveResources([page, otherPage]);
        await db.resources.saveImages(images);
        await db.resources.saveImages([{ ...(images[0] as ImageRow), width: 800, height: 600 }]);
        const refs = [makeRef(page, images[0] as ImageRow, 'first'), makeRef(page, images[3] as ImageRow, 'fourth')];
        await db.resources.saveResourceImages([...refs, makeRef(otherPage, images[1] as ImageRow, 'elsewhere')]);
        await db.resources.saveResourceImages([{ ...(refs[1] as ResourceImageRow), alt: 'fourth, edited' }]);

        const batches = await collect(db.resources.iterateImages(catalog.id, 1, 3));
        expect(batches.map((b) => b.length)).toEqual([3, 3, 1]);
        const all = batches.flat();
        expect(all.map((i) => i.id)).toEqual(images.map((i) => i.id).sort());
        expect(all.find((i) => i.id === images[0]?.id)).toMatchObject({ width: 800, height: 600 });
        expect(all.find((i) => i.id === images[2]?.id)).toEqual(images[2]);

        const ofPage = await db.resources.imagesOfResource(page.id);
        expect(ofPage).toHaveLength(2);
        const byId = new Map(ofPage.map((i) => [i.id, i]));
        expect(byId.get(images[0]?.id as string)).toEqual({
          ...images[0],
          width: 800,
          height: 600,
          alt: 'first',
          surroundingText: 'text around first',
        });
        expect(byId.get(images[3]?.id as string)).toMatchObject({
          alt: 'fourth, edited',
          surroundingText: 'text around fourth',
        });
        expect(await db.resources.imagesOfResource(makeResource(catalog.id, 1, '/none').id)).toEqual([]);
        expect(await db.resources.count(catalog.id, 1)).toEqual({
          resources: 2,
          images: 7,
          resourceImages: 3,
          reports: 0,
        });
      });
    });

    describe('versions and deletion', () => {
      it('lists versions with any rows and deletes one version per table without touching the others', async () => {
        const catalog = makeCatalog();
        const other = makeCatalog();
        await db.catalogs.create(catalog);
        const fill = async (catalogId: string, version: number, pages: number) => {
          const resources = Array.from({ length: pages }, (_, i) => makeResource(catalogId, version, `/v/${i}`));
          const image = makeImage(catalogId, version, 'logo');
          await db.resources.saveResources(resources);
          await db.resources.saveImages([image]);
          await db.resources.saveResourceImages(resources.map((r) => makeRef(r, image, 'logo')));
          await db.resources.saveReport(makeReport(catalogId, version, pages));
        };
        await fill(catalog.id, 1, 3);
        await fill(catalog.id, 2, 4);
        await fill(catalog.id, 5, 2);
        await fill(other.id, 2, 6);
        await db.resources.saveImages([makeImage(catalog.id, 7, 'only-an-image')]);
        expect(await db.resources.versions(catalog.id)).toEqual([1, 2, 5, 7]);
        expect(await db.resources.versions(ids.catalog())).toEqual([]);

        const removed = await db.resources.deleteVersion(catalog.id, 2);
        expect(removed).toEqual({
          crawler_url: 0,
          crawler_resource: 4,
          crawler_image: 1,
          crawler_resource_image: 4,
          crawler_report: 1,
        });
        expect(await db.resources.count(catalog.id, 2)).toEqual({
          resources: 0,
          images: 0,
          resourceImages: 0,
          reports: 0,
        });
        expect(await db.resources.count(catalog.id, 1)).toEqual({
          resources: 3,
          images: 1,
          resourceImages: 3,
          reports: 1,
        });
        expect(await db.resources.count(catalog.id, 5)).toEqual({
          resources: 2,
          images: 1,
          resourceImages: 2,
          reports: 1,
        });
        expect(await db.resources.count(other.id, 2)).toEqual({
          resources: 6,
          images: 1,
          resourceImages: 6,
          reports: 1,
        });
        expect(await db.resources.versions(catalog.id)).toEqual([1, 5, 7]);
        expect(await db.catalogs.get(catalog.id)).toEqual(catalog);

        expect(await db.resources.deleteVersion(catalog.id, 2)).toEqual({
          crawler_url: 0,
          crawler_resource: 0,
          crawler_image: 0,
          crawler_resource_image: 0,
          crawler_report: 0,
        });
      });
    });

    describe('reports', () => {
      it('keeps one report per version, replaced by a later run, and lists them by version', async () => {
        const catalog = makeCatalog();
        await db.resources.saveReport(makeReport(catalog.id, 2, 10, false));
        await db.resources.saveReport(makeReport(catalog.id, 1, 5));
        const replacement = {
          ...makeReport(catalog.id, 2, 12),
          action: 'resume' as const,
          createdAt: '2024-05-02T00:00:00.000Z',
        };
        await db.resources.saveReport(replacement);

        expect(await db.resources.getReport(catalog.id, 2)).toEqual(replacement);
        expect(await db.resources.getReport(catalog.id, 3)).toBeUndefined();
        const listed = await db.resources.listReports(catalog.id);
        expect(listed.map((r) => [r.version, r.published, r.report.produced.saved])).toEqual([
          [1, true, 5],
          [2, true, 12],
        ]);
        expect(listed[0]).toEqual(makeReport(catalog.id, 1, 5));
        expect((await db.resources.count(catalog.id, 2)).reports).toBe(1);
        expect(await db.resources.listReports(ids.catalog())).toEqual([]);
      });
    });
  });
}

/** The PostgreSQL server tests use: GF_TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres. */
export const testPgUrl = process.env.GF_TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
/** GF_TEST_SKIP_PG=1 skips the PostgreSQL runs (only where no server can exist; CI always has one). */
export const skipPg = process.env.GF_TEST_SKIP_PG === '1';

/** A throw-away database `gf_test_<random>` on the test server, dropped by `drop()`. */
export interface PgTestDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

export async function createPgTestDatabase(): Promise<PgTestDatabase> {
  const admin = new pg.Client({ connectionString: testPgUrl, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (err) {
    await admin.end().catch(() => undefined);
    throw new Error(
      `cannot connect to PostgreSQL at ${testPgUrl.replace(/:[^:@/]*@/, ':***@')} (${(err as Error).message}). ` +
        'Start a server (see docs/database.md), point GF_TEST_PG_URL at one, or set GF_TEST_SKIP_PG=1 to skip these tests.',
    );
  }
  const name = `gf_test_${randomBytes(6).toString('hex')}`;
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(testPgUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: testPgUrl, connectionTimeoutMillis: 5000 });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
