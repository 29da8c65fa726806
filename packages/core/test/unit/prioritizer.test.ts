import { describe, expect, it } from 'vitest';
import { laneOf, laneRange } from '../../src/frontier/front-queues.js';
import {
  anchorOf,
  createPrioritizer,
  depthPart,
  FRONT_QUEUES,
  freshnessPart,
  frontierPriority,
  qualityPart,
  queueOf,
  shapeOf,
  sitemapPart,
  typePart,
} from '../../src/frontier/prioritizer.js';

const NOW = Date.parse('2026-12-05T12:00:00Z');
const listing = { textLength: 300, linkDensity: 0.8 };
const article = { textLength: 6000, linkDensity: 0.05 };

describe('the prioritizer (seed 003)', () => {
  it('url shape: listings, pagination, tags, archives and searches below named pages', () => {
    for (const url of [
      'https://s.test/tag/tomatoes',
      'https://s.test/blog/page/3',
      'https://s.test/archive/2024/05/',
      'https://s.test/2024/05',
      'https://s.test/search?q=compost',
      'https://s.test/news?page=2',
      'https://s.test/genindex-A.html',
      'https://s.test/library/index.html',
      'https://s.test/category/herbs/',
    ]) {
      expect(shapeOf(url), url).toBe(0.1);
    }
    expect(shapeOf('https://s.test/guides/')).toBe(0.3);
    expect(shapeOf('https://s.test/library/json.html')).toBe(0.9);
    expect(shapeOf('https://s.test/stories/how-to-grow-tomatoes')).toBe(0.9);
  });

  it('the anchor: next, numbers and arrows are navigation; a title of several words is an entry', () => {
    for (const a of ['Next', 'next page', '« Older posts', '3', '»', 'Page 4', 'A']) expect(anchorOf(a), a).toBe(0.1);
    expect(anchorOf('')).toBe(0.4);
    expect(anchorOf('json')).toBe(0.5);
    expect(anchorOf('json — JSON encoder')).toBe(0.7);
    expect(anchorOf('How to grow tomatoes on a balcony')).toBe(0.9);
    expect(anchorOf(undefined)).toBe(0.5);
  });

  it('page type: a detail page linked by its title from a listing scores above a listing linked as "Next"', () => {
    const detail = typePart('https://s.test/stories/tomatoes.html', 'How to grow tomatoes on a balcony', listing);
    const next = typePart('https://s.test/news/page/2', 'Next', listing);
    expect(detail).toBeCloseTo(1, 5);
    expect(next).toBeCloseTo(0.1, 5);
  });

  it('depth, quality, freshness and the sitemap priority, each 0 to 1', () => {
    expect([0, 1, 3].map(depthPart)).toEqual([1, 0.5, 0.25]);
    expect(qualityPart(article)).toBeGreaterThan(0.9);
    expect(qualityPart(listing)).toBeLessThan(0.2);
    expect(qualityPart(undefined)).toBe(0.5);
    expect(freshnessPart({ lastmod: '2026-12-05' }, NOW)).toBeGreaterThan(0.98);
    expect(freshnessPart({ lastmod: '2026-11-05T12:00:00Z' }, NOW)).toBeCloseTo(0.5, 5);
    expect(freshnessPart({ changefreq: 'daily' }, NOW)).toBe(0.85);
    expect(freshnessPart({ changefreq: 'never' }, NOW)).toBe(0.1);
    expect(freshnessPart(undefined, NOW)).toBe(0.5);
    expect(sitemapPart({ priority: 1 })).toBe(1);
    expect(sitemapPart({ priority: 0.2 })).toBe(0.2);
    expect(sitemapPart({})).toBe(0.5);
  });

  it('the score is the weighted mean of the parts; a weight of 0 leaves a part out', () => {
    const input = {
      url: 'https://s.test/stories/tomatoes.html',
      depth: 3,
      anchor: 'How to grow tomatoes on a balcony',
      referrer: listing,
      sitemap: { priority: 1, changefreq: 'weekly' },
    };
    const all = createPrioritizer(undefined, { now: () => NOW }).prioritize(input);
    expect(all.parts).toEqual({ depth: 0.25, type: 1, freshness: 0.7, quality: 0.137, sitemap: 1 });
    expect(all.score).toBeCloseTo((0.25 + 1 + 0.7 + 0.137 + 1) / 5, 3);
    expect(all.queue).toBe(queueOf(all.score));
    const depthOnly = createPrioritizer({ depth: 1, type: 0, freshness: 0, quality: 0, sitemap: 0 }).prioritize(input);
    expect(depthOnly.score).toBe(0.25);
    const typeTwice = createPrioritizer({ depth: 1, type: 2, freshness: 0, quality: 0, sitemap: 0 }).prioritize(input);
    expect(typeTwice.score).toBeCloseTo((0.25 + 2) / 3, 3);
    const none = createPrioritizer({ depth: 0, type: 0, freshness: 0, quality: 0, sitemap: 0 }).prioritize(input);
    expect(none.score).toBe(0.5);
  });

  it('maps a score to a front queue and a frontier priority inside that queue’s lane', () => {
    expect(queueOf(1)).toBe(0);
    expect(queueOf(0.876)).toBe(0);
    expect(queueOf(0.5)).toBe(4);
    expect(queueOf(0)).toBe(FRONT_QUEUES - 1);
    for (const score of [1, 0.93, 0.5, 0.37, 0.01, 0]) {
      const queue = queueOf(score);
      const p = frontierPriority({ score, queue });
      expect(laneOf(p), String(score)).toBe(1 + queue);
    }
    // Within a queue a better score comes first (a lower frontier number).
    expect(frontierPriority({ score: 0.6, queue: 3 })).toBeLessThan(frontierPriority({ score: 0.55, queue: 3 }));
    // Lane 0 is below 1: start urls and redirect targets; a frontier written before the front queues (priority =
    // depth) lands in the queues by its depth, the deep ones in the last.
    expect([-1, 0, 0.5, 1, 2, 8, 40].map(laneOf)).toEqual([0, 0, 0, 1, 2, 8, 8]);
    expect(laneRange(0).gte).toBe('f:');
    expect(laneRange(FRONT_QUEUES).lt).toBe('f;');
    expect(laneRange(1).lt).toBe(laneRange(2).gte);
  });
});
