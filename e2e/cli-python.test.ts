import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Corpus, startCorpus } from '../packages/core/test/support/corpus.js';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');

/** Run the built CLI as a user would, with a small bounded time. */
function cli(args: string[], env: Record<string, string> = {}, timeoutMs = 600_000): SpawnSyncReturns<string> {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm test\` (or pnpm run build) first`);
  return spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, GF_MAX_CHUNKS: '2', ...env },
  });
}

/** The one-line crawler over the python docs, served by nginx on loopback. */
describe('greenfinger CLI over the python documentation', () => {
  let corpus: Corpus;
  let tmp: TempDir;
  let data: string;
  let report: {
    produced: { saved: number; indexed: number; vectored: number };
    urls: Record<string, number>;
    ending: { published: boolean; reason: string };
  };
  const search = (q: string, ...more: string[]) => {
    const r = cli(['search', q, '--json', '--data', data, ...more]);
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as {
      results: Array<{ url: string; title: string; highlights: string[] }>;
      total: number;
      nextCursor: string | null;
    };
  };

  beforeAll(async () => {
    corpus = await startCorpus('python');
    tmp = createTempDir('gf-e2e-');
    data = join(tmp.path, 'data');
    const origin = new URL(corpus.url).origin;
    const r = cli([
      'crawl',
      '--url',
      `${origin}/`,
      '--start-url',
      corpus.startUrl,
      '--interval',
      '0',
      '--json',
      '--data',
      data,
    ]);
    expect(r.status, r.stderr).toBe(0);
    report = JSON.parse(r.stdout);
  }, 900_000);

  afterAll(async () => {
    await corpus?.stop();
    tmp?.remove();
  });

  it('prints exactly one JSON document: a report that adds up', () => {
    expect(report.ending).toMatchObject({ published: true, reason: 'frontier-drained' });
    expect(report.urls.dispatched).toBe(report.urls.handled);
    expect(report.urls.outstanding).toBe(0);
    expect(report.produced.saved).toBe(526);
    expect(report.produced.indexed).toBe(526);
    expect(report.produced.vectored).toBe(526);
  });

  it('requests every page once: the access log shows no path twice', () => {
    const seen = new Map<string, number>();
    for (const line of corpus.accessLog()) seen.set(line.path, (seen.get(line.path) ?? 0) + 1);
    const twice = [...seen].filter(([, n]) => n > 1).map(([p]) => p);
    expect(twice).toEqual([]);
    const html = [...seen.keys()].filter((p) => p.endsWith('.html'));
    expect(html.length).toBeGreaterThanOrEqual(526);
  });

  it('finds library/json.html in the top 3 for "json dumps", and answers by meaning', () => {
    const words = search('json dumps', '--mode', 'words');
    expect(words.results.slice(0, 3).map((h) => new URL(h.url).pathname)).toContain('/library/json.html');
    expect(words.results[0]?.highlights[0]).toMatch(/<em>/);
    expect(words.total).toBeGreaterThan(3);
    const meaning = search('json dumps', '--mode', 'meaning', '--size', '5');
    expect(meaning.results.map((h) => new URL(h.url).pathname)).toContain('/library/json.html');
  });

  it('pages through results with the cursor', () => {
    const first = search('json', '--size', '5');
    expect(first.nextCursor).not.toBeNull();
    const second = search('json', '--size', '5', '--cursor', first.nextCursor as string);
    const a = new Set(first.results.map((h) => h.url));
    expect(second.results.some((h) => a.has(h.url))).toBe(false);
  });

  it('answers both searches exactly as before with data/system deleted', () => {
    const before = [
      cli(['search', 'json dumps', '--json', '--data', data]),
      cli(['search', 'read a file line by line', '--mode', 'meaning', '--json', '--data', data]),
    ];
    rmSync(join(data, 'system'), { recursive: true, force: true });
    const after = [
      cli(['search', 'json dumps', '--json', '--data', data]),
      cli(['search', 'read a file line by line', '--mode', 'meaning', '--json', '--data', data]),
    ];
    for (let i = 0; i < 2; i++) {
      expect(after[i]?.status).toBe(0);
      expect(after[i]?.stdout).toBe(before[i]?.stdout);
    }
    expect(existsSync(join(data, 'system'))).toBe(false);
  });
});

describe('greenfinger CLI on bad input', () => {
  let tmp: TempDir;
  beforeAll(() => {
    tmp = createTempDir('gf-e2e-bad-');
  });
  afterAll(() => tmp.remove());

  /** One clear line on stderr naming the problem, nothing on stdout, a non-zero exit. */
  function expectOneLine(r: SpawnSyncReturns<string>, pattern: RegExp): void {
    expect(r.status).not.toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(pattern);
  }

  it('a malformed --url', () => {
    expectOneLine(
      cli(['crawl', '--url', 'not a url', '--data', join(tmp.path, 'a')]),
      /--url.*not a valid url.*https?:\/\//,
    );
  });

  it('an unreachable --url', () => {
    const r = cli(['crawl', '--url', 'http://127.0.0.1:9/', '--json', '--data', join(tmp.path, 'b')]);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).produced.saved).toBe(0);
    expectOneLine({ ...r, stdout: '' }, /the site did not answer: connection refused at http:\/\/127\.0\.0\.1:9\//);
    expect(JSON.parse(r.stdout).ending.published).toBe(false);
  });

  it('a --start-url outside the --url', () => {
    expectOneLine(
      cli([
        'crawl',
        '--url',
        'http://127.0.0.1:9/docs/',
        '--start-url',
        'http://127.0.0.1:9/blog/',
        '--data',
        join(tmp.path, 'c'),
      ]),
      /--start-url.*not under --url.*boundary/,
    );
  });

  it('an unknown option', () => {
    expectOneLine(
      cli(['crawl', '--url', 'http://127.0.0.1:9/', '--frobnicate']),
      /unknown option '--frobnicate'.*help/,
    );
  });

  it('an unwritable data dir', () => {
    const file = join(tmp.path, 'a-file');
    writeFileSync(file, 'not a directory');
    expectOneLine(
      cli(['crawl', '--url', 'http://127.0.0.1:9/', '--data', join(file, 'data')]),
      /the data root .*a-file\/data is not a directory.*give --data a directory/,
    );
  });

  it('a corrupted frontier: a clear line, and nothing stored is lost', async () => {
    const corpus = await startCorpus('python');
    try {
      const data = join(tmp.path, 'd');
      const origin = new URL(corpus.url).origin;
      const args = [
        'crawl',
        '--url',
        `${origin}/`,
        '--start-url',
        corpus.startUrl,
        '--interval',
        '0',
        '--max-pages',
        '20',
        '--outputs',
        'file+index',
        '--data',
        data,
      ];
      expect(cli(args).status).toBe(0);
      const before = cli(['search', 'python', '--json', '--data', data]).stdout;
      const frontierRoot = join(data, 'system', 'frontier');
      const catalogDir = readdirSync(frontierRoot)[0] as string;
      writeFileSync(join(frontierRoot, catalogDir, 'v0', 'CURRENT'), 'garbage\n');
      expectOneLine(cli(args), /frontier.*(corrupt|damaged).*delete/i);
      expect(cli(['search', 'python', '--json', '--data', data]).stdout).toBe(before);
    } finally {
      await corpus.stop();
    }
  });
});
