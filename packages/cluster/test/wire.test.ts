import { describe, expect, it } from 'vitest';
import { decodeTask, encodeTask } from '../src/wire.js';

describe('crawl task wire format', () => {
  it('round-trips an entry, short fields, no empty ones', () => {
    const entry = { url: 'http://h/a', depth: 2, referrer: 'http://h/', priority: 3 };
    expect(encodeTask(entry)).toBe('{"u":"http://h/a","d":2,"r":"http://h/","p":3}');
    expect(decodeTask(encodeTask(entry))).toEqual(entry);
    const hop = { url: 'http://h/b', depth: 1, redirects: 1, redirectChain: ['http://h/a'] };
    expect(decodeTask(encodeTask(hop))).toEqual(hop);
  });

  it('ignores fields it does not know (a newer node’s), and refuses what is not a task', () => {
    expect(decodeTask('{"u":"http://h/a","d":0,"z":{"new":1},"p":"x"}')).toEqual({ url: 'http://h/a', depth: 0 });
    expect(decodeTask('{"d":0}')).toBeUndefined();
    expect(decodeTask('oops')).toBeUndefined();
  });
});
