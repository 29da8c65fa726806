// Small helpers for the bench harness: medians, markdown tables, PASS/FAIL lines and the results file.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Median of the finite numbers in `values`; NaN when there are none. */
export function median(values) {
  const s = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Percentile (nearest rank) of samples, in their unit. */
export function percentile(samples, p) {
  const s = [...samples].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** A number with `digits` decimals, or "n/a". */
export function fmt(value, digits = 1) {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

/** A GitHub markdown table. */
export function mdTable(headers, rows) {
  const lines = [`| ${headers.join(' | ')} |`, `|${headers.map(() => '---').join('|')}|`];
  for (const row of rows) lines.push(`| ${row.map((c) => String(c ?? '')).join(' | ')} |`);
  return lines.join('\n');
}

/** One goal check: prints `PASS|FAIL goal — detail` and returns the record kept in the results file. */
export function goal(name, pass, detail) {
  console.log(`${pass ? 'PASS' : 'FAIL'}  ${name} — ${detail}`);
  return { goal: name, pass: Boolean(pass), detail };
}

/** The machine, for the results file and the doc. */
export function machine() {
  const c = cpus();
  return {
    node: process.version,
    cpus: c.length,
    cpuModel: c[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    platform: `${process.platform} ${process.arch}`,
    loadAverage: loadavg().map((l) => Number(l.toFixed(2))),
  };
}

/** Writes bench/results/<name>-<stamp>.json and returns its path. */
export function saveResults(name, data) {
  const dir = join(repoRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = join(dir, `${name}-${stamp}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ bench: name, at: new Date().toISOString(), machine: machine(), ...data }, null, 2)}\n`,
  );
  console.log(`results: ${file}`);
  return file;
}
