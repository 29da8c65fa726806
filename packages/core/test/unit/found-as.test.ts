import { describe, expect, it } from 'vitest';
import { createAcceptorChain } from '../../src/acceptors/acceptor-chain.js';
import { resolveCatalogSettings } from '../../src/config.js';
import { scanHtml } from '../../src/content/html-scan.js';
import { ledgerRows } from '../../src/engine/ledger-rows.js';
import type { Completion } from '../../src/engine/page.js';
import { QueuePipeline } from '../../src/engine/queue-pipeline.js';
import { decodeEntry, encodeEntry } from '../../src/frontier/frontier-keys.js';
import type { Catalog } from '../../src/model.js';
import { Outcome } from '../../src/outcomes.js';
import { foundAs, MAX_FOUND_AS, writtenForm } from '../../src/url/found-as.js';
import { normalizeUrl } from '../../src/url/normalize.js';

// Through the page pipeline's own module first, as the engine loads it (the stage modules import from it).
const { followed } = await import('../../src/engine/stages/links.js');

const page = 'http://h.test/dir/page.html';

function catalog(): Catalog {
  return {
    id: '018bcfe5-6800-7000-8000-000000000001',
    name: 'h',
    url: 'http://h.test/',
    startUrl: 'http://h.test/',
    settings: resolveCatalogSettings({ sessionParams: ['visitor'] }),
    indexVersion: 0,
    searchVersion: -1,
    runningState: 'none',
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  };
}

function queue(): QueuePipeline {
  const cat = catalog();
  return new QueuePipeline({
    acceptors: createAcceptorChain({ catalog: cat }),
    normalize: (raw, base) => normalizeUrl(raw, base),
    catalog: cat,
  });
}

describe('the form a link was written in', () => {
  it('keeps an absolute link as written and resolves a relative one; the same as its normal form is none', () => {
    expect(writtenForm('HTTP://H.test:80/b.html#x', page)).toBe('HTTP://H.test:80/b.html#x');
    expect(writtenForm('  c.html?sid=1 ', page)).toBe('http://h.test/dir/c.html?sid=1');
    expect(writtenForm('/a\n.html', page)).toBe('http://h.test/a.html');
    expect(writtenForm('c.html', undefined)).toBeUndefined();
    expect(writtenForm(' ', page)).toBeUndefined();
    expect(foundAs('http://h.test/a.html#top', 'http://h.test/a.html')).toBe('http://h.test/a.html#top');
    expect(foundAs('http://h.test/a.html', 'http://h.test/a.html')).toBeUndefined();
    expect(foundAs(undefined, 'http://h.test/a.html')).toBeUndefined();
  });

  it('is cut at MAX_FOUND_AS characters, ending in …', () => {
    const long = `http://h.test/a.html?sid=${'x'.repeat(3000)}`;
    const kept = foundAs(long, 'http://h.test/a.html') as string;
    expect(kept).toHaveLength(MAX_FOUND_AS);
    expect(kept.endsWith('x…')).toBe(true);
    expect(long.startsWith(kept.slice(0, -1))).toBe(true);
  });

  it('the link collector gives each url the form of its first link, when normalisation changed it', () => {
    const html = `<html><body>
      <a href="/a.html?PHPSESSID=1f2e">a</a>
      <a href="HTTP://H.test:80/b.html">b</a>
      <a href="c.html#part">c</a>
      <a href="/d.html">d</a>
      <a href="/d.html?sid=2">d again</a>
      <a href="/a.html">a again</a>
    </body></html>`;
    const links = scanHtml(html, page).links.map((l) => [l.url, l.foundAs]);
    expect(links).toEqual([
      ['http://h.test/a.html', 'http://h.test/a.html?PHPSESSID=1f2e'],
      ['http://h.test/b.html', 'HTTP://H.test:80/b.html'],
      ['http://h.test/dir/c.html', 'http://h.test/dir/c.html#part'],
      ['http://h.test/d.html', undefined],
    ]);
  });
});

