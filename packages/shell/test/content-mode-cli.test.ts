import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../../core/test/support/fixture-site.js';
import { createTempDir, type TempDir } from '../../core/test/support/tmp.js';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** The built CLI as a process; resolves with its exit code and output (bounded: 120 s). */
function cli(args: string[], env: Record<string, string>) {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: build the shell first (npx tsc -b packages/shell)`);
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      err += b.toString();
    });
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/**
 * `--content-mode text+image` on a node whose GF_MODEL_DIR holds no image model: the crawl refuses to start with one
 * line naming the model, the folder and the fixes, exits 2 and writes nothing — no catalog, no page, no index.
 */
describe('--content-mode (CLI)', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let data: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    site = await startFixtureSite();
    tmp = createTempDir('gf-content-mode-');
    data = join(tmp.path, 'data');
    const models = join(tmp.path, 'models');
    mkdirSync(models);
    env = { GF_MODEL_DIR: models, GF_IMAGE_MODEL: 'clip-vit-base-patch32', GF_LOG_LEVEL: 'warn' };
  }, 60_000);
  afterAll(async () => {
    await site?.close();
    tmp?.remove();
  });

  it('refuses a text+image crawl without the image model in one line, exit 2, nothing written', async () => {
    const r = await cli(
      [
        'crawl',
        '--url',
        site.startUrl,
        '--name',
        'pics',
        '--max-pages',
        '3',
        '--content-mode',
        'text+image',
        '--data',
        data,
      ],
      env,
    );
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    const lines = r.err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('clip-vit-base-patch32');
    expect(lines[0]).toContain(join(tmp.path, 'models'));
    expect(lines[0]).toContain('greenfinger models pull --image');
    expect(lines[0]).toContain('--content-mode text');
    const list = await cli(['catalog', 'list', '--json', '--data', data], env);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.out)).toEqual([]);
    expect(existsSync(join(data, 'user', 'index')) ? readdirSync(join(data, 'user', 'index')) : []).toEqual([]);
  }, 120_000);

  it('a catalog defined as text+image shows it, and its crawl is refused the same way', async () => {
    const created = await cli(
      [
        'catalog',
        'create',
        '--url',
        site.startUrl,
        '--name',
        'defined',
        '--content-mode',
        'text+image',
        '--data',
        data,
      ],
      env,
    );
    expect(created.code).toBe(0);
    const show = await cli(['catalog', 'show', '--name', 'defined', '--data', data], env);
    expect(show.out).toMatch(/content mode text\+image/);
    expect(show.out).toMatch(/^ {2}version 0: 0 caption vectors · 0 image vectors \(content mode text\+image\)$/m);
    const r = await cli(['crawl', '--name', 'defined', '--max-pages', '3', '--data', data], env);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toContain('greenfinger models pull --image clip-vit-base-patch32');
    const json = await cli(['catalog', 'show', '--name', 'defined', '--json', '--data', data], env);
    expect(JSON.parse(json.out)).toMatchObject({ settings: { contentMode: 'text+image' }, searchVersion: -1 });
  }, 120_000);

  it('refuses replay --layers index+vector of a catalog turned text+image in one line; as text it runs', async () => {
    const crawled = await cli(
      ['crawl', '--url', site.startUrl, '--name', 'turned', '--max-pages', '3', '--interval', '0', '--data', data],
      env,
    );
    expect(crawled.code, crawled.err).toBe(0);
    const updated = await cli(['catalog', 'update', 'turned', '--content-mode', 'text+image', '--data', data], env);
    expect(updated.code, updated.err).toBe(0);
    const r = await cli(['replay', '--name', 'turned', '--layers', 'index+vector', '--json', '--data', data], env);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/contentMode text\+image: no image model clip-vit-base-patch32 in /);
    // As text again, the same replay runs.
    await cli(['catalog', 'update', 'turned', '--content-mode', 'text', '--data', data], env);
    const again = await cli(['replay', '--name', 'turned', '--layers', 'vector', '--json', '--data', data], env);
    expect(again.code, again.err).toBe(0);
  }, 180_000);

  it('refuses a mode it does not know, naming the flag and the modes', async () => {
    const r = await cli(['catalog', 'create', '--url', site.startUrl, '--content-mode', 'images', '--data', data], env);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--content-mode must be text or text\+image, got "images"/);
  }, 60_000);
});
