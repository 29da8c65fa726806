/**
 * Hybrid search: words and meaning fused by reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009). Each
 * page scores `Σ weight / (k + rank)` over the lists it appears in (rank from 1), so a page both modes rank well
 * wins, and a page only one mode finds still comes in on its rank there. Scores of the two modes (bm25 and cosine)
 * are never compared, only ranks, so neither scale has to be calibrated against the other.
 */

/** How two ranked lists are fused. */
export interface FusionOptions {
  /** The rank constant: larger flattens the difference between the first ranks. @default 10 */
  k?: number | undefined;
  /** Weight of the words list. @default 1 */
  words?: number | undefined;
  /** Weight of the meaning list. @default 0.25 */
  meaning?: number | undefined;
}

/**
 * The fusion Greenfinger answers with, tuned on the python-docs query set (`npm run bench -- search-quality`, the
 * bundled USE-lite model): words lead (their list ranks pages holding the question's words together first, and the
 * model finds the right page in its top 3 for about half of the questions), meaning weighs a quarter: it breaks ties
 * and brings pages no word finds; a small k lets a first place count (docs/search.md has the grid).
 */
export const HYBRID_FUSION: Readonly<Required<FusionOptions>> = Object.freeze({ k: 10, words: 1, meaning: 0.25 });

/** One page of a fused list: the page's id, its fused score and the hit each mode gave (when it gave one). */
export interface Fused<W, M> {
  id: string;
  score: number;
  words?: W | undefined;
  meaning?: M | undefined;
}

/**
 * Reciprocal rank fusion of a words list and a meaning list, one entry per page (a page both lists hold is one
 * entry), best first; ties by id so that paging is stable.
 */
export function fuseRanks<W, M>(
  words: W[],
  meaning: M[],
  idOf: { words: (h: W) => string; meaning: (h: M) => string },
  options: FusionOptions = {},
): Array<Fused<W, M>> {
  const k = options.k ?? HYBRID_FUSION.k;
  const ww = options.words ?? HYBRID_FUSION.words;
  const wm = options.meaning ?? HYBRID_FUSION.meaning;
  const fused = new Map<string, Fused<W, M>>();
  const entry = (id: string): Fused<W, M> => {
    let f = fused.get(id);
    if (!f) {
      f = { id, score: 0 };
      fused.set(id, f);
    }
    return f;
  };
  words.forEach((h, i) => {
    const f = entry(idOf.words(h));
    if (f.words !== undefined) return;
    f.words = h;
    f.score += ww / (k + i + 1);
  });
  meaning.forEach((h, i) => {
    const f = entry(idOf.meaning(h));
    if (f.meaning !== undefined) return;
    f.meaning = h;
    f.score += wm / (k + i + 1);
  });
  return [...fused.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** How deep each mode's list is read for one page of hybrid results at `offset`: at least 30, at most 1,000. */
export function fusionDepth(offset: number, size: number): number {
  return Math.min(1000, Math.max(30, (offset + size + 1) * 2));
}
