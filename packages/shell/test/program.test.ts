import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../../core/test/support/tmp.js';
import { optionsIn } from '../src/command-spec.js';
import { commandsIn } from '../src/command-table.js';
import { EXIT, type Io } from '../src/io.js';
import { main, VERSION } from '../src/program.js';

/** main(argv, io) in this process, its output captured: the one-line CLI without spawning it. */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: Io = {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    tty: false,
  };
  const code = await main(['node', 'greenfinger', ...args], io);
  return { code, out, err };
}

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

describe('the one-line CLI in-process: main(argv, io)', () => {
  let tmp: TempDir;
  let data: string;
  beforeAll(() => {
    tmp = createTempDir('gf-shell-program-');
    data = join(tmp.path, 'data');
  });
  afterAll(() => tmp?.remove());

  it('--version prints the version; no arguments prints the help', async () => {
    expect(await cli(['--version'])).toMatchObject({ code: EXIT.ok, out: `${VERSION}\n` });
    const help = await cli(['--help']);
    expect(help.code).toBe(EXIT.ok);
    expect(help.out).toMatch(/^Usage: greenfinger/);
  });

  it('the help lists every command of the table, and each command answers --help with its summary and options', async () => {
    const top = (await cli(['--help'])).out;
    for (const spec of commandsIn('cli')) {
      const words = (spec.cli ?? '').split(' ');
      expect(top, spec.cli).toContain(`  ${words[0]}`);
      const r = await cli([...words, '--help']);
      expect(r.code, spec.cli).toBe(EXIT.ok);
      expect(r.out, spec.cli).toContain(`Usage: greenfinger ${spec.cli}`);
      expect(r.out, spec.cli).toContain(spec.summary.slice(0, 40));
      for (const o of optionsIn(spec, 'cli')) {
        const flag = o.flags.split(/[ ,]+/).find((f) => f.startsWith('--')) ?? o.flags;
        expect(r.out, `${spec.cli} ${flag}`).toContain(flag);
      }
    }
  });

  it('bad input is one line on stderr naming what is wrong, nothing on stdout, exit 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['crawl', '--url', 'http//nohost'], /^greenfinger: --url: "http\/\/nohost" is not a valid url/],
      [['crawl', '--url', 'ftp://127.0.0.1/'], /^greenfinger: --url: .*uses ftp: but only http and https/],
      [['crawl', '--url', 'javascript:alert(1)'], /^greenfinger: --url: .*only http and https/],
      [
        ['crawl', '--url', 'http://127.0.0.1:9/docs/', '--start-url', 'http://127.0.0.1:9/'],
        /^greenfinger: --start-url: .* is not under --url/,
      ],
      [['crawl', '--url', 'http://127.0.0.1:9/', '--max-page', '3'], /^greenfinger: unknown option '--max-page'/],
      [['crawl', '--url', 'http://127.0.0.1:9/', '--max-pages', 'many'], /--max-pages must be a whole number/],
      [['crawl', '--url', 'http://127.0.0.1:9/', '--max-pages', '-4'], /--max-pages must be a whole number/],
      [['crawl', '--url', 'http://127.0.0.1:9/', '--threads', ''], /--threads must be a whole number/],
      [
        ['replay', '--name', 'x', '--layers', 'index', '--slice-pages', '20000'],
        /--slice-pages must be a whole number from 1 to 10000, got "20000"/,
      ],
      [
        ['replay', '--name', 'x', '--layers', 'index', '--slice-pages', '50'],
        /^greenfinger: --slice-pages cuts a cluster replay into slices: give --cluster NAME too/,
      ],
      [['crawl', '--url', 'http://127.0.0.1:9/', '--duration', 'NaN'], /--duration must be a number/],
      [['crawl', '--url', 'http://127.0.0.1:9/', '--min-publish-ratio', '2'], /--min-publish-ratio must be/],
      [['crawl', '--cluster', 'has space', '--url', 'http://127.0.0.1:9/'], /^greenfinger: --cluster/],
      [['crawl'], /^greenfinger: .*--url/],
      [['no-such-verb'], /^greenfinger: unknown command 'no-such-verb'/],
    ];
    for (const [args, line] of cases) {
      const r = await cli([...args, '--data', data]);
      const what = args.join(' ');
      expect(r.code, what).toBe(EXIT.usage);
      expect(lines(r.err), what).toHaveLength(1);
      expect(lines(r.err)[0], what).toMatch(line);
      expect(r.out, what).toBe('');
    }
  });
});
