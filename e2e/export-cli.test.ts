import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Corpus, startCorpus } from '../packages/core/test/support/corpus.js';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';
import { openWacz } from '../packages/core/test/support/wacz-reader.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');

function cli(args: string[], timeoutMs = 300_000): SpawnSyncReturns<string> {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm test\` (or pnpm run build) first`);
  // The jsonl of 30 pages is ~2.5 MB on stdout: past spawnSync's 1 MB default buffer.
  return spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** `greenfinger export` as a user runs it, after a 30-page crawl of the python docs. */
describe('greenfinger export over a python docs crawl', () => {
  let corpus: Corpus;
  let tmp: TempDir;
  let data: string;
  const PAGES = 30;
  const exportTo = (format: string, out: string, ...more: string[]) =>
    cli(['export', '--name', 'python', '--format', format, '--out', out, '--data', data, ...more]);

  beforeAll(async () => {
    corpus = await startCorpus('python');
    tmp = createTempDir('gf-export-e2e-');
    data = join(tmp.path, 'data');
    const origin = new URL(corpus.url).origin;
    const r = cli([
      'crawl',
      '--url',
      `${origin}/`,
      '--start-url',
      corpus.startUrl,
      '--name',
      'python',
      '--interval',
      '0',
      '--max-pages',
      String(PAGES),
      '--outputs',
      'file+index',
      '--json',
      '--data',
      data,
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).produced.saved).toBe(PAGES);
  }, 300_000);

  afterAll(async () => {
    await corpus?.stop();
    tmp?.remove();
  });

  it('jsonl: one line per saved page, a summary line; --out - writes the lines to stdout', () => {
    const out = join(tmp.path, 'python.jsonl');
    const r = exportTo('jsonl', out);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^exported ${PAGES} pages( \\(\\d+ pictures\\))? of "python" version 0 as jsonl`),
    );
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(PAGES);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ version: 0, catalog: { name: 'python' } });
    const piped = exportTo('jsonl', '-');
    expect(piped.status, piped.stderr).toBe(0);
    expect(piped.stdout.trimEnd().split('\n')).toHaveLength(PAGES);
    expect(piped.stderr).toMatch(new RegExp(`^exported ${PAGES} pages`));
  });

  it('wacz: wabac opens it, its pages list has one entry per page, and the datapackage digests hold', async () => {
    const out = join(tmp.path, 'python.wacz');
    const r = exportTo('wacz', out, '--json');
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ format: 'wacz', pages: PAGES, withoutResponse: 0, missing: 0 });
    const bytes = readFileSync(out);
    expect(JSON.parse(r.stdout).bytes).toBe(bytes.length);
    const wacz = await openWacz(bytes);
    expect((await wacz.names()).sort()).toEqual([
      'archive/data.warc.gz',
      'datapackage-digest.json',
      'datapackage.json',
      'indexes/index.cdxj',
      'pages/pages.jsonl',
    ]);
    const pages = (await wacz.text('pages/pages.jsonl')).trimEnd().split('\n');
    expect(pages).toHaveLength(PAGES + 1);
    const datapackage = JSON.parse(await wacz.text('datapackage.json'));
    expect(datapackage.resources.map((x: { path: string }) => x.path)).toContain('indexes/index.cdxj');
  });

  it('markdown: a folder of one .md per page; warc: a gzip of records', () => {
    const dir = join(tmp.path, 'md');
    const r = exportTo('markdown', dir);
    expect(r.status, r.stderr).toBe(0);
    const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => statSync(join(dir, f)).isFile());
    expect(files).toHaveLength(PAGES);
    expect(files.every((f) => f.endsWith('.md'))).toBe(true);
    const warc = join(tmp.path, 'python.warc.gz');
    expect(exportTo('warc', warc).status).toBe(0);
    expect(readFileSync(warc).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  });

  it('bad input: one line naming the problem and the fix, exit 2, nothing written', () => {
    const format = exportTo('pdf', join(tmp.path, 'x.pdf'));
    expect(format.status).toBe(2);
    expect(format.stderr).toMatch(/--format.*"pdf" is not an export format: give one of jsonl, markdown, warc, wacz/);
    expect(existsSync(join(tmp.path, 'x.pdf'))).toBe(false);
    const noOut = cli(['export', '--name', 'python', '--format', 'jsonl', '--data', data]);
    expect(noOut.status).toBe(2);
    expect(noOut.stderr).toMatch(/--out/);
    const taken = exportTo('jsonl', join(tmp.path, 'python.jsonl'));
    expect(taken.status).toBe(2);
    expect(taken.stderr.trim().split('\n')).toHaveLength(1);
    expect(taken.stderr).toMatch(/exists already/);
    const nobody = cli(['export', '--name', 'nobody', '--format', 'jsonl', '--out', '-', '--data', data]);
    expect(nobody.status).not.toBe(0);
    expect(nobody.stderr).toMatch(/^greenfinger: no catalog with name "nobody"/);
  });
});
