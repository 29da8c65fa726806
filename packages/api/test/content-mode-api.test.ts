import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../../core/test/support/fixture-site.js';
import { createTempDir, type TempDir } from '../../core/test/support/tmp.js';
import { type ApiFixture, openApiFixture } from './support/api-fixture.js';

/**
 * The catalog setting contentMode over the API, on a node whose GF_MODEL_DIR holds no image model: a catalog may be
 * defined as text+image, but its crawl is refused before any job starts, one 400 naming the model, the folder and
 * the fix; an unknown mode is a 400 naming the field.
 */
describe('contentMode text+image without an image model (API)', () => {
  let site: FixtureSite;
  let f: ApiFixture;
  let tmp: TempDir;
  let models: string;

  beforeAll(async () => {
    site = await startFixtureSite();
    tmp = createTempDir('gf-content-mode-api-');
    models = join(tmp.path, 'models');
    mkdirSync(models);
    f = await openApiFixture({ settings: { modelDir: models, imageModel: 'siglip-base-patch16-224' } });
  }, 60_000);
  afterAll(async () => {
    await f?.close();
    await site?.close();
    tmp?.remove();
  });

  it('stores the setting, then refuses the crawl with one 400 and starts no job', async () => {
    const created = await f.call({
      method: 'POST',
      url: '/v2/catalog',
      as: 'admin',
      payload: { name: 'pics', url: `${site.origin}/`, settings: { intervalMs: 0, contentMode: 'text+image' } },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data.settings.contentMode).toBe('text+image');
    const started = await f.call({ method: 'POST', url: '/v2/crawl/pics', as: 'admin' });
    expect(started.statusCode, started.body).toBe(400);
    const message = started.json().message as string;
    expect(message).toContain('siglip-base-patch16-224');
    // The folder is named as the server's errors name paths (its absolute path is not told to clients).
    expect(message).toMatch(
      /^contentMode text\+image: no image model siglip-base-patch16-224 in \S*models \(GF_MODEL_DIR/,
    );
    expect(message).toContain('greenfinger models pull --image');
    expect(message).not.toContain('\n');
    const running = await f.call({ method: 'GET', url: '/v2/catalog/running', as: 'support' });
    expect(JSON.stringify(running.json().data)).not.toContain('pics');
    // Crawling it as text (the fix) starts.
    const asText = await f.call({
      method: 'POST',
      url: '/v2/crawl/pics',
      as: 'admin',
      payload: { settings: { contentMode: 'text', maxPages: 2 } },
    });
    expect(asText.statusCode, asText.body).toBe(202);
  });

  it('refuses a mode it does not know, naming the field', async () => {
    const bad = await f.call({
      method: 'POST',
      url: '/v2/catalog',
      as: 'admin',
      payload: { name: 'bad', url: `${site.origin}/x/`, settings: { contentMode: 'image' } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/contentMode/);
  });
});
