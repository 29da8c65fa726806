import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Corpus, startCorpus } from '../packages/core/test/support/corpus.js';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');
/** How long before the kill a response may have been sent and still not reached the crawler's records. */
const IN_FLIGHT_MS = 50;

interface Report {
  produced: { saved: number; images: number; indexed: number };
  urls: Record<string, number>;
  rejected: Record<string, number>;
  ending: { published: boolean; reason: string };
  action: string;
}

function run(args: string[]): Report {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm test\` (or pnpm run build) first`);
  const r = spawnSync(process.execPath, [bin, ...args, '--json'], { cwd: root, encoding: 'utf8', timeout: 300_000 });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Report;
}

/** Saved pages of the crawl running in `data`, from the progress file its process writes. */
function progressSaved(data: string): number {
  const dir = join(data, 'system', 'locks');
  if (!existsSync(dir)) return 0;
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.progress.json'))) {
    try {
      return (JSON.parse(readFileSync(join(dir, name), 'utf8')) as { counters: { saved: number } }).counters.saved;
    } catch {
      // being replaced right now
    }
  }
  return 0;
}

/** kill -9 half way, then resume: the same counts as a clean crawl, and no page requested twice. */
describe('resume after kill -9 over the python documentation', () => {
  let clean: Corpus;
  let killed: Corpus;
  let tmp: TempDir;
  let reference: Report;
  let resumed: Report;
  let savedAtKill = 0;
  let killedAt = 0;

  beforeAll(async () => {
    tmp = createTempDir('gf-kill-');
    clean = await startCorpus('python');
    killed = await startCorpus('python');
    const args = (c: Corpus, data: string) => [
      '--url',
      `${new URL(c.url).origin}/`,
      '--start-url',
      c.startUrl,
      '--interval',
      '0',
      '--outputs',
      'file+index',
      '--data',
      data,
    ];
    reference = run(['crawl', ...args(clean, join(tmp.path, 'clean'))]);

    const data = join(tmp.path, 'killed');
    const child: ChildProcess = spawn(process.execPath, [bin, 'crawl', ...args(killed, data), '--json'], {
      cwd: root,
      stdio: 'ignore',
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && child.exitCode === null) {
      savedAtKill = progressSaved(data);
      if (savedAtKill >= reference.produced.saved / 2) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    child.kill('SIGKILL');
    killedAt = Date.now();
    await exited;
    resumed = run(['resume', '--url', `${new URL(killed.url).origin}/`, '--data', data]);
  }, 600_000);

  afterAll(async () => {
    await clean?.stop();
    await killed?.stop();
    tmp?.remove();
  });

  it('was killed half way', () => {
    expect(savedAtKill).toBeGreaterThanOrEqual(reference.produced.saved / 2);
    expect(savedAtKill).toBeLessThan(reference.produced.saved);
  });

  it('ends with the counts of a clean crawl, and publishes', () => {
    expect(resumed.action).toBe('resume');
    expect(resumed.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    expect(resumed.produced).toEqual(reference.produced);
    expect(resumed.urls).toEqual(reference.urls);
    expect(resumed.rejected).toEqual(reference.rejected);
  });

  it('requested nothing twice that it had received before the kill', () => {
    const log = killed.accessLog();
    const byPath = new Map<string, typeof log>();
    for (const line of log) byPath.set(line.path, [...(byPath.get(line.path) ?? []), line]);
    // robots.txt and llms.txt are read once per run (they may have changed).
    byPath.delete('/robots.txt');
    byPath.delete('/llms.txt');
    // A response nginx finished sending in the last moments before the kill was still on its way into the
    // process (not yet in its write-ahead record): the crawler never had it, so resume asks for it again.
    // Anything answered earlier than that is never requested again.
    const inFlightAtKill = (line: { msec: number }) => line.msec >= killedAt - IN_FLIGHT_MS;
    const repeated = [...byPath].filter(([, lines]) => lines.length > 1);
    const received = repeated.filter(([, lines]) => !inFlightAtKill(lines[0] as { msec: number }));
    expect(received.map(([p]) => p)).toEqual([]);
    expect(repeated.length).toBeLessThanOrEqual(16); // at most the pages in flight (--threads 16)
    for (const [, lines] of repeated) expect(lines).toHaveLength(2);
  });
});
