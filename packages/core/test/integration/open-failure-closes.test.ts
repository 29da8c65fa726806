import { createServer, type Server, Socket } from 'node:net';
import { type BlobStore, ConfigError, Greenfinger } from '@greenfinger/core/internal';
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

const handles = (): number => (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().length;

/** Polls `ok` every 20 ms until it holds or `ms` pass; whether it held. */
async function within(ms: number, ok: () => boolean): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/**
 * Issue 29: `Greenfinger.open` checks the stores on other servers; when one does not answer, the open rejects and
 * what it had opened is closed — the clients of the stores, and a caller's components (here a blob store holding a
 * real socket to a loopback listener, so a leak is an open handle the process keeps). Nothing is imitated: the
 * Elasticsearch and Qdrant urls are closed loopback ports.
 */
describe('Greenfinger.open that fails its store check', () => {
  for (const [name, env] of [
    ['GF_QDRANT_URL', (port: number) => ({ GF_VECTOR_STORE: 'qdrant', GF_QDRANT_URL: `http://127.0.0.1:${port}` })],
    ['GF_ES_URL', (port: number) => ({ GF_INDEX_PROVIDER: 'elasticsearch', GF_ES_URL: `http://127.0.0.1:${port}` })],
  ] as const) {
    it(`closes what it opened (${name} refused), and the data root opens again`, async () => {
      using dir = createTempDir('gf-open-fails-');
      const peers = new Set<Socket>();
      const listener: Server = createServer((s) => {
        peers.add(s);
        s.on('close', () => peers.delete(s));
      });
      await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
      const { port: listening } = listener.address() as { port: number };
      try {
        const baseline = handles();
        let closed = 0;
        let socket: Socket | undefined;
        const wrapBlobStore = (store: BlobStore): BlobStore => {
          // The component's own resource: a connection held until the store is closed.
          socket = new Socket();
          socket.connect(listening, '127.0.0.1');
          return new Proxy(store, {
            get(target, key) {
              if (key === 'close')
                return async () => {
                  closed++;
                  socket?.destroy();
                  await target.close();
                };
              const value = Reflect.get(target, key, target) as unknown;
              return typeof value === 'function' ? value.bind(target) : value;
            },
          });
        };
        const started = Date.now();
        const err = await Greenfinger.open({
          settings: { dataStore: dir.path },
          env: env(await closedPort()),
          components: { wrapBlobStore },
        }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(ConfigError);
        expect((err as ConfigError).message).toMatch(new RegExp(`^${name}: `));
        expect(socket).toBeDefined();
        expect(closed).toBe(1);
        // The listener sees the connection end, and the process holds no more handles than before the open.
        expect(await within(5_000, () => peers.size === 0 && handles() <= baseline)).toBe(true);
        process.stdout.write(`${name} refused: open rejected and released in ${Date.now() - started} ms\n`);

        // Nothing of the failed open holds the data root: the same root opens with the embedded stores.
        const gf = await Greenfinger.open({ settings: { dataStore: dir.path }, env: {} });
        expect(await (await gf.catalogs()).list()).toEqual([]);
        await gf.close();
      } finally {
        for (const s of peers) s.destroy();
        await new Promise<void>((r) => listener.close(() => r()));
      }
    });
  }
});
