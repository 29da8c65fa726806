import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Issue 30, item 2: `crawl --data /proc/x` spun at 100 % CPU for ever and ignored SIGTERM (Node's recursive
 * mkdirSync loops on a parent that answers ENOENT for ever, inside the event loop). Each command now ends with one
 * line naming the path and the fix. The deadline is the promise ("one line in under 5 s"): a hang never ends, so the
 * process is killed at the deadline and the test fails on the signal.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');
const DEADLINE_MS = 5000;
const DATA = '/proc/x/y';

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

function cli(args: string[]): Promise<Ran> {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`pnpm run build\` first`);
  const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  // SIGKILL: the hang this guards against ignored SIGTERM.
  const timer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS);
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

describe('a data root that cannot be created (issue 30, item 2)', () => {
  it('crawl --data /proc/x/y ends within 5 s with one line naming the path and the fix, not a hang', async () => {
    const r = await cli(['crawl', '--url', 'http://127.0.0.1:9/', '--data', DATA]);
    expect(r.signal, 'killed at the deadline: the crawl hung').toBeNull();
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      `greenfinger: the data root ${DATA} cannot be created: /proc/x cannot be made (ENOENT) — choose a data directory whose parent exists and can be written, with --data DIR (or GF_DATA_STORE)`,
    ]);
  });

  it('serve --data /proc/x/y ends within 5 s with the same line, not a hang', async () => {
    const r = await cli(['serve', '--host', '127.0.0.1', '--port', '0', '--data', DATA]);
    expect(r.signal, 'killed at the deadline: serve hung').toBeNull();
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      `greenfinger: the data root ${DATA} cannot be created: /proc/x cannot be made (ENOENT) — choose a data directory whose parent exists and can be written, with --data DIR (or GF_DATA_STORE)`,
    ]);
  });

  it('search --data /proc/x/y ends within 5 s with one line: the data root does not exist, and where to point it', async () => {
    const r = await cli(['search', 'quince', '--data', DATA]);
    expect(r.signal, 'killed at the deadline: search hung').toBeNull();
    expect(r.code).not.toBe(0);
    expect(lines(r.stderr)).toEqual([
      `greenfinger: the data root ${DATA} does not exist: nothing was crawled there — give --data the folder a crawl wrote (or GF_DATA_STORE), or crawl into it first: greenfinger crawl --url <site> --data ${DATA}`,
    ]);
  });

  it('catalog list and status --data /proc/x/y end with one line each (closing the store that failed adds none)', async () => {
    for (const args of [['catalog', 'list'], ['status']]) {
      const r = await cli([...args, '--data', DATA]);
      expect(r.signal, `killed at the deadline: ${args.join(' ')} hung`).toBeNull();
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(lines(r.stderr), args.join(' ')).toHaveLength(1);
      expect(lines(r.stderr)[0]).toMatch(/\/proc\/x/);
    }
  });
});
