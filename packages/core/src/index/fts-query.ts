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
  /**
   * `any` plus, for each two words next to each other in the query, the pair as a phrase and as a NEAR group
   * (within {@link NEAR_WINDOW} tokens): a page holding the query's words together outranks one holding them
   * scattered (the ordered and unordered windows of Metzler & Croft's sequential dependence model, SIGIR 2005).
   * What hybrid search's words list reads (`match: 'any'`); null when the query has no two words next to each other.
   */
  near: string | null;
}

/** The NEAR window of a pair of the query's words, in tokens. */
export const NEAR_WINDOW = 8;

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
  if (parts.length === 0) return { all: null, any: null, near: null };
  const any = parts.length > 1 ? parts.join(' OR ') : null;
  // The words of the query in the order typed (a quoted phrase's own words included), for the pairs of `near`.
  const sequence = (input.match(TERM_RE) ?? []).flatMap(queryTokens).map((w) => w.slice(0, MAX_TERM_LENGTH));
  return { all: parts.join(' '), any, near: any && nearExpression(parts, sequence) };
}

/** The parts OR-ed with each adjacent pair of words as a phrase and as a NEAR group (at most MAX_TERMS pairs). */
function nearExpression(parts: string[], sequence: string[]): string | null {
  const pairs: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i + 1 < sequence.length && pairs.length < MAX_TERMS * 2; i++) {
    const a = sequence[i] as string;
    const b = sequence[i + 1] as string;
    const key = `${a}\u0000${b}`.toLowerCase();
    if (a.toLowerCase() === b.toLowerCase() || seen.has(key)) continue;
    seen.add(key);
    // A pair the query already quotes as a phrase is there once: bm25 would count it twice.
    const phrase = `"${a} ${b}"`;
    if (!parts.some((p) => p.toLowerCase() === phrase.toLowerCase())) pairs.push(phrase);
    pairs.push(`NEAR("${a}" "${b}", ${NEAR_WINDOW})`);
  }
  return pairs.length > 0 ? [...parts, ...pairs].join(' OR ') : null;
}
