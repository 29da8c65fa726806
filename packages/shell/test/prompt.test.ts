import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTempDir, type TempDir } from '../../core/test/support/tmp.js';
import { EXIT, type Io } from '../src/io.js';
import { runShell } from '../src/repl.js';

const io: Io = { out: () => undefined, err: () => undefined, tty: false };

/** The prompt in this process, not on a terminal: its stdout from `output`, its errors from process.stderr. */
function piped() {
  const input = new PassThrough();
  const output = new PassThrough();
  let out = '';
  output.on('data', (b: Buffer) => {
    out += b.toString();
  });
  let err = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err += chunk.toString();
    return true;
  });
  return { input, output, out: () => out, err: () => err };
}

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

describe('the prompt in-process (runShell, not on a terminal)', () => {
  let tmp: TempDir;
  beforeAll(() => {
    tmp = createTempDir('gf-shell-prompt-');
  });
  afterAll(() => tmp?.remove());
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('runs one command a line; a bad line is one line on stderr and the exit is the last failure', async () => {
    const p = piped();
    p.input.end(
      [
        'catalog-list --json',
        'no-such-command',
        'crawl --url http://127.0.0.1:9/ --max-pages many',
        '# a comment',
        'catalog-cats',
      ].join('\n'),
    );
    const code = await runShell(
      { data: join(tmp.path, 'one'), input: p.input, output: p.output, interactive: false },
      io,
    );
    expect(code).toBe(EXIT.usage);
    expect(p.out()).toContain('[]');
    expect(lines(p.err()), p.err()).toHaveLength(2);
    expect(lines(p.err())[0]).toMatch(/no-such-command/);
    expect(lines(p.err())[1]).toMatch(/--max-pages must be a whole number/);
  });

  it('a SIGTERM stops it gracefully with one line, and its listeners are gone after', async () => {
    const p = piped();
    const before = new Set(process.listeners('SIGTERM'));
    const ended = runShell({ data: join(tmp.path, 'two'), input: p.input, output: p.output, interactive: false }, io);
    // The prompt waits for a line that never comes; its listener is on once it loops.
    const deadline = Date.now() + 30_000;
    let mine: ((signal: NodeJS.Signals) => void) | undefined;
    while (!mine && Date.now() < deadline) {
      mine = process.listeners('SIGTERM').find((l) => !before.has(l)) as typeof mine;
      if (!mine) await new Promise((r) => setTimeout(r, 20));
    }
    expect(mine, 'the prompt listens for SIGTERM').toBeDefined();
    // Called directly: a real signal would reach the test runner's own listeners too.
    mine?.('SIGTERM');
    expect(await ended).toBe(EXIT.ok);
    expect(lines(p.err())).toEqual(['greenfinger: interrupted: stopping (crawls pause so resume can continue)']);
    expect(process.listeners('SIGTERM').filter((l) => !before.has(l))).toEqual([]);
  });
});
