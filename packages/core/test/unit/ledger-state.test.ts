import { describe, expect, it } from 'vitest';
import { Outcome } from '../../src/outcomes.js';
import { collapseLedgerRows, ledgerReplaces, ledgerState } from '../../src/storage/ledger-rules.js';
import { LEDGER_STATES, type LedgerRow, type LedgerState } from '../../src/storage/record-store.js';

describe('ledgerState', () => {
  it('places every outcome deliberately', () => {
    const byState: Record<string, string[]> = {};
    for (const outcome of Object.values(Outcome)) {
      const state = ledgerState(outcome);
      byState[state] = [...(byState[state] ?? []), outcome];
    }
    expect(byState).toEqual({
      done: [
        'SAVED',
        'REJECTED_KNOWN',
        'REJECTED_DUPLICATE',
        'REJECTED_NOT_MARKUP',
        'REJECTED_REDIRECT',
        'REJECTED_UNMODIFIED',
        'REJECTED_ROBOTS_META_NOINDEX',
        'REJECTED_REDIRECT_LOOP',
        'REJECTED_NONCANONICAL',
        'REJECTED_PREMATURE',
        'LISTED',
      ],
      failed: [
        'REJECTED_NOTFOUND',
        'REJECTED_BAD_STATUS',
        'REJECTED_UNREACHABLE',
        'REJECTED_TOO_LARGE',
        'REJECTED_TOO_MANY_REDIRECTS',
        'REJECTED_BAD_IMAGE',
        'REJECTED_UNRENDERED',
        'REJECTED_IMPORT',
        'REJECTED_ERROR',
        'REJECTED_ABANDONED',
      ],
      rejected: [
        'REJECTED_FILTER',
        'REJECTED_ROBOTS_TXT',
        'REJECTED_TOO_DEEP',
        'REJECTED_OUT_OF_SCOPE',
        'REJECTED_ASSET',
        'REJECTED_TRAP',
        'REJECTED_ORPHAN',
      ],
    });
  });

  it('takes an outcome of a registered acceptor for a refusal', () => {
    expect(ledgerState('REJECTED_MY_RULE')).toBe('rejected');
  });
});

describe('ledgerReplaces', () => {
  const row = (state: LedgerState, outcome = ''): LedgerRow => ({
    id: 'x',
    catalogId: 'c',
    version: 0,
    url: 'u',
    urlHash: 'h',
    state,
    outcome,
    detail: '',
    status: null,
    reason: '',
    referrer: null,
    depth: 0,
    redirects: [],
    foundAs: null,
    fetchedAt: null,
    updatedAt: '2026-12-01T00:00:00.000Z',
  });

  it('keeps end states from queued rows, deleted rows from all but deleted, fetched fates from known pages', () => {
    const table = LEDGER_STATES.map((held) =>
      [held, ...LEDGER_STATES.map((next) => (ledgerReplaces(row(held), row(next)) ? 'y' : '-'))].join(' '),
    );
    //                 queued crawling done failed rejected deleted
    expect(table).toEqual([
      'queued y y y y y y',
      'crawling y y y y y y',
      'done - - y y y y',
      'failed - - y y y y',
      'rejected - - y y y y',
      'deleted - - - - - y',
    ]);
    expect(ledgerReplaces(row('queued'), row('done', 'REJECTED_KNOWN'))).toBe(true);
    expect(ledgerReplaces(row('done', 'SAVED'), row('done', 'REJECTED_KNOWN'))).toBe(false);
  });

  it('collapses a batch to one row per id as recording one by one would', () => {
    const rows = [row('queued'), row('done', 'SAVED'), row('queued'), row('done', 'REJECTED_KNOWN')];
    expect(collapseLedgerRows(rows)).toEqual([rows[1]]);
  });
});
