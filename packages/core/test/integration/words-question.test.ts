import { join } from 'node:path';
import { Greenfinger, type SearchResponse } from '@greenfinger/core';
import { isQuestion } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Corpus, startCorpus } from '../support/corpus.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

const QUESTION = 'make a deep copy of an object including nested ones';

describe('isQuestion', () => {
  it('reads four words or more without quotes as long enough to be a question', () => {
    expect(isQuestion(QUESTION)).toBe(true);
    expect(isQuestion('copy of an object')).toBe(true);
    expect(isQuestion('threading Lock')).toBe(false);
    expect(isQuestion('os.path.join a b')).toBe(true);
    expect(isQuestion('shutil copy tree')).toBe(false);
    expect(isQuestion('"deep copy" of nested objects')).toBe(false);
  });
});

/**
 * Words search of a question on a real crawl of the python docs (40 pages from library/copy.html, words only): the
 * page that answers it holds most of its words but not all ("including", "ones"), so the all-words match misses it
 * and the question match finds it first; the best all-words page is kept in the first three; pages never repeat.
 * Four keywords without a common word among them stay an all-words search.
 */
describe('words search of a question (python docs)', () => {
  let corpus: Corpus;
  let tmp: TempDir;
  let gf: Greenfinger;
  const path = (r: SearchResponse) => r.results.map((h) => new URL(h.url).pathname);
  const words = (q: string, extra: { size?: number; cursor?: string; match?: 'auto' | 'all' | 'any' } = {}) =>
    gf.search.search({ q, mode: 'words', size: 10, ...extra });

  beforeAll(async () => {
    corpus = await startCorpus('python');
    tmp = createTempDir('gf-words-question-');
    gf = await Greenfinger.open({ settings: { dataStore: join(tmp.path, 'data'), workers: 1 } });
    const origin = new URL(corpus.url).origin;
    await (await gf.catalogs()).create({
      name: 'python',
      url: `${origin}/`,
      startUrl: `${origin}/library/copy.html`,
      // One thread: the same 40 pages every run (with several, which pages past copy.html's own links are kept varies).
      settings: { intervalMs: 0, maxPages: 40, outputs: ['file', 'index'], threads: 1 },
    });
    const report = await gf.crawler.crawl({ name: 'python' });
    expect(report.produced.saved).toBe(40);
  }, 300_000);
  afterAll(async () => {
    await gf?.close();
    await corpus?.stop();
    tmp?.remove();
  });

  it('finds the page that answers a question the all-words match misses, and says how it matched', async () => {
    const question = await words(QUESTION);
    expect(question.match).toBe('question');
    expect(path(question).slice(0, 3)).toContain('/library/copy.html');
    expect(question.results[0]?.highlights.join(' ')).toMatch(/<em>/);

    const all = await words(QUESTION, { match: 'all' });
    expect(all.match).toBe('all');
    expect(all.total).toBeLessThan(question.total);
    expect(path(all)).not.toContain('/library/copy.html');
    // The best page holding every word is in the question's first three, though the any-word ranking put it lower.
    const any = await words(QUESTION, { match: 'any' });
    expect(any.match).toBe('any');
    expect(any.total).toBe(question.total);
    const best = path(all)[0] as string;
    expect(path(any).slice(0, 3)).not.toContain(best);
    expect(path(question).slice(0, 3)).toContain(best);
  });

  it('pages a question by cursor in the order of one page, each page once', async () => {
    const whole = await words(QUESTION, { size: 100 });
    expect(whole.results).toHaveLength(whole.total);
    expect(whole.nextCursor).toBeNull();
    for (const size of [1, 2, 3, 7]) {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let n = 0; n < 100; n++) {
        const page = await words(QUESTION, { size, cursor });
        expect(page.results.length).toBeLessThanOrEqual(size);
        seen.push(...page.results.map((h) => h.id));
        if (page.nextCursor === null) break;
        cursor = page.nextCursor;
      }
      expect(seen, `size ${size}`).toEqual(whole.results.map((h) => h.id));
    }
  });

  it('keeps the all-words match for keywords and quoted phrases', async () => {
    const keywords = await words('deep copy');
    expect(keywords.match).toBe('all');
    expect(path(keywords)[0]).toBe('/library/copy.html');
    const quoted = await words('"deep copy" of an object');
    expect(quoted.match).toBe('all');
    // Four words or more, none of them on half the pages: keywords, not a sentence.
    const rare = await words('deepcopy memo shallow __deepcopy__');
    expect(rare.match).not.toBe('question');
    expect(path(rare)[0]).toBe('/library/copy.html');
  });

  it('refuses a cursor of another kind of words search, naming the fix', async () => {
    const first = await words('copy', { size: 1 });
    expect(first.nextCursor).not.toBeNull();
    await expect(words(QUESTION, { cursor: first.nextCursor as string })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('cursor'),
    });
    const question = await words(QUESTION, { size: 1 });
    await expect(words('copy', { cursor: question.nextCursor as string })).rejects.toMatchObject({ code: 'BAD_INPUT' });
  });
});
