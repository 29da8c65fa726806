import { CrawlerError, parseQdrantUrl, qdrantRequests as q, qdrantErrors } from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

const CAT = '0190a0b0-0000-7000-8000-00000000000a';

function point(id: string, dims = 4) {
  return {
    id,
    vector: Float32Array.from({ length: dims }, (_, i) => i + 1),
    payload: {
      resourceId: 'res-1',
      catalogId: CAT,
      catalogName: 'alpha',
      version: 3,
      catalogVersion: 'stale:value',
      chunkIndex: 2,
      chunk: 'some text',
      url: 'http://127.0.0.1/a',
      title: 'A',
      textPath: 'assets/a.txt',
      linkDensity: 0.25,
    },
  };
}

describe('Qdrant request builders', () => {
  it('names collections by base, space and width, and reads only names of its own shape back', () => {
    expect(q.textCollectionName('greenfinger_text', 384)).toBe('greenfinger_text_384');
    expect(q.imageCollectionName('greenfinger_text', 768)).toBe('greenfinger_image_768');
    expect(q.imageCollectionName('mine', 768)).toBe('mine_image_768');
    expect(() => q.textCollectionName('Bad Name', 8)).toThrow(CrawlerError);
    expect(() => q.textCollectionName('ok', 0)).toThrow(/width 0/);
    expect(q.parseCollectionName('greenfinger_text', 'greenfinger_text_384')).toEqual({
      collection: 'greenfinger_text',
      dims: 384,
    });
    expect(q.parseCollectionName('greenfinger_text', 'greenfinger_text_openai-bge-m3_1024')).toEqual({
      collection: 'greenfinger_text_openai-bge-m3',
      dims: 1024,
    });
    for (const other of [
      'greenfinger_image_512',
      'greenfinger_textual_8',
      'greenfinger_text_',
      'greenfinger_text_08',
    ]) {
      expect(q.parseCollectionName('greenfinger_text', other)).toBeUndefined();
    }
  });

  it('keeps a UUID as the point id and derives a stable UUID from any other id', () => {
    const uuid = '0190A0B0-0000-5000-8000-0000000000FF';
    expect(q.qdrantPointId(uuid)).toBe(uuid.toLowerCase());
    const derived = q.qdrantPointId('xy');
    expect(derived).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(q.qdrantPointId('xy')).toBe(derived);
    expect(q.qdrantPointId('xz')).not.toBe(derived);
  });

  it('writes a payload that explains itself, with the scope rebuilt from catalog and version', () => {
    const sent = q.toQdrantPoint(point('p1'), 4, 'greenfinger_text_4');
    expect(sent.vector).toEqual([1, 2, 3, 4]);
    expect(sent.payload).toMatchObject({
      catalogId: CAT,
      version: 3,
      catalogVersion: `${CAT}:3`,
      resourceId: 'res-1',
      chunkIndex: 2,
      chunk: 'some text',
      pointId: 'p1',
    });
    // Read back: the caller's id and payload, without the id key.
    const back = q.fromQdrantPayload(sent.payload, sent.id);
    expect(back.id).toBe('p1');
    expect(back.payload).toEqual({ ...point('p1').payload, catalogVersion: `${CAT}:3` });
    expect(q.fromQdrantPayload({ chunk: 'x' }, 7).id).toBe('7');
  });

  it('refuses a point or a query of another width before anything is sent', () => {
    expect(() => q.toQdrantPoint(point('w', 5), 4, 'greenfinger_text_4')).toThrow(/5 dimensions.*greenfinger_text_4/);
    const wide = { vector: new Float32Array(5), scopes: [{ catalogId: CAT, version: 1 }], limit: 1 };
    expect(() => q.searchBody(wide, 4, 'greenfinger_text_4')).toThrow(CrawlerError);
  });

  it('filters by catalog:version, page, and catalog through the indexed keys', () => {
    expect(q.versionFilter(CAT, 2)).toEqual({ must: [{ key: 'catalogVersion', match: { value: `${CAT}:2` } }] });
    expect(q.resourceFilter(CAT, 2, 'r9')).toEqual({
      must: [
        { key: 'catalogVersion', match: { value: `${CAT}:2` } },
        { key: 'resourceId', match: { value: 'r9' } },
      ],
    });
    expect(q.catalogFilter(CAT)).toEqual({ must: [{ key: 'catalogId', match: { value: CAT } }] });
    expect(
      q.scopesFilter([
        { catalogId: CAT, version: 1 },
        { catalogId: 'b', version: 4 },
        { catalogId: CAT, version: 1 },
      ]),
    ).toEqual({ must: [{ key: 'catalogVersion', match: { any: [`${CAT}:1`, 'b:4'] } }] });
    for (const key of ['catalogVersion', 'catalogId', 'resourceId']) expect(q.INDEXED_KEYS).toContain(key);
  });

  it('asks for one page of one ranking over every scope, over-fetching candidates', () => {
    const scopes = [{ catalogId: CAT, version: 1 }];
    const body = q.searchBody({ vector: Float32Array.of(1, 0, 0, 0), scopes, limit: 4, offset: 5 }, 4, 'c');
    expect(body).toMatchObject({ limit: 4, offset: 5, with_payload: true, with_vector: false });
    expect(body?.vector).toEqual([1, 0, 0, 0]);
    expect(body?.params.hnsw_ef).toBeGreaterThanOrEqual(4 * 9);
    const deep = q.searchBody({ vector: Float32Array.of(1, 0, 0, 0), scopes, limit: 1000, offset: 0 }, 4, 'c');
    expect(deep?.params.hnsw_ef).toBe(4000);
    expect(q.searchBody({ vector: new Float32Array(4), scopes: [], limit: 5 }, 4, 'c')).toBeUndefined();
    expect(q.searchBody({ vector: new Float32Array(4), scopes, limit: 0 }, 4, 'c')).toBeUndefined();
    const capped = q.searchBody({ vector: new Float32Array(4), scopes, limit: 100, offset: 4050 }, 4, 'c');
    expect(capped).toMatchObject({ offset: 4050, limit: q.QDRANT_MAX_K - 4050 });
    expect(q.searchBody({ vector: new Float32Array(4), scopes, limit: 5, offset: 5000 }, 4, 'c')).toBeUndefined();
    expect(q.searchBody({ vector: new Float32Array(4), scopes, limit: 5 }, 4, 'c', { exact: true })?.params.exact).toBe(
      true,
    );
  });

  it('reads facet values of the scope back, refusing what is not one', () => {
    expect(q.parseScopeKey(`${CAT}:12`)).toEqual({ catalogId: CAT, version: 12 });
    expect(q.parseScopeKey('nocolon')).toBeUndefined();
    expect(q.parseScopeKey(':3')).toBeUndefined();
    expect(q.parseScopeKey('a:x')).toBeUndefined();
  });

  it('turns the client failures into one line naming the setting', () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    const down = qdrantErrors.qdrantError(refused, 'http://127.0.0.1:1', 'search');
    expect(down.toLine()).toMatch(/^GF_QDRANT_URL: no Qdrant answers at http:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\)/);
    const badPort = new TypeError('fetch failed', { cause: new Error('bad port') });
    expect(qdrantErrors.qdrantError(badPort, 'http://127.0.0.1:9', 'search').message).toBe(
      'GF_QDRANT_URL: no Qdrant answers at http://127.0.0.1:9 (bad port)',
    );
    const key = qdrantErrors.qdrantError(Object.assign(new Error('Unauthorized'), { status: 401 }), 'u', 'search');
    expect(key.message).toMatch(/^GF_QDRANT_API_KEY:/);
    const other = qdrantErrors.qdrantError(
      Object.assign(new Error('Bad Request'), { status: 400, data: { status: { error: 'Wrong input: bad filter' } } }),
      'u',
      'search in c_8',
    );
    expect(other.code).toBe('STORAGE');
    expect(other.message).toContain('Wrong input: bad filter');
    expect(other.message).toContain('search in c_8');
  });

  it('takes http(s) urls only, without a trailing slash', () => {
    expect(parseQdrantUrl('http://127.0.0.1:6333/')).toBe('http://127.0.0.1:6333');
    expect(parseQdrantUrl('https://q.example/base/')).toBe('https://q.example/base');
    expect(() => parseQdrantUrl('localhost:6333')).toThrow(/GF_QDRANT_URL/);
    expect(() => parseQdrantUrl('ftp://h')).toThrow(/GF_QDRANT_URL/);
  });
});
