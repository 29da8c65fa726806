/**
 * How pictures mode fuses its rankings: the picture records' words, their caption meaning (the text model's vectors
 * of alt text and caption) and, for a `text+image` catalog, their image vectors compared with the query's text by the
 * image model's text tower — reciprocal rank fusion as hybrid search fuses pages (hybrid-search.ts), over any number
 * of lists, one result per picture.
 */

/** A ranking pictures mode answers with; a pictures answer lists the ones that took part (`rankings`). */
export type PictureRanking = 'words' | 'caption meaning' | 'image';

/** One ranked list of pictures, best first, and its weight in the fusion. */
export interface RankedPictures<T> {
  ranking: PictureRanking;
  hits: readonly T[];
  weight: number;
}

/** One picture of a fused list: its id, fused score, the hit of the first list that held it, and which held it. */
export interface FusedPicture<T> {
  id: string;
  score: number;
  hit: T;
  from: PictureRanking[];
}

/**
 * Reciprocal rank fusion of ranked lists: each picture scores `Σ weight / (k + rank)` over the lists it appears in
 * (rank from 1; a picture twice in one list counts once, at its first place); the hit kept is that of the first list
 * (in the order given) that holds it, so the words hit and its highlights win. Best first, ties by id.
 */
export function fuseRankings<T>(
  lists: ReadonlyArray<RankedPictures<T>>,
  idOf: (hit: T) => string,
  k: number,
): Array<FusedPicture<T>> {
  const fused = new Map<string, FusedPicture<T>>();
  for (const list of lists) {
    const seen = new Set<string>();
    list.hits.forEach((hit, i) => {
      const id = idOf(hit);
      if (seen.has(id)) return;
      seen.add(id);
      const f = fused.get(id);
      const add = list.weight / (k + i + 1);
      if (f) {
        f.score += add;
        f.from.push(list.ranking);
      } else fused.set(id, { id, score: add, hit, from: [list.ranking] });
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
