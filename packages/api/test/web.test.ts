import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '@greenfinger/api';
import { Greenfinger } from '@greenfinger/core';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../../core/test/support/tmp.js';

/** The page's files as `pnpm run build` lays them out, served by `buildApp` from a folder of our own. */
describe('the page at /', () => {
  let tmp: TempDir;
  let gf: Greenfinger;
  let app: FastifyInstance;
  let bare: FastifyInstance;

  beforeAll(async () => {
    tmp = createTempDir('gf-web-');
    const root = join(tmp.path, 'web');
    mkdirSync(join(root, 'assets'), { recursive: true });
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>Greenfinger</title><script src="app.js"></script>');
    writeFileSync(join(root, 'app.js'), 'console.log(1)');
    writeFileSync(join(root, 'style.css'), 'body{}');
    gf = await Greenfinger.open({ settings: { dataStore: join(tmp.path, 'data'), workers: 0 } });
    app = await buildApp(gf, { webRoot: root });
    bare = await buildApp(gf, { webRoot: join(tmp.path, 'not-built') });
  });
  afterAll(async () => {
    await app?.close();
    await bare?.close();
    await gf?.close();
    tmp?.remove();
  });

  it('answers index.html at / without a token, under a CSP with no inline scripts', async () => {
    const r = await app.inject({ method: 'GET', url: '/' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.body).toContain('<title>Greenfinger</title>');
    const csp = String(r.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-src 'self' blob:");
    expect(csp).not.toContain('upgrade-insecure-requests');
  });

  it('serves the files of the folder, open, with their types', async () => {
    const js = await app.inject({ method: 'GET', url: '/app.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect((await app.inject({ method: 'GET', url: '/style.css' })).headers['content-type']).toMatch(/^text\/css/);
  });

  it('keeps the JSON 404 for unknown paths, under /v2 above all — never the page', async () => {
    for (const url of ['/v2/nothing-here', '/v2/catalog/x/nothing', '/nothing.js', '/index.htm']) {
      const r = await app.inject({ method: 'GET', url });
      expect(r.statusCode, url).toBe(404);
      expect(r.headers['content-type'], url).toMatch(/^application\/json/);
      expect(r.json(), url).toMatchObject({ success: false, data: null });
    }
    expect((await app.inject({ method: 'GET', url: '/v2/catalog' })).statusCode).toBe(401);
  });

  it('leaves the files out of the API description', async () => {
    const spec = (await app.inject({ method: 'GET', url: '/v2/openapi.json' })).json() as { paths: object };
    expect(Object.keys(spec.paths).filter((p) => !p.startsWith('/v2'))).toEqual([]);
  });

  it('says how to build the page when the folder has none', async () => {
    const r = await bare.inject({ method: 'GET', url: '/' });
    expect(r.statusCode).toBe(503);
    expect(r.json().message).toMatch(/pnpm run build/);
  });
});
