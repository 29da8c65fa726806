import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExtractPool, LocalBlobStore, OffThreadBlobStore } from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';
import { createTempDir } from '../support/tmp.js';
import { describeBlobStoreContract } from './blob-store.contract.js';

describeBlobStoreContract('LocalBlobStore', async (root) => {
  const store = new LocalBlobStore(root);
  return { store, dispose: () => store.close() };
});

describeBlobStoreContract('OffThreadBlobStore on a thread of its own', async (root) => {
  const store = new OffThreadBlobStore(new LocalBlobStore(root));
  return { store, dispose: () => store.close() };
});

describeBlobStoreContract('OffThreadBlobStore on a thread lent by ExtractPool', async (root) => {
  const pool = new ExtractPool({ workers: 1 });
  const store = new OffThreadBlobStore(new LocalBlobStore(root), { thread: pool.lendThread() });
  return {
    store,
    dispose: async () => {
      await store.close();
      await pool.close();
    },
  };
});

describe('OffThreadBlobStore when its thread dies', () => {
  it('writes in flight and every later write land through the local store; nothing is lost', async () => {
    using dir = createTempDir('gf-blobs-');
    const pool = new ExtractPool({ workers: 1 });
    const thread = pool.lendThread() as NonNullable<ReturnType<ExtractPool['lendThread']>>;
    const store = new OffThreadBlobStore(new LocalBlobStore(dir.path), { thread });
    try {
      await store.put('a/before.txt', 'before');
      const inFlight = [store.put('a/1.txt', 'one'), store.put('b/2.bin', Buffer.from('two'))];
      await thread.terminate();
      await Promise.all(inFlight);
      await store.put('c/after.txt', 'after');
      const want = { 'a/before.txt': 'before', 'a/1.txt': 'one', 'b/2.bin': 'two', 'c/after.txt': 'after' };
      for (const [key, text] of Object.entries(want)) expect(readFileSync(join(dir.path, key), 'utf8')).toBe(text);
    } finally {
      await store.close();
      await pool.close();
    }
  });
});
