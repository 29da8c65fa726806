import { describe, expect, it } from 'vitest';
import { analysisPlugins, catalogIndexName, catalogOfIndex } from '../../src/index/elasticsearch/es-mapping.js';
import {
  type EsPictureSource,
  mergePictureRecords,
  pictureIndexBody,
  pictureIndexName,
  pictureRecordIds,
  pictureSearchRequest,
  picturesOfPageQuery,
  toPictureHit,
  withoutPage,
} from '../../src/index/elasticsearch/es-pictures.js';
import { pictureRecordId } from '../../src/index/fts-pictures.js';
import type { IndexDocument, IndexImage } from '../../src/index/search-index.js';

const CAT = '0190a0b0-0000-7000-8000-00000000000a';
const scopes = [{ catalogId: CAT, version: 3 }];

function page(id: string, images: IndexImage[], title = `Page ${id}`): IndexDocument {
  return {
    id,
    catalogId: CAT,
    catalogName: 'alpha',
    version: 3,
    url: `http://127.0.0.1/${id}`,
    title,
    text: '',
    imageText: '',
    htmlPath: '',
    textPath: '',
    images,
    linkDensity: 0,
    fetchedAt: '2026-01-01T00:00:00.000Z',
  };
}
const img = (id: string, over: Partial<IndexImage> = {}): IndexImage => ({
  id,
  path: `assets/${id}.png`,
  url: `http://127.0.0.1/static/guides/${id}.png`,
  alt: '',
  ...over,
});

describe('Elasticsearch picture records and pictures search (the adapter sends these)', () => {
  it('keeps the records in an index beside the catalog’s, never taken for a catalog index', () => {
    const index = pictureIndexName(catalogIndexName('greenfinger', CAT));
    expect(index).toBe(`greenfinger-${CAT}-pictures`);
    expect(catalogOfIndex('greenfinger', index)).toBeUndefined();
    const body = pictureIndexBody(analysisPlugins([]));
    expect(body.settings).toMatchObject({
      number_of_shards: 1,
      analysis: { analyzer: { gf_text: { type: 'custom' } } },
    });
    expect(body.mappings).toMatchObject({
      dynamic: false,
      properties: {
        catalogVersion: { type: 'keyword' },
        pageIds: { type: 'keyword' },
        pageCount: { type: 'integer' },
        alt: { type: 'text', analyzer: 'gf_text' },
        name: { type: 'text', analyzer: 'gf_text' },
      },
    });
  });

  it('merges pages into one record per picture as the embedded index does', () => {
    const known = new Map<string, EsPictureSource>();
    const first = mergePictureRecords(
      CAT,
      [
        page(
          'p1',
          [img('exportDialog', { alt: 'Export  dialog', caption: 'The dialog', width: 10, height: 20 })],
          'Export',
        ),
        page('p2', [img('exportDialog', { alt: 'Export dialog' }), img('exportDialog')], 'Save'),
      ],
      known,
    );
    expect(first).toHaveLength(1);
    const id = pictureRecordId(CAT, 3, 'exportDialog');
    expect(pictureRecordIds(CAT, [page('p1', [img('exportDialog')]), page('p2', [img('exportDialog')])])).toEqual([id]);
    expect(first[0]).toMatchObject({
      id,
      catalogVersion: `${CAT}:3`,
      alt: 'Export dialog',
      caption: 'The dialog',
      name: 'export Dialog',
      dirs: 'guides',
      context: 'Export\nSave\nguides',
      width: 10,
      height: 20,
      pageIds: ['p1', 'p2'],
      pageCount: 2,
    });
    // p1 written again: its entry is replaced, not added; a new alt text joins the distinct ones.
    const again = mergePictureRecords(
      CAT,
      [page('p1', [img('exportDialog', { alt: 'Export window' })], 'Export 2')],
      known,
    );
    expect(again[0]).toMatchObject({ alt: 'Export dialog\nExport window', pageCount: 2, pageIds: ['p1', 'p2'] });
    expect(again[0]?.pages[0]).toEqual({ id: 'p1', url: 'http://127.0.0.1/p1', title: 'Export 2' });
    // Taking pages off: the record goes with its last page.
    const one = withoutPage(again[0] as EsPictureSource, 'p1');
    expect(one).toMatchObject({ pageCount: 1, pageIds: ['p2'] });
    expect(withoutPage(one as EsPictureSource, 'p2')).toBeNull();
    expect(picturesOfPageQuery(CAT, 3, 'p2')).toEqual({
      bool: { filter: [{ term: { catalogVersion: `${CAT}:3` } }, { term: { pageIds: 'p2' } }] },
    });
  });

  it('asks any of the words in the weighted fields, in the versions in scope, ties by id', () => {
    const r = pictureSearchRequest({ q: 'grey "barn owl" grey', scopes, size: 5, offset: 10 });
    expect(r).toMatchObject({
      from: 10,
      size: 5,
      track_total_hits: true,
      track_scores: true,
      sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }],
      query: {
        bool: {
          minimum_should_match: 1,
          filter: [{ terms: { catalogVersion: [`${CAT}:3`] } }],
          should: [
            {
              multi_match: { query: 'barn owl', type: 'phrase', fields: ['alt^6', 'caption^2', 'name^4', 'context^1'] },
            },
            {
              multi_match: {
                query: 'grey',
                type: 'most_fields',
                fields: ['alt^6', 'caption^2', 'name^4', 'context^1'],
              },
            },
          ],
        },
      },
    });
    const highlight = (r as { highlight: { fields: Record<string, unknown>; pre_tags: string[] } }).highlight;
    expect(Object.keys(highlight.fields)).toEqual(['caption', 'alt', 'name', 'context']);
    expect(highlight.pre_tags).toEqual(['\u0001']);
    // Size and offset are bounded as the embedded index bounds them.
    expect(pictureSearchRequest({ q: 'x', scopes, size: 5000, offset: -3 })).toMatchObject({ from: 0, size: 1000 });
  });

  it('lists by page count for a blank query, and sends nothing for one of no word', () => {
    expect(pictureSearchRequest({ q: '  ', scopes, size: 3 })).toEqual({
      from: 0,
      size: 3,
      track_total_hits: true,
      query: { bool: { filter: [{ terms: { catalogVersion: [`${CAT}:3`] } }] } },
      sort: [{ pageCount: { order: 'desc' } }, { id: { order: 'asc' } }],
    });
    expect(pictureSearchRequest({ q: '-- !!', scopes, size: 3 })).toBeNull();
  });

  it('reads a hit: first alt and caption, two escaped passages, the page count as the score of a listing', () => {
    const [record] = mergePictureRecords(
      CAT,
      [page('p1', [img('a', { alt: 'Tern <b>x</b>\nTern 2', caption: 'Sea' })])],
      new Map(),
    );
    const source = { ...(record as EsPictureSource), alt: 'Tern <b>x</b>\nTern 2' };
    const hit = toPictureHit(
      {
        _source: source,
        _score: 4.5,
        highlight: {
          alt: ['\u0001Tern\u0002 <b>x</b>'],
          caption: ['no marker here'],
          name: ['\u0001a\u0002'],
          context: ['\u0001Page\u0002 p1'],
        },
      },
      false,
    );
    expect(hit).toMatchObject({ alt: 'Tern <b>x</b>', caption: 'Sea', score: 4.5, pageCount: 1, file: 'assets/a.png' });
    expect(hit.highlights).toEqual(['<em>Tern</em> &lt;b&gt;x&lt;/b&gt;', '<em>a</em>']);
    expect(toPictureHit({ _source: source, _score: null }, true).score).toBe(1);
  });
});
