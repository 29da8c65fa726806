import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CrawlerError,
  checkSqliteFile,
  createContentDedup,
  DataLayout,
  Greenfinger,
  LevelFrontier,
  LevelUrlFilter,
  probeDataRoot,
} from '@greenfinger/core/internal';
import { ClassicLevel } from 'classic-level';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

const modelDir = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const CATALOG = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

/** Random bytes over the middle of each LevelDB write-ahead log in dir. */
function garbleLogs(dir: string): number {
  let hit = 0;
  for (const name of readdirSync(dir).filter((n) => /^\d+\.log$/.test(n))) {
    const file = join(dir, name);
    const size = statSync(file).size;
    if (size < 64) continue;
    const fd = openSync(file, 'r+');
    writeSync(fd, randomBytes(32), 0, 32, Math.floor(size / 2));
    closeSync(fd);
    hit++;
  }
  return hit;
}

/** Random bytes at the start of every page but the first of a SQLite file. */
function garbleSqlite(file: string): void {
  const bytes = readFileSync(file);
  const raw = bytes.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  const fd = openSync(file, 'r+');
  for (let page = 1; page * pageSize < bytes.length; page++) writeSync(fd, randomBytes(48), 0, 48, page * pageSize);
  closeSync(fd);
}

async function rejection(p: Promise<unknown>): Promise<CrawlerError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CrawlerError);
  return err as CrawlerError;
}

describe('stores that fail a check on open', () => {
  let tmp: TempDir;
  beforeEach(() => {
    tmp = createTempDir('gf-corrupt-');
  });
  afterEach(() => tmp.remove());

  it('a garbled frontier: refused on open, and again on every later open, naming the store and the fix', async () => {
    const dir = new DataLayout(tmp.path).frontierDir(CATALOG, 0);
    const frontier = await LevelFrontier.open(dir);
    for (let i = 0; i < 50; i++) await frontier.put({ url: `https://example.com/page/${i}`, depth: 1 });
    await frontier.close();
    expect(garbleLogs(dir)).toBe(1);
    for (let attempt = 0; attempt < 2; attempt++) {
      const err = await rejection(LevelFrontier.open(dir));
      expect(err.code).toBe('CORRUPT');
      expect(err.message).toMatch(
        new RegExp(`^frontier store at ${dir} is corrupt \\(its write-ahead log \\d+\\.log is damaged: `),
      );
      expect(err.fix).toContain(`delete ${dir}`);
    }
  });

  it('a frontier whose stored size disagrees with its queue is inconsistent', async () => {
    const dir = new DataLayout(tmp.path).frontierDir(CATALOG, 1);
    const frontier = await LevelFrontier.open(dir);
    await frontier.putAll([
      { url: 'https://example.com/a', depth: 0 },
      { url: 'https://example.com/b', depth: 1 },
    ]);
    await frontier.close();
    const db = new ClassicLevel<string, string>(dir);
    const [queued] = await db.keys({ gte: 'f:', lt: 'f;' }).all();
    await db.del(queued as string);
    await db.close();
    const err = await rejection(LevelFrontier.open(dir));
    expect(err.code).toBe('CORRUPT');
    expect(err.message).toBe(`frontier store at ${dir} is inconsistent: the stored size is 2 but 1 entries are queued`);
  });

  it('a frontier with a key of no known kind, or an entry that does not decode, is inconsistent', async () => {
    const dir = new DataLayout(tmp.path).frontierDir(CATALOG, 2);
    const frontier = await LevelFrontier.open(dir);
    await frontier.put({ url: 'https://example.com/a', depth: 0 });
    await frontier.close();
    const db = new ClassicLevel<string, string>(dir);
    const [queued] = await db.keys({ gte: 'f:', lt: 'f;' }).all();
    await db.put(queued as string, '\u0007garbage');
    await db.close();
    const err = await rejection(LevelFrontier.open(dir));
    expect(err.message).toBe(`frontier store at ${dir} is inconsistent: the entry at ${queued} does not decode`);
    // Deleting the store, as the fix says, starts it afresh.
    await import('node:fs/promises').then((fs) => fs.rm(dir, { recursive: true }));
    const fresh = await LevelFrontier.open(dir);
    expect(await fresh.size()).toBe(0);
    await fresh.close();
  });

  it('a garbled url dedup store and a garbled content dedup store are refused naming them', async () => {
    const layout = new DataLayout(tmp.path);
    const urls = await LevelUrlFilter.open(layout.urlDedupDir);
    for (let i = 0; i < 50; i++) await urls.mark(CATALOG, 0, `${i}`.padStart(64, '0'));
    await urls.close();
    expect(garbleLogs(layout.urlDedupDir)).toBe(1);
    const filesBefore = readdirSync(layout.urlDedupDir).sort();
    const urlErr = await rejection(LevelUrlFilter.open(layout.urlDedupDir));
    // Refused before LevelDB touched it: nothing opens it behind the error (which would replay and drop the damaged
    // log), so the store is left as it was, with the mark beside it.
    await new Promise((r) => setTimeout(r, 300));
    expect(readdirSync(layout.urlDedupDir).sort()).toEqual([...filesBefore, 'GREENFINGER-CORRUPT'].sort());
    expect(urlErr.code).toBe('CORRUPT');
    expect(urlErr.message).toMatch(new RegExp(`^url dedup store at ${layout.urlDedupDir} is corrupt`));

    const content = await createContentDedup('sha256', layout.contentDedupDir);
    for (let i = 0; i < 50; i++) await content.checkAndRecord(CATALOG, 0, `text number ${i} of the corpus`, `r${i}`);
    await content.close();
    expect(garbleLogs(layout.contentDedupDir)).toBe(1);
    const contentErr = await rejection(createContentDedup('sha256', layout.contentDedupDir));
    expect(contentErr.code).toBe('CORRUPT');
    expect(contentErr.message).toMatch(new RegExp(`^content dedup store at ${layout.contentDedupDir} is corrupt`));
  });

  it('a data root that is a file is refused in one line', () => {
    const file = join(tmp.path, 'plain');
    writeFileSync(file, 'x');
    expect(() => probeDataRoot(file)).toThrow(/is not a directory/);
    probeDataRoot(join(tmp.path, 'fresh'));
    expect(existsSync(join(tmp.path, 'fresh', 'system'))).toBe(true);
    expect(readdirSync(join(tmp.path, 'fresh', 'user'))).toEqual([]);
  });
});

