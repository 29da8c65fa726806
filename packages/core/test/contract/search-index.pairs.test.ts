import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FTS_EXTENSION_PATH,
  type IndexDocument,
  OffThreadIndex,
  SqliteFtsIndex,
  type SqliteFtsIndexOptions,
  type WordsHit,
  type WordsQuery,
  type WordsResult,
} from '@greenfinger/core/internal';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { rng } from '../support/random.mjs';

const CAT = '0190a0b0-0000-7000-8000-0000000000d1';
const PREFIX = 'greenfinger';

// Words and inflections the porter stemmer folds together (objects → object, running → run), so the pairs must be
// made of index terms, not of the words as written.
const WORDS = [
  'the',
  'the',
  'the',
  'of',
  'and',
  'a',
  'object',
  'objects',
  'model',
  'running',
  'runs',
  'run',
  'file',
  'files',
  'name',
  'following',
  'support',
  'for',
  'with',
  'café',
  'cafe',
  'tower',
  'river',
  'stone',
  'Python',
  'class',
];

function corpus(n: number, version: number, idPrefix: string, seed: number): IndexDocument[] {
  const rand = rng(seed);
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)] as string;
  const docs: IndexDocument[] = [];
  for (let i = 0; i < n; i++) {
    const text = Array.from({ length: 15 + Math.floor(rand() * 60) }, pick).join(rand() < 0.5 ? ' ' : ', ');
    docs.push({
      id: `${idPrefix}${String(i).padStart(4, '0')}`,
      catalogId: CAT,
      catalogName: 'pairs',
      version,
      url: `http://127.0.0.1/${idPrefix}${i}`,
      title: Array.from({ length: 2 + Math.floor(rand() * 4) }, pick).join(' '),
      // Some pages with CJK (indexed a character at a time) and some alt text.
      text: i % 17 === 0 ? `${text} 東京都の天気 東京` : text,
      imageText: i % 5 === 0 ? `${pick()} ${pick()} ${pick()}` : '',
      htmlPath: `assets/${i}.html`,
      textPath: `assets/${i}.txt`,
      images: [],
      linkDensity: Math.floor(rand() * 10) / 10,
      fetchedAt: '2026-01-01T00:00:00.000Z',
    });
  }
  return docs;
}

const PHRASES = [
  '"the object"', // frequent pair: a champion list on the pair table
  '"The Objects"', // the same terms, written otherwise
  '"object the"',
  '"running the river"', // three words: two pairs in a row
  '"the following name of the"',
  '"cafe with"', // café → cafe (diacritics removed)
  '"东京" "東京都"', // CJK: characters
  '"of the" "river stone"', // two phrases, AND-ed
  '"river stone river stone river" "the object"', // no page has both: OR-ed
  '"stone stone stone stone stone"', // no page at all
];

