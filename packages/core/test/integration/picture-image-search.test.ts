import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Greenfinger, type PictureSearchHit } from '@greenfinger/core';
import { findImageModel, IMAGE_MODELS } from '@greenfinger/core/internal';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GimpSite, gimpHelpMissing, startGimpSite } from '../support/gimp-site.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

// Pictures search by image (contentMode text+image) with a real image model: it runs when GF_MODEL_DIR (default
// ./models) holds one of IMAGE_MODELS and the GIMP help is installed, and is reported skipped otherwise. Never a
// stand-in model, never hand-made vectors.
const modelDir = resolve(process.env.GF_MODEL_DIR ?? 'models');
const model = Object.keys(IMAGE_MODELS).find((m) => findImageModel(modelDir, m) !== null);
const gimp = gimpHelpMissing();
const why = !model
  ? ` (no image model in ${modelDir}: greenfinger models pull --image on a machine with internet)`
  : gimp
    ? ` (${gimp})`
    : '';
const DONE_WHEN = 'the dialog for exporting webp images';
const WEBP = '/images/using/export-webp-dialog.png';

/**
 * 40 pages of the GIMP help from the chapter that shows the export dialogs, crawled with `contentMode text+image`
 * and every output on: each kept picture gets one image vector from its stored bytes, a pictures query is answered
 * with the image ranking fused in, and "pictures like this one" compares image vectors.
 */
describe.skipIf(!model || gimp !== undefined)(`pictures search by image over the GIMP help${why}`, () => {
  let site: GimpSite;
  let tmp: TempDir;
  let gf: Greenfinger;
  let catalogId = '';
  let version = 0;

  beforeAll(async () => {
    site = await startGimpSite();
    tmp = createTempDir('gf-picture-images-');
    gf = await Greenfinger.open({
      settings: { dataStore: tmp.path, workers: 1, modelDir, imageModel: model as string },
    });
    const report = await gf.crawler.crawl({
      url: `${site.origin}/`,
      startUrl: `${site.origin}/gimp-images-out.html`,
      settings: {
        maxPages: 40,
        intervalMs: 0,
        threads: 8,
        hostConcurrency: 8,
        outputs: ['file', 'index', 'vector'],
        contentMode: 'text+image',
      },
    });
    expect(report.ending.published).toBe(true);
    catalogId = report.catalogId;
    version = report.version;
  }, 900_000);

  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('writes one image vector per kept picture of a format the model reads, once whatever number of pages show it', async () => {
    const file = join(gf.layout.indexRoot, `${gf.settings.indexPrefix}-${catalogId}`, 'index.db');
    const db = new Database(file, { readonly: true });
    try {
      const raster = db
        .prepare(
          `SELECT count(*) AS n FROM pictures WHERE version = ? AND url NOT LIKE '%.svg' AND url NOT LIKE '%.ico'`,
        )
        .get(version) as { n: number };
      const vectors = db
        .prepare(
          `SELECT count(*) AS n, count(DISTINCT v.id) AS ids, min(v.dims) AS dims, max(v.dims) AS most,
                  count(DISTINCT v.model) AS models, min(v.model) AS model
           FROM picture_image_vectors v JOIN pictures p ON p.id = v.id WHERE v.version = ?`,
        )
        .get(version) as { n: number; ids: number; dims: number; most: number; models: number; model: string };
      expect(raster.n).toBeGreaterThan(50);
      expect(vectors).toMatchObject({ n: raster.n, ids: raster.n, models: 1, model });
      expect(vectors.dims).toBe((await gf.factory.imageEmbedding()).dims);
      expect(vectors.most).toBe(vectors.dims);
      const counted = await gf.factory.index().pictureImageVectorCount?.([{ catalogId, version }], model);
      expect(counted).toBe(raster.n);
    } finally {
      db.close();
    }
  });

  it('stores the vector of the picture itself: its own bytes, embedded again, find it first', async () => {
    const r = await gf.search.search({ q: DONE_WHEN, mode: 'pictures', size: 10 });
    const webp = r.results.find((h) => h.url.endsWith(WEBP)) as PictureSearchHit;
    const bytes = readFileSync(join(gf.layout.user, webp.file));
    const [vector] = await (await gf.factory.imageEmbedding()).embedImages([bytes]);
    const near = await gf.factory.index().searchPicturesByImageVector?.({
      vector: vector as Float32Array,
      model: model as string,
      scopes: [{ catalogId, version }],
      size: 3,
    });
    expect(near?.[0]?.id).toBe(webp.id);
    expect(near?.[0]?.score).toBeGreaterThan(0.99);
  });

  it('answers a pictures query with the image ranking fused in, the WebP export dialog among the first three', async () => {
    const r = await gf.search.search({ q: DONE_WHEN, mode: 'pictures', size: 10 });
    expect(r.mode).toBe('pictures');
    expect(r.rankings).toEqual(['words', 'caption meaning', 'image']);
    const urls = r.results.map((h) => new URL((h as PictureSearchHit).pictureUrl).pathname);
    expect(urls.slice(0, 3)).toContain(WEBP);
  });

  it('finds pictures like the WebP export dialog by image: other export dialogs among the first five', async () => {
    const first = await gf.search.search({ q: DONE_WHEN, mode: 'pictures', size: 10 });
    const webp = first.results.find((h) => h.url.endsWith(WEBP)) as PictureSearchHit;
    const r = await gf.search.search({ q: '', mode: 'pictures', like: webp.id, size: 5 });
    expect(r.likeBy).toBe('image');
    expect(r.likeOf?.url).toBe(webp.url);
    const paths = r.results.map((h) => new URL(h.url).pathname);
    expect(paths).not.toContain(WEBP);
    expect(paths.filter((p) => /\/images\/using\/export-.*dialog/.test(p)).length).toBeGreaterThanOrEqual(1);
    for (const [i, h] of r.results.entries())
      if (i > 0) expect(h.score).toBeLessThanOrEqual(r.results[i - 1]?.score ?? 1);
  });
});
