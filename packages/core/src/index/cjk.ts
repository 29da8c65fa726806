/**
 * Chinese, Japanese and Korean text has no spaces between words, so FTS5's unicode61 tokenizer would read a
 * whole sentence as one token and no query could match part of it. Every CJK character becomes a token of its
 * own: a zero-width space (a separator to unicode61, invisible to a reader) goes between adjacent ones at index
 * time, and a query's CJK run becomes a phrase of its characters, so it matches those characters in order.
 */
const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
const ADJACENT = new RegExp(`([${CJK}])(?=[${CJK}])`, 'gu');
const HAS_CJK = new RegExp(`[${CJK}]`, 'u');
export const ZWSP = '\u200B';

/** Insert a zero-width space between adjacent CJK characters. */
export function segmentCjk(text: string): string {
  return HAS_CJK.test(text) ? text.replace(ADJACENT, `$1${ZWSP}`) : text;
}

/** Undo segmentCjk for display. */
export function unsegmentCjk(text: string): string {
  return text.includes(ZWSP) ? text.replaceAll(ZWSP, '') : text;
}

/** A query word split into the tokens the index holds: CJK characters one by one, other runs whole. */
export function queryTokens(word: string): string[] {
  if (!HAS_CJK.test(word)) return [word];
  return segmentCjk(word)
    .split(ZWSP)
    .flatMap((part) => (HAS_CJK.test(part) ? [...part] : [part]))
    .filter(Boolean);
}
