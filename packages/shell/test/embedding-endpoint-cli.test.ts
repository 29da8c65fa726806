import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteVecFamily } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddingEndpoint, startEmbeddingEndpoint } from '../../core/test/support/embedding-endpoint.js';
import { type FixtureSite, startFixtureSite } from '../../core/test/support/fixture-site.js';
import { createTempDir, type TempDir } from '../../core/test/support/tmp.js';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** The built CLI as a process; resolves with its exit code, output and wall time (bounded: 120 s). */
function cli(args: string[], env: Record<string, string>) {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: build the shell first (npx tsc -b packages/shell)`);
  const started = Date.now();
  return new Promise<{ code: number | null; out: string; err: string; ms: number }>((resolve) => {
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
    child.on('close', (code) => resolve({ code, out, err, ms: Date.now() - started }));
  });
}

/** A port where nothing listens (one the system gave, closed again). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

const QUERY = 'how to turn kitchen scraps and dry leaves into compost';
const COMPOST = '/article-3.html';

/**
 * Issue 29 item 4, as processes: a crawl with GF_EMBEDDING_PROVIDER=openai, then ollama, against a loopback endpoint
 * whose vectors are the bundled local model's (support/embedding-endpoint.ts) writes vectors of the endpoint's width
 * into a collection named with the provider, model and width, and `search --mode meaning` embeds its query through
 * the same endpoint and finds the compost article. A url where nothing listens stops the crawl in one line.
 */
describe('embedding providers ollama and openai (CLI)', () => {
  let site: FixtureSite;
  let endpoint: EmbeddingEndpoint;
  let tmp: TempDir;
  let data: string;

  beforeAll(async () => {
    [site, endpoint] = await Promise.all([startFixtureSite(), startEmbeddingEndpoint()]);
    tmp = createTempDir('gf-embed-endpoint-');
    data = join(tmp.path, 'data');
  }, 120_000);
  afterAll(async () => {
    await endpoint?.close();
    await site?.close();
    tmp?.remove();
  });

  const crawlArgs = (name: string) => [
    'crawl',
    '--url',
    site.startUrl,
    '--name',
    name,
    '--max-pages',
    '8',
    '--interval',
    '0',
    '--outputs',
    'file+index+vector',
    '--data',
    data,
  ];

  /** Collections on disk with their points of one catalog. */
  async function collections(): Promise<Array<{ collection: string; dims: number; points: number }>> {
    const family = new SqliteVecFamily({ root: join(data, 'user', 'vector'), collection: 'greenfinger_text' });
    try {
      const stats = await family.stats();
      return stats.collections.map((c) => ({ collection: c.collection, dims: c.dims, points: c.points }));
    } finally {
      await family.close();
    }
  }

  it.each([
    {
      provider: 'openai',
      model: 'local-model-pad-640',
      base: () => `${endpoint.url}/v1`,
      collection: 'greenfinger_text_openai-local-model-pad-640',
      dims: () => 640,
    },
    {
      provider: 'ollama',
      model: 'local-model',
      base: () => endpoint.url,
      collection: 'greenfinger_text_ollama-local-model',
      dims: () => endpoint.dims,
    },
  ])(
    'GF_EMBEDDING_PROVIDER=$provider: vectors of the endpoint width in $collection, meaning search through it',
    async ({ provider, model, base, collection, dims }) => {
      const env = { GF_EMBEDDING_PROVIDER: provider, GF_EMBEDDING_URL: base(), GF_EMBEDDING_MODEL: model };
      const before = endpoint.requests.length;
      const crawl = await cli(crawlArgs(`fx-${provider}`), env);
      expect(crawl.code, crawl.err).toBe(0);
      const asked = endpoint.requests.slice(before);
      expect(new Set(asked.map((r) => r.protocol))).toEqual(new Set([provider]));
      expect(asked.every((r) => r.model === model)).toBe(true);
      const mine = (await collections()).find((c) => c.collection === collection);
      expect(mine).toMatchObject({ dims: dims() });
      // the chunks went to the endpoint (the probe aside); the points of the collection are some of them
      const chunks = asked.flatMap((r) => r.input).filter((t) => t !== 'width probe');
      expect(chunks.length).toBeGreaterThan(0);
      expect(mine?.points).toBeGreaterThan(0);
      expect(mine?.points).toBeLessThanOrEqual(chunks.length);

      const queriesBefore = endpoint.texts().filter((t) => t === QUERY).length;
      const found = await cli(
        ['search', QUERY, '--mode', 'meaning', '--catalog', `fx-${provider}`, '--json', '--data', data],
        env,
      );
      expect(found.code, found.err).toBe(0);
      expect(endpoint.texts().filter((t) => t === QUERY).length).toBe(queriesBefore + 1);
      const results = (JSON.parse(found.out) as { results: Array<{ url: string }> }).results;
      expect(results[0]?.url).toBe(site.url(COMPOST));
      process.stdout.write(`${provider}: crawl ${crawl.ms} ms, search ${found.ms} ms, ${chunks.length} chunks\n`);
    },
    180_000,
  );

  it('the local default collection was never written: each provider has its own', async () => {
    const names = (await collections()).map((c) => `${c.collection}_${c.dims}`);
    expect(names.sort()).toEqual(
      [
        `greenfinger_text_ollama-local-model_${endpoint.dims}`,
        'greenfinger_text_openai-local-model-pad-640_640',
      ].sort(),
    );
  });

  it('GF_PRELOAD_TEXT_MODEL=true: serve loads the local model once it listens, without a search asking', async () => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--data', join(tmp.path, 'preload')], {
      env: { ...process.env, GF_PRELOAD_TEXT_MODEL: 'true', GF_EMBEDDING_PROVIDER: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    let out = '';
    let err = '';
    child.stderr.on('data', (b: Buffer) => {
      err += b.toString();
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error(`no preload line within 60 s:\n${out}\n${err}`)), 60_000);
        child.stdout.on('data', (b: Buffer) => {
          out += b.toString();
          const found = out.split('\n').find((l) => l.includes('text model preloaded'));
          if (found) {
            clearTimeout(deadline);
            resolve(found);
          }
        });
        void exited.then((code) => reject(new Error(`serve exited (${code}) before preloading:\n${err}`)));
      });
      expect(err).toContain('greenfinger: serving http://127.0.0.1:');
      expect(JSON.parse(line).msg).toMatch(/^text model preloaded: \S/);
      process.stdout.write(`${JSON.parse(line).msg}\n`);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 90_000);

  it('a GF_EMBEDDING_URL where nothing listens stops crawl and serve in one line naming it', async () => {
    const port = await closedPort();
    const env = {
      GF_EMBEDDING_PROVIDER: 'openai',
      GF_EMBEDDING_URL: `http://127.0.0.1:${port}/v1`,
      GF_EMBEDDING_MODEL: 'local-model',
    };
    const crawl = await cli(crawlArgs('fx-nowhere'), env);
    expect(crawl.code).not.toBe(0);
    const lines = crawl.err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `GF_EMBEDDING_URL: nothing answers at http://127.0.0.1:${port}/v1/embeddings (ECONNREFUSED)`,
    );
    process.stdout.write(`refused endpoint: the crawl stopped after ${crawl.ms} ms\n`);
    // serve asks the endpoint before it listens: the same line, and no server left running
    const serve = await cli(['serve', '--port', '0', '--data', data], env);
    expect(serve.code).not.toBe(0);
    const said = serve.err.trim().split('\n');
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`GF_EMBEDDING_URL: nothing answers at http://127.0.0.1:${port}/v1/embeddings`);
    process.stdout.write(`refused endpoint: serve stopped after ${serve.ms} ms\n`);
  }, 60_000);
});
