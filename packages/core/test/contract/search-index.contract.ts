import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CrawlerError,
  type IndexDocument,
  type IndexStats,
  type SearchIndex,
  type WordsHit,
  type WordsQuery,
} from '@greenfinger/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const CAT_A = '0190a0b0-0000-7000-8000-00000000000a';
const CAT_B = '0190a0b0-0000-7000-8000-00000000000b';

let seq = 0;
function doc(over: Partial<IndexDocument> & { catalogId?: string; version?: number }): IndexDocument {
  seq++;
  const id = over.id ?? `doc-${String(seq).padStart(5, '0')}`;
  return {
    id,
    catalogId: CAT_A,
    catalogName: 'alpha',
    version: 1,
    url: `http://127.0.0.1/${id}`,
    title: 'Untitled',
    text: 'Nothing in particular is written here.',
    imageText: '',
    htmlPath: `assets/x/${id}.html`,
    textPath: `assets/x/${id}.txt`,
    images: [],
    linkDensity: 0,
    fetchedAt: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

/**
 * The behaviour every SearchIndex must have. `create(root)` opens an index stored under `root`; calling it
 * twice with the same root must see the same data (reopen from disk).
 */
export function describeSearchIndexContract(
  name: string,
  create: (root: string) => SearchIndex | Promise<SearchIndex>,
): void {
  describe(`SearchIndex contract: ${name}`, () => {
    let root: string;
    let index: SearchIndex;
    const scopeA1 = [{ catalogId: CAT_A, version: 1 }];
    const q = (query: Partial<WordsQuery> & { q: string }): WordsQuery => ({ scopes: scopeA1, size: 10, ...query });

    beforeEach(async () => {
      root = mkdtempSync(join(tmpdir(), 'gf-search-index-'));
      index = await create(root);
    });
    afterEach(async () => {
      await index.close();
      rmSync(root, { recursive: true, force: true });
    });

    it('finds an upserted document and returns its self-contained fields', async () => {
      const d = doc({
        title: 'Greenhouse tomatoes',
        text: 'Growing tomatoes under glass needs warmth.',
        images: [{ id: 'img1', path: 'assets/i.jpg', url: 'http://127.0.0.1/i.jpg', alt: 'a tomato' }],
      });
      await index.upsert([d]);
      const r = await index.search(q({ q: 'tomatoes' }));
      expect(r.total).toBe(1);
      const hit = r.results[0] as WordsHit;
      expect(hit).toMatchObject({
        id: d.id,
        catalogId: CAT_A,
        catalogName: 'alpha',
        version: 1,
        url: d.url,
        title: 'Greenhouse tomatoes',
        htmlPath: d.htmlPath,
        textPath: d.textPath,
        images: d.images,
      });
      expect(hit.score).toBeGreaterThan(0);
      expect(r.nextCursor).toBeNull();
    });

    it('stems words and folds diacritics', async () => {
      await index.upsert([doc({ text: 'The crawler was running across the café pages.' })]);
      expect((await index.search(q({ q: 'runs' }))).total).toBe(1);
      expect((await index.search(q({ q: 'cafe' }))).total).toBe(1);
    });

    it('replaces a document upserted again with the same id', async () => {
      await index.upsert([doc({ id: 'same', text: 'original words about apples' })]);
      await index.upsert([doc({ id: 'same', text: 'replacement words about pears' })]);
      expect((await index.search(q({ q: 'apples' }))).total).toBe(0);
      expect((await index.search(q({ q: 'pears' }))).total).toBe(1);
      expect(await index.countVersion(CAT_A, 1)).toBe(1);
    });

    it('only searches the versions in scope: an unpublished version is invisible', async () => {
      await index.upsert([
        doc({ version: 1, text: 'lighthouse keeper diary' }),
        doc({ version: 2, text: 'lighthouse renovation notes' }),
        doc({ catalogId: CAT_B, catalogName: 'beta', version: 1, text: 'lighthouse in another catalog' }),
      ]);
      const v1 = await index.search(q({ q: 'lighthouse' }));
      expect(v1.total).toBe(1);
      expect(v1.results.map((h) => h.version)).toEqual([1]);
      const v2 = await index.search(q({ q: 'lighthouse', scopes: [{ catalogId: CAT_A, version: 2 }] }));
      expect(v2.results.map((h) => h.version)).toEqual([2]);
      const both = await index.search(
        q({
          q: 'lighthouse',
          scopes: [
            { catalogId: CAT_A, version: 1 },
            { catalogId: CAT_B, version: 1 },
          ],
        }),
      );
      expect(both.total).toBe(2);
      expect(new Set(both.results.map((h) => h.catalogId))).toEqual(new Set([CAT_A, CAT_B]));
      expect((await index.search(q({ q: 'lighthouse', scopes: [] }))).total).toBe(0);
      const unknown = '0190a0b0-0000-7000-8000-0000000000ff';
      expect((await index.search(q({ q: 'lighthouse', scopes: [{ catalogId: unknown, version: 1 }] }))).total).toBe(0);
    });

    it('weights a match in the title over the body over the image text', async () => {
      const filler = 'plain words fill this sentence so lengths match';
      await index.upsert([
        doc({ id: 'in-image', title: 'Page one', text: filler, imageText: 'a zebra drawing' }),
        doc({ id: 'in-title', title: 'A zebra page', text: filler, imageText: 'a drawing' }),
        doc({ id: 'in-text', title: 'Page two', text: `${filler} zebra`, imageText: 'a drawing' }),
      ]);
      const r = await index.search(q({ q: 'zebra' }));
      expect(r.results.map((h) => h.id)).toEqual(['in-title', 'in-text', 'in-image']);
      const scores = r.results.map((h) => h.score);
      expect(scores[0]).toBeGreaterThan(scores[1] as number);
      expect(scores[1]).toBeGreaterThan(scores[2] as number);
    });

    it('ranks detail pages above listings unless preferDetailPages is false', async () => {
      const text = 'harbour ferry timetable for the summer season';
      await index.upsert([
        doc({ id: 'a-listing', text, linkDensity: 0.9 }),
        doc({ id: 'b-article', text, linkDensity: 0.05 }),
      ]);
      const preferred = await index.search(q({ q: 'ferry timetable' }));
      expect(preferred.results.map((h) => h.id)).toEqual(['b-article', 'a-listing']);
      const ratio = (preferred.results[0] as WordsHit).score / (preferred.results[1] as WordsHit).score;
      expect(ratio).toBeCloseTo((1.5 - 0.05) / (1.5 - 0.9), 5);
      const plain = await index.search(q({ q: 'ferry timetable', preferDetailPages: false }));
      expect(plain.results.map((h) => h.id)).toEqual(['a-listing', 'b-article']);
      expect((plain.results[0] as WordsHit).score).toBeCloseTo((plain.results[1] as WordsHit).score, 10);
    });

    it("match 'any' ranks the pages holding any word even when one holds all; highlightFirst limits highlights", async () => {
      await index.upsert([
        doc({ id: 'all-words', text: 'shallow copy and deep copy of compound objects, nested ones included' }),
        doc({ id: 'one-word', title: 'copy operations', text: 'the copy module' }),
        doc({ id: 'no-word', text: 'ferry timetable' }),
      ]);
      const all = await index.search(q({ q: 'nested copy' }));
      expect(all.results.map((h) => h.id)).toEqual(['all-words']);
      const any = await index.search(q({ q: 'nested copy', match: 'any' }));
      expect(any.results.map((h) => h.id).sort()).toEqual(['all-words', 'one-word']);
      expect(any.total).toBe(2);
      const first = await index.search(q({ q: 'nested copy', match: 'any', highlightFirst: 1 }));
      expect(first.results.map((h) => h.highlights.length > 0)).toEqual([true, false]);
    });

    it('highlights matches with <em> and escapes the rest of the passage', async () => {
      await index.upsert([
        doc({ title: 'Otters & rivers', text: 'Notes: <b>otters</b> play "here" & there, said the ranger.' }),
      ]);
      const hit = (await index.search(q({ q: 'otters' }))).results[0] as WordsHit;
      expect(hit.highlights.length).toBeGreaterThanOrEqual(1);
      expect(hit.highlights.length).toBeLessThanOrEqual(2);
      expect(hit.highlights[0]).toContain('&lt;b&gt;<em>otters</em>&lt;/b&gt;');
      expect(hit.highlights[0]).toContain('&quot;here&quot; &amp; there');
      expect(hit.highlights.join(' ')).not.toMatch(/<(?!\/?em>)/);
      expect(hit.highlights[1]).toBe('<em>Otters</em> &amp; rivers');
    });

    it('takes each hit’s passage from its own document', async () => {
      const animals = ['badger', 'heron', 'marten', 'salmon', 'beaver'];
      await index.upsert(
        animals.map((a, i) =>
          doc({ title: `Page ${i}`, text: `Filler words come first. The river ${a} lives here. More filler.` }),
        ),
      );
      const r = await index.search(q({ q: 'river' }));
      expect(r.results).toHaveLength(animals.length);
      for (const hit of r.results) {
        const animal = animals[Number(hit.title.split(' ')[1])] as string;
        expect(hit.highlights[0]).toContain(animal);
      }
    });

    it('walks every match exactly once with the cursor, in score order', async () => {
      const docs: IndexDocument[] = [];
      for (let i = 0; i < 23; i++) {
        const repeats = 1 + (i % 4);
        docs.push(
          doc({
            catalogId: i % 3 === 0 ? CAT_B : CAT_A,
            catalogName: i % 3 === 0 ? 'beta' : 'alpha',
            text: `${'walrus '.repeat(repeats)}on the ice shelf number ${i % 2}`,
            linkDensity: (i % 5) / 10,
          }),
        );
      }
      docs.push(doc({ text: 'no match here at all' }));
      await index.upsert(docs);
      const scopes = [
        { catalogId: CAT_A, version: 1 },
        { catalogId: CAT_B, version: 1 },
      ];
      const seen: WordsHit[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 20; page++) {
        const r = await index.search({ q: 'walrus', scopes, size: 4, cursor });
        expect(r.total).toBe(23);
        expect(r.results.length).toBeLessThanOrEqual(4);
        seen.push(...r.results);
        if (!r.nextCursor) break;
        cursor = r.nextCursor;
      }
      expect(seen).toHaveLength(23);
      expect(new Set(seen.map((h) => h.id)).size).toBe(23);
      for (let i = 1; i < seen.length; i++) {
        const a = seen[i - 1] as WordsHit;
        const b = seen[i] as WordsHit;
        expect(a.score > b.score || (a.score === b.score && a.id < b.id)).toBe(true);
      }
      const all = await index.search({ q: 'walrus', scopes, size: 100 });
      expect(all.results.map((h) => h.id)).toEqual(seen.map((h) => h.id));
    });

    it('treats user input as words: operators and punctuation never raise a syntax error', async () => {
      await index.upsert([doc({ text: 'near the north pole, or not' })]);
      for (const input of [
        '!!!',
        '"',
        '***',
        '()',
        '-',
        'NEAR(',
        'north AND',
        'OR',
        'pole*',
        'title:north',
        '"north pole',
      ]) {
        const r = await index.search(q({ q: input }));
        expect(r.results.length).toBe(r.total);
      }
      expect((await index.search(q({ q: '?!.,;' }))).total).toBe(0);
      expect((await index.search(q({ q: '   ' }))).total).toBe(0);
      expect((await index.search(q({ q: 'north AND' }))).total).toBe(1);
      expect((await index.search(q({ q: '"north pole"' }))).total).toBe(1);
      expect((await index.search(q({ q: '"pole north"' }))).total).toBe(0);
    });

    it('requires all words, and falls back to any word when nothing has all of them', async () => {
      await index.upsert([
        doc({ id: 'both', text: 'penguin colony on the glacier' }),
        doc({ id: 'one', text: 'penguin alone' }),
      ]);
      expect((await index.search(q({ q: 'penguin glacier' }))).results.map((h) => h.id)).toEqual(['both']);
      const fallback = await index.search(q({ q: 'penguin volcano' }));
      expect(fallback.total).toBe(2);
    });

    it('rejects a cursor it did not issue', async () => {
      await index.upsert([doc({ text: 'narwhal' })]);
      await expect(index.search(q({ q: 'narwhal', cursor: 'not-a-cursor' }))).rejects.toBeInstanceOf(CrawlerError);
    });

    it('counts and deletes one version', async () => {
      await index.upsert([
        doc({ version: 1, text: 'seal one' }),
        doc({ version: 1, text: 'seal two' }),
        doc({ version: 2, text: 'seal three' }),
      ]);
      expect(await index.countVersion(CAT_A, 1)).toBe(2);
      expect(await index.countVersion(CAT_A, 2)).toBe(1);
      expect(await index.deleteVersion(CAT_A, 1)).toBe(2);
      expect(await index.countVersion(CAT_A, 1)).toBe(0);
      expect((await index.search(q({ q: 'seal' }))).total).toBe(0);
      expect((await index.search(q({ q: 'seal', scopes: [{ catalogId: CAT_A, version: 2 }] }))).total).toBe(1);
      expect(await index.countVersion(CAT_B, 1)).toBe(0);
      expect(await index.deleteVersion(CAT_B, 1)).toBe(0);
    });

    it('deletes one page of one version; a dry run counts it and deletes nothing', async () => {
      await index.upsert([
        doc({ id: 'gone', text: 'walrus tusk' }),
        doc({ id: 'kept', text: 'walrus whiskers' }),
        doc({ id: 'gone-v2', version: 2, text: 'walrus tusk' }),
      ]);
      expect(await index.deleteResource(CAT_A, 1, 'gone', true)).toBe(1);
      expect((await index.search(q({ q: 'walrus' }))).total).toBe(2);
      expect(await index.deleteResource(CAT_A, 1, 'gone')).toBe(1);
      expect((await index.search(q({ q: 'walrus' }))).results.map((h) => h.id)).toEqual(['kept']);
      expect(await index.countVersion(CAT_A, 2)).toBe(1);
      expect(await index.deleteResource(CAT_A, 1, 'gone')).toBe(0);
      expect(await index.deleteResource(CAT_B, 1, 'kept')).toBe(0);
    });

    it('purges a whole catalog and leaves the others', async () => {
      await index.upsert([doc({ text: 'puffin' }), doc({ catalogId: CAT_B, catalogName: 'beta', text: 'puffin' })]);
      await index.purge(CAT_A);
      expect(await index.countVersion(CAT_A, 1)).toBe(0);
      expect((await index.search(q({ q: 'puffin' }))).total).toBe(0);
      expect((await index.search(q({ q: 'puffin', scopes: [{ catalogId: CAT_B, version: 1 }] }))).total).toBe(1);
      await index.upsert([doc({ text: 'puffin again' })]);
      expect((await index.search(q({ q: 'puffin' }))).total).toBe(1);
    });

    it('reports documents per catalog and version, and follows deletes and purges', async () => {
      const empty = await index.stats();
      expect(empty.catalogs.reduce((a, c) => a + c.documents, 0)).toBe(0);
      await index.upsert([
        doc({ version: 1, text: 'gannet one' }),
        doc({ version: 1, text: 'gannet two' }),
        doc({ version: 3, text: 'gannet three' }),
        doc({ catalogId: CAT_B, catalogName: 'beta', version: 2, text: 'gannet four' }),
      ]);
      const of = (stats: IndexStats, catalogId: string) => stats.catalogs.find((c) => c.catalogId === catalogId);
      const full = await index.stats();
      expect(typeof full.name).toBe('string');
      expect(of(full, CAT_A)).toMatchObject({
        documents: 3,
        versions: [
          { version: 1, documents: 2 },
          { version: 3, documents: 1 },
        ],
      });
      expect(of(full, CAT_B)).toMatchObject({ documents: 1, versions: [{ version: 2, documents: 1 }] });
      for (const c of full.catalogs) if (c.bytes !== undefined) expect(c.bytes).toBeGreaterThan(0);
      if (full.bytes !== undefined) expect(full.bytes).toBeGreaterThan(0);

      await index.deleteVersion(CAT_A, 1);
      await index.purge(CAT_B);
      const after = await index.stats();
      expect(of(after, CAT_A)).toMatchObject({ documents: 1, versions: [{ version: 3, documents: 1 }] });
      expect(of(after, CAT_B)?.documents ?? 0).toBe(0);

      await index.close();
      index = await create(root);
      expect(of(await index.stats(), CAT_A)).toMatchObject({ documents: 1, versions: [{ version: 3, documents: 1 }] });
    });

    it('takes the writes of the writer it opens (a crawl writes through it) and stays open when it closes', async () => {
      const writer = index.openWriter?.({}) ?? index;
      await writer.upsert([
        doc({ id: 'w1', title: 'Cormorant', text: 'cormorant wings drying' }),
        doc({ id: 'w2', text: 'cormorant colony' }),
        doc({ id: 'w3', version: 2, text: 'cormorant in version two' }),
      ]);
      const report = await writer.optimize?.(CAT_A, 1);
      if (report) {
        expect(report).toMatchObject({ catalogId: CAT_A, version: 1, warnings: [] });
        expect(report.ms).toBeGreaterThanOrEqual(0);
        expect(typeof report.details).toBe('object');
      }
      const r = await index.search(q({ q: 'cormorant' }));
      expect(r.total).toBe(2);
      expect(r.results.map((h) => h.id)).toEqual(['w1', 'w2']);
      expect(await writer.countVersion(CAT_A, 2)).toBe(1);
      expect(await writer.deleteVersion(CAT_A, 2)).toBe(1);
      expect(await index.countVersion(CAT_A, 2)).toBe(0);
      if (writer !== index) await writer.close();
      await index.upsert([doc({ id: 'w4', text: 'cormorant after the writer closed' })]);
      expect((await index.search(q({ q: 'cormorant' }))).total).toBe(3);
    });

    it('answers the same after reopening from disk', async () => {
      await index.upsert([doc({ title: 'Albatross', text: 'albatross flight' }), doc({ text: 'albatross nest' })]);
      const before = await index.search(q({ q: 'albatross' }));
      await index.close();
      index = await create(root);
      const after = await index.search(q({ q: 'albatross' }));
      expect(after).toEqual(before);
      expect(after.total).toBe(2);
    });
  });
}
