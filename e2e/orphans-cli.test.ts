import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');

/** The CLI as a process, asynchronously: the test's own site must keep answering meanwhile. Killed after 120 s. */
function cli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`pnpm run build\` first`);
  const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => {
    stdout += b.toString();
  });
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) => {
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

/** Three pages on 127.0.0.1: the home page links to /a.html and, until `drop()`, to /b.html. */
class Site {
  linksB = true;
  hasB = true;
  origin = '';
  readonly #server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const page = (title: string, body: string) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!DOCTYPE html><html><head><title>${title}</title></head><body><main>${body}</main></body></html>`);
    };
    if (path === '/') {
      return page(
        'Allotment notes',
        `<p>Notes from the allotment, season by season.</p><a href="/a.html">Leeks</a>${this.linksB ? ' <a href="/b.html">Rhubarb</a>' : ''}`,
      );
    }
    if (path === '/a.html') return page('Leeks', '<p>Leeks are trenched in June and blanched with collars.</p>');
    if (path === '/b.html' && this.hasB) {
      return page('Rhubarb', '<p>Rhubarb crowns are forced under terracotta pots in late winter.</p>');
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

describe('--orphans at the command line', () => {
  let site: Site;
  let tmp: TempDir;

  beforeAll(async () => {
    site = new Site();
    await site.start();
    tmp = createTempDir('gf-orphans-cli-');
  });
  afterAll(async () => {
    await site?.close();
    tmp?.remove();
  });

  it('a bad value is one line naming the flag and its values, exit 2, before anything is written', async () => {
    const data = join(tmp.path, 'bad');
    for (const verb of ['crawl', 'merge']) {
      const r = await cli([verb, '--url', site.origin, '--orphans', 'sometimes', '--data', data]);
      expect(r.status, r.stderr).toBe(2);
      expect(lines(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(/--orphans must be ignore, delete, process, got "sometimes"/);
    }
    expect(existsSync(join(data, 'user'))).toBe(false);
  });

  it('crawl --orphans DELETE is stored; merge removes a page the site dropped, says so, and search no longer finds it', async () => {
    const data = join(tmp.path, 'data');
    const crawled = await cli([
      'crawl',
      '--url',
      site.origin,
      '--name',
      'allotment',
      '--orphans',
      'DELETE',
      '--outputs',
      'file+index',
      '--json',
      '--data',
      data,
    ]);
    expect(crawled.status, crawled.stderr).toBe(0);
    expect(JSON.parse(crawled.stdout).produced.saved).toBe(3);
    const shown = await cli(['catalog', 'show', '--name', 'allotment', '--json', '--data', data]);
    expect(shown.status, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).settings.orphans).toBe('delete');
    const before = await cli(['search', 'rhubarb crowns', '--mode', 'words', '--json', '--data', data]);
    expect(JSON.parse(before.stdout).results.map((h: { url: string }) => new URL(h.url).pathname)).toEqual(['/b.html']);

    site.linksB = false;
    site.hasB = false;
    const merged = await cli(['merge', '--name', 'allotment', '--data', data]);
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.stdout).toContain('orphans (delete): 1 found, 1 deleted\n');
    expect(merged.stdout).toMatch(/^Published: catalog "allotment" version 0/);
    const after = await cli(['search', 'rhubarb crowns', '--mode', 'words', '--json', '--data', data]);
    expect(after.status, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout).results).toEqual([]);
    const why = await cli(['why', `${site.origin}/b.html`, '--data', data]);
    expect(why.stdout).toMatch(/as an orphan/);

    const updated = await cli(['catalog', 'update', 'allotment', '--orphans', 'process', '--data', data]);
    expect(updated.status, updated.stderr).toBe(0);
    const again = await cli(['catalog', 'show', '--name', 'allotment', '--json', '--data', data]);
    expect(JSON.parse(again.stdout).settings.orphans).toBe('process');
  });
});
