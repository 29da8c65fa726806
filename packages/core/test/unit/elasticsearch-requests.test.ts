import { describe, expect, it } from 'vitest';
import { CrawlerError } from '../../src/errors.js';
import {
  analysisPlugins,
  catalogIndexBody,
  catalogIndexName,
  catalogOfIndex,
  detailFactor,
  missingPluginWarnings,
  toEsDocument,
} from '../../src/index/elasticsearch/es-mapping.js';
import {
  decodeEsCursor,
  encodeEsCursor,
  highlightsOf,
  nextCursorOf,
  partQuery,
  queryParts,
  searchFields,
  searchRequest,
  toWordsHit,
  versionFilter,
  wordsQuery,
} from '../../src/index/elasticsearch/es-query.js';
import type { IndexDocument } from '../../src/index/search-index.js';
import {
  cosineOf,
  knnRequest,
  parseVectorIndex,
  pointsFilter,
  vectorIndexBody,
} from '../../src/vector/elasticsearch/es-vector-requests.js';

const CAT = '0190a0b0-0000-7000-8000-00000000000a';
const NONE = analysisPlugins([]);

describe('Elasticsearch request bodies (the adapter sends these)', () => {
  it('names one index per catalog and tells its own indices from others', () => {
    expect(catalogIndexName('greenfinger', CAT)).toBe(`greenfinger-${CAT}`);
    expect(catalogOfIndex('greenfinger', `greenfinger-${CAT}`)).toBe(CAT);
    expect(catalogOfIndex('greenfinger', 'greenfinger-other')).toBeUndefined();
    expect(catalogOfIndex('greenfinger', `gf-${CAT}`)).toBeUndefined();
  });

  it('filters on catalogId:searchVersion for every scope', () => {
    expect(
      versionFilter([
        { catalogId: CAT, version: 3 },
        { catalogId: 'b', version: 1 },
      ]),
    ).toEqual({
      terms: { catalogVersion: [`${CAT}:3`, 'b:1'] },
    });
  });

  it('reads user input as words and phrases, never operators', () => {
    expect(queryParts('north AND "pole star" title:x*')).toEqual([
      ['pole', 'star'],
      ['north'],
      ['AND'],
      ['title'],
      ['x'],
    ]);
    expect(queryParts('?!.,;')).toEqual([]);
    expect(queryParts('Word word')).toEqual([['Word']]);
    expect(queryParts('東京')).toEqual([['東', '京']]);
  });

  it('wraps the match in a function_score on detailFactor (1.5 − density) that only reorders', () => {
    const fields = searchFields(NONE);
    expect(fields).toEqual(['title^10', 'text^1', 'imageText^0.5']);
    const q = wordsQuery([['ferry'], ['late', 'boat']], [{ catalogId: CAT, version: 1 }], 'all', true, fields);
    expect(q).toEqual({
      function_score: {
        query: {
          bool: {
            must: [
              { multi_match: { query: 'ferry', type: 'most_fields', fields, operator: 'and' } },
              { multi_match: { query: 'late boat', type: 'phrase', fields } },
            ],
            filter: [{ terms: { catalogVersion: [`${CAT}:1`] } }],
          },
        },
        functions: [{ field_value_factor: { field: 'detailFactor', missing: 1 } }],
        score_mode: 'multiply',
        boost_mode: 'multiply',
      },
    });
    // No function, no min_score: the matches are those of the bool query, whatever the factor.
    const any = wordsQuery([['a'], ['b']], [{ catalogId: CAT, version: 1 }], 'any', false, fields);
    expect(any).toMatchObject({ bool: { minimum_should_match: 1 } });
    expect(JSON.stringify(any)).not.toContain('function_score');
    expect(detailFactor(0.05)).toBeCloseTo(1.45, 10);
    expect(detailFactor(0.9)).toBeCloseTo(0.6, 10);
    expect(detailFactor(2)).toBe(0.5);
    expect(detailFactor(Number.NaN)).toBe(1.5);
  });

  it('walks with search_after on (score, id mirror, catalogVersion) and refuses cursors it did not issue', () => {
    const cursor = encodeEsCursor([1.25, 'doc-1', `${CAT}:1`]);
    const body = searchRequest({ query: { match_all: {} }, size: 4, cursor });
    expect(body).toMatchObject({
      size: 4,
      track_total_hits: true,
      search_after: [1.25, 'doc-1', `${CAT}:1`],
      sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }, { catalogVersion: { order: 'asc' } }],
    });
    expect(() => decodeEsCursor('not-a-cursor')).toThrow(CrawlerError);
    expect(() => decodeEsCursor(Buffer.from('{"a":[1,"x"]}').toString('base64url'))).toThrow(CrawlerError);
    const hit = (id: string) => ({ sort: [2, id, `${CAT}:1`] });
    expect(nextCursorOf([hit('a'), hit('b')], 2, 5, 2)).toBe(encodeEsCursor([2, 'b', `${CAT}:1`]));
    expect(nextCursorOf([hit('a')], 2, 5, 0)).toBeNull();
    expect(nextCursorOf([hit('a'), hit('b')], 2, 2, 2)).toBeNull();
  });

  it('maps highlights: markers to <em>, the rest escaped, text then title, two at most', () => {
    const hit = {
      highlight: {
        title: ['\u0001Otters\u0002 & rivers'],
        text: ['<b>\u0001otters\u0002</b> play "here"'],
        imageText: ['an \u0001otter\u0002'],
      },
    };
    expect(highlightsOf(hit)).toEqual([
      '&lt;b&gt;<em>otters</em>&lt;/b&gt; play &quot;here&quot;',
      '<em>Otters</em> &amp; rivers',
    ]);
    expect(highlightsOf({ highlight: { 'text.ja': ['\u0001東京\u0002'] } })).toEqual(['<em>東京</em>']);
  });

  it('keeps documents self-contained and gives hits back as they were written', () => {
    const doc: IndexDocument = {
      id: 'r1',
      catalogId: CAT,
      catalogName: 'alpha',
      version: 2,
      url: 'http://127.0.0.1/r1',
      title: 'T',
      text: 'x',
      imageText: '',
      htmlPath: 'assets/r1.html',
      textPath: 'assets/r1.txt',
      images: [{ id: 'i', path: 'assets/i.jpg', url: 'http://127.0.0.1/i.jpg', alt: 'a' }],
      linkDensity: 0.2,
      fetchedAt: '2026-01-01T00:00:00.000Z',
    };
    const source = toEsDocument(doc);
    expect(source).toMatchObject({ ...doc, catalogVersion: `${CAT}:2`, detailFactor: 1.3 });
    const hit = toWordsHit(
      { _source: source, sort: [3.5, 'r1', `${CAT}:2`], highlight: { text: ['\u0001x\u0002'] } },
      false,
    );
    expect(hit).toEqual({
      id: 'r1',
      catalogId: CAT,
      catalogName: 'alpha',
      version: 2,
      url: doc.url,
      title: 'T',
      score: 3.5,
      highlights: [],
      htmlPath: doc.htmlPath,
      textPath: doc.textPath,
      images: doc.images,
    });
  });

  it('analyses as the embedded index does, with a language sub-field per installed plugin', () => {
    const plain = catalogIndexBody(NONE);
    expect(plain.settings).toMatchObject({
      number_of_shards: 1,
      analysis: {
        analyzer: { gf_text: { tokenizer: 'standard', filter: ['lowercase', 'asciifolding', 'porter_stem'] } },
      },
    });
    expect(JSON.stringify(plain.mappings)).not.toContain('kuromoji');
    const rich = catalogIndexBody(analysisPlugins(['analysis-icu', 'analysis-kuromoji']));
    expect(rich.settings).toMatchObject({ analysis: { analyzer: { gf_text: { tokenizer: 'icu_tokenizer' } } } });
    expect(rich.mappings).toMatchObject({ properties: { text: { fields: { ja: { analyzer: 'kuromoji' } } } } });
    const ja = searchFields(analysisPlugins(['analysis-kuromoji']));
    expect(ja).toContain('text.ja^1');
    // A CJK run: characters in order in the standard fields, the run whole in the language sub-fields.
    expect(partQuery(queryParts('東京')[0] as string[], ja)).toEqual({
      bool: {
        should: [
          { multi_match: { query: '東 京', type: 'phrase', fields: ['title^10', 'text^1', 'imageText^0.5'] } },
          { multi_match: { query: '東京', type: 'phrase', fields: ['title.ja^10', 'text.ja^1'] } },
        ],
        minimum_should_match: 1,
      },
    });
    expect(partQuery(['tokyo'], ja)).toEqual({
      multi_match: { query: 'tokyo', type: 'most_fields', fields: ja, operator: 'and' },
    });
  });

  it('warns naming the missing plugin only for text in its script', () => {
    expect(missingPluginWarnings(['plain English'], NONE)).toEqual([]);
    const ja = missingPluginWarnings(['東京のカフェ'], NONE);
    expect(ja).toHaveLength(1);
    expect(ja[0]).toContain('analysis-kuromoji');
    expect(missingPluginWarnings(['北京大学'], NONE)[0]).toContain('analysis-smartcn');
    expect(missingPluginWarnings(['서울'], NONE)[0]).toContain('analysis-nori');
    expect(missingPluginWarnings(['東京のカフェ'], analysisPlugins(['analysis-kuromoji']))).toEqual([]);
  });
});

