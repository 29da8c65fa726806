import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Greenfinger, type LedgerRow, type RunReport, urlHash } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDocx, makePdf } from '../support/documents.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

const page = (title: string, body: string, links: string[] = []) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p>${links
    .map((l) => `<a href="${l}">${l}</a>`)
    .join(' ')}</main></body></html>`;

/**
 * The folder the test crawls: nested folders, html files linking to each other, dot-files, an asset, documents, and
 * an archive/ the catalog excludes (whose files must never be read).
 */
const FIXTURE: Record<string, string | Buffer> = {
  'index.html': page('Home of the orchard', 'Welcome to the orchard notes about apples and pears.', [
    'guide/intro.html',
    'about%20us.html',
    'archive/old.html',
  ]),
  'about us.html': page('About the growers', 'Growers tend the rows of trees every morning.', ['gone.html']),
  'gone.html': page('A page soon deleted', 'Windfalls are gathered for cider in late autumn.'),
  'guide/intro.html': page('Pruning guide', 'Prune the branches in winter while the sap sleeps.', ['../index.html']),
  'guide/deep/grafting.html': page('Grafting', 'A scion is joined to the rootstock with a whip and tongue cut.'),
  'guide/été/ünï.html': page('Unicode names', 'Greengages ripen in the warm summer sun.'),
  'notes.txt': 'Plain notes about the soil and its drainage.',
  'paper.pdf': makePdf({ title: 'Orchard paper', pages: ['Codling moths are trapped with pheromone lures.'] }),
  'plan.docx': makeDocx({ title: 'Planting plan', paragraphs: ['Quince trees along the east wall.'] }),
  'readme.md': '# Orchard readme\n\nMulch the **espaliers** before the first frost.\n',
  'style.css': 'body { color: green }',
  '.hidden.html': page('Hidden', 'A dot file is never listed.'),
  '.secret/inside.html': page('Secret', 'A dot folder is never listed.'),
  'archive/old.html': page('Old', 'Mothballed pages are excluded.'),
  'archive/nested/older.html': page('Older', 'Mothballed nested pages are never listed.'),
};

function write(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

/** A catalog of a folder through the service layer: crawl, the url ledger, search, then merge after changes. */
describe('file-system source', () => {
  let tmp: TempDir;
  let gf: Greenfinger;
  let root: string;
  let folder: string;
  let first: RunReport;
  const url = (rel: string) => folder + rel.split('/').map(encodeURIComponent).join('/');
  const catalog = { name: 'Team Docs' };

  const ledger = async () => {
    const rows: LedgerRow[] = [];
    for (let offset = 0; offset < 10_000; offset += 1000) {
      const page = await gf.ledger.list({ catalog, limit: 1000, offset });
      rows.push(...page.items);
      if (rows.length >= page.total) break;
    }
    return new Map(rows.map((r) => [r.url, r]));
  };
  const words = async (q: string) =>
    (await gf.search.search({ q, mode: 'words' })).results.map((h) => decodeURIComponent(h.url.slice(folder.length)));

  beforeAll(async () => {
    tmp = createTempDir('gf-file-source-');
    root = join(tmp.path, 'Team Docs');
    write(root, FIXTURE);
    folder = `file://${root.split('/').map(encodeURIComponent).join('/')}/`;
    gf = await Greenfinger.open({ settings: { dataStore: join(tmp.path, 'data'), workers: 1 } });
    // A plain absolute path, without its slash: made the folder's file url.
    first = await gf.crawler.crawl({
      url: root,
      settings: { exclude: ['/archive/**'], outputs: ['file', 'index'], images: false, threads: 4 },
    });
  }, 120_000);

  afterAll(async () => {
    await gf?.close();
    tmp?.remove();
  });

  it('names the catalog after its folder and keeps the folder url with its slash', async () => {
    const [only] = await (await gf.catalogs()).list();
    expect(only?.name).toBe('Team Docs');
    expect(only?.url).toBe(folder);
    expect(only?.startUrl).toBe(folder);
    expect(first.ending.published).toBe(true);
  });

  it('saves every html file and document of the tree, linked or only listed', async () => {
    const rows = await ledger();
    const saved = [...rows.values()].filter((r) => r.outcome === 'SAVED').map((r) => r.url);
    expect(saved.sort()).toEqual(
      [
        'about us.html',
        'gone.html',
        'guide/deep/grafting.html',
        'guide/intro.html',
        'guide/été/ünï.html',
        'index.html',
        'notes.txt',
        'paper.pdf',
        'plan.docx',
        'readme.md',
      ]
        .map(url)
        .sort(),
    );
    expect(first.produced.saved).toBe(10);
    expect(first.flow?.noted).toMatchObject({ 'documents:pdf': 1, 'documents:docx': 1, 'documents:text': 2 });
    const intro = rows.get(url('guide/intro.html'));
    expect(intro).toMatchObject({ state: 'done', status: 200, depth: 2 });
    expect(intro?.referrer).toMatch(/^file:\/\/\//);
  });

  it('lists each folder once as LISTED, one level deeper each', async () => {
    const rows = await ledger();
    const listed = [...rows.values()].filter((r) => r.outcome === 'LISTED');
    expect(listed.map((r) => [r.url, r.depth]).sort()).toEqual(
      [
        [folder, 0],
        [url('guide/'), 1],
        [url('guide/deep/'), 2],
        [url('guide/été/'), 2],
      ].sort(),
    );
    // index.html, about us.html, gone.html, notes.txt, paper.pdf, plan.docx, readme.md, style.css, guide/, archive/
    // (no dot-files).
    expect(rows.get(folder)?.reason).toBe('10 entries');
    const why = await gf.ledger.why(url('guide/'));
    expect(why.explanation).toMatch(/folder/);
  });

  it('refuses the excluded folder by its path and never lists it; dot-files are never seen', async () => {
    const rows = await ledger();
    expect(rows.get(url('archive/'))).toMatchObject({ state: 'rejected', outcome: 'REJECTED_FILTER' });
    expect(rows.get(url('archive/'))?.detail).toBe('path-patterns');
    // Linked from index.html: refused by the same pattern, before any read.
    expect(rows.get(url('archive/old.html'))).toMatchObject({ outcome: 'REJECTED_FILTER', fetchedAt: null });
    // Never listed: nothing below archive/ but the linked page reached the queue pipeline at all.
    const below = [...rows.keys()].filter((u) => u.startsWith(url('archive/')) && u !== url('archive/old.html'));
    expect(below).toEqual([url('archive/')]);
    expect([...rows.keys()].filter((u) => u.includes('.hidden') || u.includes('.secret'))).toEqual([]);
    expect(rows.get(url('style.css'))).toMatchObject({ outcome: 'REJECTED_ASSET' });
  });

  it('finds the files by their words', async () => {
    expect(await words('sap sleeps')).toEqual(['guide/intro.html']);
    expect(await words('drainage')).toEqual(['notes.txt']);
    expect(await words('pheromone')).toEqual(['paper.pdf']);
    expect(await words('quince')).toEqual(['plan.docx']);
    expect(await words('espaliers')).toEqual(['readme.md']);
    expect(await words('greengages')).toEqual(['guide/été/ünï.html']);
    expect(await words('mothballed')).toEqual([]);
  });

  it('merge: unchanged files answer 304, a touched one is unchanged by checksum, changed and new ones are saved, a deleted one is not found', async () => {
    writeFileSync(
      join(root, 'guide/intro.html'),
      page('Pruning guide', 'Prune the branches in winter, and paint the cuts against canker.', ['../index.html']),
    );
    write(root, { 'guide/new.html': page('Medlars', 'Medlars must blet on straw before they are eaten.') });
    rmSync(join(root, 'gone.html'));
    // Touched, not changed: its etag changes, its text does not.
    const later = Date.now() / 1000 + 5;
    utimesSync(join(root, 'index.html'), later, later);
    const db = await gf.database();
    const [cat] = await (await gf.catalogs()).list();
    const before = await db.resources.findResourceByUrlHash(cat!.id, 0, urlHash(url('guide/intro.html')));

    const merged = await gf.crawler.crawl({ name: catalog.name, action: 'merge' });
    expect(merged.ending.published).toBe(true);
    expect(merged.produced.saved).toBe(2);
    const rows = await ledger();
    const fate = (rel: string) => {
      const r = rows.get(url(rel));
      return [r?.outcome, r?.reason];
    };
    expect(fate('guide/intro.html')).toEqual(['SAVED', '']);
    expect(fate('guide/new.html')).toEqual(['SAVED', '']);
    expect(fate('about us.html')).toEqual(['REJECTED_UNMODIFIED', 'HTTP 304']);
    expect(fate('guide/deep/grafting.html')).toEqual(['REJECTED_UNMODIFIED', 'HTTP 304']);
    expect(fate('guide/été/ünï.html')).toEqual(['REJECTED_UNMODIFIED', 'HTTP 304']);
    expect(fate('index.html')).toEqual(['REJECTED_UNMODIFIED', 'same text']);
    // Linked from the unchanged about page, whose stored links are followed: revisited, and gone.
    expect(rows.get(url('gone.html'))).toMatchObject({ state: 'failed', outcome: 'REJECTED_NOTFOUND', status: 404 });
    expect(rows.get(url('guide/'))?.outcome).toBe('LISTED');
    // The four unchanged html files and the four documents.
    expect(merged.urls.unmodified).toBe(8);

    // The changed file kept its id, with its new text.
    const after = await db.resources.findResourceByUrlHash(cat!.id, 0, urlHash(url('guide/intro.html')));
    expect(after?.id).toBe(before?.id);
    expect(after?.etag).not.toBe(before?.etag);
    expect(await words('canker')).toEqual(['guide/intro.html']);
    expect(await words('medlars blet')).toEqual(['guide/new.html']);
  });
});
