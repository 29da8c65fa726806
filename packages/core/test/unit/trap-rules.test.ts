import { describe, expect, it } from 'vitest';
import { growShape, repeatingPattern, TrapBudget } from '../../src/engine/trap-budget.js';
import { decodeEntry, encodeEntry } from '../../src/frontier/frontier-keys.js';
import { Outcome } from '../../src/outcomes.js';
import { isSessionParam, normalizeUrl } from '../../src/url/normalize.js';

describe('session-id trap: session parameters are dropped in url normalisation', () => {
  it('drops the built-in session parameters from the query and from ;name=value path parameters', () => {
    expect(normalizeUrl('http://h/p?sid=8f3a&x=1')).toBe('http://h/p?x=1');
    expect(normalizeUrl('http://h/p;jsessionid=ABC123?x=1')).toBe('http://h/p?x=1');
    expect(normalizeUrl('http://h/a;JSESSIONID=ABC/b;v=2')).toBe('http://h/a/b;v=2');
    expect(normalizeUrl('http://h/p?PHPSESSID=abc')).toBe('http://h/p');
    expect(normalizeUrl('http://h/p?ASPSESSIONIDQSRCTCBA=x&b=2&a=1')).toBe('http://h/p?a=1&b=2');
    for (const name of ['sessionid', 'session_id', 'zenid', 'osCsid', 'CFID', 'cftoken', 'sessid', 'SID'])
      expect(normalizeUrl(`http://h/p?${name}=v&k=1`), name).toBe('http://h/p?k=1');
  });

  it('keeps parameters that only look alike', () => {
    expect(normalizeUrl('http://h/p?side=left&sidebar=1&sids=2')).toBe('http://h/p?side=left&sidebar=1&sids=2');
    expect(normalizeUrl('http://h/p;version=2')).toBe('http://h/p;version=2');
    expect(isSessionParam('session')).toBe(false);
  });

  it('takes more names from the catalog (sessionParams)', () => {
    const extra = new Set(['visit']);
    expect(normalizeUrl('http://h/lobby?visit=abc&q=1', undefined, { sessionParams: extra })).toBe(
      'http://h/lobby?q=1',
    );
    expect(normalizeUrl('http://h/lobby?visit=abc&q=1')).toBe('http://h/lobby?q=1&visit=abc');
  });
});

describe('redirect hops on frontier entries', () => {
  it('stores the hop count and the chain, and still reads entries written before them', () => {
    const old = JSON.stringify(['http://h/a', 2, 'http://h/', 0]);
    expect(decodeEntry(old)).toEqual({ url: 'http://h/a', depth: 2, referrer: 'http://h/', priority: 0 });
    const hop = { url: 'http://h/c', depth: 1, redirects: 2, redirectChain: ['http://h/a', 'http://h/b'] };
    expect(decodeEntry(encodeEntry(hop))).toEqual(hop);
    // An entry without redirects is written exactly as before.
    expect(encodeEntry({ url: 'http://h/a', depth: 2, referrer: 'http://h/', priority: 0 })).toBe(old);
  });
});

describe('trap rules', () => {
  it('finds repeating segments and collapses them into a pattern', () => {
    expect(repeatingPattern('/a/b/a/b/c')).toBe('/(a/b)+/c');
    expect(repeatingPattern('/maze/next/next/next/')).toBe('/maze/(next)+/');
    expect(repeatingPattern('/maze/next/next/')).toBeUndefined();
    expect(repeatingPattern('/2020/01/01/')).toBeUndefined();
    expect(repeatingPattern('/docs/guide/intro')).toBeUndefined();
  });

  it('gives urls differing only in numbers one shape', () => {
    expect(growShape(new URL('http://h:8080/cal?month=2025-01'))).toBe('h:8080/cal?month=0-0');
    expect(growShape(new URL('http://h/cal/2025/01/'))).toBe('h/cal/0/0/');
    expect(growShape(new URL('http://h/about'))).toBeUndefined();
  });

  it('spider trap (calendar next-month links): a sequence of urls each found on the one before stops at the budget', () => {
    const traps = new TrapBudget(() => ({ trapDuplicates: 3, trapPatternUrls: 4 }));
    // A listing linking many urls of one shape is no sequence: none of them counts.
    for (let p = 1; p <= 50; p++)
      expect(traps.admit({ url: `http://h/post?p=${p}`, depth: 1, referrer: 'http://h/' })).toBe(undefined);
    let referrer = 'http://h/cal?month=2025-01';
    const verdicts = [];
    for (let m = 2; m <= 9; m++) {
      const url = `http://h/cal?month=2025-0${m}`;
      verdicts.push(traps.admit({ url, depth: m, referrer }));
      referrer = url;
    }
    expect(verdicts.slice(0, 4)).toEqual([undefined, undefined, undefined, undefined]);
    expect(verdicts[4]).toMatchObject({ rule: 'growing-query' });
    expect(verdicts[4]?.reason).toContain('h/cal?month=0-0');
    // A redirect target is bounded by GF_MAX_REDIRECTS instead.
    expect(traps.admit({ url: 'http://h/cal?month=2026-01', depth: 1, referrer, redirects: 1 })).toBeUndefined();
  });

  it('counts a query that grows on the page before (faceted links) as a sequence', () => {
    const traps = new TrapBudget(() => ({ trapDuplicates: 3, trapPatternUrls: 3 }));
    let referrer = 'http://h/filter?f=1';
    const rules = [];
    for (let n = 2; n <= 6; n++) {
      const url = `${referrer}&f=${n}`;
      rules.push(traps.admit({ url, depth: n, referrer })?.rule);
      referrer = url;
    }
    expect(rules).toEqual([undefined, undefined, undefined, 'growing-query', 'growing-query']);
    // Another path has a budget of its own; a query that changes instead of growing is no step.
    expect(traps.admit({ url: 'http://h/other?f=1&f=2', depth: 1, referrer: 'http://h/other?f=1' })).toBeUndefined();
    expect(traps.admit({ url: 'http://h/filter?g=1', depth: 1, referrer: 'http://h/filter?f=1' })).toBeUndefined();
  });

  it('blocks the shapes of duplicate pages in a row on a host; a saved page ends the run', () => {
    const traps = new TrapBudget(() => ({ trapDuplicates: 3, trapPatternUrls: 100 }));
    traps.handled('http://h/copy?n=1', Outcome.REJECTED_DUPLICATE);
    traps.handled('http://h/copy?n=2', Outcome.REJECTED_DUPLICATE);
    traps.handled('http://h/page', Outcome.SAVED);
    traps.handled('http://h/copy?n=3', Outcome.REJECTED_DUPLICATE);
    expect(traps.blocked('http://h/copy?n=9')).toBeUndefined();
    traps.handled('http://h/copy?n=4', Outcome.REJECTED_DUPLICATE);
    traps.handled('http://h/copy?n=5', Outcome.REJECTED_DUPLICATE);
    expect(traps.blocked('http://h/copy?n=9')).toMatchObject({ rule: 'duplicates-in-a-row' });
    expect(traps.admit({ url: 'http://h/copy?n=10', depth: 1 })).toMatchObject({ rule: 'duplicates-in-a-row' });
    expect(traps.blocked('http://h/other?n=9')).toBeUndefined();
    expect(traps.blocked('http://elsewhere/copy?n=9')).toBeUndefined();
  });
});
