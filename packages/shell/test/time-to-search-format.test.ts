import type { CrawlProgress, RunReport } from '@greenfinger/core';
import { describe, expect, it } from 'vitest';
import { embeddingNoticeLine, formatProgress, formatResults, searchableLine } from '../src/format.js';

const counters = {
  saved: 526,
  images: 7,
  vectored: 54,
  dispatched: 4190,
  handled: 4190,
  elapsedMs: 22_000,
  filtered: 0,
  alreadySeen: 0,
  duplicateContent: 0,
  unreachable: 0,
  failures: 0,
  redirected: 0,
} as unknown as CrawlProgress['counters'];

/** What the CLI says of the time to search (issue 18): the progress line, the summary line, the meaning notice. */
describe('time to search on the terminal', () => {
  it('the progress line shows the embedding and its rate, and that only vectors are left', () => {
    const p: CrawlProgress = {
      catalog: 'python',
      action: 'crawl',
      version: 0,
      counters,
      queued: 0,
      active: 0,
      pagesPerSecond: 0,
      embedding: { phase: 'vectors', pages: 526, embedded: 312, complete: 54, chunks: 900, chunksPerSecond: 25.84 },
    };
    const line = formatProgress(p);
    expect(line).toContain('embedding 312 of 526 pages (54 complete), 25.8 chunks/s (fetch done)');
    expect(line).not.toContain('embedded 54');
  });

  it('the summary says when words, meaning and the complete version became searchable', () => {
    const r = {
      searchable: { wordsAfterMs: 7658, meaningAfterMs: 21158, completeAfterMs: 232921 },
      embedding: { provider: 'local', model: 'use-lite-512', dims: 512, chunks: 6035, msPerPage: 700 },
    } as RunReport;
    expect(searchableLine(r)).toBe(
      'searchable by words after 7.7 s, by meaning after 21.2 s (every page), complete after 232.9 s',
    );
    const stopped = {
      ...r,
      searchable: { wordsAfterMs: 7658, meaningAfterMs: null, completeAfterMs: null },
    } as RunReport;
    expect(searchableLine(stopped)).toBe(
      'searchable by words after 7.7 s, by meaning: not every page yet, vectors incomplete: resume writes the rest',
    );
    expect(searchableLine({ ...r, searchable: undefined } as RunReport)).toBeUndefined();
  });

  it('a meaning answer over vectors still being written says how many pages it could answer from', () => {
    expect(embeddingNoticeLine({ pages: 526, embedded: 312, complete: 54, catalogs: ['python'] })).toBe(
      'embedding: 312 of 526 pages — meaning search answered from those so far',
    );
    const out = formatResults({
      mode: 'meaning',
      results: [],
      total: 0,
      nextCursor: null,
      elapsedMs: 3,
      embedding: { pages: 526, embedded: 526, complete: 54, catalogs: ['python'] },
    });
    expect(out).toBe(
      'no results (meaning)\nembedding: every page has a vector, 54 of 526 with all of theirs — answers may still improve\n',
    );
  });
});
