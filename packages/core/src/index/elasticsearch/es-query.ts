import { CrawlerError } from '../../errors.js';
import { queryTokens } from '../cjk.js';
import { CLOSE, OPEN, toHighlight } from '../fts-highlights.js';
import type { WordsHit, WordsQuery } from '../search-index.js';
import {
  type AnalysisPlugins,
  catalogVersionKey,
  DEFAULT_WEIGHTS,
  type EsPageSource,
  LANGUAGE_PLUGINS,
} from './es-mapping.js';

/*
 * The request bodies of a words search and how its answer becomes WordsHits: pure builders, no client (the unit
 * tests read them as they are sent).
 */

const MAX_PARTS = 32;
const MAX_TERM_LENGTH = 100;
const TERM_RE = /[\p{L}\p{N}\p{M}_]+/gu;

/**
 * User input as words and phrases, as the embedded index reads it: `"exact words"` stay a phrase, everything else
 * is split on what is not a letter, digit or mark; no operator is ever interpreted. A CJK run is a phrase of its
 * characters. Duplicates (case aside) are dropped; at most 32 parts.
 */
export function queryParts(input: string): string[][] {
  const parts: string[][] = [];
  const seen = new Set<string>();
  const add = (words: string[]): void => {
    const clipped = words.map((w) => w.slice(0, MAX_TERM_LENGTH)).filter((w) => w.length > 0);
    if (clipped.length === 0 || parts.length >= MAX_PARTS) return;
    const key = clipped.join(' ').toLowerCase();
    if (seen.has(key)) return;
    seen.add(key);
    parts.push(clipped);
  };
  const rest = input.replace(/"([^"]*)"/g, (_, phrase: string) => {
    add((phrase.match(TERM_RE) ?? []).flatMap(queryTokens));
    return ' ';
  });
  for (const word of rest.match(TERM_RE) ?? []) add(queryTokens(word));
  return parts;
}

/** The weighted fields a part is matched in: title, text and image text, and their language sub-fields. */
export function searchFields(plugins: AnalysisPlugins, weights = DEFAULT_WEIGHTS): string[] {
  const [wt, wx, wi] = weights;
  const langs = LANGUAGE_PLUGINS.filter((p) => plugins.languages.includes(p.lang)).map((p) => p.lang);
  return [
    `title^${wt}`,
    ...langs.map((l) => `title.${l}^${wt}`),
    `text^${wx}`,
    ...langs.map((l) => `text.${l}^${wx}`),
    `imageText^${wi}`,
  ];
}

/** The version filter: only the documents of the `catalogId:version` pairs in scope (the published versions). */
export function versionFilter(scopes: WordsQuery['scopes']): Record<string, unknown> {
  return { terms: { catalogVersion: scopes.map((s) => catalogVersionKey(s.catalogId, s.version)) } };
}

const CJK_CHAR = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]$/u;

/**
 * One part in any of the fields: a word (every field's score summed) or a phrase (its words in order). A CJK run
 * (its characters, as queryParts splits it) is a phrase of characters in the fields analysed by the standard
 * tokenizer, and the run whole in the language sub-fields (`text.ja`…), whose analyzer finds its words.
 */
export function partQuery(part: string[], fields: string[]): Record<string, unknown> {
  const lang = fields.filter((f) => f.split('^')[0]?.includes('.'));
  if (lang.length > 0 && part.every((t) => CJK_CHAR.test(t))) {
    const base = fields.filter((f) => !lang.includes(f));
    return {
      bool: {
        should: [
          { multi_match: { query: part.join(' '), type: 'phrase', fields: base } },
          { multi_match: { query: part.join(''), type: 'phrase', fields: lang } },
        ],
        minimum_should_match: 1,
      },
    };
  }
  return part.length > 1
    ? { multi_match: { query: part.join(' '), type: 'phrase', fields } }
    : { multi_match: { query: part[0], type: 'most_fields', fields, operator: 'and' } };
}

/**
 * `all`: every part must match (in any field); `any`: at least one, ranked by the parts they hold. The version
 * filter does not score. With `preferDetailPages`, a function_score multiplies each match's score by its
 * `detailFactor` (1.5 − link density, stored with the page): it reorders the matches and adds none.
 */
export function wordsQuery(
  parts: string[][],
  scopes: WordsQuery['scopes'],
  mode: 'all' | 'any',
  preferDetailPages: boolean,
  fields: string[],
): Record<string, unknown> {
  const clauses = parts.map((p) => partQuery(p, fields));
  const bool =
    mode === 'all'
      ? { bool: { must: clauses, filter: [versionFilter(scopes)] } }
      : { bool: { should: clauses, minimum_should_match: 1, filter: [versionFilter(scopes)] } };
  if (!preferDetailPages) return bool;
  return {
    function_score: {
      query: bool,
      functions: [{ field_value_factor: { field: 'detailFactor', missing: 1 } }],
      score_mode: 'multiply',
      boost_mode: 'multiply',
    },
  };
}

