import { appendFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FetchResult, InflightStore } from '@greenfinger/core/internal';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'gf-inflight-'));
  dirs.push(d);
  return join(d, 'inflight', 'cat', 'v0');
}

function answer(i: number, bytes: number): FetchResult {
  return {
    finalUrl: `http://x.test/${i}.html`,
    redirects: [],
    status: 200,
    contentType: 'text/html; charset=utf-8',
    charset: 'utf-8',
    headers: { 'x-page': String(i) },
    body: Buffer.alloc(bytes, String.fromCharCode(97 + (i % 26))),
    text: 'not stored',
    etag: i % 2 === 0 ? `"e${i}"` : null,
    lastModified: null,
    elapsedMs: i,
  };
}

const hashOf = (i: number) => i.toString(16).padStart(64, '0');

describe('InflightStore (write-ahead log of fetched answers)', () => {
  it('keeps every record of many concurrent saves intact, and an interrupted run reads them back', async () => {
    const dir = tmp();
    const log = new InflightStore(dir);
    // Bodies of very different sizes, saved without waiting: they are group-committed behind each other.
    const sizes = Array.from({ length: 300 }, (_, i) => (i * 7919) % 200_000);
    await Promise.all(sizes.map((n, i) => log.save(hashOf(i), answer(i, n))));
    await log.close(false);
    const expected = sizes.reduce((sum, n, i) => {
      const { body: _b, text: _t, ...meta } = answer(i, n);
      return sum + 4 + 64 + 4 + Buffer.byteLength(JSON.stringify(meta)) + n;
    }, 0);
    expect(statSync(log.file).size).toBe(expected);

    const again = new InflightStore(dir);
    for (const i of [0, 1, 57, 299]) {
      const rec = await again.load(hashOf(i));
      expect(rec?.headers['x-page']).toBe(String(i));
      expect(rec?.body.length).toBe(sizes[i]);
      expect(rec?.body.every((b) => b === 97 + (i % 26))).toBe(true);
      expect(rec && 'text' in rec ? rec.text : undefined).toBeUndefined();
    }
    expect(await again.load(hashOf(300))).toBeUndefined();
    await again.close(true);
    expect(existsSync(dir)).toBe(false);
  });

  it('a save resolves only once its record is in the file', async () => {
    const log = new InflightStore(tmp());
    await log.save(hashOf(1), answer(1, 10_000));
    const size = statSync(log.file).size;
    expect(size).toBeGreaterThan(10_000);
    await log.save(hashOf(2), answer(2, 5));
    expect(statSync(log.file).size).toBeGreaterThan(size);
    await log.close(true);
  });

  it('close waits for writes still queued', async () => {
    const log = new InflightStore(tmp());
    const pending = Array.from({ length: 50 }, (_, i) => log.save(hashOf(i), answer(i, 50_000)));
    await log.close(false);
    await Promise.all(pending);
    const again = new InflightStore(log.dir);
    expect((await again.load(hashOf(49)))?.body.length).toBe(50_000);
    await again.close(true);
  });

  it('ignores a torn last record (the crash itself)', async () => {
    const log = new InflightStore(tmp());
    await log.save(hashOf(1), answer(1, 1000));
    await log.close(false);
    appendFileSync(log.file, Buffer.from([0, 0, 0x10, 0, 1, 2, 3]));
    const again = new InflightStore(log.dir);
    expect((await again.load(hashOf(1)))?.body.length).toBe(1000);
    await again.close(true);
  });
});
