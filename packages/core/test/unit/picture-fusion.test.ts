import { describe, expect, it } from 'vitest';
import { fuseRanks } from '../../src/services/hybrid-search.js';
import { fuseRankings } from '../../src/services/picture-fusion.js';
import { PICTURE_FUSION, PICTURE_IMAGE_WEIGHT } from '../../src/services/picture-search.js';

type Hit = { id: string; from: string };
const hits = (ids: string[], from: string): Hit[] => ids.map((id) => ({ id, from }));

describe('pictures fusion (reciprocal rank over words, caption meaning and image)', () => {
  it('over words and caption meaning answers exactly as the two-list fusion pictures search used before', () => {
    const words = hits(['a', 'b', 'c', 'd'], 'words');
    const meaning = hits(['c', 'e', 'a'], 'meaning');
    const before = fuseRanks(words, meaning, { words: (h) => h.id, meaning: (h) => h.id }, PICTURE_FUSION);
    const now = fuseRankings(
      [
        { ranking: 'words', hits: words, weight: PICTURE_FUSION.words },
        { ranking: 'caption meaning', hits: meaning, weight: PICTURE_FUSION.meaning },
      ],
      (h) => h.id,
      PICTURE_FUSION.k,
    );
    expect(now.map((f) => [f.id, f.score, f.hit])).toEqual(before.map((f) => [f.id, f.score, f.words ?? f.meaning]));
  });

  it('adds the image ranking: a picture all three find leads; one only the image finds comes in on its rank', () => {
    const fused = fuseRankings<Hit>(
      [
        { ranking: 'words', hits: hits(['a', 'b', 'c'], 'words'), weight: 1 },
        { ranking: 'caption meaning', hits: hits(['b'], 'meaning'), weight: 0.5 },
        { ranking: 'image', hits: hits(['d', 'b'], 'image'), weight: 0.5 },
      ],
      (h) => h.id,
      1,
    );
    // b: 1/3 + 0.5/2 + 0.5/3 = 0.75; a: 1/2; c: 1/4; d: 0.5/2 = 1/4 (a tie: by id).
    expect(fused.map((f) => f.id)).toEqual(['b', 'a', 'c', 'd']);
    expect(fused[0]?.score).toBeCloseTo(0.75, 10);
    expect(fused[0]?.from).toEqual(['words', 'caption meaning', 'image']);
    // The hit kept is the first list's that holds it: the words hit, with its highlights.
    expect(fused[0]?.hit.from).toBe('words');
    expect(fused.find((f) => f.id === 'd')).toMatchObject({ from: ['image'], hit: { from: 'image' } });
  });

  it('counts a picture once per list, at its first place', () => {
    const fused = fuseRankings<Hit>(
      [{ ranking: 'image', hits: hits(['x', 'x', 'y'], 'image'), weight: PICTURE_IMAGE_WEIGHT }],
      (h) => h.id,
      1,
    );
    expect(fused.map((f) => [f.id, f.score])).toEqual([
      ['x', PICTURE_IMAGE_WEIGHT / 2],
      ['y', PICTURE_IMAGE_WEIGHT / 4],
    ]);
  });

  it('never weighs the image ranking above the words', () => {
    expect(PICTURE_IMAGE_WEIGHT).toBeLessThanOrEqual(PICTURE_FUSION.words);
  });
});
