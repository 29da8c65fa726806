import { ConfigError, ExtractPool, HtmlContentExtractor, StageError } from '@greenfinger/core/internal';
import { afterEach, describe, expect, it } from 'vitest';

const page = (i: number) =>
  `<html><head><title>Page ${i}</title><meta charset="windows-1252"></head><body><nav><a href="/">Home</a></nav><article>${Array.from(
    { length: 5 },
    (_, k) =>
      `<p>Page ${i} paragraph ${k}: a sentence long enough to count as real article text for the extractor to keep.</p>`,
  ).join('')}<p><a href="/p/${i + 1}">next</a></p></article></body></html>`;

describe('ExtractPool', () => {
  const pools: ExtractPool[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close()));
  });

  it('extracts inline with workers: 0, same result as the extractor', async () => {
    const pool = new ExtractPool({ workers: 0 });
    pools.push(pool);
    const got = await pool.extract(page(1), 'https://s.test/p/1');
    expect(got).toEqual(new HtmlContentExtractor().extract(page(1), 'https://s.test/p/1'));
  });

  it('extracts on worker threads, strings and Buffers, in parallel with backpressure', async () => {
    const pool = new ExtractPool({ workers: 2, maxQueue: 2 });
    pools.push(pool);
    const jobs: Promise<unknown>[] = [];
    let maxQueued = 0;
    for (let i = 0; i < 12; i++) {
      const html = i % 2 ? page(i) : Buffer.from(page(i).replace('paragraph 0', 'paragraph 0 \u00e9'), 'latin1');
      const p = pool.extract(html, `https://s.test/p/${i}`, 'html', { contentType: 'text/html' });
      jobs.push(p);
      maxQueued = Math.max(maxQueued, pool.queued);
    }
    const results = (await Promise.all(jobs)) as Awaited<ReturnType<ExtractPool['extract']>>[];
    expect(maxQueued).toBeLessThanOrEqual(2);
    results.forEach((r, i) => {
      expect(r.title).toBe(`Page ${i}`);
      expect(r.text).toContain(`Page ${i} paragraph 4`);
      expect(r.links.map((l) => l.url)).toContain(`https://s.test/p/${i + 1}`);
    });
    expect(results[0]!.text).toContain('paragraph 0 \u00e9');
  });

  it('sends a worker its next job before it answers, and answers every job in order', async () => {
    const pool = new ExtractPool({ workers: 1, maxQueue: 10 });
    pools.push(pool);
    const jobs = Array.from({ length: 6 }, (_, i) => pool.extract(page(i), `https://s.test/p/${i}`));
    // One job being extracted and one waiting in the worker's port; the rest wait here.
    expect(pool.running).toBe(2);
    expect(pool.queued).toBe(4);
    const results = await Promise.all(jobs);
    expect(results.map((r) => r.title)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `Page ${i}`));
    expect(pool.running).toBe(0);
    expect(pool.queued).toBe(0);
  });

  it('transfers a Buffer that owns its memory when asked', async () => {
    const pool = new ExtractPool({ workers: 1 });
    pools.push(pool);
    const src = Buffer.from(page(7));
    const owned = Buffer.alloc(src.length);
    src.copy(owned);
    const r = await pool.extract(owned, 'https://s.test/p/7', 'html', { transfer: true });
    expect(r.title).toBe('Page 7');
    expect(owned.buffer.byteLength).toBe(0);
    const kept = Buffer.from(page(8));
    await pool.extract(kept, 'https://s.test/p/8');
    expect(kept.toString()).toBe(page(8));
  });

  it('rebuilds worker errors and refuses work after close', async () => {
    const pool = new ExtractPool({ workers: 1 });
    const err = await pool.extract(page(1), 'https://s.test/', 'nope').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/unknown content extractor "nope"/);
    const pending = pool.extract(page(2), 'https://s.test/');
    const closing = pool.close();
    await expect(pending).rejects.toBeInstanceOf(StageError);
    await closing;
    await expect(pool.extract(page(3), 'https://s.test/')).rejects.toThrow(/closed/);
  });

  it('validates the worker count', () => {
    expect(() => new ExtractPool({ workers: -1 })).toThrow(ConfigError);
  });
});
