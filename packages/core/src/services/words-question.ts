import { CrawlerError } from '../errors.js';
import { encodeCursor } from '../index/search-cursor.js';
import type { SearchIndex, WordsQuery, WordsResult } from '../index/search-index.js';

/**
 * How a words search matches pages: `all` (every word, else any when no page holds them all), `any`, or `auto`:
 * `question` for a sentence ({@link readsAsQuestion}: four words or more, no quoted phrase, one of them on half the
 * pages searched or more), else `all`.
 */
export type WordsMatch = 'all' | 'any' | 'auto';

/** Every words match, in the order front ends offer them. */
export const WORDS_MATCHES: readonly WordsMatch[] = ['auto', 'all', 'any'];

/** How a words answer matched: every word, any word, or a question (see {@link questionSearch}). */
export type WordsMatched = 'all' | 'any' | 'question';

/** A query of this many words or more, with no quoted phrase, is read as a question. */
export const QUESTION_WORDS = 4;

/** The best page holding every word of a question is kept at this position or above. */
export const QUESTION_ALL_WORDS_AT = 3;

const WORD_RE = /[\p{L}\p{N}\p{M}_]+/gu;

/**
 * Whether a query is long enough to be a question: four words or more and no quoted phrase. Keywords, API names and
 * titles (`os.path join`, `threading Lock`) keep the all-words match.
 */
export function isQuestion(q: string): boolean {
  if (q.includes('"')) return false;
  return (q.match(WORD_RE) ?? []).length >= QUESTION_WORDS;
}

/** A query is a question when one of its words is on at least this share of the pages searched. */
export const QUESTION_COMMON_SHARE = 0.5;

/** At most this many of a query's words (the shortest first) are counted to find a common one. */
const COMMON_CHECKS = 12;

/**
 * Whether a long query reads as a sentence rather than a list of keywords: one of its words is on at least half the
 * pages searched (`a`, `the`, `of`, `how`, `der`, `les`: the words a sentence is built with, in any language, found
 * from the pages themselves). A sentence asking for something rarely has all its words on the page that answers it
 * (`make a deep copy of an object including nested ones` → copy.html, which never says "including" or "ones");
 * `seed exchange runner beans` is four keywords, each on few pages, and keeps the all-words match. Counts the
 * shortest words first (function words are short) and stops at the first common one.
 */
export async function readsAsQuestion(
  index: Pick<SearchIndex, 'search' | 'countVersion'>,
  q: string,
  scopes: WordsQuery['scopes'],
): Promise<boolean> {
  if (!isQuestion(q)) return false;
  const pages = (await Promise.all(scopes.map((s) => index.countVersion(s.catalogId, s.version)))).reduce(
    (a, b) => a + b,
    0,
  );
  if (pages === 0) return false;
  const words = [...new Set((q.match(WORD_RE) ?? []).map((w) => w.toLowerCase()))].sort(
    (a, b) => a.length - b.length || (a < b ? -1 : 1),
  );
  for (const word of words.slice(0, COMMON_CHECKS)) {
    const { total } = await index.search({ q: word, scopes, size: 0 });
    if (total >= pages * QUESTION_COMMON_SHARE) return true;
  }
  return false;
}

/** What a words search reads of the index. */
export type WordsSearcher = Pick<SearchIndex, 'search' | 'countVersion'>;

/** The cursor of a question's pages: the any-word list's position, the page moved up and how many were shown. */
interface QuestionCursor {
  q: 1;
  /** search_after of the any-word list; absent: its start. */
  s?: number;
  i?: string;
  /** The all-words page moved up to position QUESTION_ALL_WORDS_AT: the any-word list's copy is skipped. */
  p?: string;
  /** Results shown so far, counted up to QUESTION_ALL_WORDS_AT: the moved page's place is still ahead below it. */
  k?: number;
}

function encodeQuestionCursor(c: Omit<QuestionCursor, 'q'>): string {
  return Buffer.from(JSON.stringify({ q: 1, ...c }), 'utf8').toString('base64url');
}

