import { fileURLToPath } from 'node:url';
import {
  type Catalog,
  type CrawledPage,
  chunkText,
  createEmbeddingClient,
  type EmbeddingClient,
  resolveCatalogSettings,
  SqliteVecStore,
  VectorOutputChannel,
} from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../support/tmp.js';

const modelDir = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const catalog: Catalog = {
  id: '0190a0b0-0000-7000-8000-0000000000c1',
  name: 'c',
  url: 'http://127.0.0.1/',
  startUrl: 'http://127.0.0.1/',
  settings: resolveCatalogSettings(),
  indexVersion: 0,
  searchVersion: -1,
  runningState: 'none',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

function page(i: number): CrawledPage {
  const id = `0190a0b0-0000-5000-8000-${String(i).padStart(12, '0')}`;
  return {
    catalog,
    version: 0,
    text: `Page ${i} talks about gardens, compost and tomatoes. `.repeat(20),
    images: [],
    resource: {
      id,
      catalogId: catalog.id,
      version: 0,
      url: `http://127.0.0.1/p${i}.html`,
      urlHash: 'x'.repeat(64),
      title: `Page ${i}`,
      contentType: 'text/html',
      charset: 'utf-8',
      status: 200,
      depth: 1,
      contentHash: 'h',
      etag: null,
      lastModified: null,
      htmlPath: `p${i}.html`,
      textPath: `p${i}.txt`,
      htmlBytes: 0,
      textChars: 0,
      linkDensity: 0,
      fetchedAt: '2026-01-01T00:00:00.000Z',
    },
  };
}

/** With a text loader, the vector layer never makes the crawl wait: past its queue, pages are embedded from files. */
describe('VectorOutputChannel overflow', () => {
  let tmp: TempDir;
  let client: EmbeddingClient;
  let store: SqliteVecStore;
  beforeAll(async () => {
    tmp = createTempDir('gf-vec-out-');
    client = await createEmbeddingClient({ modelDir, textModel: 'tiny-e5' }, { inProcess: true });
    store = new SqliteVecStore({ root: tmp.path, collection: 't', dims: client.dims });
  });
  afterAll(async () => {
    await store.close();
    await client.close();
    tmp.remove();
  });

  it('accepts every page at once and embeds the overflow from the files, each page reported once', async () => {
    const texts = new Map<string, string>();
    const loads: string[] = [];
    const channel = new VectorOutputChannel(client, store, {
      chunk: (t) => chunkText(t, { chunkSize: 200, overlap: 0, maxChunks: 3 }),
      maxQueued: 4,
      batchSize: 2,
      loadText: async (p) => {
        loads.push(p.resource.id);
        return texts.get(p.resource.id);
      },
    });
    const done = new Map<string, boolean>();
    channel.setDurableListener((id, ok) => {
      expect(done.has(id)).toBe(false);
      done.set(id, ok);
    });
    const pages = Array.from({ length: 12 }, (_, i) => page(i));
    for (const p of pages) texts.set(p.resource.id, p.text);
    for (const p of pages) await channel.write(p);
    // every write returned while most pages still waited for the embedder: write() never waited for it
    expect(done.size).toBeLessThan(12);
    await channel.flush();
    expect(loads.length).toBeGreaterThan(0); // the queue overflowed: texts were read back from the files
    expect([...done.values()].every(Boolean)).toBe(true);
    expect(done.size).toBe(12);
    expect(channel.counts()).toMatchObject({ written: 12, failed: 0 });
    expect(await store.countVersion(catalog.id, 0)).toBe(12 * 3);
  });

  it('reports a page whose text cannot be read back as failed, once', async () => {
    // Page 100 is read back for its chunks after the first; page 101, past the queue, cannot be read back at all.
    const readable = page(100);
    const channel = new VectorOutputChannel(client, store, {
      chunk: (t) => chunkText(t, { chunkSize: 200, overlap: 0, maxChunks: 3 }),
      maxQueued: 1,
      loadText: async (p) => (p.resource.id === readable.resource.id ? readable.text : undefined),
    });
    const done: Array<[string, boolean]> = [];
    channel.setDurableListener((id, ok) => done.push([id, ok]));
    await channel.write(page(100));
    await channel.write(page(101));
    await channel.flush();
    // Each once; 101 first: its read fails before the chunks after 100's first come round.
    expect(done).toEqual([
      [page(101).resource.id, false],
      [page(100).resource.id, true],
    ]);
    expect(channel.counts().failed).toBe(1);
  });
});
