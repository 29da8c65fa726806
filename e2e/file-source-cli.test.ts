import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../packages/core/test/support/documents.js';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');

function cli(args: string[]) {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`pnpm run build\` first`);
  return spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', timeout: 300_000 });
}

const html = (title: string, text: string, links: string[] = []) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${text}</p>${links
    .map((l) => `<a href="${l}">${l}</a>`)
    .join('')}</main></body></html>`;

/** `greenfinger crawl --url file:///…/folder/` indexes the folder's documents; `search` finds them. */
describe('crawling a folder from the command line', () => {
  let tmp: TempDir;
  let folder: string;
  let data: string;

  beforeAll(() => {
    tmp = createTempDir('gf-e2e-files-');
    const docs = join(tmp.path, 'field notes');
    mkdirSync(join(docs, 'orchard', 'pears'), { recursive: true });
    mkdirSync(join(docs, 'drafts'), { recursive: true });
    writeFileSync(join(docs, 'index.html'), html('Field notes', 'Notes from the orchard.', ['orchard/apples.html']));
    writeFileSync(join(docs, 'orchard', 'apples.html'), html('Apples', 'Russets keep until spring in a cool cellar.'));
    writeFileSync(
      join(docs, 'orchard', 'pears', 'conference.html'),
      html('Pears', 'Conference pears ripen off the tree.'),
    );
    writeFileSync(join(docs, 'drafts', 'unfinished.html'), html('Draft', 'Quinces are still a secret here.'));
    writeFileSync(join(docs, '.private.html'), html('Private', 'Nobody reads the dotted medlar page.'));
    writeFileSync(
      join(docs, 'orchard', 'harvest.pdf'),
      makePdf({ title: 'Harvest log', pages: ['Bramleys were picked in the second week of October.'] }),
    );
    writeFileSync(join(docs, 'orchard', 'cider.md'), '# Cider\n\nPress the windfalls with a rack and cloth.\n');
    folder = `${pathToFileURL(docs).href}/`;
    data = join(tmp.path, 'data');
  });
  afterAll(() => tmp?.remove());

  it('crawls it, a folder excluded, and search finds its files by their words', () => {
    const r = cli([
      'crawl',
      '--url',
      folder,
      '--exclude',
      '/drafts/**',
      '--outputs',
      'file+index',
      '--no-images',
      '--json',
      '--data',
      data,
    ]);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { produced: { saved: number }; ending: { published: boolean } };
    expect(report.produced.saved).toBe(5);
    expect(report.ending.published).toBe(true);

    const found = (q: string) => {
      const s = cli(['search', q, '--mode', 'words', '--json', '--data', data]);
      expect(s.status, s.stderr).toBe(0);
      return (JSON.parse(s.stdout) as { results: Array<{ url: string }> }).results.map((h) => h.url);
    };
    expect(found('russets cellar')).toEqual([`${folder}orchard/apples.html`]);
    expect(found('conference pears')).toEqual([`${folder}orchard/pears/conference.html`]);
    expect(found('bramleys october')).toEqual([`${folder}orchard/harvest.pdf`]);
    expect(found('windfalls rack')).toEqual([`${folder}orchard/cider.md`]);
    expect(found('quinces')).toEqual([]);
    expect(found('medlar')).toEqual([]);

    const catalogs = cli(['catalog', 'list', '--json', '--data', data]);
    expect(catalogs.status, catalogs.stderr).toBe(0);
    expect((JSON.parse(catalogs.stdout) as Array<{ name: string; url: string }>)[0]).toMatchObject({
      name: 'field notes',
      url: folder,
    });
    const why = cli(['why', `${folder}drafts/`, '--data', data]);
    expect(why.status, why.stderr).toBe(0);
    expect(why.stdout).toMatch(/path-patterns/);
  });

  it('refuses a folder of another machine, and one that is not there, in one line', () => {
    const remote = cli(['crawl', '--url', 'file://fileserver/share/', '--data', data]);
    expect(remote.status).toBe(2);
    expect(remote.stderr.trim().split('\n')).toHaveLength(1);
    expect(remote.stderr).toMatch(/^greenfinger: --url: .*names the machine "fileserver": only a local folder/);
    const missing = cli(['crawl', '--url', `${folder}no-such-folder/`, '--data', data]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^greenfinger: --url: .*no such folder or file/);
  });
});
