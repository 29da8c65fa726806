import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileRenderMemory } from '../../src/fetch/file-render-memory.js';
import {
  adviseRender,
  DEFAULT_RENDER_POLICY,
  observe,
  type PatternRecord,
  type RenderObservation,
} from '../../src/fetch/render-memory.js';
import { renderPattern } from '../../src/fetch/render-pattern.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

const pattern = (u: string) => renderPattern(new URL(u));

describe('renderPattern', () => {
  it('generalises the last segment, keeping a file extension, and id-looking segments', () => {
    const cases: [string, string][] = [
      ['https://x.test/', '/'],
      ['https://x.test/about', '/*'],
      ['https://x.test/blog/my-first-post', '/blog/*'],
      ['https://x.test/blog/', '/blog/'],
      ['https://x.test/blog/2024/05/my-post', '/blog/*/*/*'],
      ['https://x.test/products/123/reviews', '/products/*/*'],
      ['https://x.test/products/456/reviews?page=2', '/products/*/*'],
      ['https://x.test/u/0f8b2c1e-4a5d-4c3b-9e2f-1a2b3c4d5e6f/settings', '/u/*/*'],
      ['https://x.test/c/deadbeef42/files/', '/c/*/files/'],
      ['https://x.test/docs/v2/intro.html', '/docs/v2/*.html'],
      ['https://x.test/docs/library/os.path.html', '/docs/library/*.html'],
      ['https://x.test/news/item-20240517/x', '/news/*/*'],
      ['https://x.test/app/#/users/7', '/app/#/*'],
      ['https://x.test/app/#!/users/7', '/app/#!/*'],
      ['https://x.test/page#section-2', '/*'],
      ['https://x.test/a/b/c/d/e/f/g/h/i/j/k', '/a/b/c/d/e/f/g/h/**/*'],
      ['https://x.test/a/b/c/d/e/f/g/h/i', '/a/b/c/d/e/f/g/h/*'],
    ];
    for (const [url, want] of cases) expect(pattern(url), url).toBe(want);
  });

  it('keeps words: pages of different sections are different patterns', () => {
    expect(pattern('https://x.test/blog/a')).not.toBe(pattern('https://x.test/shop/a'));
    expect(pattern('https://x.test/s/1')).toBe(pattern('https://x.test/s/2'));
  });
});

const seen = (needed: RenderObservation['needed'], checked = needed !== 'unchecked'): RenderObservation => ({
  needed,
  checked,
});
const run = (observations: RenderObservation[], from?: PatternRecord) =>
  observations.reduce<PatternRecord | undefined>((r, o) => observe(r, o, 1), from);

describe('the render policy', () => {
  const policy = DEFAULT_RENDER_POLICY;

  it('asks the detector about a pattern it knows nothing or too little of', () => {
    expect(adviseRender(undefined, policy)).toBe('detect');
    expect(adviseRender(run([seen('render'), seen('render')]), policy)).toBe('detect');
    expect(adviseRender(run(Array(19).fill(seen('http'))), policy)).toBe('detect');
  });

  it('after 3 renders in a row sends the pattern straight to the browser, re-checking every 50th page', () => {
    let r = run([seen('render'), seen('render'), seen('render')]);
    expect(adviseRender(r, policy)).toBe('render');
    let advices = '';
    for (let i = 0; i < 100; i++) {
      const a = adviseRender(r, policy);
      advices += a[0];
      r = observe(r, a === 'render' ? seen('render', false) : seen('render'), 1);
    }
    // 49 on the memory's word, then one through the detector, twice over.
    expect(advices).toBe(`${'r'.repeat(49)}d${'r'.repeat(49)}d`);
    expect(r).toMatchObject({ rendered: 103, http: 0, streak: 103 });
  });

  it('after 20 pages in a row that needed no browser stops asking the detector, re-checking every 50th', () => {
    let r = run(Array(20).fill(seen('http')));
    expect(adviseRender(r, policy)).toBe('http');
    let detected = 0;
    for (let i = 0; i < 200; i++) {
      const a = adviseRender(r, policy);
      if (a === 'detect') detected++;
      r = observe(r, a === 'http' ? seen('unchecked') : seen('http'), 1);
    }
    expect(detected).toBe(4);
    expect(r).toMatchObject({ http: 24, unchecked: 196, streak: -24 });
  });

  it('a render that found nothing, or a re-check that finds the page complete, ends the remembered render', () => {
    const shell = run([seen('render'), seen('render'), seen('render')]);
    expect(adviseRender(observe(shell, seen('static', false)), policy)).toBe('detect');
    expect(adviseRender(observe(shell, seen('http')), policy)).toBe('detect');
    // A render needed breaks a static run: the detector is asked again.
    expect(adviseRender(observe(run(Array(25).fill(seen('http'))), seen('render')), policy)).toBe('detect');
  });

  it('renders that find the page static after all count towards a static pattern', () => {
    const r = run(Array(20).fill(seen('static')));
    expect(r).toMatchObject({ static: 20, rendered: 0, streak: -20 });
    expect(adviseRender(r, policy)).toBe('http');
  });

  it('0 turns a side of the memory off', () => {
    const shell = run(Array(10).fill(seen('render')));
    const plain = run(Array(30).fill(seen('http')));
    expect(adviseRender(shell, { ...policy, renderAfter: 0 })).toBe('detect');
    expect(adviseRender(plain, { ...policy, staticAfter: 0 })).toBe('detect');
  });
});

