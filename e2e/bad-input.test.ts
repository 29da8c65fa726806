import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';
import { bin, cli, closedPort, fast, filesOf, garble, lines, root, Site, searchOf } from './support/bad-input-kit.js';

describe('bad input at the command line', () => {
  let site: Site;
  let tmp: TempDir;
  const mounts: string[] = [];

  beforeAll(async () => {
    site = new Site(8);
    await site.start();
    tmp = createTempDir('gf-bad-input-');
  });
  afterAll(async () => {
    for (const m of mounts.reverse()) spawnSync('umount', ['-l', m]);
    await site?.stop();
    tmp?.remove();
  });

  it('a site that never answers, or whose robots.txt answers 5xx: one line, exit 1, nothing published', async () => {
    const data = join(tmp.path, 'down');
    const port = await closedPort();
    const down = await cli(['crawl', '--url', `http://127.0.0.1:${port}/`, ...fast, '--json', '--data', data]);
    expect(down.code).toBe(1);
    expect(lines(down.stderr)).toEqual([
      `greenfinger: the site did not answer: connection refused at http://127.0.0.1:${port}/ — check that it is up and --url is right, then run again`,
    ]);
    const report = JSON.parse(down.stdout);
    expect(report.ending).toMatchObject({ published: false, fullyCrawled: false });
    expect(report.ending.withheld.cause).toBe('site-unreachable');
    const none = await cli(['search', 'quince', '--data', data]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/nothing has been published/);

    // The same with robots.txt ignored: the start url itself is refused.
    const noRobots = await cli(['crawl', '--url', `http://127.0.0.1:${port}/`, ...fast, '--no-robots', '--data', data]);
    expect(noRobots.code).toBe(1);
    expect(lines(noRobots.stderr).at(-1)).toMatch(/^greenfinger: the site did not answer: connection refused at /);

    site.mode = 'robots-503';
    try {
      const busy = await cli(['crawl', '--url', site.origin, ...fast, '--json', '--data', join(tmp.path, 'busy')]);
      expect(busy.code).toBe(1);
      expect(lines(busy.stderr)).toEqual([
        'greenfinger: robots.txt answered 503: RFC 9309 says to treat the site as disallowed; retry later',
      ]);
      expect(JSON.parse(busy.stdout).ending).toMatchObject({
        published: false,
        withheld: { cause: 'robots-unreadable' },
      });
    } finally {
      site.mode = 'ok';
    }
  });

  it('a rebuild of a served catalog while the site answers 503 to everything leaves search exactly as it was', async () => {
    const data = join(tmp.path, 'served');
    const first = await cli(['crawl', '--url', site.origin, ...fast, '--data', data]);
    expect(first.code, first.stderr).toBe(0);
    const before = await searchOf(data, 'quince cellar');
    expect((before as { results: unknown[] }).results.length).toBeGreaterThan(0);
    site.mode = 'all-503';
    try {
      const rebuild = await cli(['rebuild', '--url', site.origin, '--max-retries', '0', '--json', '--data', data]);
      expect(rebuild.code).toBe(1);
      expect(lines(rebuild.stderr)).toEqual([
        'greenfinger: robots.txt answered 503: RFC 9309 says to treat the site as disallowed; retry later',
      ]);
      const noRobots = await cli([
        'rebuild',
        '--url',
        site.origin,
        '--no-robots',
        '--max-retries',
        '0',
        '--data',
        data,
      ]);
      expect(noRobots.code).toBe(1);
      expect(lines(noRobots.stderr).at(-1)).toMatch(/^greenfinger: the site answered only errors \(503 × \d+\)/);
    } finally {
      site.mode = 'ok';
    }
    expect(await searchOf(data, 'quince cellar')).toEqual(before);
  });

  it('a rebuild with far fewer pages keeps the served version, and --force-publish publishes it', async () => {
    const data = join(tmp.path, 'fewer');
    expect((await cli(['crawl', '--url', site.origin, ...fast, '--data', data])).code).toBe(0);
    const before = await searchOf(data, 'quince cellar');
    site.mode = 'fewer';
    try {
      const kept = await cli(['rebuild', '--url', site.origin, '--json', '--data', data]);
      expect(kept.code).toBe(1);
      expect(lines(kept.stderr)).toEqual([
        'greenfinger: kept v0 serving: v1 holds 2 pages, under 0.5 × the 8 of v0 (minPublishRatio) — check the site, or publish it anyway with --force-publish',
      ]);
      expect(JSON.parse(kept.stdout).ending).toMatchObject({
        published: false,
        withheld: { cause: 'too-few-pages', pages: 2, servedPages: 8, servedVersion: 0, minPublishRatio: 0.5 },
      });
      expect(await searchOf(data, 'quince cellar')).toEqual(before);
      const forced = await cli(['rebuild', '--url', site.origin, '--force-publish', '--json', '--data', data]);
      expect(forced.code, forced.stderr).toBe(0);
      expect(JSON.parse(forced.stdout).ending).toMatchObject({ published: true });
      const after = (await searchOf(data, 'quince cellar')) as { results: Array<{ version: number }> };
      expect(after.results.map((r) => r.version)).toEqual([2, 2]);
    } finally {
      site.mode = 'ok';
    }
  });

  it('malformed, non-http and out-of-scope urls, unknown options and bad numbers: one line, exit 2', async () => {
    const data = join(tmp.path, 'usage');
    expect((await cli(['crawl', '--url', site.origin, ...fast, '--data', data])).code).toBe(0);
    const stored = filesOf(join(data, 'user'));
    const cases: Array<[string[], RegExp]> = [
      [['crawl', '--url', 'http//nohost', '--data', data], /^greenfinger: --url: "http\/\/nohost" is not a valid url/],
      [
        ['crawl', '--url', 'ftp://127.0.0.1/', '--data', data],
        /^greenfinger: --url: .*uses ftp: but only http and https/,
      ],
      [['crawl', '--url', 'javascript:alert(1)', '--data', data], /^greenfinger: --url: .*only http and https/],
      [
        ['crawl', '--url', `${site.origin}docs/`, '--start-url', site.origin, '--data', data],
        /^greenfinger: --start-url: .* is not under --url/,
      ],
      [['crawl', '--url', site.origin, '--max-page', '3', '--data', data], /^greenfinger: unknown option '--max-page'/],
      [['crawl', '--url', site.origin, '--max-pages', 'many', '--data', data], /--max-pages must be a whole number/],
      [['crawl', '--url', site.origin, '--max-pages', '-4', '--data', data], /--max-pages must be a whole number/],
      [['crawl', '--url', site.origin, '--threads', '', '--data', data], /--threads must be a whole number/],
      [['crawl', '--url', site.origin, '--duration', 'NaN', '--data', data], /--duration must be a number/],
      [['crawl', '--url', site.origin, '--min-publish-ratio', '2', '--data', data], /--min-publish-ratio must be/],
    ];
    for (const [args, line] of cases) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(lines(r.stderr), args.join(' ')).toHaveLength(1);
      expect(lines(r.stderr)[0], args.join(' ')).toMatch(line);
    }
    expect(filesOf(join(data, 'user'))).toEqual(stored);
    // A malformed url is refused before anything is made on disk: no data root for it.
    const never = join(tmp.path, 'never-made');
    const refused = await cli(['crawl', '--url', 'http//nohost', '--data', never]);
    expect(refused.code).toBe(2);
    expect(lines(refused.stderr)).toHaveLength(1);
    expect(existsSync(never)).toBe(false);
  });

  it('a garbled frontier (random bytes over its LevelDB log after kill -9) is refused, naming the store; nothing is lost', async () => {
    const data = join(tmp.path, 'garbled');
    const big = new Site(300);
    await big.start();
    try {
      const child = spawn(
        process.execPath,
        [
          bin,
          'crawl',
          '--url',
          big.origin,
          '--interval',
          '20',
          '--outputs',
          'file+index',
          '--no-sitemap',
          '--data',
          data,
        ],
        { cwd: root, stdio: 'ignore' },
      );
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const deadline = Date.now() + 60_000;
      let saved = 0;
      while (Date.now() < deadline && child.exitCode === null && saved < 20) {
        const locks = join(data, 'system', 'locks');
        for (const name of existsSync(locks) ? readdirSync(locks) : []) {
          if (!name.endsWith('.progress.json')) continue;
          try {
            saved = JSON.parse(readFileSync(join(locks, name), 'utf8')).counters.saved;
          } catch {
            // being replaced
          }
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      child.kill('SIGKILL');
      await exited;
      expect(saved).toBeGreaterThanOrEqual(20);
      const frontierRoot = join(data, 'system', 'frontier');
      const [catalogId] = readdirSync(frontierRoot);
      const frontier = join(frontierRoot, catalogId as string, 'v0');
      expect(garble(frontier, /^\d+\.log$/)).not.toHaveLength(0);
      const stored = filesOf(join(data, 'user'));

      for (let attempt = 0; attempt < 2; attempt++) {
        const r = await cli(['resume', '--url', big.origin, '--data', data]);
        expect(r.code).toBe(1);
        expect(lines(r.stderr)).toHaveLength(1);
        expect(lines(r.stderr)[0]).toMatch(
          new RegExp(`^greenfinger: frontier store at ${frontier} is corrupt \\(.*\\) — delete ${frontier} and crawl`),
        );
      }
      expect(filesOf(join(data, 'user'))).toEqual(stored);
      expect(existsSync(frontier)).toBe(true);
    } finally {
      await big.stop();
    }
  });

  it('a garbled url dedup store, content dedup store or index, and a truncated store, are refused naming the file', async () => {
    let n = 0;
    const crawled = async () => {
      const data = join(tmp.path, `stores-${n++}`);
      const r = await cli(['crawl', '--url', site.origin, ...fast, '--data', data]);
      expect(r.code, r.stderr).toBe(0);
      return data;
    };
    const update = (data: string) => cli(['update', '--url', site.origin, '--data', data]);
    const refused = async (data: string, line: RegExp) => {
      const stored = filesOf(join(data, 'user', 'assets'));
      for (let attempt = 0; attempt < 2; attempt++) {
        const r = await update(data);
        expect(r.code).toBe(1);
        expect(lines(r.stderr)).toHaveLength(1);
        expect(lines(r.stderr)[0]).toMatch(line);
      }
      expect(filesOf(join(data, 'user', 'assets'))).toEqual(stored);
    };

    let data = await crawled();
    const urlDedup = join(data, 'system', 'dedup', 'url');
    expect(garble(urlDedup, /^\d+\.log$/)).not.toHaveLength(0);
    await refused(data, new RegExp(`^greenfinger: url dedup store at ${urlDedup} is corrupt .* — delete ${urlDedup}`));

    data = await crawled();
    const contentDedup = join(data, 'system', 'dedup', 'content');
    expect(garble(contentDedup, /^\d+\.log$/)).not.toHaveLength(0);
    await refused(data, new RegExp(`^greenfinger: content dedup store at ${contentDedup} is corrupt .* — delete`));

    data = await crawled();
    const indexDir = join(data, 'user', 'index');
    const [catalogIndex] = readdirSync(indexDir).filter((name) => statSync(join(indexDir, name)).isDirectory());
    const indexFile = join(indexDir, catalogIndex as string, 'index.db');
    const bytes = readFileSync(indexFile);
    const pageSize = bytes.readUInt16BE(16) === 1 ? 65536 : bytes.readUInt16BE(16);
    const fd = openSync(indexFile, 'r+');
    for (let page = 1; page * pageSize < bytes.length; page++) writeSync(fd, randomBytes(64), 0, 64, page * pageSize);
    closeSync(fd);
    await refused(
      data,
      new RegExp(
        `^greenfinger: the full-text index ${indexFile} is corrupt \\(SQLite quick_check: .*\\) — delete .* replay`,
      ),
    );

    // A truncated frontier: its MANIFEST cut short.
    data = await crawled();
    const frontierRoot = join(data, 'system', 'frontier');
    const [catalogId] = readdirSync(frontierRoot);
    const frontier = join(frontierRoot, catalogId as string, 'v0');
    const manifest = readdirSync(frontier).find((name) => name.startsWith('MANIFEST-')) as string;
    writeFileSync(join(frontier, manifest), readFileSync(join(frontier, manifest)).subarray(0, 10));
    await refused(data, /^greenfinger: frontier store at .* (is corrupt|is damaged)/);
  });
});
