import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';
import { bin, cli, fast, lines, mounted, root, Site } from './support/bad-input-kit.js';

/**
 * The promises of bad input that carry a deadline (one line within 5 s on an unwritable data root, a full disk ended
 * promptly, SIGTERM within GF_STOP_DEADLINE_MS): they run alone, so the time they bound is their own. The other
 * bad-input cases are in bad-input.test.ts and run beside other files.
 */
describe('bad input at the command line, with a deadline', () => {
  let site: Site;
  let tmp: TempDir;
  const mounts: string[] = [];

  beforeAll(async () => {
    site = new Site(8);
    await site.start();
    tmp = createTempDir('gf-bad-input-deadlines-');
  });
  afterAll(async () => {
    for (const m of mounts.reverse()) spawnSync('umount', ['-l', m]);
    await site?.stop();
    tmp?.remove();
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
});
