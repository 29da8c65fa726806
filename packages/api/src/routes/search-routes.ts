import { CATALOG_CATS, SEARCH_MODES, type SearchMode, WORDS_MATCHES, type WordsMatch } from '@greenfinger/core';
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';
import { ok } from '../envelope.js';

interface SearchQuery {
  q?: string;
  mode?: SearchMode;
  catalog?: string;
  size: number;
  cursor?: string;
  offset?: number;
  preferDetailPages?: boolean;
  cat?: string;
  version?: number;
  like?: string;
  match?: WordsMatch;
}

const querystring = {
  type: 'object',
  additionalProperties: false,
  properties: {
    q: { type: 'string', maxLength: 1000, description: 'blank lists what was kept' },
    mode: {
      type: 'string',
      enum: [...SEARCH_MODES],
      description: 'absent: hybrid when the catalogs searched have text vectors, else words; the answer says which',
    },
    match: {
      type: 'string',
      enum: [...WORDS_MATCHES],
      default: 'auto',
      description:
        'words mode: auto (a sentence, 4+ words without quotes one of which is on half the pages searched or more, is a question: pages with any of its words, ranked by them and their pairs, the best page with all of them in the first three; else all), all (every word, else any) or any; the answer says which in match',
    },
    catalog: {
      type: 'string',
      maxLength: 4000,
      description: 'catalog ids or names, comma-separated; all published when absent',
    },
    size: { type: 'integer', minimum: 1, maximum: 1000, default: 10 },
    cursor: { type: 'string', maxLength: 2000, description: 'the nextCursor of the previous page' },
    offset: {
      type: 'integer',
      minimum: 0,
      description:
        'meaning, hybrid and pictures: results to skip (instead of cursor), at most 1000 (deeper: 400 naming offset)',
    },
    cat: {
      type: 'string',
      maxLength: 40,
      description: `only catalogs of this category (the catalog's settings.cat): ${CATALOG_CATS.join(', ')}`,
    },
    version: {
      type: 'integer',
      minimum: 0,
      description:
        'search this kept version instead of the published one (needs exactly one catalog); every mode answers from it alone',
    },
    preferDetailPages: {
      type: 'boolean',
      default: true,
      description:
        'rank articles above listings (by the link density of the extracted text); false ranks by match alone',
    },
    like: {
      type: 'string',
      maxLength: 200,
      description:
        'pictures like this one: the id (or imageId) of a pictures result; pictures mode only (absent mode: pictures), with q blank (both: 400); an unknown picture: 404',
    },
  },
} as const;

/** The pictures route's query: no mode (it is pictures), no detail-pages switch (pictures have no link density). */
const imagesQuerystring = {
  type: 'object',
  additionalProperties: false,
  properties: {
    q: querystring.properties.q,
    catalog: querystring.properties.catalog,
    size: querystring.properties.size,
    cursor: querystring.properties.cursor,
    offset: { ...querystring.properties.offset, description: 'results to skip (instead of cursor), at most 1000' },
    cat: querystring.properties.cat,
    version: querystring.properties.version,
    like: querystring.properties.like,
  },
} as const;

/** Search in every mode the search service offers, in one envelope, with cursor or offset paging. */
export function searchRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const run = async (query: SearchQuery, mode: SearchMode | 'auto') => {
    const r = await ctx.search({
      q: query.q ?? '',
      mode,
      catalogs: query.catalog
        ? query.catalog
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : undefined,
      size: query.size,
      cursor: query.cursor ?? (query.offset !== undefined ? String(query.offset) : undefined),
      preferDetailPages: query.preferDetailPages,
      cat: query.cat,
      version: query.version,
      like: query.like,
      match: query.match,
    });
    return ok({
      mode: r.mode,
      ...(r.match ? { match: r.match } : {}),
      results: r.results,
      total: r.total,
      pageSize: query.size,
      nextCursor: r.nextCursor,
      elapsedMillis: r.elapsedMs,
      ...(r.embedding ? { embedding: r.embedding } : {}),
      ...(r.likeBy ? { likeBy: r.likeBy, likeOf: r.likeOf } : {}),
      ...(r.rankings ? { rankings: r.rankings } : {}),
      ...(r.note ? { note: r.note } : {}),
    });
  };
  app.get<{ Querystring: SearchQuery }>(
    '/v2/search',
    {
      schema: {
        summary:
          'Search by words, meaning, both (hybrid, the default with vectors) or pictures; a blank q lists what was kept',
        tags: ['search'],
        querystring,
      },
    },
    async (req) => run(req.query, req.query.mode ?? 'auto'),
  );
  app.get<{ Querystring: SearchQuery }>(
    '/v2/search/images',
    {
      schema: {
        summary:
          'Search pictures (the same as mode=pictures): one result per kept picture, with pictureUrl, file, width, height, caption and the pages that show it; like=ID: the pictures like that one',
        tags: ['search'],
        querystring: imagesQuerystring,
      },
    },
    async (req) => run(req.query, 'pictures'),
  );
  app.get<{ Querystring: SearchQuery }>(
    '/v2/search/semantic',
    { schema: { summary: 'Search by meaning (the same as mode=meaning)', tags: ['search'], querystring } },
    async (req) => run(req.query, 'meaning'),
  );
}
