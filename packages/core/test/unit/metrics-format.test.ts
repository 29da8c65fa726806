import { describe, expect, it } from 'vitest';
import {
  escapeHelp,
  escapeLabelValue,
  formatLabels,
  formatValue,
  Histogram,
  MetricsText,
} from '../../src/runs/metrics-format.js';

/** The Prometheus text exposition format 0.0.4, as MetricsService writes it. */
describe('metrics text format', () => {
  it('escapes backslash, double quote and line feed in label values, and backslash and line feed in HELP', () => {
    expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd');
    expect(escapeHelp('one\\two\nthree "quoted"')).toBe('one\\\\two\\nthree "quoted"');
    expect(formatLabels({ catalog: 'Big "site"\n', node: 'n\\1' })).toBe('{catalog="Big \\"site\\"\\n",node="n\\\\1"}');
    expect(formatLabels({})).toBe('');
    expect(() => formatLabels({ 'bad-name': 'x' })).toThrow(TypeError);
    expect(() => formatLabels({ __reserved: 'x' })).toThrow(TypeError);
  });

  it('writes special values as Go reads them', () => {
    expect(formatValue(Number.POSITIVE_INFINITY)).toBe('+Inf');
    expect(formatValue(Number.NEGATIVE_INFINITY)).toBe('-Inf');
    expect(formatValue(Number.NaN)).toBe('NaN');
    expect(formatValue(0.25)).toBe('0.25');
    expect(formatValue(12)).toBe('12');
  });

  it('keeps each family together under one HELP and TYPE, in the order declared', () => {
    const m = new MetricsText();
    m.family('gf_a_total', 'counter', 'A things.');
    m.family('gf_b', 'gauge', 'B now.');
    m.sample('gf_a_total', { catalog: 'x' }, 1);
    m.sample('gf_b', {}, 2);
    m.sample('gf_a_total', { catalog: 'y' }, 3);
    expect(m.toString()).toBe(
      [
        '# HELP gf_a_total A things.',
        '# TYPE gf_a_total counter',
        'gf_a_total{catalog="x"} 1',
        'gf_a_total{catalog="y"} 3',
        '# HELP gf_b B now.',
        '# TYPE gf_b gauge',
        'gf_b 2',
        '',
      ].join('\n'),
    );
    expect(() => m.sample('gf_unknown', {}, 1)).toThrow(TypeError);
    expect(() => m.family('gf_a_total', 'gauge', 'again')).toThrow(TypeError);
    expect(() => m.family('0bad', 'gauge', 'x')).toThrow(TypeError);
  });

  it('histogram buckets are cumulative and end with +Inf, which equals _count', () => {
    const h = new Histogram([0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
    for (const v of [0.01, 0.05, 0.07, 0.3, 0.3, 4, 11]) h.observe(v);
    const snap = h.snapshot();
    expect(snap.buckets.map((b) => [b.le, b.count])).toEqual([
      [0.05, 2],
      [0.1, 3],
      [0.25, 3],
      [0.5, 5],
      [1, 5],
      [2.5, 5],
      [5, 6],
      [10, 6],
      [Number.POSITIVE_INFINITY, 7],
    ]);
    expect(snap.count).toBe(7);
    expect(snap.sum).toBeCloseTo(15.73, 10);

    const m = new MetricsText();
    m.family('gf_fetch_duration_seconds', 'histogram', 'Fetches.');
    m.histogram('gf_fetch_duration_seconds', { catalog: 'c"1' }, snap);
    const lines = m.toString().trimEnd().split('\n');
    expect(lines[0]).toBe('# HELP gf_fetch_duration_seconds Fetches.');
    expect(lines[1]).toBe('# TYPE gf_fetch_duration_seconds histogram');
    expect(lines[2]).toBe('gf_fetch_duration_seconds_bucket{catalog="c\\"1",le="0.05"} 2');
    expect(lines[10]).toBe('gf_fetch_duration_seconds_bucket{catalog="c\\"1",le="+Inf"} 7');
    expect(lines[11]).toMatch(/^gf_fetch_duration_seconds_sum\{catalog="c\\"1"\} 15\.73/);
    expect(lines[12]).toBe('gf_fetch_duration_seconds_count{catalog="c\\"1"} 7');
    expect(() => m.sample('gf_fetch_duration_seconds', {}, 1)).toThrow(TypeError);
    expect(() => new Histogram([1, 0.5])).toThrow(TypeError);
  });

  it('every sample line parses as name, optional labels, value', () => {
    const m = new MetricsText();
    m.family('gf_x_total', 'counter', 'X.');
    m.sample('gf_x_total', { outcome: 'REJECTED_FILTER:robots-txt', catalog: 'a\nb' }, 4);
    const line = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*\})? \S+$/;
    for (const l of m.toString().trimEnd().split('\n')) if (!l.startsWith('#')) expect(l).toMatch(line);
  });
});
