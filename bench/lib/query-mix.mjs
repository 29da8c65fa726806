/** Words of three letters or more: what the search benches count and draw queries from. */
export const WORD_RE = /[\p{L}\p{N}]{3,}/gu;

/** The words of each page's text with more than 20 of them: where phrases and passages are cut from. */
export function textWords(pages) {
  return pages
    .map((p) => p.text.split(/\s+/).filter((w) => /^[\p{L}\p{N}]{3,}$/u.test(w)))
    .filter((t) => t.length > 20);
}

/**
 * The kinds of words queries the search benches time, each `[label, share of the mix, make()]`: single words at
 * several document-frequency ranks of `ranked` (the vocabulary, most frequent first), two neighbouring words of a
 * real title, and a quoted phrase of 2–3 words of a real text. `pages` are `{ title, text }`; `rand` is the bench's
 * seeded generator (the queries are the same on every run).
 */
export function wordQueryKinds(pages, ranked, rand) {
  const pick = (arr) => arr[Math.floor(rand() * arr.length)];
  const band = (lo, hi) => () => ranked[lo + Math.floor(rand() * Math.max(1, Math.min(hi, ranked.length) - lo))];
  const titles = pages.map((p) => p.title.match(WORD_RE) ?? []).filter((t) => t.length >= 2);
  const texts = textWords(pages);
  return [
    ['top word (df rank < 20)', 0.05, band(0, 20)],
    ['common word (rank 20-200)', 0.15, band(20, 200)],
    ['mid word (rank 200-2000)', 0.3, band(200, 2000)],
    ['rare word (rank 5000+)', 0.2, band(Math.max(0, Math.min(5000, ranked.length - 500)), ranked.length)],
    [
      'two words of a real title',
      0.2,
      () => {
        const t = pick(titles);
        const i = Math.floor(rand() * (t.length - 1));
        return `${t[i]} ${t[i + 1]}`;
      },
    ],
    [
      '"phrase" of a real text',
      0.1,
      () => {
        const t = pick(texts);
        const i = Math.floor(rand() * (t.length - 3));
        return `"${t.slice(i, i + 2 + Math.floor(rand() * 2)).join(' ')}"`;
      },
    ],
  ];
}
