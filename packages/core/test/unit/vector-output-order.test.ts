import { fileURLToPath } from 'node:url';
import {
  type Catalog,
  type CrawledPage,
  chunkText,
  createEmbeddingClient,
  type EmbeddingClient,
  type EmbeddingOrder,
  resolveCatalogSettings,
  SqliteVecStore,
  VectorOutputChannel,
} from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../support/tmp.js';

const modelDir = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const catalog: Catalog = {
  id: '0190a0b0-0000-7000-8000-0000000000d1',
  name: 'order',
  url: 'http://127.0.0.1/',
  startUrl: 'http://127.0.0.1/',
  settings: resolveCatalogSettings(),
  indexVersion: 0,
  searchVersion: -1,
  runningState: 'none',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

/** Page i of a version: three chunks of 200 characters, each starting with `p<i>c<k>` so the order can be read. */
function page(i: number, version = 0): CrawledPage {
  const id = `0190a0b0-0000-5000-8000-${String(version * 1000 + i).padStart(12, '0')}`;
  const chunk = (k: number) => `p${i}c${k} ${'gardens compost tomatoes '.repeat(8)}`.slice(0, 199).trim();
  return {
    catalog,
    version,
    text: [0, 1, 2].map(chunk).join('. '),
    images: [],
    resource: {
      id,
      catalogId: catalog.id,
      version,
      url: `http://127.0.0.1/p${i}.html`,
      urlHash: 'x'.repeat(64),
      title: '',
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

/** The real tiny model, recording which chunks it was given in which order; `hold()` keeps the next calls waiting. */
class RecordingClient implements EmbeddingClient {
  readonly provider = 'local';
  readonly model: string;
  readonly dims: number;
  readonly calls: string[][] = [];
  /** The texts of each call, as given. */
  readonly texts: string[][] = [];
  #gate: Promise<void> | undefined;
  #open: (() => void) | undefined;
  constructor(readonly inner: EmbeddingClient) {
    this.model = inner.model;
    this.dims = inner.dims;
  }
  hold(): void {
    this.#gate = new Promise((resolve) => {
      this.#open = resolve;
    });
  }
  release(): void {
    this.#open?.();
    this.#gate = undefined;
  }
  /** The last call, settled (the model idle). */
  done: Promise<unknown> = Promise.resolve();
  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    const call = (async () => {
      await this.#gate;
      this.calls.push(texts.map((t) => /p\d+c\d+/.exec(t)?.[0] ?? '?'));
      this.texts.push(texts);
      return this.inner.embedDocuments(texts);
    })();
    this.done = call.catch(() => undefined);
    return call;
  }
  embedQuery(text: string): Promise<Float32Array> {
    return this.inner.embedQuery(text);
  }
  describe(): string {
    return this.inner.describe();
  }
  async close(): Promise<void> {}
}

const chunk = (t: string) => chunkText(t, { chunkSize: 200, overlap: 0, maxChunks: 3 });

describe('VectorOutputChannel: the first chunk of every page first', () => {
  let tmp: TempDir;
  let tiny: EmbeddingClient;
  let store: SqliteVecStore;
  beforeAll(async () => {
    tmp = createTempDir('gf-vec-order-');
    tiny = await createEmbeddingClient({ modelDir, textModel: 'tiny-e5' }, { inProcess: true });
    store = new SqliteVecStore({ root: tmp.path, collection: 'order', dims: tiny.dims, annMinPoints: 0 });
  });
  afterAll(async () => {
    await store.close();
    await tiny.close();
    tmp.remove();
  });

  const channelOf = (client: EmbeddingClient, order?: EmbeddingOrder, withFiles = true) => {
    const texts = new Map<string, string>();
    const reads: string[] = [];
    const channel = new VectorOutputChannel(client, store, {
      chunk,
      batchSize: 4,
      maxQueued: 8,
      order,
      loadText: withFiles
        ? async (p) => {
            reads.push(p.resource.id);
            return texts.get(p.resource.id);
          }
        : undefined,
    });
    const done: Array<[string, boolean]> = [];
    channel.setDurableListener((id, ok) => done.push([id, ok]));
    return { channel, texts, reads, done };
  };

  it('embeds chunk 0 of every page before chunk 1 of any, and reports a page once all its chunks are in', async () => {
    const client = new RecordingClient(tiny);
    const { channel, texts, reads, done } = channelOf(client);
    const pages = Array.from({ length: 10 }, (_, i) => page(i, 1));
    for (const p of pages) texts.set(p.resource.id, p.text);
    client.hold();
    for (const p of pages) await channel.write(p);
    client.release();
    expect(await channel.firstChunksWritten()).toBe(true);
    const firsts = client.calls.flat().slice(0, 10);
    expect(firsts).toEqual(pages.map((_, i) => `p${i}c0`));
    await channel.flush();
    const order = client.calls.flat();
    expect(order).toHaveLength(30);
    const lastFirst = Math.max(...pages.map((_, i) => order.indexOf(`p${i}c0`)));
    const firstLater = Math.min(...order.map((c, k) => (c.endsWith('c0') ? Number.POSITIVE_INFINITY : k)));
    expect(lastFirst).toBeLessThan(firstLater);
    // Every page reported once, after its last chunk; its later chunks were read back from its file.
    expect(done.map(([id]) => id).sort()).toEqual(pages.map((p) => p.resource.id).sort());
    expect(done.every(([, ok]) => ok)).toBe(true);
    expect(new Set(reads).size).toBe(10);
    for (const p of pages) expect(await store.countResource(catalog.id, 1, p.resource.id)).toBe(3);
    expect(channel.progress()).toMatchObject({ pages: 10, embedded: 10, complete: 10, failed: 0, chunks: 30 });
  });

  it('counts a page searchable once its first chunk is in, complete only with the rest', async () => {
    const client = new RecordingClient(tiny);
    const { channel, texts } = channelOf(client);
    const pages = Array.from({ length: 6 }, (_, i) => page(i, 2));
    for (const p of pages) texts.set(p.resource.id, p.text);
    client.hold();
    for (const p of pages) await channel.write(p);
    client.release();
    await channel.firstChunksWritten();
    client.hold();
    // Every first chunk is in (batches of first chunks only); the later chunks are not all through yet.
    const held = channel.progress();
    expect(held.embedded).toBe(6);
    expect(held.complete).toBeLessThan(6);
    client.release();
    await channel.flush();
    expect(channel.progress()).toMatchObject({ embedded: 6, complete: 6 });
  });

  it('without a text loader keeps the later chunks in memory, in the same order', async () => {
    const client = new RecordingClient(tiny);
    const { channel, reads, done } = channelOf(client, 'first-chunk', false);
    const pages = Array.from({ length: 4 }, (_, i) => page(i, 3));
    client.hold();
    const writes = Promise.all(pages.map((p) => channel.write(p)));
    client.release();
    await writes;
    await channel.flush();
    const order = client.calls.flat();
    expect(order.slice(0, 4).sort()).toEqual(['p0c0', 'p1c0', 'p2c0', 'p3c0']);
    expect(reads).toEqual([]);
    expect(done).toHaveLength(4);
  });

  it('page order embeds page by page, to the same points', async () => {
    const client = new RecordingClient(tiny);
    const { channel, texts } = channelOf(client, 'page');
    const pages = Array.from({ length: 3 }, (_, i) => page(i, 4));
    for (const p of pages) texts.set(p.resource.id, p.text);
    for (const p of pages) await channel.write(p);
    await channel.flush();
    expect(client.calls.flat()).toEqual(['p0c0', 'p0c1', 'p0c2', 'p1c0', 'p1c1', 'p1c2', 'p2c0', 'p2c1', 'p2c2']);
    for (const p of pages) expect(await store.countResource(catalog.id, 4, p.resource.id)).toBe(3);
  });

  it('embeds every chunk after the first behind the page title; the payload keeps the chunk alone', async () => {
    const client = new RecordingClient(tiny);
    const { channel, texts } = channelOf(client, 'page');
    const p = page(0, 6);
    p.resource.title = 'Compost notes';
    texts.set(p.resource.id, p.text);
    await channel.write(p);
    await channel.flush();
    const embedded = client.texts.flat();
    expect(embedded).toHaveLength(3);
    expect(embedded[0]).toMatch(/^Compost notes p0c0/);
    for (const t of embedded.slice(1)) expect(t).toMatch(/^Compost notes\n\n\S/);
    const [vector] = await tiny.embedDocuments(['compost']);
    const hits = await store.search({
      vector: vector as Float32Array,
      scopes: [{ catalogId: catalog.id, version: 6 }],
      limit: 10,
    });
    expect(hits.map((h) => h.payload.chunkIndex).sort()).toEqual([0, 1, 2]);
    for (const h of hits.filter((x) => x.payload.chunkIndex > 0)) {
      expect(h.payload.chunk).not.toMatch(/^Compost notes/);
      expect(embedded[h.payload.chunkIndex]).toBe(`Compost notes\n\n${h.payload.chunk}`);
    }
  });

  it('abandon drops what is queued unreported (those pages stay owed) and lets flush end', async () => {
    const client = new RecordingClient(tiny);
    const { channel, texts, done } = channelOf(client);
    const pages = Array.from({ length: 8 }, (_, i) => page(i, 5));
    for (const p of pages) texts.set(p.resource.id, p.text);
    client.hold();
    for (const p of pages) await channel.write(p);
    const firsts = channel.firstChunksWritten();
    const abandoned = channel.abandon();
    client.release();
    await abandoned;
    await channel.flush();
    await client.done;
    expect(await firsts).toBe(false);
    // The batch the model had when it stopped came back after it and was dropped: nothing stored, nothing reported.
    const embedded = client.calls.flat();
    expect(embedded.length).toBeLessThanOrEqual(4);
    expect(embedded.every((c) => c.endsWith('c0'))).toBe(true);
    expect(await store.countVersion(catalog.id, 5)).toBe(0);
    expect(done).toEqual([]);
    await channel.write(page(9, 5));
    await channel.flush();
    expect(channel.progress().complete).toBe(0);
  });
});