function decodeQuestionCursor(cursor: string): QuestionCursor {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<QuestionCursor> | null;
    if (v && typeof v === 'object' && v.q === 1) {
      const position = v.s === undefined ? v.i === undefined : Number.isFinite(v.s) && typeof v.i === 'string';
      const moved = v.p === undefined || typeof v.p === 'string';
      const shown = v.k === undefined || (Number.isInteger(v.k) && v.k >= 0);
      if (position && moved && shown) return v as QuestionCursor;
    }
  } catch {
    // reported below
  }
  throw new CrawlerError('BAD_INPUT', 'the search cursor is not one of this question', {
    fix: 'pass the nextCursor of the previous page of the same query unchanged, or omit it to start again',
  });
}

/**
 * Words search for a question: the pages holding any of its words, ranked by bm25 over the words and the pairs of
 * words next to each other in it (the list hybrid search reads: a page holding the question's words together
 * outranks one holding them scattered), with one exception — the best page holding every word is kept among the
 * first {@link QUESTION_ALL_WORDS_AT}, where an exact match of a short question usually belongs. On the python docs'
 * 85 queries, words hit@3 0.624 (all words) → 0.918 (docs/search.md). Paged by keyset: the cursor holds the any-word
 * list's position and the page moved up, so a deep page costs what the first does and no page shows twice.
 */
export async function questionSearch(
  index: WordsSearcher,
  query: Omit<WordsQuery, 'match' | 'cursor' | 'size'>,
  size: number,
  cursor: string | undefined,
): Promise<Omit<WordsResult, 'match'>> {
  const after = cursor === undefined ? undefined : decodeQuestionCursor(cursor);
  const inner = after?.i !== undefined ? encodeCursor({ score: after.s as number, id: after.i }) : undefined;
  const shown = after?.k ?? 0;
  // The first page decides whether a page moves up; later ones place it while its position is still ahead.
  const placing = after === undefined || (after.p !== undefined && shown < QUESTION_ALL_WORDS_AT);
  const [any, all] = await Promise.all([
    index.search({ ...query, size: size + QUESTION_ALL_WORDS_AT + 1, cursor: inner, match: 'any' }),
    placing ? index.search({ ...query, size: 1, match: 'all', highlightFirst: 1 }) : undefined,
  ]);
  const best = all?.match === 'all' ? all.results[0] : undefined;
  let pinned = after?.p;
  if (!after && best && !any.results.slice(0, QUESTION_ALL_WORDS_AT).some((h) => h.id === best.id)) pinned = best.id;
  let list = pinned ? any.results.filter((h) => h.id !== pinned) : any.results;
  let moved: string | undefined;
  if (pinned && best?.id === pinned && shown < QUESTION_ALL_WORDS_AT) {
    // Its any-word hit when fetched (the question's highlights), else the all-words one.
    const hit = any.results.find((h) => h.id === pinned) ?? best;
    list = [...list];
    list.splice(Math.min(QUESTION_ALL_WORDS_AT - 1 - shown, list.length), 0, hit);
    moved = pinned;
  }
  const page = list.slice(0, size);
  const more = list.length > size || any.nextCursor !== null;
  // The next page goes on after the last page of the any-word list shown here (not the page moved up).
  const last = page.filter((h) => h.id !== moved).at(-1);
  const position = last ? { s: last.score, i: last.id } : after?.i !== undefined ? { s: after.s, i: after.i } : {};
  const next = {
    ...position,
    ...(pinned ? { p: pinned } : {}),
    k: Math.min(shown + page.length, QUESTION_ALL_WORDS_AT),
  };
  return { results: page, total: any.total, nextCursor: more ? encodeQuestionCursor(next) : null };
}

/**
 * Words search as the search service asks it: a question (`match` auto and {@link readsAsQuestion}) by
 * {@link questionSearch}, else the index's all-words match (then any) or, asked for, any; `match` says which.
 */
export async function wordsSearch(
  index: WordsSearcher,
  req: Pick<WordsQuery, 'q' | 'scopes' | 'preferDetailPages' | 'cursor'> & { match?: WordsMatch | undefined },
  size: number,
): Promise<Omit<WordsResult, 'match'> & { match?: WordsMatched | undefined }> {
  const query = { q: req.q, scopes: req.scopes, preferDetailPages: req.preferDetailPages };
  if ((req.match ?? 'auto') === 'auto' && (await readsAsQuestion(index, req.q, req.scopes))) {
    return { ...(await questionSearch(index, query, size, req.cursor)), match: 'question' };
  }
  return index.search({ ...query, size, cursor: req.cursor, match: req.match === 'any' ? 'any' : 'all' });
}
