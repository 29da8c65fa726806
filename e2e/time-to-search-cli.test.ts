import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../packages/core/test/support/fixture-site.js';
import { closeServer, listen } from '../packages/core/test/support/loopback.js';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');
const fixtureModels = join(root, 'packages/core/test/fixtures/models');

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

/** The built CLI as a process, asynchronously (the fixture site and the model source answer from this process). */
function cli(args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<Run> {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm test\` (or pnpm run build) first`);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      {
        cwd: root,
        timeout: timeoutMs,
        env: { ...process.env, GF_MODEL_DIR: fixtureModels, GF_TEXT_MODEL: 'tiny-e5', GF_WORKERS: '1', ...env },
      },
      (err, stdout, stderr) =>
        resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

const SEARCHABLE =
  /^searchable by words after (\d+\.\d) s, by meaning after (\d+\.\d) s \(every page\), complete after (\d+\.\d) s$/m;

/** Time to search as the CLI tells it (issue 18): the end summary's searchable line, `versions`, `models pull`. */
describe('time to search on the command line', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let source: Server;
  let sourcePort: number;
  let served: string[];

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    tmp = createTempDir('gf-e2e-time-to-search-');
    // A model source on loopback: the tiny test model's files where `models pull` asks for multilingual-e5-small.
    served = [];
    source = createServer((req, res) => {
      served.push(req.url ?? '');
      const m = /^\/Xenova\/multilingual-e5-small\/resolve\/main\/(.+)$/.exec(req.url ?? '');
      const file = m?.[1] === 'onnx/model_quantized.onnx' ? 'onnx/model.onnx' : m?.[1];
      const path = file ? join(fixtureModels, 'tiny-e5', file) : '';
      if (!file || !existsSync(path)) {
        res.writeHead(404).end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(path));
    });
    sourcePort = await listen(source);
  }, 60_000);

  afterAll(async () => {
    if (source) await closeServer(source);
    await site?.close();
    tmp?.remove();
  });

  it('the end summary says when words, meaning (every page) and the complete version became searchable', async () => {
    const data = join(tmp.path, 'early');
    const r = await cli(['crawl', '--url', site.origin, '--interval', '0', '--threads', '4', '--data', data]);
    expect(r.status, r.stderr).toBe(0);
    const m = SEARCHABLE.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    const [words, meaning, complete] = (m ?? []).slice(1).map(Number) as [number, number, number];
    expect(words).toBeGreaterThan(0);
    expect(meaning).toBeGreaterThanOrEqual(words);
    expect(complete).toBeGreaterThanOrEqual(meaning);
    expect(r.stdout).toMatch(/^Published: catalog/m);
    const versions = await cli(['versions', '--url', site.origin, '--data', data]);
    expect(versions.stdout).toMatch(/^0\s+serving\s+words\+meaning\s+\d+/m);
  });

  it('with GF_SEARCH_EARLY=false words and meaning wait for the last vector, as before', async () => {
    const data = join(tmp.path, 'late');
    const r = await cli(
      ['crawl', '--url', site.origin, '--interval', '0', '--threads', '4', '--json', '--data', data],
      {
        GF_SEARCH_EARLY: 'false',
      },
    );
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { searchable: Record<string, number> };
    const { wordsAfterMs, meaningAfterMs, completeAfterMs } = report.searchable;
    expect(wordsAfterMs).toBe(completeAfterMs);
    expect(meaningAfterMs).toBe(completeAfterMs);
  });

  it('models pull without a reachable source fails in one line that says where to place the model', async () => {
    const models = join(tmp.path, 'no-models');
    // A port nothing listens on any more: the request is refused, as a machine without internet refuses it.
    const gone = createServer();
    const port = await listen(gone);
    await closeServer(gone);
    const r = await cli(['models', 'pull'], {
      GF_MODEL_DIR: models,
      GF_TEXT_MODEL: 'multilingual-e5-small',
      GF_MODEL_SOURCE: `http://127.0.0.1:${port}`,
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^greenfinger: cannot download multilingual-e5-small from http://127\\.0\\.0\\.1:${port}: .*no internet access.* — place its transformers\\.js folder at ${models.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/multilingual-e5-small/`,
      ),
    );
    expect(existsSync(join(models, 'multilingual-e5-small'))).toBe(false);
  });

  it('models pull from a source that has it: the model is placed, and a crawl then loads it', async () => {
    const models = join(tmp.path, 'models');
    const env = {
      GF_MODEL_DIR: models,
      GF_TEXT_MODEL: 'multilingual-e5-small',
      GF_MODEL_SOURCE: `http://127.0.0.1:${sourcePort}`,
    };
    const pulled = await cli(['models', 'pull', '--json'], env);
    expect(pulled.status, pulled.stderr).toBe(0);
    expect(JSON.parse(pulled.stdout)).toMatchObject({ model: 'multilingual-e5-small', already: false });
    expect(served).toEqual([
      '/Xenova/multilingual-e5-small/resolve/main/config.json',
      '/Xenova/multilingual-e5-small/resolve/main/tokenizer.json',
      '/Xenova/multilingual-e5-small/resolve/main/tokenizer_config.json',
      '/Xenova/multilingual-e5-small/resolve/main/onnx/model_quantized.onnx',
    ]);
    const again = await cli(['models', 'pull'], env);
    expect(again.stdout).toMatch(/multilingual-e5-small is already in .*: crawls use it/);
    const data = join(tmp.path, 'pulled');
    const crawl = await cli(
      ['crawl', '--url', site.origin, '--interval', '0', '--threads', '4', '--max-pages', '3', '--data', data],
      env,
    );
    expect(crawl.status, crawl.stderr).toBe(0);
    expect(crawl.stderr).toMatch(
      /^embeddings: text embeddings: multilingual-e5-small \(16-d, local ONNX .*model_quantized\.onnx\)/m,
    );
  });
});
