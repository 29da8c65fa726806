import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../../core/test/support/tmp.js';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** The one-line CLI as a process: its exit code and output. */
function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 30_000 }, (error, out, err) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, out, err });
    });
  });
}

/**
 * `--change-feed` on the command line (issue 27 item 1): repeatable on `catalog create|update`, printed by
 * `catalog show`, cleared with `--change-feed ""` (back to the default sitemap feed), `none` opting out, and a value that is not a feed refused in one line (exit 2).
 */
describe('greenfinger --change-feed', () => {
  let tmp: TempDir;
  let data: string[];

  beforeAll(() => {
    tmp = createTempDir('gf-change-feed-cli-');
    data = ['--data', join(tmp.path, 'data')];
  });
  afterAll(() => tmp?.remove());

  it('catalog create takes several, catalog show prints them, update clears them', async () => {
    const created = await cli([
      'catalog',
      'create',
      '--url',
      'https://wiki.example.org/',
      '--name',
      'wiki',
      '--change-feed',
      'mediawiki:https://wiki.example.org/w/api.php',
      '--change-feed',
      'rss:https://wiki.example.org/feed.rss',
      '--change-feed',
      'sitemap',
      ...data,
    ]);
    expect(created.code, created.err).toBe(0);
    const shown = await cli(['catalog', 'show', '--name', 'wiki', ...data]);
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toContain(
      '  change feeds mediawiki:https://wiki.example.org/w/api.php, rss:https://wiki.example.org/feed.rss, sitemap (merge fetches what they name)\n',
    );
    // Cleared: back to the default, the sitemap when the site has one.
    const cleared = await cli(['catalog', 'update', 'wiki', '--change-feed', '', ...data]);
    expect(cleared.code, cleared.err).toBe(0);
    expect((await cli(['catalog', 'show', '--name', 'wiki', ...data])).out).toContain(
      '  change feeds sitemap by default, when the site has one (--change-feed none opts out)\n',
    );
    const none = await cli(['catalog', 'update', 'wiki', '--change-feed', 'none', ...data]);
    expect(none.code, none.err).toBe(0);
    expect((await cli(['catalog', 'show', '--name', 'wiki', ...data])).out).toContain(
      '  change feeds none (every merge judges every held page)\n',
    );
    // No default where the recrawl interval is off: a page the sitemap does not date would never be fetched again.
    const off = await cli(['catalog', 'update', 'wiki', '--change-feed', '', '--recrawl-max', '0', ...data]);
    expect(off.code, off.err).toBe(0);
    expect((await cli(['catalog', 'show', '--name', 'wiki', ...data])).out).toContain('  change feeds none\n');
  }, 60_000);

  it('none stands alone: with a feed beside it, one line naming the flag, exit 2', async () => {
    const r = await cli(['catalog', 'update', 'wiki', '--change-feed', 'none', '--change-feed', 'sitemap', ...data]);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/--change-feed.*"none" opts out of every feed/);
  }, 60_000);

  it('a value that is not a change feed: one line naming the flag and the forms, exit 2', async () => {
    for (const value of ['atom:https://wiki.example.org/feed', 'rss:wiki.example.org/feed']) {
      const r = await cli(['catalog', 'update', 'wiki', '--change-feed', value, ...data]);
      expect(r.code, value).toBe(2);
      expect(r.err.trim().split('\n'), value).toHaveLength(1);
      expect(r.err, value).toMatch(/--change-feed/);
      expect(r.err, value).toMatch(/mediawiki:|http\(s\) url/);
    }
  }, 60_000);
});