describe('FileRenderMemory', () => {
  let tmp: TempDir;
  afterEach(() => tmp?.remove());

  it('keeps counts across instances (runs), one JSON file per host, written in batches', async () => {
    tmp = createTempDir('gf-render-memory-');
    const a = new FileRenderMemory(tmp.path, { flushDelayMs: 60_000 });
    for (let i = 0; i < 5; i++) await a.record('shop.test', '/p/*', seen('render'));
    await a.record('shop.test', '/', seen('http'));
    await a.record('blog.test:8080', '/posts/*', seen('http'));
    // Nothing written before the batch is due.
    expect(a.writes).toBe(0);
    expect(existsSync(a.fileOf('shop.test'))).toBe(false);
    await a.close();
    expect(a.writes).toBe(2);
    const file = JSON.parse(readFileSync(a.fileOf('shop.test'), 'utf8'));
    expect(file).toMatchObject({ format: 1, host: 'shop.test', patterns: { '/p/*': { rendered: 5, streak: 5 } } });
    expect(a.fileOf('blog.test:8080')).toMatch(/render-memory-.*\/[0-9a-f]{2}\/blog\.test%3A8080\.json$/);

    const b = new FileRenderMemory(tmp.path);
    expect(await b.get('shop.test', '/p/*')).toMatchObject({ rendered: 5, streak: 5 });
    expect(await b.get('shop.test', '/nothing/*')).toBeUndefined();
    expect(await b.get('other.test', '/')).toBeUndefined();
    await b.close();
    // No temporary file is left behind.
    expect(readdirSync(dirname(a.fileOf('shop.test'))).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('flushes by itself once the batch is due', async () => {
    tmp = createTempDir('gf-render-memory-');
    const m = new FileRenderMemory(tmp.path, { flushDelayMs: 50 });
    await m.record('a.test', '/x/*', seen('http'));
    const end = Date.now() + 5000;
    while (m.writes === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect(m.writes).toBe(1);
    expect(existsSync(m.fileOf('a.test'))).toBe(true);
    await m.close();
  });

  it('a file that does not read (a torn or edited one) is started afresh, and rewritten whole', async () => {
    tmp = createTempDir('gf-render-memory-');
    const first = new FileRenderMemory(tmp.path);
    await first.record('a.test', '/x/*', seen('render'));
    await first.close();
    const file = first.fileOf('a.test');
    writeFileSync(file, '{"format":1,"host":"a.test","patt');
    const warnings: unknown[] = [];
    const log = { warn: (o: unknown) => warnings.push(o) } as unknown as import('../../src/logger.js').Logger;
    const m = new FileRenderMemory(tmp.path, { log });
    expect(await m.get('a.test', '/x/*')).toBeUndefined();
    expect(warnings).toHaveLength(1);
    await m.record('a.test', '/y/*', seen('http'));
    await m.close();
    expect(JSON.parse(readFileSync(file, 'utf8')).patterns['/y/*']).toMatchObject({ http: 1 });
    // A record that is not one is dropped, the rest kept.
    writeFileSync(
      file,
      JSON.stringify({
        format: 1,
        host: 'a.test',
        patterns: { '/ok/*': observe(undefined, seen('http')), '/bad/*': 7 },
      }),
    );
    const again = new FileRenderMemory(tmp.path);
    expect(await again.get('a.test', '/ok/*')).toMatchObject({ http: 1 });
    expect(await again.get('a.test', '/bad/*')).toBeUndefined();
    await again.close();
  });

  it('bounds the patterns of a host: the least recently seen is forgotten', async () => {
    tmp = createTempDir('gf-render-memory-');
    const m = new FileRenderMemory(tmp.path, { maxPatternsPerHost: 3 });
    for (const p of ['/a/*', '/b/*', '/c/*']) await m.record('h.test', p, seen('http'));
    await m.record('h.test', '/a/*', seen('http'));
    await m.record('h.test', '/d/*', seen('http'));
    expect(await m.get('h.test', '/b/*')).toBeUndefined();
    expect(await m.get('h.test', '/a/*')).toMatchObject({ http: 2 });
    await m.close();
    expect(Object.keys(JSON.parse(readFileSync(m.fileOf('h.test'), 'utf8')).patterns).sort()).toEqual([
      '/a/*',
      '/c/*',
      '/d/*',
    ]);
  });

  it('a write that fails is kept in memory and written on the next flush', async () => {
    tmp = createTempDir('gf-render-memory-');
    const m = new FileRenderMemory(tmp.path);
    const file = m.fileOf('a.test');
    // A file where the host's folder should be: the write fails.
    writeFileSync(dirname(file), 'not a folder');
    await m.record('a.test', '/x/*', seen('render'));
    await m.flush();
    expect(m.writes).toBe(0);
    const { rmSync } = await import('node:fs');
    rmSync(dirname(file));
    await m.close();
    expect(m.writes).toBe(1);
    expect(JSON.parse(readFileSync(file, 'utf8')).patterns['/x/*']).toMatchObject({ rendered: 1 });
  });
});
