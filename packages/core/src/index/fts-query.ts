import { queryTokens } from './cjk.js';

const MAX_TERMS = 32;
const MAX_TERM_LENGTH = 100;
const TERM_RE = /[\p{L}\p{N}\p{M}_]+/gu;

/** A free-text query turned into safe FTS5 syntax: every term and phrase quoted, so nothing is read as an operator. */
export interface FtsQuery {
  /** Terms joined with an implicit AND; null when the query holds no searchable term. */
  all: string | null;
  /** The same terms joined with OR; null when there is at most one term. */
  any: string | null;
}

function quote(words: string[]): string {
  return `"${words.join(' ')}"`;
}

/**
 * Turns user input into FTS5 queries. `"exact words"` stays a phrase; everything else is split on anything
 * that is not a letter, digit or mark. Operators (AND, OR, NOT, NEAR, `*`, `:`, `^`) are never interpreted.
 */
export function toFtsQuery(input: string): FtsQuery {
  const parts: string[] = [];
  const seen = new Set<string>();
  const add = (words: string[]): void => {
    const clipped = words.map((w) => w.slice(0, MAX_TERM_LENGTH)).filter((w) => w.length > 0);
    if (clipped.length === 0 || parts.length >= MAX_TERMS) return;
    const q = quote(clipped);
    const key = q.toLowerCase();
    if (seen.has(key)) return;
    seen.add(key);
    parts.push(q);
  };
  const rest = input.replace(/"([^"]*)"/g, (_, phrase: string) => {
    add((phrase.match(TERM_RE) ?? []).flatMap(queryTokens));
    return ' ';
  });
  for (const word of rest.match(TERM_RE) ?? []) add(queryTokens(word));
  if (parts.length === 0) return { all: null, any: null };
  return { all: parts.join(' '), any: parts.length > 1 ? parts.join(' OR ') : null };
}
