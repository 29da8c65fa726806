import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type IndexDocument,
  OffThreadIndex,
  SqliteFtsIndex,
  type SqliteFtsIndexOptions,
  type WordsHit,
  type WordsQuery,
} from '@greenfinger/core/internal';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rng } from '../support/random.mjs';

const CAT = '0190a0b0-0000-7000-8000-0000000000c1';
const PREFIX = 'greenfinger';

function doc(over: Partial<IndexDocument> & { id: string }): IndexDocument {
  return {
    catalogId: CAT,
    catalogName: 'champ',
    version: 1,
    url: `http://127.0.0.1/${over.id}`,
    title: 'Untitled',
    text: 'nothing here',
    imageText: '',
    htmlPath: `assets/${over.id}.html`,
    textPath: `assets/${over.id}.txt`,
    images: [],
    linkDensity: 0,
    fetchedAt: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

const FILLER = ['stone', 'river', 'cloud', 'field', 'lamp', 'road', 'tower', 'glass', 'bread', 'wheel', 'coat', 'salt'];

/**
 * ~200 pages: `alpha` in every page, `beta` in about half, `gamma` in 30, `kiwi` in 8 (rare), with tf,
 * length, title and link density varying so that scores spread.
 */
function corpus(n = 200, version = 1, idPrefix = 'p'): IndexDocument[] {
  const rand = rng(7 + version);
  const docs: IndexDocument[] = [];
  for (let i = 0; i < n; i++) {
    const words: string[] = [];
    const len = 20 + Math.floor(rand() * 80);
    for (let w = 0; w < len; w++) words.push(FILLER[Math.floor(rand() * FILLER.length)] as string);
    const put = (word: string, times: number) => {
      for (let t = 0; t < times; t++) words.splice(Math.floor(rand() * words.length), 0, word);
    };
    put('alpha', 1 + Math.floor(rand() * 6));
    if (i % 2 === 0) put('beta', 1 + Math.floor(rand() * 4));
    if (i % 7 === 0) put('gamma', 1 + Math.floor(rand() * 3));
    if (i % 25 === 3) put('kiwi', 1);
    docs.push(
      doc({
        id: `${idPrefix}${String(i).padStart(4, '0')}`,
        version,
        title: rand() < 0.1 ? 'Alpha notes' : `Page ${i}`,
        text: words.join(' '),
        linkDensity: Math.floor(rand() * 10) / 10,
      }),
    );
  }
  return docs;
}

describe('SqliteFtsIndex champion lists', () => {
  let root: string;
  let index: SqliteFtsIndex;
  let exact: SqliteFtsIndex;
  const options = (over: Partial<SqliteFtsIndexOptions> = {}): SqliteFtsIndexOptions => ({
    root,
    prefix: PREFIX,
    championMinDf: 20,
    championSize: 5,
    ...over,
  });
  const q = (query: Partial<WordsQuery> & { q: string }): WordsQuery => ({
    scopes: [{ catalogId: CAT, version: 1 }],
    size: 3,
    ...query,
  });
  const ids = (hits: WordsHit[]) => hits.map((h) => h.id);
  const pathOf = (i: SqliteFtsIndex) => i.lastPlan?.targets[0];

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'gf-champions-'));
    index = new SqliteFtsIndex(options());
    exact = new SqliteFtsIndex(options({ championSearch: false }));
    await index.upsert(corpus());
  });
  afterEach(async () => {
    await index.close();
    await exact.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('builds lists for the frequent terms only, with the watermark', async () => {
    const stats = await index.optimize(CAT, 1);
    expect(stats).toMatchObject({
      catalogId: CAT,
      version: 1,
      warnings: [],
      details: { minDf: 20, size: 5, watermark: 200, merged: true },
    });
    // alpha (200), beta (100), gamma (29) and the filler words; never kiwi (8).
    expect(stats.details.terms).toBeGreaterThanOrEqual(3 + FILLER.length);
    const db = new Database(join(index.dirOf(CAT), 'index.db'), { readonly: true });
    try {
      const terms = (db.prepare(`SELECT term FROM champions WHERE version = 1`).all() as Array<{ term: string }>).map(
        (r) => r.term,
      );
      expect(terms).toEqual(expect.arrayContaining(['alpha', 'beta', 'gamma']));
      expect(terms).not.toContain('kiwi');
      expect(terms).not.toContain('v1');
      const alpha = db.prepare(`SELECT df, rowids FROM champions WHERE version = 1 AND term = 'alpha'`).get() as {
        df: number;
        rowids: string;
      };
      expect(alpha.df).toBe(200);
      expect(JSON.parse(alpha.rowids)).toHaveLength(5);
    } finally {
      db.close();
    }
  });

  it('answers a single frequent term from its list, equal to the exact top hits', async () => {
    await index.optimize(CAT, 1);
    for (const word of ['alpha', 'beta', 'gamma', 'stone']) {
      for (const size of [1, 3, 4]) {
        const fast = await index.search(q({ q: word, size }));
        // Nothing changed since the build: the stored scores and document frequency answer, no bm25.
        expect(pathOf(index)).toMatchObject({ path: 'champions', scores: 'stored', candidates: 5 });
        const slow = await exact.search(q({ q: word, size }));
        expect(pathOf(exact)).toMatchObject({ path: 'exact', reason: 'disabled' });
        expect(fast.total).toBe(slow.total);
        expect(ids(fast.results)).toEqual(ids(slow.results));
        expect(fast.results.map((h) => h.score)).toEqual(slow.results.map((h) => h.score));
        expect(fast.results.map((h) => h.highlights)).toEqual(slow.results.map((h) => h.highlights));
        expect(fast.nextCursor).toBe(slow.nextCursor);
      }
    }
  });

  it('pages a one-term query from the stored scores while nothing changes, ties included', async () => {
    // Twins: same text, same density, so the same score; the cursor must split them by id.
    await index.upsert([
      doc({ id: 'twin-a', title: 'Gamma gamma', text: 'gamma gamma gamma stone' }),
      doc({ id: 'twin-b', title: 'Gamma gamma', text: 'gamma gamma gamma stone' }),
      doc({ id: 'twin-c', title: 'Gamma gamma', text: 'gamma gamma gamma stone' }),
    ]);
    await index.optimize(CAT, 1);
    const walk = async (i: SqliteFtsIndex): Promise<WordsHit[]> => {
      const seen: WordsHit[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 20; page++) {
        const r = await i.search(q({ q: 'gamma', size: 2, cursor }));
        seen.push(...r.results);
        if (!r.nextCursor) break;
        cursor = r.nextCursor;
      }
      return seen;
    };
    const first = await index.search(q({ q: 'gamma', size: 2 }));
    expect(pathOf(index)).toMatchObject({ path: 'champions', scores: 'stored' });
    expect(ids(first.results)).toEqual(['twin-a', 'twin-b']);
    const second = await index.search(q({ q: 'gamma', size: 2, cursor: first.nextCursor ?? undefined }));
    expect(pathOf(index)).toMatchObject({ path: 'champions', scores: 'stored' });
    expect(second.results[0]?.id).toBe('twin-c');
    expect(ids(await walk(index))).toEqual(ids(await walk(exact)));
    await index.upsert([doc({ id: 'unrelated', text: 'stone river' })]);
    await index.search(q({ q: 'gamma', size: 2 }));
    expect(pathOf(index)).toMatchObject({ path: 'champions', scores: 'computed' });
  });

  it('ranks AND-ed frequent terms among the union of their lists', async () => {
    await index.optimize(CAT, 1);
    const r = await index.search(q({ q: 'alpha beta', size: 2 }));
    expect(pathOf(index)).toMatchObject({ path: 'champions', scores: 'computed', watermark: 200 });
    expect(pathOf(index)?.candidates).toBeGreaterThanOrEqual(5);
    expect(pathOf(index)?.candidates).toBeLessThanOrEqual(10);
    expect(r.total).toBe((await exact.search(q({ q: 'alpha beta' }))).total);
    for (const hit of r.results) expect(hit.highlights.join(' ')).toMatch(/<em>alpha<\/em>|<em>beta<\/em>/);
  });

  it('takes the exact path for a rare term, a phrase, plain ranking or a version without lists', async () => {
    await index.optimize(CAT, 1);
    await index.search(q({ q: 'alpha kiwi' }));
    expect(pathOf(index)).toMatchObject({ path: 'exact', reason: 'infrequent-term' });
    await index.search(q({ q: '"alpha beta"' }));
    expect(pathOf(index)).toMatchObject({ path: 'exact', reason: 'phrase' });
    await index.search(q({ q: 'alpha', preferDetailPages: false }));
    expect(pathOf(index)).toMatchObject({ path: 'exact', reason: 'plain-ranking' });
    await index.upsert(corpus(40, 2, 'w'));
    await index.search(q({ q: 'alpha', scopes: [{ catalogId: CAT, version: 2 }] }));
    expect(pathOf(index)).toMatchObject({ path: 'exact', reason: 'no-lists' });
    const kiwi = await index.search(q({ q: 'kiwi', size: 20 }));
    expect(kiwi.total).toBe(8);
    expect(ids(kiwi.results)).toEqual(ids((await exact.search(q({ q: 'kiwi', size: 20 }))).results));
  });

  it('counts and ranks a phrase in one statement: pages walk every match once, the total on every page', async () => {
    const all = await index.search(q({ q: '"stone river"', size: 200 }));
    expect(pathOf(index)).toMatchObject({ path: 'exact', reason: 'phrase' });
    expect(all.total).toBeGreaterThan(5);
    expect(all.results).toHaveLength(all.total);
    const seen: WordsHit[] = [];
    let cursor: string | undefined;
    let last: string | undefined;
    for (let page = 0; page < 100; page++) {
      const r = await index.search(q({ q: '"stone river"', size: 4, cursor }));
      expect(r.total).toBe(all.total);
      seen.push(...r.results);
      if (!r.nextCursor) break;
      last = cursor;
      cursor = r.nextCursor;
    }
    expect(ids(seen)).toEqual(ids(all.results));
    expect(seen.map((h) => h.score)).toEqual(all.results.map((h) => h.score));
    // A cursor after the last match: no hit, the same total.
    const lastHit = all.results.at(-1) as WordsHit;
    const end = Buffer.from(JSON.stringify({ s: lastHit.score, i: lastHit.id })).toString('base64url');
    const past = await index.search(q({ q: '"stone river"', size: 4, cursor: end }));
    expect(past).toEqual({ results: [], total: all.total, nextCursor: null, match: 'all' });
    expect(last).toBeDefined();
    // No page has the phrase and the word: either, OR-ed.
    const none = await index.search(q({ q: '"river stone stone river stone" alpha' }));
    expect(index.lastPlan?.match).toBe('any');
    expect(none.total).toBe(200);
  });

  it('finds documents added after the build, and never returns deleted ones', async () => {
    await index.optimize(CAT, 1);
    const before = await index.search(q({ q: 'alpha', size: 3 }));
    const top = before.results[0] as WordsHit;
    // A new page that beats every listed one: above the watermark, so a candidate.
    await index.upsert([doc({ id: 'late', title: 'Alpha alpha', text: 'alpha alpha alpha alpha alpha alpha alpha' })]);
    // The best page is replaced by one without the term: its old row is gone.
    await index.upsert([doc({ id: top.id, text: 'stone river cloud' })]);
    const after = await index.search(q({ q: 'alpha', size: 3 }));
    // The catalog changed since the build: bm25 over the list and the delta, and a counted total.
    expect(pathOf(index)).toMatchObject({ path: 'champions', scores: 'computed', watermark: 200 });
    expect(after.results[0]?.id).toBe('late');
    expect(ids(after.results)).not.toContain(top.id);
    expect(after.total).toBe(200);
    const slow = await exact.search(q({ q: 'alpha', size: 3 }));
    expect(ids(after.results)).toEqual(ids(slow.results));
  });

  it('numbers a page added after the build above the watermark even when the last page was deleted', async () => {
    await index.optimize(CAT, 1);
    // p0199 holds the highest rowid (200, the watermark): replacing it frees that number.
    await index.upsert([doc({ id: 'p0199', title: 'Alpha alpha alpha', text: 'alpha alpha alpha alpha alpha alpha' })]);
    const r = await index.search(q({ q: 'alpha', size: 3 }));
    expect(pathOf(index)?.path).toBe('champions');
    expect(r.results[0]?.id).toBe('p0199');
    const db = new Database(join(index.dirOf(CAT), 'index.db'), { readonly: true });
    try {
      expect((db.prepare(`SELECT rowid FROM docs WHERE id = 'p0199'`).get() as { rowid: number }).rowid).toBe(201);
    } finally {
      db.close();
    }
  });

  it('pages beyond the candidates from all matches, walking every match once in score order', async () => {
    await index.optimize(CAT, 1);
    const seen: WordsHit[] = [];
    const paths: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 40 && seen.length < 200; page++) {
      const r = await index.search(q({ q: 'gamma', size: 3, cursor }));
      seen.push(...r.results);
      paths.push(`${pathOf(index)?.path}:${pathOf(index)?.reason ?? ''}`);
      if (!r.nextCursor) break;
      cursor = r.nextCursor;
    }
    expect(paths[0]).toBe('champions:');
    expect(paths).toContain('exact:beyond-candidates');
    const all = await exact.search(q({ q: 'gamma', size: 100 }));
    expect(all.total).toBe(29);
    expect(ids(seen)).toEqual(ids(all.results));
  });

  it('uses the lists for OR-ed words when no page has all of them', async () => {
    await index.optimize(CAT, 1);
    const r = await index.search(q({ q: 'gamma zzyzx', size: 3 }));
    expect(index.lastPlan?.match).toBe('any');
    expect(pathOf(index)?.path).toBe('champions');
    const slow = await exact.search(q({ q: 'gamma zzyzx', size: 3 }));
    expect(r.total).toBe(29);
    expect(ids(r.results)).toEqual(ids(slow.results));
    // A rare word OR-ed with a frequent one: all the rare word's pages are candidates.
    await index.upsert([doc({ id: 'quokka-only', text: 'quokka quokka quokka quokka' })]);
    const mixed = await index.search(q({ q: 'gamma quokka', size: 3 }));
    expect(index.lastPlan?.match).toBe('any');
    expect(pathOf(index)?.path).toBe('champions');
    expect(mixed.total).toBe(30);
    expect(ids(mixed.results)).toEqual(ids((await exact.search(q({ q: 'gamma quokka', size: 3 }))).results));
    expect(ids(mixed.results)).toContain('quokka-only');
  });

  it('keeps versions apart: lists per version, scope clause when the file holds another version', async () => {
    await index.upsert(corpus(60, 2, 'w'));
    await index.optimize(CAT, 1);
    const stats2 = await index.optimize(CAT, 2);
    expect(stats2.details.watermark).toBe(260);
    const v1 = await index.search(q({ q: 'alpha', size: 4 }));
    expect(index.lastPlan?.scoped).toEqual([true]);
    expect(pathOf(index)?.path).toBe('champions');
    expect(v1.results.every((h) => h.version === 1)).toBe(true);
    expect(ids(v1.results)).toEqual(ids((await exact.search(q({ q: 'alpha', size: 4 }))).results));
    const v2 = await index.search(q({ q: 'alpha', size: 4, scopes: [{ catalogId: CAT, version: 2 }] }));
    expect(pathOf(index)?.path).toBe('champions');
    expect(v2.total).toBe(60);
    expect(v2.results.every((h) => h.version === 2)).toBe(true);
    expect(await index.deleteVersion(CAT, 1)).toBe(200);
    await index.search(q({ q: 'alpha', size: 4 }));
    expect(pathOf(index)?.total ?? 0).toBe(0);
    const db = new Database(join(index.dirOf(CAT), 'index.db'), { readonly: true });
    try {
      expect(db.prepare(`SELECT count(*) AS n FROM champions WHERE version = 1`).get()).toEqual({ n: 0 });
      expect(db.prepare(`SELECT count(*) AS n FROM champion_builds WHERE version = 1`).get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
    // Only version 2 left: no scope clause any more, and the very scores the clause gives.
    const alone = await index.search(q({ q: 'alpha', size: 4, scopes: [{ catalogId: CAT, version: 2 }] }));
    expect(index.lastPlan?.scoped).toEqual([false]);
    const raw = new Database(join(index.dirOf(CAT), 'index.db'), { readonly: true });
    try {
      const withClause = raw
        .prepare(`
          SELECT d.id, -bm25(docs_fts, 10, 1, 0.5, 0) * max(0.5, min(1.5, 1.5 - d.link_density)) AS score
          FROM docs_fts JOIN docs d ON d.rowid = docs_fts.rowid
          WHERE docs_fts MATCH '{title text image_text} : ("alpha") AND scope : ("v2")'
          ORDER BY score DESC, d.id LIMIT 4`)
        .all() as Array<{ id: string; score: number }>;
      expect(alone.results.map((h) => [h.id, h.score])).toEqual(withClause.map((r) => [r.id, r.score]));
    } finally {
      raw.close();
    }
  });

  it('keeps a term that looks like a version token to the text columns', async () => {
    await index.upsert([doc({ id: 'v-word', text: 'release v1 notes' })]);
    const r = await index.search(q({ q: 'v1' }));
    expect(r.total).toBe(1);
    expect(ids(r.results)).toEqual(['v-word']);
    expect(r.results[0]?.highlights[0]).toContain('<em>v1</em>');
  });

  it('builds the lists on the writer thread of an OffThreadIndex', async () => {
    const writer = new OffThreadIndex(index, { root, prefix: PREFIX });
    try {
      await writer.upsert([doc({ id: 'through-writer', title: 'Alpha alpha alpha', text: 'alpha alpha alpha alpha' })]);
      const stats = await writer.optimize(CAT, 1);
      // The writer's own SqliteFtsIndex has the default settings: no term reaches 4000 documents here.
      expect(stats).toMatchObject({ catalogId: CAT, version: 1, details: { minDf: 4000, terms: 0, watermark: 201 } });
      await index.search(q({ q: 'alpha' }));
      expect(pathOf(index)?.path).toBe('exact');
    } finally {
      await writer.close();
    }
    await index.optimize(CAT, 1);
    const r = await index.search(q({ q: 'alpha' }));
    expect(pathOf(index)?.path).toBe('champions');
    expect(r.results[0]?.id).toBe('through-writer');
  });

  it("openWriter() is an OffThreadIndex with the index's own settings: its optimize builds the lists", async () => {
    const writer = index.openWriter();
    expect(writer).toBeInstanceOf(OffThreadIndex);
    try {
      const stats = await writer.optimize(CAT, 1);
      expect(stats).toMatchObject({ catalogId: CAT, version: 1, details: { minDf: 20, size: 5, watermark: 200 } });
      expect(stats.details.terms).toBeGreaterThan(0);
    } finally {
      await writer.close();
    }
    const r = await index.search(q({ q: 'alpha' }));
    expect(pathOf(index)).toMatchObject({ path: 'champions', scores: 'stored' });
    expect(ids(r.results)).toEqual(ids((await exact.search(q({ q: 'alpha' }))).results));
  });

  it("an OffThreadIndex's writer builds with the champion settings it was given", async () => {
    const writer = new OffThreadIndex(index, { root, prefix: PREFIX, championMinDf: 20, championSize: 5 });
    try {
      const stats = await writer.optimize(CAT, 1);
      expect(stats).toMatchObject({ catalogId: CAT, version: 1, details: { minDf: 20, size: 5 } });
      expect(stats.details.terms).toBeGreaterThan(0);
    } finally {
      await writer.close();
    }
    await index.search(q({ q: 'alpha' }));
    expect(pathOf(index)?.path).toBe('champions');
  });
});

/** The schema and triggers a version-1 build created (before the rank table and champion lists). */
const V1_DDL = `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE docs (
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, version INTEGER NOT NULL, catalog_name TEXT NOT NULL,
    url TEXT NOT NULL, title TEXT NOT NULL, text TEXT NOT NULL, image_text TEXT NOT NULL, scope TEXT NOT NULL,
    html_path TEXT NOT NULL, text_path TEXT NOT NULL, images TEXT NOT NULL, link_density REAL NOT NULL,
    fetched_at TEXT NOT NULL
  );
  CREATE INDEX docs_version ON docs(version);
  CREATE VIRTUAL TABLE docs_fts USING fts5(
    title, text, image_text, scope, content = 'docs', content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
  );
  CREATE TRIGGER docs_ai AFTER INSERT ON docs BEGIN
    INSERT INTO docs_fts(rowid, title, text, image_text, scope)
      VALUES (new.rowid, new.title, new.text, new.image_text, new.scope);
  END;
  CREATE TRIGGER docs_ad AFTER DELETE ON docs BEGIN
    INSERT INTO docs_fts(docs_fts, rowid, title, text, image_text, scope)
      VALUES ('delete', old.rowid, old.title, old.text, old.image_text, old.scope);
  END;
  INSERT INTO meta(key, value) VALUES ('schema', '1'), ('catalogId', '${CAT}');
`;

/** The highlights as the version-1 build computed them: snippet() on the index's own table, one row at a time. */
function oldHighlights(file: string, match: string, scope: string, rowid: number): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const row = db
      .prepare(`
        SELECT snippet(docs_fts, 1, char(1), char(2), '…', 16) AS s_text,
          snippet(docs_fts, 0, char(1), char(2), '…', 16) AS s_title,
          snippet(docs_fts, 2, char(1), char(2), '…', 16) AS s_image
        FROM docs_fts WHERE docs_fts MATCH ? AND +docs_fts.rowid = ?`)
      .get(`{title text image_text} : (${match}) AND scope : (${scope})`, rowid) as Record<string, string>;
    const esc: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
    const out: string[] = [];
    for (const s of [row.s_text, row.s_title, row.s_image]) {
      if (!s?.includes('\u0001') || out.length >= 2) continue;
      out.push(
        s
          .replaceAll('\u200B', '')
          .replace(/[&<>"']/g, (c) => esc[c] as string)
          .replaceAll('\u0001', '<em>')
          .replaceAll('\u0002', '</em>'),
      );
    }
    return out;
  } finally {
    db.close();
  }
}

describe('SqliteFtsIndex schema 2 and highlights', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'gf-fts-v2-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('migrates a version-1 file in place: rank table filled and kept in step, same answers', async () => {
    const dir = join(root, `${PREFIX}-${CAT}`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'index.db');
    const v1 = new Database(file);
    v1.pragma('journal_mode = WAL');
    v1.exec(V1_DDL);
    const put = v1.prepare(`
      INSERT INTO docs (id, version, catalog_name, url, title, text, image_text, scope, html_path, text_path, images, link_density, fetched_at)
      VALUES (?, 1, 'old', ?, ?, ?, '', 'v1', 'h', 't', '[]', ?, '2026-01-01T00:00:00.000Z')`);
    put.run('a', 'http://127.0.0.1/a', 'Otter page', 'otters swim in the river', 0.1);
    put.run('b', 'http://127.0.0.1/b', 'Listing', 'otters otters and more otters', 0.9);
    put.run('c', 'http://127.0.0.1/c', 'Other', 'herons wade', 0);
    v1.close();

    const index = new SqliteFtsIndex({ root, prefix: PREFIX });
    try {
      const r = await index.search({ q: 'otters', scopes: [{ catalogId: CAT, version: 1 }], size: 10 });
      expect(r.total).toBe(2);
      expect(r.results.map((h) => h.id)).toEqual(['a', 'b']);
      expect(r.results[0]?.highlights).toEqual(['<em>otters</em> swim in the river', '<em>Otter</em> page']);
      await index.upsert([doc({ id: 'd', text: 'otters again', linkDensity: 0.3 })]);
      await index.upsert([doc({ id: 'c', text: 'herons moved' })]);
      expect((await index.search({ q: 'otters', scopes: [{ catalogId: CAT, version: 1 }], size: 10 })).total).toBe(3);
    } finally {
      await index.close();
    }
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare(`SELECT value FROM meta WHERE key = 'schema'`).get()).toEqual({ value: '2' });
      expect(db.prepare(`SELECT rowid, id, link_density FROM ranks ORDER BY rowid`).all()).toEqual(
        db.prepare(`SELECT rowid, id, link_density FROM docs ORDER BY rowid`).all(),
      );
      expect(db.prepare(`SELECT count(*) AS n FROM ranks`).get()).toEqual({ n: 4 });
    } finally {
      db.close();
    }
    // Reopened: already version 2, nothing to do.
    const again = new SqliteFtsIndex({ root, prefix: PREFIX });
    try {
      expect((await again.search({ q: 'herons', scopes: [{ catalogId: CAT, version: 1 }], size: 10 })).total).toBe(1);
    } finally {
      await again.close();
    }
  });

  it('refuses a file of a newer schema', async () => {
    const dir = join(root, `${PREFIX}-${CAT}`);
    mkdirSync(dir, { recursive: true });
    const db = new Database(join(dir, 'index.db'));
    db.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema', '3');`);
    db.close();
    const index = new SqliteFtsIndex({ root, prefix: PREFIX });
    try {
      await expect(index.countVersion(CAT, 1)).rejects.toThrow(/schema version 3/);
    } finally {
      await index.close();
    }
  });

  it('computes the same highlights as snippet() on the index table, per hit: several hits, CJK, alt text', async () => {
    const index = new SqliteFtsIndex({ root, prefix: PREFIX });
    try {
      const long = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
      await index.upsert([
        doc({
          id: 'multi',
          title: 'Harbour lights and the harbour wall',
          text: `${long} the harbour master keeps the harbour lights; ${long} at night the harbour sleeps.`,
          imageText: 'a photo of the harbour at dusk',
        }),
        doc({
          id: 'cjk',
          title: '東京の港',
          text: '東京タワーの近くにある港は夜に美しい。 harbour',
          imageText: '港の写真',
        }),
        doc({ id: 'alt-only', title: 'Boats', text: 'boats and ropes', imageText: 'harbour <crane> & "dock"' }),
        doc({ id: 'accents', title: 'Café du port', text: 'le café près du harbour, naïve façade' }),
        doc({ id: 'plain', text: 'nothing about the sea' }),
      ]);
      const file = join(index.dirOf(CAT), 'index.db');
      const raw = new Database(file, { readonly: true });
      const rowids = new Map(
        (raw.prepare(`SELECT rowid, id FROM docs`).all() as Array<{ rowid: number; id: string }>).map((r) => [
          r.id,
          r.rowid,
        ]),
      );
      raw.close();
      const cases: Array<[string, string]> = [
        ['harbour', '"harbour"'],
        ['harbour lights', '"harbour" "lights"'],
        ['港', '"港"'],
        ['東京', '"東 京"'],
        ['cafe', '"cafe"'],
        ['"harbour master"', '"harbour master"'],
      ];
      let compared = 0;
      for (const [input, match] of cases) {
        const r = await index.search({ q: input, scopes: [{ catalogId: CAT, version: 1 }], size: 10 });
        expect(r.results.length).toBeGreaterThan(0);
        for (const hit of r.results) {
          expect(hit.highlights).toEqual(oldHighlights(file, match, '"v1"', rowids.get(hit.id) as number));
          compared++;
        }
      }
      expect(compared).toBeGreaterThanOrEqual(9);
      const cjk = await index.search({ q: '東京', scopes: [{ catalogId: CAT, version: 1 }], size: 10 });
      expect(cjk.results[0]?.highlights[0]).toContain('<em>東京</em>タワー');
      const multi = await index.search({ q: 'harbour', scopes: [{ catalogId: CAT, version: 1 }], size: 10 });
      expect(multi.results.find((h) => h.id === 'multi')?.highlights[0]?.match(/<em>harbour<\/em>/g)?.length).toBe(2);
    } finally {
      await index.close();
    }
  });
});
