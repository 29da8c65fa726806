import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOW_WORDS, type FlowSite, startFlowSite } from '../packages/core/test/support/flow-site.js';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');

function cli(args: string[]) {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`pnpm run build\` first`);
  // Asynchronous: the flow site answers from this process.
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: root, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** `--start-url` given more than once: every one is a start reference of the catalog. */
describe('several start urls on the command line', () => {
  let site: FlowSite;
  let tmp: TempDir;

  beforeAll(async () => {
    site = await startFlowSite();
    tmp = createTempDir('gf-e2e-starts-');
  });
  afterAll(async () => {
    await site?.close();
    tmp?.remove();
  });

  it('crawls from each of them', async () => {
    const data = join(tmp.path, 'data');
    const r = await cli([
      'crawl',
      '--url',
      site.startUrl,
      '--start-url',
      `${site.origin}/guide.html`,
      '--start-url',
      `${site.origin}/sitemap-only.html`,
      '--depth',
      '0',
      '--no-sitemap',
      '--outputs',
      'file+index',
      '--json',
      '--data',
      data,
    ]);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { produced: { saved: number }; startUrl: string };
    expect(report.produced.saved).toBe(2);
    expect(report.startUrl).toBe(`${site.origin}/guide.html`);
    expect(site.count('/')).toBe(0);
    const search = await cli(['search', FLOW_WORDS.sitemapOnly, '--mode', 'words', '--json', '--data', data]);
    expect(search.status, search.stderr).toBe(0);
    expect((JSON.parse(search.stdout) as { results: Array<{ url: string }> }).results.map((h) => h.url)).toEqual([
      `${site.origin}/sitemap-only.html`,
    ]);
  }, 120_000);

  it('refuses a start url outside the catalog in one line', async () => {
    const r = await cli([
      'crawl',
      '--url',
      `${site.origin}/docs/`,
      '--start-url',
      `${site.origin}/docs/readme.txt`,
      '--start-url',
      `${site.origin}/guide.html`,
      '--data',
      join(tmp.path, 'refused'),
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--start-url: .*guide\.html is not a start url of .*\/docs\//);
  }, 60_000);
});
