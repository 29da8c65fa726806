import { createServer, type Socket } from 'node:net';
import { ConfigError, type CrawlerError, Greenfinger, QdrantFamily, S3BlobStore } from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';
import { createTempDir } from '../support/tmp.js';

/** A loopback port where nothing listens (one the system gave, closed again). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

async function failure(p: Promise<unknown>): Promise<CrawlerError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return err as CrawlerError;
}

/**
 * Issue 29: with GF_VECTOR_STORE=qdrant or GF_FILE_TARGET=s3 and a url where nothing answers, opening the node fails
 * at once with one line naming GF_QDRANT_URL / GF_S3_ENDPOINT, and so does every request of the stores. Real
 * requests to a closed loopback port; no server is imitated.
 */
describe('external stores where nothing answers', () => {
  it('GF_VECTOR_STORE=qdrant: opening the node fails with one line naming GF_QDRANT_URL', async () => {
    using dir = createTempDir('gf-qdrant-down-');
    const url = `http://127.0.0.1:${await closedPort()}`;
    const started = Date.now();
    const err = await failure(
      Greenfinger.open({ settings: { dataStore: dir.path }, env: { GF_VECTOR_STORE: 'qdrant', GF_QDRANT_URL: url } }),
    );
    expect(err.toLine()).toMatch(new RegExp(`^GF_QDRANT_URL: no Qdrant answers at ${url} \\(ECONNREFUSED\\) — `));
    expect(err.toLine()).not.toContain('\n');
    process.stdout.write(`qdrant down: Greenfinger.open failed after ${Date.now() - started} ms\n`);
  });

  it('GF_VECTOR_STORE=qdrant without a url names GF_QDRANT_URL', async () => {
    using dir = createTempDir('gf-qdrant-unset-');
    const err = await failure(
      Greenfinger.open({ settings: { dataStore: dir.path }, env: { GF_VECTOR_STORE: 'qdrant' } }),
    );
    expect(err.message).toMatch(/^GF_QDRANT_URL: /);
  });

  it('every request of the Qdrant family names GF_QDRANT_URL', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const family = new QdrantFamily({ url, collection: 'greenfinger_text' });
    const store = family.open(4);
    const scopes = [{ catalogId: 'c', version: 1 }];
    for (const request of [
      () => family.collections(),
      () => family.stats(),
      () => family.deleteVersion('c', 1, true),
      () => store.search({ vector: Float32Array.of(1, 0, 0, 0), scopes, limit: 3 }),
      () => store.countVersion('c', 1),
    ]) {
      expect((await failure(request())).message).toMatch(/^GF_QDRANT_URL: no Qdrant answers/);
    }
    // Nothing to send: no request, no error.
    expect(await store.search({ vector: Float32Array.of(1, 0, 0, 0), scopes: [], limit: 3 })).toEqual([]);
    await family.close();
  });

  it('GF_FILE_TARGET=s3: opening the node fails with one line naming GF_S3_ENDPOINT', async () => {
    using dir = createTempDir('gf-s3-down-');
    const url = `http://127.0.0.1:${await closedPort()}`;
    const env = {
      GF_FILE_TARGET: 's3',
      GF_S3_ENDPOINT: url,
      GF_S3_BUCKET: 'greenfinger',
      GF_S3_ACCESS_KEY_ID: 'test-key',
      GF_S3_SECRET_ACCESS_KEY: 'test-secret',
      GF_S3_FORCE_PATH_STYLE: 'true',
    };
    const started = Date.now();
    const err = await failure(Greenfinger.open({ settings: { dataStore: dir.path }, env }));
    expect(err.toLine()).toMatch(new RegExp(`^GF_S3_ENDPOINT: no S3 server answers at ${url} \\(ECONNREFUSED\\) — `));
    process.stdout.write(`s3 down: Greenfinger.open failed after ${Date.now() - started} ms\n`);
    const unset = await failure(Greenfinger.open({ settings: { dataStore: dir.path }, env: { GF_FILE_TARGET: 's3' } }));
    expect(unset.message).toMatch(/^GF_S3_BUCKET: /);
  });

  it('every request of the S3 store names GF_S3_ENDPOINT; a bad key is refused before any request', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    const store = new S3BlobStore({
      endpoint,
      bucket: 'b',
      accessKeyId: 'k',
      secretAccessKey: 's',
      forcePathStyle: true,
    });
    for (const request of [
      () => store.put('a/b.txt', 'x'),
      () => store.get('a/b.txt'),
      () => store.exists('a/b.txt'),
      () => store.stat('a'),
    ]) {
      expect((await failure(request())).message).toMatch(/^GF_S3_ENDPOINT: no S3 server answers/);
    }
    const bad = await store.put('../x', 'y').catch((e: unknown) => e as Error);
    expect(bad).toBeInstanceOf(Error);
    expect((bad as Error).message).toContain('../x');
    expect(bad).not.toBeInstanceOf(ConfigError);
    await store.close();
  });

  it('a server that takes the connection and never answers fails the check at its deadline, naming the setting', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    try {
      const store = new S3BlobStore({
        endpoint: url,
        bucket: 'b',
        accessKeyId: 'k',
        secretAccessKey: 's',
        forcePathStyle: true,
      });
      const [qdrant, s3] = await Promise.all([
        failure(new QdrantFamily({ url, collection: 'greenfinger_text' }).check()),
        failure(store.check()),
      ]);
      expect(qdrant.message).toBe(`GF_QDRANT_URL: no Qdrant answers at ${url} (ETIMEDOUT)`);
      expect(s3.message).toMatch(new RegExp(`^GF_S3_ENDPOINT: no S3 server answers at ${url} \\(`));
      expect(sockets.length).toBeGreaterThanOrEqual(2);
      await store.close();
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  }, 30_000);

  it('with the embedded defaults, opening sends nothing anywhere', async () => {
    using dir = createTempDir('gf-embedded-');
    const gf = await Greenfinger.open({ settings: { dataStore: dir.path }, env: {} });
    expect(gf.blobs.name).toBe('local');
    expect(gf.factory.vectorFamily().name).toBe('sqlite-vec');
    await gf.close();
  });
});
