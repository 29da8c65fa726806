import { describe, expect, it } from 'vitest';
import { defaultCatalogSettings } from '../../src/config.js';
import { explainFate, type FateContext } from '../../src/services/ledger-service.js';
import type { LedgerRow } from '../../src/storage/record-store.js';

const ctx: FateContext = {
  catalog: {
    name: 'python',
    url: 'http://127.0.0.1:8084/',
    startUrl: 'http://127.0.0.1:8084/index.html',
    settings: defaultCatalogSettings,
    indexVersion: 3,
  },
  version: 3,
  url: 'http://127.0.0.1:8084/a.html',
};

function row(fields: Partial<LedgerRow>): LedgerRow {
  return {
    id: '00000000-0000-5000-8000-000000000000',
    catalogId: '00000000-0000-7000-8000-000000000000',
    version: 3,
    url: 'http://127.0.0.1:8084/a.html',
    urlHash: 'h',
    state: 'done',
    outcome: 'SAVED',
    detail: '',
    status: 200,
    reason: '',
    referrer: 'http://127.0.0.1:8084/index.html',
    depth: 2,
    redirects: [],
    foundAs: null,
    fetchedAt: '2026-12-01T10:00:00.000Z',
    updatedAt: '2026-12-01T10:00:01.000Z',
    ...fields,
  };
}

describe('explainFate', () => {
  it('says one sentence per state', () => {
    expect(explainFate(row({}), ctx)).toBe(
      'saved (HTTP 200) on 2026-12-01T10:00:00.000Z, depth 2, linked from http://127.0.0.1:8084/index.html',
    );
    expect(
      explainFate(
        row({
          url: 'http://other.example/',
          state: 'rejected',
          outcome: 'REJECTED_OUT_OF_SCOPE',
          detail: 'domain-scope',
          status: null,
          fetchedAt: null,
          reason: 'domain other.example is not 127.0.0.1',
        }),
        ctx,
      ),
    ).toBe(
      'refused by the domain-scope acceptor before any request: http://other.example/ is outside http://127.0.0.1:8084/ (domain other.example is not 127.0.0.1), depth 2, linked from http://127.0.0.1:8084/index.html',
    );
    expect(
      explainFate(
        row({ state: 'rejected', outcome: 'REJECTED_TOO_DEEP', detail: 'depth', reason: 'depth 4 is beyond 3' }),
        ctx,
      ),
    ).toMatch(/^refused by the depth acceptor before any request: depth 4 is beyond 3/);
    expect(
      explainFate(row({ state: 'failed', outcome: 'REJECTED_NOTFOUND', status: 404, reason: 'HTTP 404' }), ctx),
    ).toMatch(/^not found \(HTTP 404\) on 2026-12-01T10:00:00\.000Z, depth 2, linked from /);
    expect(explainFate(row({ state: 'queued', outcome: '', status: null, fetchedAt: null }), ctx)).toMatch(
      /^queued in version 3 of "python" since 2026-12-01T10:00:01\.000Z, not handled yet/,
    );
    expect(explainFate(row({ state: 'deleted', reason: 'deleted by hand on 2026-12-02T00:00:00.000Z' }), ctx)).toBe(
      'deleted by hand from version 3 of "python" (deleted by hand on 2026-12-02T00:00:00.000Z); it is not queued again in this version',
    );
    expect(explainFate(row({ depth: 0, referrer: null }), ctx)).toMatch(/, a start url$/);
    expect(explainFate(row({ redirects: ['http://127.0.0.1:8084/old.html'] }), ctx)).toContain(
      ', depth 2, reached by 1 redirect from http://127.0.0.1:8084/old.html, linked from http://127.0.0.1:8084/index.html',
    );
    expect(explainFate(row({ foundAs: 'http://127.0.0.1:8084/a.html?PHPSESSID=9f' }), ctx)).toContain(
      ', depth 2, found as http://127.0.0.1:8084/a.html?PHPSESSID=9f, linked from http://127.0.0.1:8084/index.html',
    );
    expect(explainFate(row({}), ctx)).not.toContain('found as');
  });

  it('tells a url never dispatched from a version without a ledger', () => {
    expect(explainFate(undefined, ctx)).toBe(
      'never dispatched in version 3 of "python": no page of that run linked to it',
    );
    expect(explainFate(undefined, { ...ctx, url: 'http://other.example/' })).toBe(
      'never dispatched in version 3 of "python": no page of that run linked to it (and it is outside http://127.0.0.1:8084/, so a link to it would be refused)',
    );
    expect(explainFate(undefined, { ...ctx, emptyVersion: true })).toMatch(/^version 3 of "python" has no url ledger/);
  });
});
