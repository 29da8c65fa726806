import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** The CLI as a process (asynchronous: the test's own site must keep answering meanwhile), killed after `timeoutMs`. */
function cli(args: string[], options: { timeoutMs?: number; env?: Record<string, string> } = {}): Promise<Ran> {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`pnpm run build\` first`);
  const started = Date.now();
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => {
    stdout += b.toString();
  });
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** The lines a command wrote to stderr. */
const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

type Mode = 'ok' | 'fewer' | 'all-503' | 'robots-503';

/** A small site of `pages` pages, each linking to the next two, whose answers the test switches. */
class Site {
  mode: Mode = 'ok';
  requests = 0;
  readonly #server: Server;
  readonly #pages: number;
  origin = '';

  constructor(pages: number) {
    this.#pages = pages;
    this.#server = createServer((req, res) => {
      this.requests++;
      const path = (req.url ?? '/').split('?')[0] as string;
      if (this.mode === 'all-503' || (this.mode === 'robots-503' && path === '/robots.txt')) {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
        return;
      }
      if (path === '/robots.txt' || path === '/sitemap.xml') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('none');
        return;
      }
      const m = /^\/(?:p(\d+)\.html)?$/.exec(path);
      const n = m ? Number(m[1] ?? 0) : -1;
      if (n < 0 || n >= this.#pages || (this.mode === 'fewer' && n > 1)) {
        res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>gone</body></html>');
        return;
      }
      const links = [n + 1, n + 2]
        .filter((k) => k < this.#pages)
        .map((k) => `<a href="/p${k}.html">page ${k}</a>`)
        .join(' ');
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<html><head><title>Page ${n}</title></head><body><main><h1>Page ${n}</h1>` +
            `<p>Orchard note ${n}: the quince number q${n}x ripens in week ${n % 52} and keeps for ${n + 3} days in a cool cellar.</p>` +
            `<p>${links}</p></main></body></html>`,
        );
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/`;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const fast = ['--interval', '0', '--outputs', 'file+index', '--no-sitemap'];

/** Search as the CLI answers it, without the timing. */
async function searchOf(data: string, words: string): Promise<unknown> {
  const r = await cli(['search', words, '--json', '--data', data]);
  expect(r.code, r.stderr).toBe(0);
  const doc = JSON.parse(r.stdout) as Record<string, unknown>;
  delete doc.elapsedMs;
  return doc;
}

/** Every file under dir, with its size: what "nothing stored is lost" compares. */
function filesOf(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[p.slice(dir.length)] = statSync(p).size;
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** Random bytes over the middle of every file of `dir` whose name matches. */
function garble(dir: string, name: RegExp, bytes = 64): string[] {
  const hit: string[] = [];
  for (const f of readdirSync(dir).filter((n) => name.test(n))) {
    const file = join(dir, f);
    const size = statSync(file).size;
    if (size < 16) continue;
    const fd = openSync(file, 'r+');
    writeSync(fd, randomBytes(Math.min(bytes, size - 8)), 0, Math.min(bytes, size - 8), Math.floor(size / 2));
    closeSync(fd);
    hit.push(file);
  }
  return hit;
}

function mounted(dir: string, options: string): boolean {
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { encoding: 'utf8' });
  return r.status === 0;
}

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
  });

  it('an unwritable data root: a file, a read-only file system, a full disk — one line within 5 s', async () => {
    const file = join(tmp.path, 'a-file');
    writeFileSync(file, 'not a directory');
    const onFile = await cli(['crawl', '--url', site.origin, ...fast, '--data', file]);
    expect(onFile.code).toBe(1);
    expect(lines(onFile.stderr)).toEqual([
      `greenfinger: the data root ${file} is not a directory (${file}: ENOTDIR) — give --data a directory (it is created when missing), not a file`,
    ]);
    expect(readFileSync(file, 'utf8')).toBe('not a directory');

    const ro = join(tmp.path, 'ro');
    expect(mounted(ro, 'ro,size=1m'), 'mount -t tmpfs -o ro needs root (the tests run as root)').toBe(true);
    mounts.push(ro);
    const readOnly = await cli(['crawl', '--url', site.origin, ...fast, '--data', ro], { timeoutMs: 20_000 });
    expect(readOnly.ms).toBeLessThan(5000);
    expect(readOnly.signal).toBeNull();
    expect(readOnly.code).toBe(1);
    expect(lines(readOnly.stderr)).toEqual([
      `greenfinger: the data root ${ro} is on a read-only file system (EROFS) — make ${ro} writable, or choose another data directory with --data DIR (or GF_DATA_STORE)`,
    ]);

    const full = join(tmp.path, 'full');
    expect(mounted(full, 'size=512k')).toBe(true);
    mounts.push(full);
    // Fill it to the last block.
    const fd = openSync(join(full, 'filler'), 'w');
    try {
      for (let i = 0; i < 1024; i++) writeSync(fd, Buffer.alloc(4096, 1));
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      closeSync(fd);
    }
    const onFull = await cli(['crawl', '--url', site.origin, ...fast, '--data', full], { timeoutMs: 20_000 });
    expect(onFull.ms).toBeLessThan(5000);
    expect(onFull.code).toBe(1);
    expect(lines(onFull.stderr)).toHaveLength(1);
    expect(lines(onFull.stderr)[0]).toMatch(/^greenfinger: the data root .* is full: no space left writing .*ENOSPC/);
  });

  it('a disk that fills during the run ends it unpublished, promptly, with one line', async () => {
    const small = join(tmp.path, 'small');
    expect(mounted(small, 'size=512k')).toBe(true);
    mounts.push(small);
    const big = new Site(400);
    await big.start();
    try {
      const r = await cli(['crawl', '--url', big.origin, ...fast, '--json', '--data', small], { timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(1);
      expect(lines(r.stderr)).toHaveLength(1);
      expect(lines(r.stderr)[0]).toMatch(/no space left|is full|ENOSPC|SQLITE_FULL|disk is full/i);
      if (r.stdout.trim() !== '') expect(JSON.parse(r.stdout).ending.published).toBe(false);
      expect(r.ms).toBeLessThan(30_000);
    } finally {
      await big.stop();
    }
  });

  it('SIGTERM ends a crawl stuck on a site that never answers within GF_STOP_DEADLINE_MS, with one line', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const hang = createServer(() => undefined);
    hang.on('connection', (s) => sockets.add(s));
    await new Promise<void>((resolve) => hang.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(hang.address() as AddressInfo).port}/`;
    try {
      const data = join(tmp.path, 'hang');
      const child = spawn(process.execPath, [bin, 'crawl', '--url', url, ...fast, '--data', data], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, GF_STOP_DEADLINE_MS: '2000' },
      });
      let stderr = '';
      child.stderr.on('data', (b: Buffer) => {
        stderr += b.toString();
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const deadline = Date.now() + 20_000;
      while (sockets.size === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(sockets.size).toBeGreaterThan(0);
      const signalled = Date.now();
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(killer);
      expect(code).toBe(130);
      expect(Date.now() - signalled).toBeLessThan(4500);
      expect(lines(stderr).at(-1)).toBe(
        'greenfinger: stopped after 2 s without waiting for the rest (GF_STOP_DEADLINE_MS); nothing stored is lost — continue with resume',
      );
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => hang.close(() => resolve()));
    }
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