describe('the queue pipeline carries the form a url was found in', () => {
  it('onto the entries it accepts and the refusals, from links, catalog session parameters and seeds', async () => {
    const q = queue();
    const html =
      '<a href="/a.html;jsessionid=Z9">a</a><a href="/plain.html">p</a><a href="http://other.test/x?sid=1">o</a>';
    const links = followed(scanHtml(html, page).links);
    const offer = await q.offer(links, 1, page, 0, true);
    expect(offer.accepted.map((e) => [e.url, e.foundAs])).toEqual([
      ['http://h.test/a.html', 'http://h.test/a.html;jsessionid=Z9'],
      ['http://h.test/plain.html', undefined],
    ]);
    expect(offer.refused.map((r) => [r.url, r.outcome, r.foundAs])).toEqual([
      ['http://other.test/x', Outcome.REJECTED_OUT_OF_SCOPE, 'http://other.test/x?sid=1'],
    ]);
    // The catalog's own session parameter, dropped after the extractor's normalisation.
    const visitor = await q.offer(['http://h.test/f.html?visitor=7'], 1, page, 0, true);
    expect(visitor.accepted.map((e) => [e.url, e.foundAs])).toEqual([
      ['http://h.test/f.html', 'http://h.test/f.html?visitor=7'],
    ]);
    // A start url as typed.
    const seed = await q.offer(['HTTP://h.test/g.html'], 0, undefined, -1);
    expect(seed.accepted.map((e) => [e.url, e.foundAs])).toEqual([['http://h.test/g.html', 'HTTP://h.test/g.html']]);
    // Once put, a url offered again written another way keeps the form it was queued with.
    const { puts } = q.settle([offer]);
    expect(puts.map((e) => e.foundAs)).toEqual(['http://h.test/a.html;jsessionid=Z9', undefined]);
    const again = await q.offer(
      [{ url: 'http://h.test/plain.html', foundAs: 'http://h.test/plain.html?sid=3' }],
      2,
      page,
      0,
      true,
    );
    expect(again.accepted).toEqual([]);
  });

  it('through the frontier (its entries decode with the form) and onto the ledger rows of a commit', () => {
    const entry = {
      url: 'http://h.test/a.html',
      depth: 1,
      referrer: page,
      priority: 1,
      foundAs: 'http://h.test/a.html#x',
    };
    expect(decodeEntry(encodeEntry(entry))).toEqual(entry);
    const hop = { ...entry, redirects: 1, redirectChain: ['http://h.test/old.html'] };
    expect(decodeEntry(encodeEntry(hop))).toEqual(hop);
    const plain = { url: 'http://h.test/b.html', depth: 1, referrer: page, priority: 1 };
    expect(encodeEntry(plain)).toBe(JSON.stringify(['http://h.test/b.html', 1, page, 1]));
    expect(decodeEntry(encodeEntry(plain))).toEqual(plain);

    const c = catalog();
    const completion = { lease: { ...entry, leaseKey: 'k' }, outcome: Outcome.SAVED, status: 200 } as Completion;
    const refused = {
      url: 'http://other.test/x',
      outcome: Outcome.REJECTED_OUT_OF_SCOPE,
      acceptor: 'domain-scope',
      reason: '',
      foundAs: 'http://other.test/x?sid=1',
    };
    const rows = ledgerRows(c.id, 0, [completion], [entry, plain], [refused]);
    expect(rows.map((r) => [r.url, r.state, r.foundAs])).toEqual([
      ['http://h.test/a.html', 'queued', 'http://h.test/a.html#x'],
      ['http://h.test/b.html', 'queued', null],
      ['http://other.test/x', 'rejected', 'http://other.test/x?sid=1'],
      ['http://h.test/a.html', 'done', 'http://h.test/a.html#x'],
    ]);
  });
});
