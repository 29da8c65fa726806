import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Corpus, startCorpus } from '../packages/core/test/support/corpus.js';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');

/** Run the built CLI as a user would, with a small bounded time. */
function cli(args: string[], timeoutMs = 300_000): SpawnSyncReturns<string> {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm test\` (or pnpm run build) first`);
  return spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', timeout: timeoutMs });
}

/** `greenfinger why` over a shallow crawl of the python docs (nginx on loopback). */
describe('greenfinger why', () => {
  let corpus: Corpus;
  let tmp: TempDir;
  let data = '';
  let origin = '';

  beforeAll(async () => {
    corpus = await startCorpus('python');
    origin = new URL(corpus.url).origin;
    tmp = createTempDir('gf-why-cli-');
    data = join(tmp.path, 'data');
    const crawled = cli([
      'crawl',
      '--url',
      `${origin}/`,
      '--start-url',
      corpus.startUrl,
      '--name',
      'python',
      '--depth',
      '1',
      '--outputs',
      'file+index',
      '--interval',
      '0',
      '--json',
      '--data',
      data,
    ]);
    expect(crawled.status, crawled.stderr).toBe(0);
  }, 600_000);

  afterAll(async () => {
    await corpus?.stop();
    tmp?.remove();
  });

  it('names the acceptor that refused an off-site link, in aligned lines and one sentence', () => {
    const r = cli(['why', 'https://www.python.org/', '--catalog', 'python', '--data', data]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^state {3,}rejected$/m);
    expect(r.stdout).toMatch(/^outcome {2,}REJECTED_OUT_OF_SCOPE \(domain-scope\)$/m);
    expect(r.stdout).toMatch(/^status {3,}-$/m);
    expect(r.stdout).toMatch(new RegExp(`^referrer {2,}${origin}/`, 'm'));
    expect(r.stdout).toMatch(
      new RegExp(
        `^refused by the domain-scope acceptor before any request: https://www.python.org/ is outside ${origin}/`,
        'm',
      ),
    );
  });

  it('--json prints exactly one JSON document; the catalog is found without --catalog', () => {
    const r = cli(['why', `${origin}/library/index.html`, '--json', '--data', data]);
    expect(r.status, r.stderr).toBe(0);
    const fate = JSON.parse(r.stdout);
    expect(fate).toMatchObject({
      catalog: { name: 'python' },
      version: 0,
      url: `${origin}/library/index.html`,
      row: { state: 'done', outcome: 'SAVED', status: 200 },
    });
    expect(fate.row.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(fate.explanation).toMatch(/^saved \(HTTP 200\) on /);
    expect(r.stderr).toBe('');
  });

  it('a url no catalog holds or contains is wrong use (exit 2) with a fix', () => {
    const r = cli(['why', 'https://nowhere.example/', '--data', data]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^greenfinger: no catalog holds or contains https:\/\/nowhere\.example\//);
    expect(r.stdout).toBe('');
  });
});
