import { describe, expect, it } from 'vitest';
import { mergeChanges } from '../src/run/run-changes.js';

describe('mergeChanges: a cluster run’s change set from its members’ parts', () => {
  it('adds the parts up, each url once, each list sorted', () => {
    const merged = mergeChanges([
      { added: ['https://s/b', 'https://s/d'], changed: [{ url: 'https://s/x', diff: '-a\n+b' }], removed: [] },
      { added: ['https://s/a'], changed: [{ url: 'https://s/c', diff: '-c\n+d' }], removed: ['https://s/z'] },
    ]);
    expect(merged).toEqual({
      added: ['https://s/a', 'https://s/b', 'https://s/d'],
      changed: [
        { url: 'https://s/c', diff: '-c\n+d' },
        { url: 'https://s/x', diff: '-a\n+b' },
      ],
      removed: ['https://s/z'],
    });
  });

  it('counts a url two parts name once (a rebuild compared on a shared database), removed wins, added over changed', () => {
    const part = { added: ['https://s/n'], changed: [{ url: 'https://s/c', diff: 'd' }], removed: ['https://s/gone'] };
    const merged = mergeChanges([
      { ...part, comparedWith: 3 },
      { ...part, comparedWith: 3 },
      {
        added: [],
        changed: [
          { url: 'https://s/n', diff: 'x' },
          { url: 'https://s/gone', diff: 'y' },
        ],
        removed: [],
      },
    ]);
    expect(merged).toEqual({
      added: ['https://s/n'],
      changed: [{ url: 'https://s/c', diff: 'd' }],
      removed: ['https://s/gone'],
      comparedWith: 3,
    });
  });
});
