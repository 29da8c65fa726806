import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../../core/test/support/tmp.js';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** The built CLI as a process; resolves with its exit code, output and wall time (bounded: 60 s). */
function cli(args: string[], env: Record<string, string>) {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: build the shell first (npx tsc -b packages/shell)`);
  const started = Date.now();
  return new Promise<{ code: number | null; out: string; err: string; ms: number }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
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

/** A loopback port where nothing listens (one the system gave, closed again). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/**
 * Issue 29: GF_INDEX_PROVIDER=elasticsearch (or GF_VECTOR_STORE=elasticsearch) with a url where nothing answers stops
 * the CLI and `serve` at start, in one line naming GF_ES_URL. A real closed port on loopback, no server standing in.
 */
describe('Elasticsearch url where nothing answers (CLI)', () => {
  let tmp: TempDir;
  let env: Record<string, string>;

  beforeAll(async () => {
    tmp = createTempDir('gf-es-cli-');
    mkdirSync(join(tmp.path, 'data'), { recursive: false });
    const port = await closedPort();
    env = {
      GF_DATA_STORE: join(tmp.path, 'data'),
      GF_INDEX_PROVIDER: 'elasticsearch',
      GF_ES_URL: `http://127.0.0.1:${port}`,
      GF_LOG_LEVEL: 'silent',
    };
  });
  afterAll(() => tmp?.remove());

  const oneLine = (r: { err: string }) => r.err.trim().split('\n');

  it('search stops with one line naming GF_ES_URL', async () => {
    const r = await cli(['search', 'anything', '--mode', 'words'], env);
    expect(r.code).not.toBe(0);
    expect(oneLine(r)).toHaveLength(1);
    expect(r.err).toContain('GF_ES_URL');
    expect(r.err).toContain(env.GF_ES_URL);
  }, 60_000);

  it('serve stops with one line naming GF_ES_URL and never listens', async () => {
    const r = await cli(['serve', '--port', '0'], env);
    expect(r.code).not.toBe(0);
    expect(oneLine(r)).toHaveLength(1);
    expect(r.err).toContain('GF_ES_URL');
    expect(r.err).not.toContain('serving');
  }, 60_000);

  it('GF_VECTOR_STORE=elasticsearch stops the same way', async () => {
    const r = await cli(['search', 'anything', '--mode', 'words'], {
      ...env,
      GF_INDEX_PROVIDER: 'sqlite',
      GF_VECTOR_STORE: 'elasticsearch',
    });
    expect(r.code).not.toBe(0);
    expect(oneLine(r)).toHaveLength(1);
    expect(r.err).toContain('GF_ES_URL');
  }, 60_000);
});
