import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Corpus, startCorpus } from '../packages/core/test/support/corpus.js';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');

function cli(args: string[]) {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm test\` (or pnpm run build) first`);
  return spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', timeout: 300_000 });
}

/** Start a crawl process and wait until it has saved `pages` (read through `status --json`). */
async function crawlUntil(
  args: string[],
  data: string,
  pages: number,
): Promise<{ child: ChildProcess; out: () => string }> {
  const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout?.on('data', (b: Buffer) => {
    stdout += b.toString();
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && child.exitCode === null) {
    const r = cli(['status', '--json', '--data', data]);
    const runs = r.status === 0 ? (JSON.parse(r.stdout) as Array<{ counters?: { saved: number } }>) : [];
    if ((runs[0]?.counters?.saved ?? 0) >= pages) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  return { child, out: () => stdout };
}

const exit = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

describe('crawl verbs from the command line', () => {
  let corpus: Corpus;
  let tmp: TempDir;
  let site: string;
  const data = () => join(tmp.path, 'data');

  beforeAll(async () => {
    corpus = await startCorpus('python');
    tmp = createTempDir('gf-verbs-cli-');
    site = `${new URL(corpus.url).origin}/`;
  });
  afterAll(async () => {
    await corpus?.stop();
    tmp?.remove();
  });

  it('update and merge of a site where nothing changed end normally: exit 0, "nothing changed since v0"', () => {
    const own = join(tmp.path, 'unchanged');
    const crawled = cli([
      'crawl',
      '--url',
      site,
      '--start-url',
      corpus.startUrl,
      '--depth',
      '1',
      '--outputs',
      'file+index',
      '--json',
      '--data',
      own,
    ]);
    expect(crawled.status, crawled.stderr).toBe(0);
    expect(JSON.parse(crawled.stdout).produced.saved).toBeGreaterThan(5);
    for (const verb of ['merge', 'update']) {
      const r = cli([verb, '--url', site, '--data', own]);
      expect(r.status, `${verb}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toContain('nothing changed since v0');
      expect(r.stdout).toMatch(/^Published: .* saved 0 pages/);
    }
  });

  it('Ctrl-C stops gracefully, publishes nothing, and resume finishes and publishes', async () => {
    const { child, out } = await crawlUntil(
      [
        'crawl',
        '--url',
        site,
        '--start-url',
        corpus.startUrl,
        '--interval',
        '5',
        '--outputs',
        'file+index',
        '--json',
        '--data',
        data(),
      ],
      data(),
      20,
    );
    const exited = exit(child);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const report = JSON.parse(out());
    expect(report.ending).toMatchObject({ reason: 'interrupted', published: false });
    const none = cli(['search', 'json', '--data', data()]);
    expect(none.status).not.toBe(0);
    expect(none.stderr).toMatch(/nothing has been published/);

    const resumed = cli(['resume', '--url', site, '--json', '--data', data()]);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).ending).toMatchObject({ published: true, reason: 'frontier-drained' });
    expect(cli(['search', 'json dumps', '--json', '--data', data()]).status).toBe(0);
  });

  it('resume with nothing to resume, and an unknown catalog, say so', () => {
    const nothing = cli(['resume', '--url', site, '--data', data()]);
    expect(nothing.status).not.toBe(0);
    expect(nothing.stderr.trim()).toMatch(
      /^greenfinger: nothing to resume: version 0 .* has an empty frontier.*crawl or update/,
    );
    const unknown = cli(['update', '--name', 'no-such-catalog', '--data', data()]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.trim()).toMatch(/no catalog with name "no-such-catalog".*greenfinger catalogs/);
  });

  it('pause stops a rebuild running in another process; status shows it while it runs', async () => {
    const { child, out } = await crawlUntil(
      ['rebuild', '--url', site, '--interval', '5', '--json', '--data', data()],
      data(),
      10,
    );
    const status = JSON.parse(cli(['status', '--json', '--data', data()]).stdout) as Array<{
      action: string;
      version: number;
      pid: number;
    }>;
    expect(status).toHaveLength(1);
    expect(status[0]).toMatchObject({ action: 'rebuild', version: 1, pid: child.pid });
    const exited = exit(child);
    const paused = cli(['pause', '--url', site, '--data', data()]);
    expect(paused.status, paused.stderr).toBe(0);
    expect(paused.stdout).toMatch(/paused/);
    await exited;
    expect(JSON.parse(out()).ending.published).toBe(false);
    expect(cli(['status', '--data', data()]).stdout).toMatch(/nothing is running/);
    // search still reads version 0
    const r = JSON.parse(cli(['search', 'json dumps', '--json', '--data', data()]).stdout);
    expect(r.results[0].version).toBe(0);
  });

  it('help <verb> prints what it does with an example', () => {
    for (const verb of ['crawl', 'update', 'merge', 'rebuild', 'resume', 'pause', 'status']) {
      const r = cli(['help', verb]);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/Examples:\n\s+greenfinger /);
    }
  });
});
