import type { LedgerRow, UrlFate } from '@greenfinger/core';
import { describe, expect, it } from 'vitest';
import { formatFate } from '../src/commands/why.js';

function fate(fields: Partial<LedgerRow>): UrlFate {
  const row: LedgerRow = {
    id: '5b1f0c56-3f0e-5b7a-9d55-8f3c1e2a4b6d',
    catalogId: '018bcfe5-6800-7000-8000-000000000000',
    version: 0,
    url: 'http://127.0.0.1:8084/a.html',
    urlHash: 'a'.repeat(64),
    state: 'done',
    outcome: 'SAVED',
    detail: '',
    status: 200,
    reason: '',
    referrer: 'http://127.0.0.1:8084/',
    depth: 1,
    redirects: [],
    foundAs: null,
    fetchedAt: '2026-12-01T10:00:00.000Z',
    updatedAt: '2026-12-01T10:00:01.000Z',
    ...fields,
  };
  return {
    catalog: { id: row.catalogId, name: 'python' },
    version: 0,
    url: row.url,
    row,
    explanation: 'saved (HTTP 200)',
  };
}

describe('greenfinger why, as text', () => {
  it('prints the form the url was found in on a line of its own, and no such line when it had none', () => {
    const text = formatFate(fate({ foundAs: 'http://127.0.0.1:8084/a.html?PHPSESSID=9f' }));
    expect(text).toMatch(/^found as {2}http:\/\/127\.0\.0\.1:8084\/a\.html\?PHPSESSID=9f$/m);
    expect(formatFate(fate({}))).not.toMatch(/^found as/m);
  });

  it('prints the priority the url was queued with and its parts, and no such line for a start url', () => {
    const priority = {
      score: 0.612,
      queue: 3,
      parts: { depth: 0.5, type: 0.98, freshness: 0.5, quality: 0.58, sitemap: 0.5 },
    };
    const text = formatFate(fate({ priority }));
    expect(text).toMatch(
      /^priority {2}0\.612 \(front queue 3\): depth 0\.5 · type 0\.98 · freshness 0\.5 · quality 0\.58 · sitemap 0\.5$/m,
    );
    expect(formatFate(fate({ depth: 0, referrer: null }))).not.toMatch(/^priority/m);
  });
});