describe('SqliteFtsIndex word pairs (phrases)', () => {
  let root: string;
  let index: SqliteFtsIndex;
  let positions: SqliteFtsIndex;
  const options = (over: Partial<SqliteFtsIndexOptions> = {}): SqliteFtsIndexOptions => ({
    root,
    prefix: PREFIX,
    championMinDf: 40,
    championSize: 10,
    pairsMinDocs: 100,
    ...over,
  });
  const q = (query: Partial<WordsQuery> & { q: string }): WordsQuery => ({
    scopes: [{ catalogId: CAT, version: 1 }],
    size: 5,
    ...query,
  });
  const planOf = (i: SqliteFtsIndex) => i.lastPlan?.targets[0];
  /** Every page of a query, walked with the cursor. */
  const walk = async (i: SqliteFtsIndex, query: WordsQuery): Promise<{ totals: number[]; hits: WordsHit[] }> => {
    const totals: number[] = [];
    const hits: WordsHit[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 200; page++) {
      const r: WordsResult = await i.search({ ...query, cursor });
      totals.push(r.total);
      hits.push(...r.results);
      if (!r.nextCursor) break;
      cursor = r.nextCursor;
    }
    return { totals, hits };
  };

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'gf-pairs-'));
    index = new SqliteFtsIndex(options());
    positions = new SqliteFtsIndex(options({ pairSearch: false, championSearch: false }));
    await index.upsert(corpus(300, 1, 'p', 11));
  });
  afterEach(async () => {
    await index.close();
    await positions.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('has the extension built (the build compiles native/gf_fts.c)', () => {
    const db = new Database(':memory:');
    try {
      db.loadExtension(FTS_EXTENSION_PATH);
      expect(db.prepare('SELECT gf_fts_version() AS v').get()).toEqual({ v: 1 });
    } finally {
      db.close();
    }
  });

  it('optimize builds the pair table for a version of pairsMinDocs documents, with lists for frequent pairs', async () => {
    const stats = await index.optimize(CAT, 1);
    expect(stats.details.pairs).toMatchObject({ documents: 300 });
    expect(stats.details.pairs?.terms).toBeGreaterThan(0);
    expect(stats.details.pairs?.terms).toBeLessThan(stats.details.terms);
    expect(stats.warnings).toEqual([]);
    const db = new Database(join(index.dirOf(CAT), 'index.db'), { readonly: true });
    try {
      const terms = (db.prepare(`SELECT term FROM champions WHERE version = 1`).all() as Array<{ term: string }>).map(
        (r) => r.term,
      );
      expect(terms).toContain('the\u001fobject');
      expect(terms).toContain('object');
    } finally {
      db.close();
    }
  });

  it('answers phrases from the pairs exactly as from word positions: hits, scores, totals, highlights, pages', async () => {
    await index.optimize(CAT, 1);
    for (const phrase of PHRASES) {
      for (const size of [4, 1000]) {
        const got = await walk(index, q({ q: phrase, size }));
        const plan = planOf(index);
        const want = await walk(positions, q({ q: phrase, size }));
        expect(planOf(positions)?.pairs, phrase).toBeUndefined();
        if (want.totals[0] !== 0) expect(plan?.pairs, phrase).toBe(true);
        expect(got.totals, phrase).toEqual(want.totals);
        expect(
          got.hits.map((h) => [h.id, h.score, h.highlights]),
          phrase,
        ).toEqual(want.hits.map((h) => [h.id, h.score, h.highlights]));
      }
    }
    // Preferring detail pages or not: the same scores either way.
    for (const preferDetailPages of [false, true]) {
      const got = await index.search(q({ q: '"of the"', size: 20, preferDetailPages }));
      const want = await positions.search(q({ q: '"of the"', size: 20, preferDetailPages }));
      expect(got.results.map((h) => [h.id, h.score])).toEqual(want.results.map((h) => [h.id, h.score]));
    }
  });

  it('answers a frequent two-word phrase from its stored list, with its document frequency as total', async () => {
    await index.optimize(CAT, 1);
    const got = await index.search(q({ q: '"the object"', size: 5 }));
    expect(planOf(index)).toMatchObject({ path: 'champions', scores: 'stored', pairs: true });
    const want = await positions.search(q({ q: '"the object"', size: 5 }));
    expect(got.total).toBe(want.total);
    expect(got.results.map((h) => [h.id, h.score])).toEqual(want.results.map((h) => [h.id, h.score]));
  });

  it('keeps a query with a word outside quotes on the word index', async () => {
    await index.optimize(CAT, 1);
    const got = await index.search(q({ q: '"the object" river', size: 10 }));
    expect(planOf(index)?.pairs).toBeUndefined();
    const want = await positions.search(q({ q: '"the object" river', size: 10 }));
    expect(got.results.map((h) => h.id)).toEqual(want.results.map((h) => h.id));
  });

  it('stops reading the pairs once the catalog is written, finds the new page, and reads them again after optimize', async () => {
    await index.optimize(CAT, 1);
    await index.search(q({ q: '"river stone"' }));
    expect(planOf(index)?.pairs).toBe(true);
    const fresh = { ...(corpus(1, 1, 'new', 99)[0] as IndexDocument), title: 'river stone river stone' };
    await index.upsert([fresh]);
    const got = await index.search(q({ q: '"river stone"', size: 400 }));
    expect(planOf(index)?.pairs).toBeUndefined();
    expect(got.results.map((h) => h.id)).toContain(fresh.id);
    await index.optimize(CAT, 1);
    const again = await index.search(q({ q: '"river stone"', size: 400 }));
    expect(planOf(index)?.pairs).toBe(true);
    expect(again.results.map((h) => [h.id, h.score])).toEqual(got.results.map((h) => [h.id, h.score]));
    // A deleted version's pages are never found through the (now stale) pairs.
    await index.deleteVersion(CAT, 1);
    expect((await index.search(q({ q: '"river stone"' }))).total).toBe(0);
  });

  it('keeps versions apart with the scope clause when the file holds two versions', async () => {
    await index.upsert(corpus(150, 2, 'w', 12));
    await index.optimize(CAT, 2);
    for (const version of [1, 2]) {
      const scopes = [{ catalogId: CAT, version }];
      const got = await index.search(q({ q: '"the file"', scopes, size: 50 }));
      expect(planOf(index)).toMatchObject({ pairs: true });
      expect(index.lastPlan?.scoped).toEqual([true]);
      const want = await positions.search(q({ q: '"the file"', scopes, size: 50 }));
      expect(got.total).toBe(want.total);
      expect(got.results.map((h) => [h.id, h.score])).toEqual(want.results.map((h) => [h.id, h.score]));
      expect(got.results.every((h) => h.version === version)).toBe(true);
    }
  });

  it('builds no pair table below pairsMinDocs, and drops one a smaller version no longer needs', async () => {
    const small = new SqliteFtsIndex(options({ pairsMinDocs: 301 }));
    try {
      expect((await small.optimize(CAT, 1)).details.pairs).toBeUndefined();
      await small.search(q({ q: '"the object"' }));
      expect(planOf(small)?.pairs).toBeUndefined();
      await index.optimize(CAT, 1);
      await small.optimize(CAT, 1);
      const db = new Database(join(index.dirOf(CAT), 'index.db'), { readonly: true });
      try {
        expect(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'pairs_fts'`).get()).toBeUndefined();
      } finally {
        db.close();
      }
      await index.search(q({ q: '"the object"' }));
      expect(planOf(index)?.pairs).toBeUndefined();
    } finally {
      await small.close();
    }
  });

  it("an OffThreadIndex's writer builds the pair table with the settings it was given", async () => {
    const writer = new OffThreadIndex(index, { root, prefix: PREFIX, championMinDf: 40, pairsMinDocs: 200 });
    try {
      expect((await writer.optimize(CAT, 1)).details.pairs).toMatchObject({ documents: 300 });
    } finally {
      await writer.close();
    }
    await index.search(q({ q: '"the object"' }));
    expect(planOf(index)).toMatchObject({ pairs: true });
  });

  it('refuses a negative pairsMinDocs, naming the setting', () => {
    expect(() => new SqliteFtsIndex(options({ pairsMinDocs: -1 }))).toThrow(/pairsMinDocs/);
  });
});

describe('SqliteFtsIndex without the SQLite extension', () => {
  let root: string;
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
    rmSync(root, { recursive: true, force: true });
  });

  it('says why it builds no pair table, and reads a file that has one from word positions', async () => {
    root = mkdtempSync(join(tmpdir(), 'gf-pairs-noext-'));
    const options = { root, prefix: PREFIX, championMinDf: 40, pairsMinDocs: 100 };
    const withExt = new SqliteFtsIndex(options);
    await withExt.upsert(corpus(150, 1, 'p', 5));
    await withExt.optimize(CAT, 1);
    const query: WordsQuery = { q: '"the object"', scopes: [{ catalogId: CAT, version: 1 }], size: 10 };
    const want = await withExt.search(query);
    await withExt.close();

    vi.stubEnv('GF_FTS_EXTENSION', join(root, 'missing', 'gf_fts.so'));
    vi.resetModules();
    const fresh = (await import('../../src/index/sqlite-fts-index.ts')) as typeof import('@greenfinger/core/internal');
    const without = new fresh.SqliteFtsIndex(options);
    try {
      const got = await without.search(query);
      expect(without.lastPlan?.targets[0]?.pairs).toBeUndefined();
      expect(got.results.map((h) => [h.id, h.score])).toEqual(want.results.map((h) => [h.id, h.score]));
      const stats = await without.optimize(CAT, 1);
      expect(stats.details.pairs).toBeUndefined();
      expect(stats.warnings).toHaveLength(1);
      expect(stats.warnings[0]).toMatch(
        /^no word-pair table for phrases: .*missing\/gf_fts\.so is not built: run the build/,
      );
      // The pair table stays (dropping it needs the tokenizer); this reader never uses it.
      expect((await without.search(query)).total).toBe(want.total);
    } finally {
      await without.close();
    }
  });
});
