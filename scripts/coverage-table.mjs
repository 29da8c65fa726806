// coverage-table.mjs — the coverage of each package, from vitest's json-summary (coverage-summary.json), printed at
// the end of `npm test`: lines, statements, functions and branches per package, and its least covered files.
//
//   node scripts/coverage-table.mjs [DIR]     DIR holds coverage-summary.json (default: coverage, or GF_COVERAGE_DIR)
//
// The gates are vitest's (coverage.thresholds in vitest.config.ts): this only prints. Exit 0, or 1 when there is no
// summary to read.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const dir = process.argv[2] ?? process.env.GF_COVERAGE_DIR ?? 'coverage';
const file = join(dir, 'coverage-summary.json');
if (!existsSync(file)) {
  console.error(`coverage-table: no ${file} (was vitest run with --coverage.enabled?)`);
  process.exit(1);
}
const summary = JSON.parse(readFileSync(file, 'utf8'));
const KINDS = ['lines', 'statements', 'functions', 'branches'];
/** How many of the least covered files to name per package (files of at least MIN_LINES lines). */
const LEAST = 3;
const MIN_LINES = 20;

const packages = new Map();
for (const [path, figures] of Object.entries(summary)) {
  if (path === 'total') continue;
  const rel = relative(process.cwd(), path).split(sep).join('/');
  const m = /^packages\/([^/]+)\/src\//.exec(rel);
  if (!m) continue;
  let p = packages.get(m[1]);
  if (!p) {
    p = { files: [], totals: Object.fromEntries(KINDS.map((k) => [k, { covered: 0, total: 0 }])) };
    packages.set(m[1], p);
  }
  for (const k of KINDS) {
    p.totals[k].covered += figures[k].covered;
    p.totals[k].total += figures[k].total;
  }
  p.files.push({ rel: rel.slice(`packages/${m[1]}/src/`.length), lines: figures.lines });
}

const pct = ({ covered, total }) => (total === 0 ? '   -  ' : `${((100 * covered) / total).toFixed(1).padStart(5)}%`);
const rows = [...packages].sort(([a], [b]) => a.localeCompare(b));
console.log('\ncoverage by package (code run inside the test processes; spawned CLIs and worker threads not counted)');
console.log(`${'package'.padEnd(10)} ${KINDS.map((k) => k.padStart(10)).join(' ')}   least covered files (lines)`);
for (const [name, p] of rows) {
  const least = p.files
    .filter((f) => f.lines.total >= MIN_LINES)
    .sort((a, b) => a.lines.pct - b.lines.pct || b.lines.total - a.lines.total)
    .slice(0, LEAST)
    .map((f) => `${f.rel} ${f.lines.pct.toFixed(0)}%`)
    .join(', ');
  console.log(`${name.padEnd(10)} ${KINDS.map((k) => pct(p.totals[k]).padStart(10)).join(' ')}   ${least}`);
}
const t = summary.total;
if (t) console.log(`${'all'.padEnd(10)} ${KINDS.map((k) => pct(t[k]).padStart(10)).join(' ')}`);
