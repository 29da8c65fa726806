import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type IndexDocument, SqliteFtsIndex, toFtsQuery } from '@greenfinger/core/internal';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

describe('the words of a query together (hybrid words list)', () => {
  it('adds each adjacent pair as a phrase and a NEAR group to the any-word expression only', () => {
    expect(toFtsQuery('comma separated values')).toEqual({
      all: '"comma" "separated" "values"',
      any: '"comma" OR "separated" OR "values"',
      near:
        '"comma" OR "separated" OR "values" OR "comma separated" OR NEAR("comma" "separated", 8) OR ' +
        '"separated values" OR NEAR("separated" "values", 8)',
    });
    // One word: nothing to pair; a repeated word pairs once; a quoted phrase's words pair with their neighbours.
    expect(toFtsQuery('csv').near).toBeNull();
    expect(toFtsQuery('copy copy').near).toBeNull();
    expect(toFtsQuery('deep "copy module"').near).toBe(
      '"copy module" OR "deep" OR "deep copy" OR NEAR("deep" "copy", 8) OR NEAR("copy" "module", 8)',
    );
    // Operators stay words.
    expect(toFtsQuery('a NEAR b').near).toContain('NEAR("a" "NEAR", 8)');
  });

  describe('on an index', () => {
    let root: string;
    let index: SqliteFtsIndex;
    const doc = (id: string, text: string): IndexDocument => ({
      id,
      catalogId: 'cat',
      catalogName: 'cat',
      version: 1,
      url: `http://127.0.0.1/${id}`,
      title: 'Module notes',
      text,
      imageText: '',
      htmlPath: `a/${id}.html`,
      textPath: `a/${id}.txt`,
      images: [],
      linkDensity: 0,
      fetchedAt: '2026-12-06T00:00:00.000Z',
    });
    const scopes = [{ catalogId: 'cat', version: 1 }];

    beforeEach(async () => {
      root = mkdtempSync(join(tmpdir(), 'gf-fts-near-'));
      index = new SqliteFtsIndex({ root, prefix: 'gf' });
      // "scattered" holds each word more often; "together" holds them next to each other once.
      await index.upsert([
        doc(
          'scattered',
          'Values are read from a file. Values may be separated by tabs. Each comma in the text is kept. ' +
            'Separated lines, values and comma rules all follow in the next sections of this long page.',
        ),
        doc('together', 'The so-called comma separated values format is the most common import and export format.'),
      ]);
    });
    afterEach(async () => {
      await index.close();
      rmSync(root, { recursive: true, force: true });
    });

    it('ranks the page holding the words together first when any word is asked for, and words mode as before', async () => {
      const any = await index.search({ q: 'comma separated values', scopes, size: 10, match: 'any' });
      expect(any.results.map((h) => h.id)).toEqual(['together', 'scattered']);
      expect(any.total).toBe(2);
      const plainAny = await index.search({ q: 'comma separated values', scopes, size: 10 });
      const plain = plainAny.results.map((h) => h.id);
      expect(plain).toEqual(['scattered', 'together']);
    });
  });
});
