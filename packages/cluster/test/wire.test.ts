import { describe, expect, it } from 'vitest';
import { decodeTask, encodeTask } from '../src/plumbing/wire.js';

describe('crawl task wire format', () => {
  it('round-trips an entry, short fields, no empty ones', () => {
    const entry = { url: 'http://h/a', depth: 2, referrer: 'http://h/', priority: 3 };
    expect(encodeTask(entry)).toBe('{"u":"http://h/a","d":2,"r":"/","p":3}');
    expect(decodeTask(encodeTask(entry))).toEqual(entry);
    const hop = { url: 'http://h/b', depth: 1, redirects: 1, redirectChain: ['http://h/a'] };
    expect(decodeTask(encodeTask(hop))).toEqual(hop);
    // A referrer of another origin travels whole.
    const away = { url: 'https://h:8443/x?q=1', depth: 1, referrer: 'http://other/y' };
    expect(decodeTask(encodeTask(away))).toEqual(away);
    const near = { url: 'https://h:8443/x', depth: 1, referrer: 'https://h:8443/dir/y?z=1' };
    expect(encodeTask(near)).toBe('{"u":"https://h:8443/x","d":1,"r":"/dir/y?z=1"}');
    expect(decodeTask(encodeTask(near))).toEqual(near);
    // The form a link was written in travels to the member that owns the url (its ledger row keeps it).
    const found = { url: 'http://h/p', depth: 1, foundAs: 'http://h/p?PHPSESSID=abc#top' };
    expect(encodeTask(found)).toBe('{"u":"http://h/p","d":1,"f":"http://h/p?PHPSESSID=abc#top"}');
    expect(decodeTask(encodeTask(found))).toEqual(found);
  });

  it('ignores fields it does not know (a newer node’s), and refuses what is not a task', () => {
    expect(decodeTask('{"u":"http://h/a","d":0,"z":{"new":1},"p":"x"}')).toEqual({ url: 'http://h/a', depth: 0 });
    expect(decodeTask('{"d":0}')).toBeUndefined();
    expect(decodeTask('oops')).toBeUndefined();
  });
});
