import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlobStore, CrawlerError } from '@greenfinger/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** One blob store under test, rooted at `root` (a fresh directory), and how to end it. */
export interface BlobStoreHarness {
  store: BlobStore;
  dispose(): Promise<void>;
  /**
   * The bytes stored under a key, read beside the store, not through it (an object store's own client); undefined
   * when there are none. @default the file of the key under the root
   */
  readBeside?(key: string): Promise<Buffer | undefined>;
  /**
   * Prepare a key whose write must fail whatever the store does, and what the error's fix must name.
   * @default a file where the key's directory must go (`assets/blocked/2.txt`), the fix naming the data directory
   */
  unwritable?(): Promise<{ key: string; fix: RegExp }>;
}

/**
 * The BlobStore contract, run against every implementation (the local file system, an S3 bucket): the file layer's
 * keys map to files (objects) of the same path under the root, a put resolves once its file is there, reads see
 * every put that resolved, and bad keys or unwritable places fail with an error that says which file and what to do.
 */
export function describeBlobStoreContract(name: string, open: (root: string) => Promise<BlobStoreHarness>): void {
  describe(`BlobStore contract: ${name}`, () => {
    let dir: TempDir;
    let harness: BlobStoreHarness;
    let store: BlobStore;
    const beside = async (key: string): Promise<Buffer | undefined> =>
      harness.readBeside ? harness.readBeside(key) : readFile(join(dir.path, key)).catch(() => undefined);
    const besideText = async (key: string): Promise<string | undefined> => (await beside(key))?.toString('utf8');
    beforeEach(async () => {
      dir = createTempDir('gf-blobs-');
      harness = await open(dir.path);
      store = harness.store;
    });
    afterEach(async () => {
      await harness?.dispose();
      dir.remove();
    });

    it('writes text and bytes to the file of the key, creating its directories, and reads them back', async () => {
      await store.put('assets/c/v0/pages/ab/cd/page.txt', 'héllo wörld');
      const bytes = new Uint8Array([0, 1, 2, 250, 255]);
      await store.put('assets/c/v0/images/ab/cd/pic.png', bytes);
      expect(await besideText('assets/c/v0/pages/ab/cd/page.txt')).toBe('héllo wörld');
      expect([...((await beside('assets/c/v0/images/ab/cd/pic.png')) ?? [])]).toEqual([0, 1, 2, 250, 255]);
      expect(await store.getText('assets/c/v0/pages/ab/cd/page.txt')).toBe('héllo wörld');
      expect([...((await store.get('assets/c/v0/images/ab/cd/pic.png')) ?? [])]).toEqual([0, 1, 2, 250, 255]);
      expect(await store.exists('assets/c/v0/pages/ab/cd/page.txt')).toBe(true);
      expect(await store.exists('assets/c/v0/pages/ab/cd/missing.txt')).toBe(false);
      expect(await store.get('nothing/here')).toBeUndefined();
    });

    it('writes only the bytes of a view, not the rest of its buffer, and leaves the caller its buffer', async () => {
      const buffer = Buffer.from('0123456789');
      const view = buffer.subarray(3, 6);
      await store.put('v/view.bin', view);
      expect(await besideText('v/view.bin')).toBe('345');
      expect(buffer.toString()).toBe('0123456789');
      expect(view.byteLength).toBe(3);
    });

    it('replaces a file written before', async () => {
      await store.put('a/b.txt', 'first, and longer');
      await store.put('a/b.txt', 'second');
      expect(await store.getText('a/b.txt')).toBe('second');
    });

    it('many puts at once each land in their own file', async () => {
      const keys = Array.from({ length: 300 }, (_, i) => `assets/c/v0/pages/${i % 7}/${i}.txt`);
      await Promise.all(keys.map((k, i) => store.put(k, `page ${i}`)));
      for (const [i, k] of keys.entries()) expect(await besideText(k)).toBe(`page ${i}`);
      const listed: string[] = [];
      for await (const k of store.list('assets/c/v0/pages')) listed.push(k);
      expect(listed.sort()).toEqual([...keys].sort());
      expect(await store.stat('assets/c/v0/pages')).toEqual({
        objects: 300,
        bytes: keys.reduce((a, _, i) => a + `page ${i}`.length, 0),
      });
    });

    it('deletes a prefix, and writes into it again afterwards (its directories are made again)', async () => {
      await store.put('assets/c/v1/pages/x/1.txt', 'one');
      await store.put('assets/c/v1/pages/x/2.txt', 'two!');
      await store.put('assets/c/v2/pages/x/1.txt', 'kept');
      expect(await store.deletePrefix('assets/c/v1')).toEqual({ objects: 2, bytes: 7 });
      expect(await store.exists('assets/c/v1/pages/x/1.txt')).toBe(false);
      expect(await store.getText('assets/c/v2/pages/x/1.txt')).toBe('kept');
      await store.put('assets/c/v1/pages/x/3.txt', 'again');
      expect(await store.getText('assets/c/v1/pages/x/3.txt')).toBe('again');
    });

    it('refuses keys that leave the root, naming the key', async () => {
      for (const key of ['/etc/passwd', '../outside.txt', 'a/../../outside.txt']) {
        const err = (await store.put(key, 'x').catch((e: unknown) => e)) as CrawlerError;
        expect(err).toBeInstanceOf(Error);
        expect(err.message).toContain(key);
      }
    });

    it('a write that cannot happen fails with the file and the fix, and the other writes still land', async () => {
      const blocked = harness.unwritable
        ? await harness.unwritable()
        : (() => {
            // A file where a directory must go: no mode bits make this writable, even for root.
            mkdirSync(join(dir.path, 'assets'), { recursive: true });
            writeFileSync(join(dir.path, 'assets/blocked'), 'a file, not a directory');
            return { key: 'assets/blocked/2.txt', fix: /data directory|--data/ };
          })();
      const results = await Promise.allSettled([
        store.put('assets/ok/1.txt', 'one'),
        store.put(blocked.key, 'two'),
        store.put('assets/ok/3.txt', 'three'),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      const err = (results[1] as PromiseRejectedResult).reason as CrawlerError;
      expect(err.message).toContain('blocked');
      expect(err.toLine()).toMatch(blocked.fix);
      expect(await store.getText('assets/ok/3.txt')).toBe('three');
    });
  });
}