describe('Elasticsearch vector request bodies', () => {
  it('maps a dense_vector of full floats with cosine, and finds its widths by name', () => {
    expect(vectorIndexBody(384).mappings).toMatchObject({
      properties: {
        vector: { type: 'dense_vector', dims: 384, similarity: 'cosine', index_options: { type: 'hnsw' } },
      },
    });
    expect(parseVectorIndex('greenfinger_text', 'greenfinger_text_384')).toEqual({
      collection: 'greenfinger_text',
      dims: 384,
    });
    expect(parseVectorIndex('greenfinger_text', 'greenfinger_text_openai-bge_1024')).toEqual({
      collection: 'greenfinger_text_openai-bge',
      dims: 1024,
    });
    expect(parseVectorIndex('greenfinger_text', 'other_384')).toBeUndefined();
  });

  it('asks kNN for offset + limit in scope and turns the score back into the cosine', () => {
    const body = knnRequest({
      vector: new Float32Array([1, 0]),
      scopes: [{ catalogId: CAT, version: 1 }],
      limit: 4,
      offset: 5,
    });
    expect(body).toEqual({
      knn: {
        field: 'vector',
        query_vector: [1, 0],
        k: 9,
        num_candidates: 100,
        filter: { terms: { 'payload.catalogVersion': [`${CAT}:1`] } },
      },
      size: 9,
      _source: { excludes: ['vector'] },
    });
    expect(cosineOf(1)).toBe(1);
    expect(cosineOf(0.5)).toBe(0);
    expect(pointsFilter(CAT, 2, 'r')).toEqual({
      bool: { filter: [{ term: { 'payload.catalogVersion': `${CAT}:2` } }, { term: { 'payload.resourceId': 'r' } }] },
    });
  });
});
