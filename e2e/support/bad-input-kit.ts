// What the bad-input e2e files share: the CLI as a process, a small switchable site, tmpfs mounts, store garbling.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, statSync, writeSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const bin = join(root, 'packages/shell/dist/bin.js');

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** The CLI as a process (asynchronous: the test's own site must keep answering meanwhile), killed after `timeoutMs`. */
export function cli(args: string[], options: { timeoutMs?: number; env?: Record<string, string> } = {}): Promise<Ran> {
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
export const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

export type Mode = 'ok' | 'fewer' | 'all-503' | 'robots-503';

/** A small site of `pages` pages, each linking to the next two, whose answers the test switches. */
export class Site {
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
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

export const fast = ['--interval', '0', '--outputs', 'file+index', '--no-sitemap'];

/** Search as the CLI answers it, without the timing. */
export async function searchOf(data: string, words: string): Promise<unknown> {
  const r = await cli(['search', words, '--json', '--data', data]);
  expect(r.code, r.stderr).toBe(0);
  const doc = JSON.parse(r.stdout) as Record<string, unknown>;
  delete doc.elapsedMs;
  return doc;
}

/** Every file under dir, with its size: what "nothing stored is lost" compares. */
export function filesOf(dir: string): Record<string, number> {
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
export function garble(dir: string, name: RegExp, bytes = 64): string[] {
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

export function mounted(dir: string, options: string): boolean {
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { encoding: 'utf8' });
  return r.status === 0;
}
