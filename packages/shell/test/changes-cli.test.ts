import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChangingSite, startChangingSite } from '../../core/test/support/changing-site.js';
import { createTempDir, type TempDir } from '../../core/test/support/tmp.js';
import { EXIT, type Io } from '../src/io.js';
import { main } from '../src/program.js';

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

/**
 * `changes` and `diff` on the command line (issue 27 item 5), in-process: a crawl of the changing site, its edit,
 * a rebuild (version 1), then both verbs in JSON and in text, and their bad input. What counts as a change and the
 * merge's own change set are judged in core's integration/changes.test.ts.
 */
describe('greenfinger changes / diff', () => {
  let site: ChangingSite;
  let tmp: TempDir;
  let data: string;
  let catalog: string[];
  let rebuild: { code: number; out: string; err: string };
  const fast = ['--interval', '0', '--threads', '4', '--host-concurrency', '4', '--outputs', 'file+index'];

  beforeAll(async () => {
    site = await startChangingSite();
    tmp = createTempDir('gf-changes-cli-');
    data = join(tmp.path, 'data');
    catalog = ['--url', `${site.origin}/b/`, '--data', data];
    expect((await cli(['crawl', ...catalog, ...fast])).code).toBe(EXIT.ok);
    site.edit();
    rebuild = await cli(['rebuild', ...catalog]);
    expect(rebuild.code).toBe(EXIT.ok);
  }, 60_000);
  afterAll(async () => {
    await site?.close();
    tmp?.remove();
  });

  const urls = (a: { added: string[]; changed: Array<{ url: string }>; removed: string[] }) => ({
    added: a.added,
    changed: a.changed.map((c) => c.url),
    removed: a.removed,
  });

  it('changes --json and diff --from 0 --to 1 --json: the 3 edited pages, the new one, the deleted one', async () => {
    const changes = await cli(['changes', ...catalog, '--json']);
    expect(changes.code).toBe(EXIT.ok);
    const latest = JSON.parse(changes.out);
    expect(latest.runs).toEqual([expect.objectContaining({ version: 1, action: 'rebuild' })]);
    expect(urls(latest)).toEqual(site.expected('b'));
    const diff = await cli(['diff', ...catalog, '--from', '0', '--to', '1', '--json']);
    expect(diff.code).toBe(EXIT.ok);
    const answer = JSON.parse(diff.out);
    expect({ from: answer.from, to: answer.to, ...urls(answer) }).toEqual({ from: 0, to: 1, ...site.expected('b') });
    expect(answer.changed[0].diff).toMatch(/^- .*\n\+ .*replanted/);
  });

  it("the run's summary counts its changes and names the verb that lists them", () => {
    expect(rebuild.out).toMatch(/^changes: 1 added, 3 changed, 1 removed \(greenfinger changes --name ".+"\)$/m);
  });

  it('the text: one line a url, the diff indented under a changed one', async () => {
    const text = (await cli(['diff', ...catalog, '--from', '0', '--to', '1'])).out;
    const e = site.expected('b');
    expect(text).toMatch(/^catalog ".*", v0 → v1: 1 added, 3 changed, 1 removed\n/);
    expect(text).toContain(`+ ${e.added[0]}\n`);
    expect(text).toContain(`- ${e.removed[0]}\n`);
    expect(text).toMatch(new RegExp(`~ ${e.changed[0]?.replace(/[.?]/g, '\\$&')}\\n {4}- .*\\n {4}\\+ .*replanted`));
    const since = await cli(['changes', ...catalog, '--since', '0']);
    expect(since.out).toMatch(/^catalog ".*", rebuild of v1 at .*: 1 added, 3 changed, 1 removed\n/);
  });

  it('bad input: one line naming the flag or the version, exit 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['changes', ...catalog, '--since', 'last week'], /--since takes a version number \(3\) or a date/],
      [['diff', ...catalog, '--from', 'one', '--to', '1'], /--from must be a whole number/],
      [['diff', ...catalog, '--to', '1'], /--from/],
      [['diff', ...catalog, '--from', '0', '--to', '9'], /keeps no version 9 \(kept: 0, 1\)/],
      [['changes', '--data', data], /changes needs exactly one catalog/],
    ];
    for (const [args, line] of cases) {
      const r = await cli(args);
      const what = args.join(' ');
      expect(r.code, what).toBe(EXIT.usage);
      expect(r.err.trim().split('\n'), what).toHaveLength(1);
      expect(r.err, what).toMatch(line);
      expect(r.out, what).toBe('');
    }
  });
});
