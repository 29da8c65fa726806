import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientSite, startClientSite } from '../packages/core/test/support/client-site.js';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');

/**
 * Processes whose environment holds `mark`: the crawler and every Chromium process it started, wherever they were
 * reparented (an orphan is no longer a descendant of the test, but it keeps its environment). Zombies are counted
 * apart: they hold nothing but a process-table entry, and only their parent (or the init) can remove it.
 */
function marked(mark: string): { alive: { pid: number; comm: string }[]; zombies: number } {
  const alive: { pid: number; comm: string }[] = [];
  let zombies = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z') {
        // A zombie's environment cannot be read; count the ones named like Chromium's processes.
        if (/chrom|headless/i.test(stat)) zombies++;
        continue;
      }
      if (!readFileSync(`/proc/${d}/environ`, 'latin1').includes(mark)) continue;
      alive.push({ pid: Number(d), comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) });
    } catch {
      // ended while we looked, or not ours to read
    }
  }
  return { alive, zombies };
}

const chromium = (procs: { comm: string }[]) => procs.filter((p) => /chrom|headless/i.test(p.comm));

describe('Ctrl-C during a crawl that renders pages in Chromium', () => {
  let site: ClientSite;
  let tmp: TempDir;

  beforeAll(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm test\` (or pnpm run build) first`);
    site = await startClientSite();
    tmp = createTempDir('gf-e2e-sigint-');
  });

  afterAll(async () => {
    await site?.close();
    tmp?.remove();
  });

  it('a real SIGINT stops the CLI gracefully (exit 130, report "interrupted") and leaves no Chromium process', async () => {
    const mark = `GF_TEST_MARK=${randomBytes(8).toString('hex')}`;
    const zombiesBefore = marked(mark).zombies;
    const args = ['crawl', '--url', `${site.origin}/`, '--data', join(tmp.path, 'data'), '--json'];
    args.push('--extractor', 'adaptive', '--interval', '0', '--threads', '2', '--no-images', '--no-sitemap');
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        [mark.split('=')[0] as string]: mark.split('=')[1],
        GF_WORKERS: '1',
        // Client pages wait long for their text, so renders are in flight when Ctrl-C comes.
        GF_RENDER_SETTLE_MS: '30000',
        GF_RENDER_IDLE_MS: '300',
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

    // Wait for Chromium to be rendering (a browser request reached the site), then press Ctrl-C.
    const end = Date.now() + 45_000;
    while (Date.now() < end && child.exitCode === null && !site.requests.some((r) => r.browser)) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const during = chromium(marked(mark).alive);
    expect(during.length, stderr.slice(-500)).toBeGreaterThan(0);
    const pressed = Date.now();
    child.kill('SIGINT');
    const code = await exited;
    const stopMs = Date.now() - pressed;

    expect(code, stderr.slice(-500)).toBe(130);
    expect(JSON.parse(stdout).ending).toMatchObject({ reason: 'interrupted', published: false });
    // The crawler is gone; so is every Chromium process it started. Helpers orphaned as the browser closed are
    // zombies until the init reaps them: a short grace (5 s) for that, then none may be left, dead or alive.
    const exitedAt = Date.now();
    let left = marked(mark);
    const firstZombies = left.zombies - zombiesBefore;
    while (Date.now() < exitedAt + 5000 && (left.alive.length > 0 || left.zombies > zombiesBefore)) {
      await new Promise((r) => setTimeout(r, 100));
      left = marked(mark);
    }
    expect(left.alive).toEqual([]);
    expect(left.zombies - zombiesBefore).toBeLessThanOrEqual(0);
    console.info(
      `Ctrl-C with ${chromium(during).length} Chromium processes: exit 130 after ${stopMs} ms; ` +
        `${firstZombies} zombies at exit, reaped within ${Date.now() - exitedAt} ms; none left`,
    );
  }, 120_000);
});
