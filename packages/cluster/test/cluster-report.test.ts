import type { RunReport } from '@greenfinger/core';
import { describe, expect, it } from 'vitest';
import { continueReport, mergeReports } from '../src/run/cluster-report.js';

/** A member's report with the counters given, the rest zero. */
function report(node: string, saved: number, at: [string, string], extra: Partial<RunReport> = {}): RunReport {
  return {
    node,
    catalogId: 'c1',
    catalog: 'docs',
    url: 'http://127.0.0.1/',
    startUrl: 'http://127.0.0.1/',
    version: 0,
    action: 'crawl',
    refresh: false,
    startedAt: at[0],
    endedAt: at[1],
    elapsedMs: new Date(at[1]).getTime() - new Date(at[0]).getTime(),
    produced: { saved, images: 1, indexed: saved, vectored: 0 },
    urls: {
      dispatched: saved + 2,
      handled: saved + 2,
      outstanding: 0,
      alreadySeen: 1,
      filtered: 1,
      unreachable: 0,
      duplicateContent: 0,
      failures: 0,
      abandoned: 0,
      unmodified: 0,
      redirected: 0,
    },
    rejected: { REJECTED_ROBOTS_TXT: 1 },
    examples: { REJECTED_ROBOTS_TXT: `http://127.0.0.1/${node}` },
    outputs: { file: { written: saved, failed: 0 } },
    ending: { reason: 'interrupted', fullyCrawled: false, published: false },
    ...extra,
  };
}

describe('cluster reports', () => {
  it('merge adds the members up and keeps each one under byNode; a member without a report is missing', () => {
    const merged = mergeReports({
      cluster: 'k',
      runId: 'r1',
      ending: 'interrupted',
      parts: {
        b: { report: report('b', 4, ['2026-12-03T10:00:01Z', '2026-12-03T10:00:09Z']) },
        a: { report: report('a', 3, ['2026-12-03T10:00:00Z', '2026-12-03T10:00:08Z']) },
        c: { error: 'left the cluster without a report (its heartbeat expired)' },
      },
    });
    expect(merged).toMatchObject({
      node: 'cluster:k',
      runId: 'r1',
      nodes: ['a', 'b', 'c'],
      produced: { saved: 7, images: 2, indexed: 7 },
      rejected: { REJECTED_ROBOTS_TXT: 2 },
      outputs: { file: { written: 7, failed: 0 } },
      startedAt: '2026-12-03T10:00:00Z',
      endedAt: '2026-12-03T10:00:09Z',
      elapsedMs: 9000,
      ending: { reason: 'interrupted', published: false, fullyCrawled: false },
    });
    expect(Object.keys(merged?.byNode ?? {})).toEqual(['a', 'b']);
    expect(merged?.missing).toEqual({ c: 'left the cluster without a report (its heartbeat expired)' });
    expect(merged?.examples.REJECTED_ROBOTS_TXT).toBe('http://127.0.0.1/a');
  });

  it("a resumed run's report continues the stopped run's counters, from its start, as action resume", () => {
    const before = mergeReports({
      cluster: 'k',
      runId: 'r1',
      ending: 'interrupted',
      parts: { a: { report: report('a', 3, ['2026-12-03T10:00:00Z', '2026-12-03T10:00:10Z']) } },
    });
    const after = mergeReports({
      cluster: 'k',
      runId: 'r2',
      ending: 'frontier-drained',
      parts: {
        a: {
          report: report('a', 5, ['2026-12-03T11:00:00Z', '2026-12-03T11:00:04Z'], {
            ending: { reason: 'frontier-drained', fullyCrawled: true, published: true },
          }),
        },
      },
    });
    if (!before || !after) throw new Error('both runs have a report');
    const r = continueReport(before, after);
    expect(r).toMatchObject({
      action: 'resume',
      runId: 'r2',
      startedAt: '2026-12-03T10:00:00Z',
      endedAt: '2026-12-03T11:00:04Z',
      elapsedMs: 14_000,
      produced: { saved: 8, images: 2, indexed: 8 },
      urls: { dispatched: 12, handled: 12 },
      rejected: { REJECTED_ROBOTS_TXT: 2 },
      resumed: { runId: 'r1', action: 'crawl', reason: 'interrupted', saved: 3 },
      ending: { reason: 'frontier-drained', published: true },
    });
    expect(r.ending.note).toMatch(/^resumed run r1 \(interrupted after 3 saved\); 1 member: a saved 5/);
    expect(Object.keys(r.byNode)).toEqual(['a']);
  });
});
