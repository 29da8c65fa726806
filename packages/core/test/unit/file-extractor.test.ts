import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FetchError } from '../../src/errors.js';
import { FileExtractor } from '../../src/fetch/file-extractor.js';
import { fileUrlOf } from '../../src/url/file-url.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** mkfifo(3) through the shell's mkfifo: node has no binding of its own. */
function fifo(path: string): void {
  const r = spawnSync('mkfifo', [path]);
  if (r.status !== 0) throw new Error(`mkfifo ${path}: ${r.stderr}`);
}

describe('FileExtractor', () => {
  let tmp: TempDir;
  let root: string;
  let files: FileExtractor;
  const url = (rel: string, folder = false) => fileUrlOf(join(root, rel), folder);

  beforeEach(() => {
    // Under /tmp itself: one test reads the tree as nobody, who cannot enter the test script's own TMPDIR.
    tmp = createTempDir('gf-file-extractor-', '/tmp');
    root = join(tmp.path, 'root');
    mkdirSync(join(root, 'sub'), { recursive: true });
    writeFileSync(join(root, 'index.html'), '<html><head><title>Home</title></head><body>café</body></html>');
    writeFileSync(join(root, 'notes.txt'), 'plain words');
    writeFileSync(join(root, 'readme.md'), '# Title');
    writeFileSync(join(root, 'table.csv'), 'a,b\n1,2\n');
    writeFileSync(join(root, 'paper.pdf'), '%PDF-1.4 not really');
    writeFileSync(join(root, 'letter.docx'), 'PK\u0003\u0004');
    writeFileSync(join(root, 'data.json'), '{}');
    writeFileSync(join(root, 'photo.JPG'), Buffer.from([0xff, 0xd8, 0xff, 0xe0]));
    writeFileSync(join(root, 'blob.xyz'), 'x');
    writeFileSync(join(root, 'sub', 'page.htm'), '<p>sub</p>');
    files = new FileExtractor({ maxBodyBytes: 1000, root });
  });
  afterEach(async () => {
    await files.close();
    tmp.remove();
  });

  it('answers a file with its bytes, the type of its extension and its metadata', async () => {
    const r = await files.fetch(url('index.html'));
    expect(r.status).toBe(200);
    expect(r.finalUrl).toBe(url('index.html'));
    expect(r.contentType).toBe('text/html');
    expect(r.charset).toBe('utf-8');
    expect(r.text).toContain('café');
    expect(r.body.equals(Buffer.from('<html><head><title>Home</title></head><body>café</body></html>'))).toBe(true);
    expect(r.headers['content-length']).toBe(String(r.body.length));
    expect(r.etag).toMatch(/^"\d+-\d+"$/);
    expect(r.etag?.startsWith(`"${r.body.length}-`)).toBe(true);
    expect(r.lastModified).toMatch(/GMT$/);
    expect(r.headers['last-modified']).toBe(r.lastModified);
    expect(r.children).toBeUndefined();
  });

  it.each([
    ['notes.txt', 'text/plain'],
    ['readme.md', 'text/markdown'],
    ['table.csv', 'text/csv'],
    ['paper.pdf', 'application/pdf'],
    ['letter.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ['data.json', 'application/json'],
    ['photo.JPG', 'image/jpeg'],
    ['blob.xyz', 'application/octet-stream'],
    ['sub/page.htm', 'text/html'],
  ])('%s is %s', async (rel, type) => {
    const r = await files.fetch(url(rel), { binary: true });
    expect(r.status).toBe(200);
    expect(r.contentType).toBe(type);
    expect(r.body.length).toBeGreaterThan(0);
  });

  it('reads bodies as the http extractor does: a page fetch only html, a plain fetch markup and text', async () => {
    expect((await files.fetch(url('notes.txt'), { pagesOnly: true })).body.length).toBe(0);
    expect((await files.fetch(url('notes.txt'))).text).toBe('plain words');
    expect((await files.fetch(url('paper.pdf'))).body.length).toBe(0);
    expect((await files.fetch(url('paper.pdf'), { binary: true })).body.toString()).toBe('%PDF-1.4 not really');
    const raw = await files.fetch(url('index.html'), { decode: false });
    expect(raw.text).toBeUndefined();
    expect(raw.charset).toBe('utf-8');
  });

  it('refuses a file over the cap with a too-large FetchError, per extractor and per request', async () => {
    writeFileSync(join(root, 'big.html'), 'x'.repeat(1001));
    const err = await files.fetch(url('big.html')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).reason).toBe('too-large');
    expect((err as FetchError).retryable).toBe(false);
    const small = await files.fetch(url('index.html'), { maxBytes: 10 }).catch((e: unknown) => e);
    expect((small as FetchError).reason).toBe('too-large');
    expect((await files.fetch(url('big.html'), { maxBytes: 2000 })).body.length).toBe(1001);
  });

  it('answers 304 to the stored etag, and to a Last-Modified not older than the file, without a body', async () => {
    const first = await files.fetch(url('index.html'));
    const byEtag = await files.fetch(url('index.html'), { etag: first.etag });
    expect(byEtag.status).toBe(304);
    expect(byEtag.body.length).toBe(0);
    const byDate = await files.fetch(url('index.html'), { lastModified: first.lastModified });
    expect(byDate.status).toBe(304);
    const older = new Date(Date.parse(first.lastModified as string) - 60_000).toUTCString();
    expect((await files.fetch(url('index.html'), { lastModified: older })).status).toBe(200);
  });

  it('a changed file answers 200 even in the same second: the etag holds the size and the mtime in ms', async () => {
    const first = await files.fetch(url('index.html'));
    const at = Date.parse(first.lastModified as string) / 1000;
    writeFileSync(join(root, 'index.html'), '<html><body>changed</body></html>');
    utimesSync(join(root, 'index.html'), at + 0.5, at + 0.5);
    const again = await files.fetch(url('index.html'), { etag: first.etag, lastModified: first.lastModified });
    expect(again.status).toBe(200);
    expect(again.text).toContain('changed');
    expect(again.etag).not.toBe(first.etag);
  });

  it('answers 404 for a missing file or folder, and for a file asked as a folder', async () => {
    expect((await files.fetch(url('gone.html'))).status).toBe(404);
    expect((await files.fetch(url('gone', true))).status).toBe(404);
    expect((await files.fetch(`${url('index.html')}/`)).status).toBe(404);
    expect((await files.fetch(url('gone/deeper.html'))).status).toBe(404);
  });

  it('lists a folder on GET: sorted urls, folders with a slash, no dot-files, no fifo', async () => {
    writeFileSync(join(root, '.hidden'), 'secret');
    mkdirSync(join(root, '.git'));
    fifo(join(root, 'pipe'));
    const r = await files.fetch(url('', true));
    expect(r.status).toBe(200);
    expect(r.contentType).toBe('inode/directory');
    expect(r.body.length).toBe(0);
    expect(r.children).toEqual(
      [
        'blob.xyz',
        'data.json',
        'index.html',
        'letter.docx',
        'notes.txt',
        'paper.pdf',
        'photo.JPG',
        'readme.md',
        'sub/',
        'table.csv',
      ].map((n) => url(n, n.endsWith('/'))),
    );
  });

  it('a fifo is refused with 403 and never opened (opening it would block)', async () => {
    fifo(join(root, 'pipe'));
    const r = await files.fetch(url('pipe'));
    expect(r.status).toBe(403);
  });

  it('HEAD gives the metadata only: no body, no listing', async () => {
    const file = await files.fetch(url('index.html'), { method: 'HEAD' });
    expect(file.status).toBe(200);
    expect(file.contentType).toBe('text/html');
    expect(file.body.length).toBe(0);
    expect(file.etag).toMatch(/^"/);
    const folder = await files.fetch(url('', true), { method: 'HEAD' });
    expect(folder.status).toBe(200);
    expect(folder.contentType).toBe('inode/directory');
    expect(folder.children).toBeUndefined();
  });

  it('a folder url without its slash answers 301 to it, or is followed when redirects are', async () => {
    const moved = await files.fetch(url('sub'), { maxRedirects: 0 });
    expect(moved.status).toBe(301);
    expect(moved.headers.location).toBe(url('sub', true));
    const followed = await files.fetch(url('sub'));
    expect(followed.status).toBe(200);
    expect(followed.finalUrl).toBe(url('sub', true));
    expect(followed.redirects).toEqual([url('sub')]);
    expect(followed.children).toEqual([url('sub/page.htm')]);
  });

  it('does not follow symlinks out of the root; symlinks inside it are listed; a loop is not', async () => {
    const outside = join(tmp.path, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'not yours');
    symlinkSync(outside, join(root, 'escape'));
    symlinkSync(join(outside, 'secret.txt'), join(root, 'leak.txt'));
    symlinkSync('../index.html', join(root, 'sub', 'home.html'));
    symlinkSync(root, join(root, 'sub', 'up'));
    symlinkSync(join(root, 'sub'), join(root, 'sub', 'self'));
    symlinkSync('missing.html', join(root, 'dangling.html'));
    symlinkSync('a-loop', join(root, 'b-loop'));
    symlinkSync('b-loop', join(root, 'a-loop'));
    const top = await files.fetch(url('', true));
    expect(top.children).not.toContain(url('escape', true));
    expect(top.children).not.toContain(url('leak.txt'));
    expect(top.children).not.toContain(url('dangling.html'));
    expect(top.children?.some((c) => c.includes('loop'))).toBe(false);
    const sub = await files.fetch(url('sub', true));
    expect(sub.children).toEqual([url('sub/home.html'), url('sub/page.htm')]);
    expect((await files.fetch(url('sub/home.html'))).text).toContain('Home');
    // Asked directly, whatever links to them: refused, never read.
    const leak = await files.fetch(url('leak.txt'));
    expect(leak.status).toBe(403);
    expect(leak.body.length).toBe(0);
    expect((await files.fetch(url('escape/secret.txt'))).status).toBe(403);
    expect((await files.fetch(url('escape', true))).status).toBe(403);
    expect((await files.fetch(url('a-loop'))).status).toBe(508);
    // A symlinked folder inside the root that is no loop is listed.
    mkdirSync(join(root, 'real'));
    writeFileSync(join(root, 'real', 'r.html'), '<p>r</p>');
    symlinkSync(join(root, 'real'), join(root, 'sub', 'alias'));
    expect((await files.fetch(url('sub', true))).children).toContain(url('sub/alias', true));
    expect((await files.fetch(url('sub/alias', true))).children).toEqual([url('sub/alias/r.html')]);
  });

  it('names with spaces, percent signs, # and unicode round-trip through their urls', async () => {
    const names = ['with space.html', '100%.html', 'a#b?c.html', 'ünïcödé 文字.html', 'semi;colon=1.html'];
    mkdirSync(join(root, 'dossier été'));
    for (const n of names) writeFileSync(join(root, 'dossier été', n), `<p>${n}</p>`);
    const r = await files.fetch(url('dossier été', true));
    expect(r.children).toHaveLength(names.length);
    for (const child of r.children ?? []) {
      const page = await files.fetch(child);
      expect(page.status, child).toBe(200);
      const name = fileURLToPath(child).split('/').pop() as string;
      expect(page.text).toBe(`<p>${name}</p>`);
      expect(names).toContain(name);
    }
    expect(r.children).toContain(`${pathToFileURL(join(root, 'dossier été')).href}/with%20space.html`);
    expect(r.children).toContain(`${pathToFileURL(join(root, 'dossier été')).href}/100%25.html`);
  });

  it('keeps at most maxEntries of a folder', async () => {
    mkdirSync(join(root, 'many'));
    for (let i = 0; i < 30; i++) writeFileSync(join(root, 'many', `f${i}.txt`), '');
    const bounded = new FileExtractor({ maxBodyBytes: 1000, root, maxEntries: 10 });
    const r = await bounded.fetch(url('many', true));
    expect(r.children).toHaveLength(10);
    expect([...(r.children ?? [])].sort()).toEqual(r.children);
  });

  it('refuses what is not a local file url', async () => {
    for (const bad of ['http://example.com/a', 'file://server/share/a.html', 'file:///a%2Fb.html', 'not a url']) {
      const err = await files.fetch(bad).catch((e: unknown) => e);
      expect(err, bad).toBeInstanceOf(FetchError);
      expect((err as FetchError).reason).toBe('invalid-url');
    }
  });

  it('a file or folder the crawler may not read answers 403 (read as an unprivileged user)', () => {
    writeFileSync(join(root, 'private.html'), '<p>private</p>');
    chmodSync(join(root, 'private.html'), 0o000);
    mkdirSync(join(root, 'locked'));
    writeFileSync(join(root, 'locked', 'in.html'), '<p>in</p>');
    chmodSync(join(root, 'locked'), 0o300);
    chmodSync(tmp.path, 0o755);
    const source = fileURLToPath(new URL('../../src/fetch/file-extractor.ts', import.meta.url));
    const script = join(tmp.path, 'read.mts');
    writeFileSync(
      script,
      `import { FileExtractor } from ${JSON.stringify(pathToFileURL(source).href)};
const x = new FileExtractor({ maxBodyBytes: 1000 });
const out = [];
for (const u of process.argv.slice(2)) out.push((await x.fetch(u)).status);
console.log(JSON.stringify(out));`,
    );
    // root reads everything: the check runs as nobody then (any other user reads as itself).
    const asRoot = process.getuid?.() === 0;
    const cache = asRoot ? nobodyTmp() : undefined;
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', script, url('private.html'), url('locked', true), url('index.html')],
      {
        encoding: 'utf8',
        timeout: 30_000,
        cwd: fileURLToPath(new URL('../../', import.meta.url)),
        // tsx keeps its cache under TMPDIR, which the test script sets to a folder only root may write: nobody
        // gets its own.
        ...(asRoot ? { uid: 65534, gid: 65534, env: { ...process.env, HOME: tmp.path, TMPDIR: cache } } : {}),
      },
    );
    if (cache) rmSync(cache, { recursive: true, force: true });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n').pop() as string)).toEqual([403, 403, 200]);
  });
});

/**
 * A temporary folder anyone may write, for a child process run as nobody: under /tmp itself, since the test
 * script's TMPDIR sits in a folder only root may enter.
 */
function nobodyTmp(): string {
  const dir = mkdtempSync('/tmp/gf-nobody-');
  chmodSync(dir, 0o1777);
  return dir;
}
