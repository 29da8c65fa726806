import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IndexDocument, IndexImage, PictureQuery, SearchIndex } from '@greenfinger/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const CAT_A = '0190a0b0-0000-7000-8000-0000000000a1';
const CAT_B = '0190a0b0-0000-7000-8000-0000000000b1';

function picture(id: string, over: Partial<IndexImage> = {}): IndexImage {
  return { id, path: `assets/x/img/${id}.png`, url: `http://127.0.0.1/img/${id}.png`, alt: '', ...over };
}

function page(id: string, images: IndexImage[], over: Partial<IndexDocument> = {}): IndexDocument {
  return {
    id,
    catalogId: CAT_A,
    catalogName: 'alpha',
    version: 1,
    url: `http://127.0.0.1/${id}`,
    title: `Page ${id}`,
    text: 'Nothing in particular is written here.',
    imageText: images.map((i) => i.alt).join(' '),
    htmlPath: `assets/x/${id}.html`,
    textPath: `assets/x/${id}.txt`,
    images,
    linkDensity: 0,
    fetchedAt: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

/**
 * Pictures search (`--mode pictures`), the same for every SearchIndex that has it: one record per picture of a
 * version whatever number of pages show it, found by its alt text, caption, file name and the titles of its pages,
 * alt text weighing most; a blank query lists the pictures shown on the most pages first. `create(root)` as in the
 * SearchIndex contract.
 */
export function describePictureSearchContract(
  name: string,
  create: (root: string) => SearchIndex | Promise<SearchIndex>,
): void {
  describe(`SearchIndex pictures contract: ${name}`, () => {
    let root: string;
    let index: SearchIndex;
    const scopeA1 = [{ catalogId: CAT_A, version: 1 }];
    const find = (query: Partial<PictureQuery> & { q: string }) => {
      if (!index.searchPictures) throw new Error(`${name} has no searchPictures`);
      return index.searchPictures({ scopes: scopeA1, size: 10, ...query });
    };

    beforeEach(async () => {
      root = mkdtempSync(join(tmpdir(), 'gf-picture-index-'));
      index = await create(root);
    });
    afterEach(async () => {
      await index.close();
      rmSync(root, { recursive: true, force: true });
    });

    it('finds one record per picture by its alt text, listing every page that shows it', async () => {
      const heron = picture('heron', {
        alt: 'A grey heron standing',
        caption: 'Heron at dawn',
        width: 640,
        height: 480,
      });
      await index.upsert([
        page('p1', [heron], { title: 'Wading birds' }),
        page('p2', [picture('heron', { alt: 'Heron again' })], { title: 'River walk' }),
        page('p3', [picture('gull', { alt: 'A gull' })]),
      ]);
      const r = await find({ q: 'heron' });
      expect(r.total).toBe(1);
      const [hit] = r.results;
      expect(hit).toMatchObject({
        imageId: 'heron',
        catalogId: CAT_A,
        catalogName: 'alpha',
        version: 1,
        pictureUrl: heron.url,
        file: heron.path,
        width: 640,
        height: 480,
        alt: 'A grey heron standing',
        caption: 'Heron at dawn',
        pageCount: 2,
      });
      expect(hit?.pages).toEqual([
        { id: 'p1', url: 'http://127.0.0.1/p1', title: 'Wading birds' },
        { id: 'p2', url: 'http://127.0.0.1/p2', title: 'River walk' },
      ]);
      expect(hit?.score).toBeGreaterThan(0);
      // Alt texts seen on another page are searchable too, and the titles of the pages that show it.
      expect((await find({ q: 'again' })).results.map((h) => h.imageId)).toEqual(['heron']);
      expect((await find({ q: 'wading' })).results.map((h) => h.imageId)).toEqual(['heron']);
    });

    it('finds a picture by the words of its file name and its caption; alt text weighs over caption', async () => {
      await index.upsert([
        page('p1', [picture('a', { url: 'http://127.0.0.1/static/img/exportWebpDialog.png', alt: 'Dialog' })]),
        page('p2', [picture('b', { alt: 'Kingfisher on a branch' })]),
        page('p3', [picture('c', { alt: 'A blue bird', caption: 'The kingfisher waits' })]),
      ]);
      expect((await find({ q: 'webp' })).results.map((h) => h.imageId)).toEqual(['a']);
      const r = await find({ q: 'kingfisher' });
      expect(r.results.map((h) => h.imageId)).toEqual(['b', 'c']);
      expect(r.total).toBe(2);
      // Any of the words: a picture needs only one of them.
      expect((await find({ q: 'kingfisher dialog' })).total).toBe(3);
    });

    it('marks the matches with <em> and escapes the rest of the passage', async () => {
      await index.upsert([page('p1', [picture('x', { alt: 'Tern <b>diving</b> & fishing' })])]);
      const [hit] = (await find({ q: 'tern' })).results;
      expect(hit?.highlights[0]).toContain('<em>Tern</em>');
      expect(hit?.highlights.join(' ')).toContain('&lt;b&gt;');
      expect(hit?.highlights.join(' ')).not.toContain('<b>');
    });

    it('searches only the versions and catalogs in scope', async () => {
      await index.upsert([
        page('p1', [picture('v1', { alt: 'Puffin colony' })]),
        page('p2', [picture('v2', { alt: 'Puffin burrow' })], { version: 2 }),
        page('p3', [picture('b1', { alt: 'Puffin flying' })], { catalogId: CAT_B, catalogName: 'beta' }),
      ]);
      expect((await find({ q: 'puffin' })).results.map((h) => h.imageId)).toEqual(['v1']);
      const both = await find({ q: 'puffin', scopes: [...scopeA1, { catalogId: CAT_B, version: 1 }] });
      expect(both.results.map((h) => h.imageId).sort()).toEqual(['b1', 'v1']);
      expect(both.total).toBe(2);
      expect((await find({ q: 'puffin', scopes: [] })).total).toBe(0);
    });

    it('lists the pictures shown on the most pages first for a blank query; punctuation alone finds nothing', async () => {
      const shared = picture('shared', { alt: 'Logo' });
      await index.upsert([
        page('p1', [shared, picture('once', { alt: 'Once' })]),
        page('p2', [shared]),
        page('p3', [shared, picture('twice', { alt: 'Twice' })]),
        page('p4', [picture('twice', { alt: 'Twice' })]),
      ]);
      const r = await find({ q: '' });
      expect(r.total).toBe(3);
      expect(r.results.map((h) => [h.imageId, h.pageCount, h.score])).toEqual([
        ['shared', 3, 3],
        ['twice', 2, 2],
        ['once', 1, 1],
      ]);
      expect(await find({ q: '-- !!' })).toEqual({ results: [], total: 0 });
    });

    it('pages with offset: every match once, in score order', async () => {
      await index.upsert(
        Array.from({ length: 7 }, (_, i) => page(`p${i}`, [picture(`s${i}`, { alt: `Swan ${'swan '.repeat(i)}` })])),
      );
      const all = await find({ q: 'swan', size: 7 });
      expect(all.total).toBe(7);
      const walked: string[] = [];
      for (let offset = 0; offset < 7; offset += 3) {
        const r = await find({ q: 'swan', size: 3, offset });
        expect(r.total).toBe(7);
        walked.push(...r.results.map((h) => h.id));
      }
      expect(walked).toEqual(all.results.map((h) => h.id));
      for (let i = 1; i < all.results.length; i++)
        expect(all.results[i - 1]?.score ?? 0).toBeGreaterThanOrEqual(all.results[i]?.score ?? 0);
    });

    it('a page written again replaces itself; deleting a page takes it off its pictures, the last page the record', async () => {
      await index.upsert([
        page('p1', [picture('owl', { alt: 'Barn owl' }), picture('lone', { alt: 'Lone owl' })]),
        page('p2', [picture('owl', { alt: 'Barn owl' })]),
      ]);
      await index.upsert([page('p1', [picture('owl', { alt: 'Barn owl' }), picture('lone', { alt: 'Lone owl' })])]);
      const owl = async () => (await find({ q: 'barn' })).results[0];
      expect((await owl())?.pageCount).toBe(2);
      expect(await index.deleteResource(CAT_A, 1, 'p1', true)).toBe(1);
      expect((await owl())?.pageCount).toBe(2);
      expect(await index.deleteResource(CAT_A, 1, 'p1')).toBe(1);
      expect(await owl()).toMatchObject({ pageCount: 1, pages: [{ id: 'p2' }] });
      expect((await find({ q: 'lone' })).total).toBe(0);
    });

    it('deleting a version or purging the catalog takes its pictures', async () => {
      await index.upsert([
        page('p1', [picture('a', { alt: 'Gannet' })]),
        page('p2', [picture('b', { alt: 'Gannet' })], { version: 2 }),
        page('p3', [picture('c', { alt: 'Gannet' })], { catalogId: CAT_B, catalogName: 'beta' }),
      ]);
      await index.deleteVersion(CAT_A, 1);
      expect((await find({ q: 'gannet' })).total).toBe(0);
      expect((await find({ q: 'gannet', scopes: [{ catalogId: CAT_A, version: 2 }] })).total).toBe(1);
      await index.purge(CAT_A);
      expect((await find({ q: 'gannet', scopes: [{ catalogId: CAT_A, version: 2 }] })).total).toBe(0);
      expect((await find({ q: 'gannet', scopes: [{ catalogId: CAT_B, version: 1 }] })).total).toBe(1);
    });

    it('answers the same after reopening', async () => {
      await index.upsert([page('p1', [picture('a', { alt: 'Osprey', caption: 'Osprey with a fish' })])]);
      const before = await find({ q: 'osprey' });
      await index.close();
      index = await create(root);
      expect(await find({ q: 'osprey' })).toEqual(before);
      expect(before.total).toBe(1);
    });
  });
}
