import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../../core/test/support/tmp.js';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** The built CLI as a process; resolves with its exit code, signal, output and wall time (killed at 60 s). */
function cli(args: string[], env: Record<string, string>) {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: build the shell first (npx tsc -b packages/shell)`);
  const started = Date.now();
  return new Promise<{ code: number | null; signal: string | null; out: string; err: string; ms: number }>(
    (resolve) => {
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
      child.on('close', (code, signal) => resolve({ code, signal, out, err, ms: Date.now() - started }));
    },
  );
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
 * Issue 29: GF_VECTOR_STORE=qdrant or GF_FILE_TARGET=s3 with a url where nothing answers stops a CLI command and
 * `serve` by themselves, in one line naming GF_QDRANT_URL / GF_S3_ENDPOINT. Real processes, a closed loopback port.
 */
describe('external stores where nothing answers (CLI and serve)', () => {
  let tmp: TempDir;
  let data: string;
  let qdrantEnv: Record<string, string>;
  let s3Env: Record<string, string>;

  beforeAll(async () => {
    tmp = createTempDir('gf-external-cli-');
    data = join(tmp.path, 'data');
    qdrantEnv = { GF_VECTOR_STORE: 'qdrant', GF_QDRANT_URL: `http://127.0.0.1:${await closedPort()}` };
    s3Env = {
      GF_FILE_TARGET: 's3',
      GF_S3_ENDPOINT: `http://127.0.0.1:${await closedPort()}`,
      GF_S3_BUCKET: 'greenfinger',
      GF_S3_ACCESS_KEY_ID: 'test-key',
      GF_S3_SECRET_ACCESS_KEY: 'test-secret',
      GF_S3_FORCE_PATH_STYLE: 'true',
    };
  });
  afterAll(() => tmp?.remove());

  function expectOneLine(run: Awaited<ReturnType<typeof cli>>, line: string): void {
    expect(run.signal).toBeNull();
    expect(run.code).not.toBe(0);
    const lines = run.err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(line);
  }

  it('a command stops in one line naming GF_QDRANT_URL', async () => {
    const run = await cli(['catalog', 'list', '--data', data], qdrantEnv);
    expectOneLine(run, `GF_QDRANT_URL: no Qdrant answers at ${qdrantEnv.GF_QDRANT_URL} (ECONNREFUSED)`);
    process.stdout.write(`qdrant down: catalog list stopped after ${run.ms} ms\n`);
  }, 90_000);

  it('serve stops in one line naming GF_QDRANT_URL', async () => {
    const run = await cli(['serve', '--port', '0', '--data', data], qdrantEnv);
    expectOneLine(run, `GF_QDRANT_URL: no Qdrant answers at ${qdrantEnv.GF_QDRANT_URL} (ECONNREFUSED)`);
    process.stdout.write(`qdrant down: serve stopped after ${run.ms} ms\n`);
  }, 90_000);

  it('a command and serve stop in one line naming GF_S3_ENDPOINT', async () => {
    const line = `GF_S3_ENDPOINT: no S3 server answers at ${s3Env.GF_S3_ENDPOINT} (ECONNREFUSED)`;
    const list = await cli(['catalog', 'list', '--data', data], s3Env);
    expectOneLine(list, line);
    const serve = await cli(['serve', '--port', '0', '--data', data], s3Env);
    expectOneLine(serve, line);
    process.stdout.write(`s3 down: catalog list stopped after ${list.ms} ms, serve after ${serve.ms} ms\n`);
  }, 90_000);
});
