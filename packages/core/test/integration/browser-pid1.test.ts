import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chromiumProcesses } from '../support/processes.js';

const script = fileURLToPath(new URL('../support/pid1-render.ts', import.meta.url));
const node = [process.execPath, '--conditions=@greenfinger/source', '--import', 'tsx', script];
/** A new PID namespace; without root, inside a user namespace mapped to root. */
const unshare = [
  'unshare',
  ...(process.getuid?.() === 0 ? [] : ['--user', '--map-root-user']),
  '--pid',
  '--fork',
  '--mount-proc',
];

interface Left {
  pid: number;
  rendered: number;
  launched: number;
  zombies: number;
  alive: string[];
}

function run(argv: string[], env: Record<string, string> = {}): { child: ChildProcess; lines: Promise<string[]> } {
  const child = spawn(argv[0] as string, argv.slice(1), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    err += d;
  });
  const lines = new Promise<string[]>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: ${err.slice(-500)}`));
    }, 60_000);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out.split('\n').filter((l) => l.startsWith('{')));
    });
  });
  return { child, lines };
}

async function left(argv: string[]): Promise<Left> {
  const lines = await run(argv).lines;
  return JSON.parse(lines.at(-1) ?? '{}') as Left;
}

describe('Chromium children when Greenfinger is PID 1 (a container without an init)', () => {
  it('node as PID 1 leaves zombies; a PID 1 that reaps (an init) leaves none, and no Chromium alive', async () => {
    const bare = await left([...unshare, ...node]);
    expect(bare).toMatchObject({ pid: 1, rendered: 4, launched: 2 });
    // Node cannot reap the orphaned grandchildren it inherits as PID 1: the count is Chromium's, not ours to bound.
    console.info(`node as PID 1: ${bare.zombies} zombies after closing 2 browsers`);
    const init = await left([...unshare, 'sh', '-c', `${node.map((a) => `'${a}'`).join(' ')}; true`]);
    expect(init).toMatchObject({ pid: 2, rendered: 4, launched: 2, zombies: 0 });
    expect(init.alive.filter((a) => /chrom/i.test(a))).toEqual([]);
    expect(chromiumProcesses()).toEqual([]);
  }, 120_000);

  it("tini as PID 1 (the Docker image's entrypoint: tini -- node …) reaps every Chromium child", async () => {
    // scripts/test.sh installs Debian's tini, as docker/Dockerfile does.
    const tini = await left([...unshare, '/usr/bin/tini', '--', ...node]);
    expect(tini).toMatchObject({ pid: 2, rendered: 4, launched: 2, zombies: 0 });
    expect(tini.alive.filter((a) => /chrom/i.test(a))).toEqual([]);
    expect(chromiumProcesses()).toEqual([]);
  }, 120_000);

  it('kill -9 of the crawler (PID 1 of its namespace) takes every Chromium with it', async () => {
    const { child, lines } = run([...unshare, ...node], { HOLD: '1', PAGES: '1', RECYCLE: '100' });
    const end = Date.now() + 45_000;
    let seen = 0;
    while (Date.now() < end && seen === 0) {
      await new Promise((r) => setTimeout(r, 200));
      seen = chromiumProcesses().length;
    }
    expect(seen).toBeGreaterThan(0);
    // The namespace's PID 1 is unshare's child; kill it, as docker kill would.
    const pid1 = chromiumProcesses().length > 0 ? namespaceInit(child.pid as number) : undefined;
    expect(pid1).toBeDefined();
    process.kill(pid1 as number, 'SIGKILL');
    await lines;
    const gone = Date.now() + 5000;
    while (chromiumProcesses().length > 0 && Date.now() < gone) await new Promise((r) => setTimeout(r, 100));
    expect(chromiumProcesses()).toEqual([]);
  }, 90_000);
});

/** The child of `unshare` (pid in this namespace) that is PID 1 of the new one. */
function namespaceInit(unsharePid: number): number | undefined {
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === unsharePid) return Number(d);
    } catch {
      // gone
    }
  }
  return undefined;
}
