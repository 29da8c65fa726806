/**
 * The Prometheus text exposition format, version 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/):
 * one HELP and one TYPE line per metric family, then its samples, `name{label="value"} number`, one per line.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram';
export type Labels = Readonly<Record<string, string>>;

/** The content type a scrape answers with. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A label value: backslash, double quote and line feed escaped as `\\`, `\"` and `\n`. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** HELP text: backslash and line feed escaped (a double quote stays as it is). */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** A sample value as Go's ParseFloat reads it: `+Inf`, `-Inf`, `NaN`, or the number. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}

/** `{a="x",b="y"}`, or nothing without labels. @throws TypeError for a label name the format does not allow */
export function formatLabels(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  for (const [name] of entries) {
    if (!LABEL_NAME.test(name) || name.startsWith('__')) throw new TypeError(`"${name}" is not a usable label name`);
  }
  return `{${entries.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(',')}}`;
}

/** What a histogram holds: cumulative counts per upper bound (the last is +Inf), the sum and the count. */
export interface HistogramSnapshot {
  buckets: Array<{ le: number; count: number }>;
  sum: number;
  count: number;
}

/** Counts of observations per bucket, cumulated when read (a bucket counts every observation ≤ its bound). */
export class Histogram {
  readonly bounds: readonly number[];
  readonly #counts: number[];
  #sum = 0;

  /** @param bounds the upper bounds, ascending; +Inf is added */
  constructor(bounds: readonly number[]) {
    for (let i = 1; i < bounds.length; i++) {
      if (!((bounds[i] as number) > (bounds[i - 1] as number))) throw new TypeError('bucket bounds must ascend');
    }
    this.bounds = Object.freeze(bounds.filter((b) => b !== Number.POSITIVE_INFINITY));
    this.#counts = new Array<number>(this.bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > (this.bounds[i] as number)) i++;
    this.#counts[i] = (this.#counts[i] as number) + 1;
    this.#sum += value;
  }

  snapshot(): HistogramSnapshot {
    let running = 0;
    const buckets = this.#counts.map((n, i) => {
      running += n;
      return { le: this.bounds[i] ?? Number.POSITIVE_INFINITY, count: running };
    });
    return { buckets, sum: this.#sum, count: running };
  }
}

interface Family {
  type: MetricType;
  help: string;
  lines: string[];
}

/**
 * Collects metric families and writes them in the order they were first declared, each family's samples together
 * under its HELP and TYPE lines (the format requires it).
 */
export class MetricsText {
  readonly #families = new Map<string, Family>();

  /** Declare a family (again: no change); a family without samples is still written, with its HELP and TYPE. */
  family(name: string, type: MetricType, help: string): this {
    if (!METRIC_NAME.test(name)) throw new TypeError(`"${name}" is not a usable metric name`);
    const known = this.#families.get(name);
    if (known && known.type !== type) throw new TypeError(`${name} is a ${known.type}, not a ${type}`);
    if (!known) this.#families.set(name, { type, help, lines: [] });
    return this;
  }

  /** One sample of a counter or a gauge declared with `family`. */
  sample(name: string, labels: Labels, value: number): this {
    const f = this.#get(name);
    if (f.type === 'histogram') throw new TypeError(`${name} is a histogram: use histogram()`);
    f.lines.push(`${name}${formatLabels(labels)} ${formatValue(value)}`);
    return this;
  }

  /** One labelled histogram: `_bucket` per bound with `le` (cumulative), then `_sum` and `_count`. */
  histogram(name: string, labels: Labels, h: HistogramSnapshot): this {
    const f = this.#get(name);
    if (f.type !== 'histogram') throw new TypeError(`${name} is a ${f.type}, not a histogram`);
    for (const b of h.buckets) {
      f.lines.push(`${name}_bucket${formatLabels({ ...labels, le: formatValue(b.le) })} ${b.count}`);
    }
    f.lines.push(`${name}_sum${formatLabels(labels)} ${formatValue(h.sum)}`);
    f.lines.push(`${name}_count${formatLabels(labels)} ${h.count}`);
    return this;
  }

  #get(name: string): Family {
    const f = this.#families.get(name);
    if (!f) throw new TypeError(`declare ${name} with family() first`);
    return f;
  }

  toString(): string {
    const out: string[] = [];
    for (const [name, f] of this.#families) {
      out.push(`# HELP ${name} ${escapeHelp(f.help)}`, `# TYPE ${name} ${f.type}`, ...f.lines);
    }
    return out.length > 0 ? `${out.join('\n')}\n` : '';
  }
}