/** Highlights: the match markers the embedded index uses, escaped in JS (escapeHtml) so the two answer alike. */
export function highlightSpec(plugins: AnalysisPlugins, fragmentSize = 100): Record<string, unknown> {
  const langs = LANGUAGE_PLUGINS.filter((p) => plugins.languages.includes(p.lang)).map((p) => p.lang);
  const passage = { number_of_fragments: 1, fragment_size: fragmentSize, no_match_size: 0 };
  const fields: Record<string, unknown> = { text: passage, title: { number_of_fragments: 0 }, imageText: passage };
  for (const l of langs) {
    fields[`text.${l}`] = passage;
    fields[`title.${l}`] = { number_of_fragments: 0 };
  }
  return { pre_tags: [OPEN], post_tags: [CLOSE], encoder: 'default', require_field_match: true, fields };
}

/** The sort that search_after walks: score, then the `id` field mirror (`_id` is not sortable), then the version. */
export const ES_SORT = [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }, { catalogVersion: { order: 'asc' } }];

/** The position after a hit: its sort values. */
export type EsAfter = [number, string, string];

/** base64url JSON of the sort values, opaque to callers. */
export function encodeEsCursor(after: EsAfter): string {
  return Buffer.from(JSON.stringify({ a: after }), 'utf8').toString('base64url');
}

/** @throws CrawlerError BAD_INPUT for a cursor this adapter did not issue */
export function decodeEsCursor(cursor: string): EsAfter {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { a?: unknown };
    const a = value?.a;
    if (
      Array.isArray(a) &&
      a.length === 3 &&
      typeof a[0] === 'number' &&
      Number.isFinite(a[0]) &&
      typeof a[1] === 'string' &&
      typeof a[2] === 'string'
    ) {
      return [a[0], a[1], a[2]];
    }
  } catch {
    // reported below
  }
  throw new CrawlerError('BAD_INPUT', 'the search cursor is not one this server issued', {
    fix: 'pass the nextCursor of the previous page unchanged, or omit it to start from the first page',
  });
}

/** The search request of one page (index names apart). */
export function searchRequest(options: {
  query: Record<string, unknown>;
  size: number;
  cursor?: string | undefined;
  highlight?: Record<string, unknown> | undefined;
}): Record<string, unknown> {
  return {
    query: options.query,
    size: options.size,
    sort: ES_SORT,
    track_total_hits: true,
    ...(options.cursor ? { search_after: decodeEsCursor(options.cursor) } : {}),
    ...(options.highlight ? { highlight: options.highlight } : {}),
  };
}

/** One hit of the answer, as the client gives it. */
export interface EsHit {
  _source?: EsPageSource | undefined;
  sort?: unknown[] | undefined;
  highlight?: Record<string, string[]> | undefined;
}

/** Passages of a hit: text, then title, then image text (a language sub-field's when the field has none), two at most. */
export function highlightsOf(hit: EsHit): string[] {
  const h = hit.highlight ?? {};
  const list: string[] = [];
  for (const field of ['text', 'title', 'imageText']) {
    const raw = h[field]?.[0] ?? Object.entries(h).find(([k]) => k.startsWith(`${field}.`))?.[1]?.[0];
    const passage = raw ? toHighlight(raw) : null;
    if (passage && list.length < 2) list.push(passage);
  }
  return list;
}

/** A hit as search returns it; `withHighlights` false: none (hits past highlightFirst). */
export function toWordsHit(hit: EsHit, withHighlights: boolean): WordsHit {
  const s = hit._source as EsPageSource;
  return {
    id: s.id,
    catalogId: s.catalogId,
    catalogName: s.catalogName,
    version: s.version,
    url: s.url,
    title: s.title,
    score: Number(hit.sort?.[0] ?? 0),
    highlights: withHighlights ? highlightsOf(hit) : [],
    htmlPath: s.htmlPath,
    textPath: s.textPath,
    images: s.images ?? [],
  };
}

/** The cursor after the last hit of a full page, null when the page ends the matches. */
export function nextCursorOf(hits: readonly EsHit[], size: number, total: number, seen: number): string | null {
  const last = hits[hits.length - 1];
  if (!last || hits.length < size || seen >= total) return null;
  const [score, id, cv] = last.sort ?? [];
  return encodeEsCursor([Number(score), String(id), String(cv)]);
}
