import { defaultCatalogSettings } from '@greenfinger/core';
import { describe, expect, it } from 'vitest';
import { formatCatalog } from '../src/commands/catalog.js';
import { priorityWeightsArg } from '../src/commands/options.js';

describe('--priority-weights', () => {
  it('takes part=weight pairs; a part not named weighs 1', () => {
    expect(priorityWeightsArg('type=3, sitemap=0.5')).toEqual({
      depth: 1,
      type: 3,
      freshness: 1,
      quality: 1,
      sitemap: 0.5,
    });
  });

  it('refuses an unknown part, a weight outside 0..100 and an empty list, in one line naming the flag', () => {
    expect(() => priorityWeightsArg('speed=1')).toThrow(
      /^--priority-weights: unknown part "speed" — use depth, type, freshness, quality, sitemap, e\.g\./,
    );
    expect(() => priorityWeightsArg('depth=-1')).toThrow(/--priority-weights: depth must be a number from 0 to 100/);
    expect(() => priorityWeightsArg('depth=')).toThrow(/depth must be a number from 0 to 100, got ""/);
    expect(() => priorityWeightsArg(',')).toThrow(/--priority-weights takes part=weight pairs/);
  });

  it('catalog show prints the weights', () => {
    const text = formatCatalog({
      id: '018bcfe5-6800-7000-8000-000000000000',
      name: 'docs',
      url: 'http://127.0.0.1:8084/',
      startUrl: 'http://127.0.0.1:8084/index.html',
      searchVersion: -1,
      indexVersion: 0,
      runningState: 'none',
      createdAt: '2026-12-05T00:00:00.000Z',
      updatedAt: '2026-12-05T00:00:00.000Z',
      settings: { ...defaultCatalogSettings, priorityWeights: priorityWeightsArg('type=3') },
    } as never);
    expect(text).toMatch(/^ {2}priority weights depth=1,type=3,freshness=1,quality=1,sitemap=1$/m);
  });
});