describe('a crawl refuses a garbled index or vector store', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let gf: Greenfinger;
  beforeEach(async () => {
    site = await startFixtureSite({ slowDelayMs: 200 });
    tmp = createTempDir('gf-corrupt-crawl-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, modelDir, textModel: 'tiny-e5', workers: 1 } });
  });
  afterEach(async () => {
    await gf.close();
    await site.close();
    tmp.remove();
  });

  it('garbled index and vector files are named with the fix, and nothing is written to them', async () => {
    const first = await gf.crawler.crawl({
      url: site.origin,
      settings: { intervalMs: 0, threads: 4, hostConcurrency: 4, maxPages: 12 },
    });
    expect(first.ending.published).toBe(true);
    expect(first.produced.indexed).toBe(first.produced.saved);
    expect(first.produced.vectored).toBe(first.produced.saved);
    const catalog = (await (await gf.catalogs()).list())[0]!;
    await gf.close();

    const vectorRoot = join(tmp.path, 'user', 'vector');
    const [collection] = readdirSync(vectorRoot).filter((n) => existsSync(join(vectorRoot, n, 'vectors.db')));
    const vectorFile = join(vectorRoot, collection as string, 'vectors.db');
    const vectorBytes = readFileSync(vectorFile);
    garbleSqlite(vectorFile);
    expect(() => checkSqliteFile(vectorFile, 'the vector store', 'fix')).toThrow(
      /quick_check|malformed|not a database/,
    );
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, modelDir, textModel: 'tiny-e5', workers: 1 } });
    const vErr = await rejection(gf.crawler.crawl({ id: catalog.id, action: 'update' }));
    expect(vErr.code).toBe('CORRUPT');
    expect(vErr.toLine()).toMatch(
      new RegExp(`^the vector store ${vectorFile} is corrupt \\(SQLite quick_check: .*\\) — delete .*--layers vector$`),
    );
    await gf.close();
    writeFileSync(vectorFile, vectorBytes);

    const indexFile = join(new DataLayout(tmp.path).indexDir(gf.settings.indexPrefix, catalog.id), 'index.db');
    const indexBytes = readFileSync(indexFile);
    garbleSqlite(indexFile);
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, modelDir, textModel: 'tiny-e5', workers: 1 } });
    const iErr = await rejection(gf.crawler.crawl({ id: catalog.id, action: 'update' }));
    expect(iErr.code).toBe('CORRUPT');
    expect(iErr.toLine()).toMatch(new RegExp(`^the full-text index ${indexFile} is corrupt .*--layers index$`));
    await gf.close();
    writeFileSync(indexFile, indexBytes);

    // Restored, the same update runs, publishes, and every layer holds every page it saved.
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, modelDir, textModel: 'tiny-e5', workers: 1 } });
    const again = await gf.crawler.crawl({ id: catalog.id, action: 'update' });
    expect(again.ending.published).toBe(true);
    expect(again.ending.gaps).toBeUndefined();
    expect(again.produced.indexed).toBe(again.produced.saved);
    expect(again.produced.vectored).toBe(again.produced.saved);
  });
});
