import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Corpus, startCorpus } from '../packages/core/test/support/corpus.js';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');

/** `greenfinger shell` not on a terminal: a script piped in, one command a line. */
function shell(data: string, script: string) {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run pnpm run build first`);
  return spawnSync(process.execPath, [bin, 'shell', '--data', data], {
    cwd: root,
    input: script,
    encoding: 'utf8',
    timeout: 120_000,
  });
}

describe('greenfinger shell with a script piped in', () => {
  let corpus: Corpus;
  let tmp: TempDir;
  let data: string;

  beforeAll(async () => {
    corpus = await startCorpus('python');
    tmp = createTempDir('gf-e2e-shell-pipe-');
    data = join(tmp.path, 'data');
  });
  afterAll(async () => {
    await corpus?.stop();
    tmp?.remove();
  });

  it('a crawl verb waits for its job, so the next line searches what it published', () => {
    const origin = new URL(corpus.url).origin;
    const r = shell(
      data,
      `crawl --url ${origin}/ --start-url ${origin}/index.html --name python --outputs file+index --interval 0\n`,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Published: catalog "python" version 0 — saved 526 pages/m);
  });

  it("printf 'catalog-list\\nsearch json dumps\\n' | greenfinger shell prints both answers and exits 0", () => {
    const r = spawnSync(
      'sh',
      ['-c', `printf 'catalog-list\\nsearch json dumps\\n' | node ${bin} shell --data ${data}`],
      {
        cwd: root,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^python\s+\S+\s+http:\/\/127\.0\.0\.1:\d+\/\s+v0\s+v0\s+idle$/m);
    const urls = [...r.stdout.matchAll(/^\s+(http\S+)\s+\[python v0/gm)].map((m) => m[1]);
    expect(urls.slice(0, 3).some((u) => u?.endsWith('/library/json.html'))).toBe(true);
  });

  it('exits with the status of the last failing command; errors are one line and do not end the script', () => {
    const r = shell(data, 'versions --name nope\ncatalog-list --json\nsearch --bogus x\ncatalog-save\nhelp why\n');
    expect(r.status).toBe(2);
    const errors = r.stderr.trim().split('\n');
    expect(errors).toEqual([
      expect.stringMatching(/^greenfinger: no catalog with name "nope"/),
      expect.stringMatching(/^greenfinger: unknown option '--bogus'.* — see `help search`$/),
      expect.stringMatching(/^greenfinger: the catalog-save interview needs a terminal — pass the catalog as a patch/),
    ]);
    expect(JSON.parse(r.stdout.split('\n')[0] ?? '')[0].name).toBe('python');
    expect(r.stdout).toMatch(/^Usage: why \[options\] <url>$/m);
  });
});
