// Times SqliteFtsIndex.search (words: count, ranking, highlights) over an existing index, by kind of query, the
// way bench/search.mjs mixes them: top / common / mid / rare words by document frequency, two consecutive words of
// a real title, and "phrases" of 2-3 words of a real text. Queries are drawn from the index itself (a seeded
// sample of its pages), so the script runs on any index. Build first (npx tsc -b packages/shell packages/api).
//
//   node bench/fts-words.mjs [--root=DIR] [--prefix=greenfinger] [--catalog=ID] [--version=0] [--per-kind=100]
//                            [--dist=packages/core/dist] [--optimize] [--exact] [--no-pairs] [--no-merge] [--json=out.json]
//
// --optimize first runs SearchIndex.optimize (champion lists, FTS5 merge unless --no-merge) and reports its time;
// --exact ranks every match (championSearch: false); --no-pairs reads phrases from word positions even where the
// catalog has a word-pair table (pairSearch: false). Each query runs
// once to warm the caches, then once timed. p50/p99 overall weight the kinds as bench/search.mjs does.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { rng } from '../packages/core/test/support/random.mjs';
import { WORD_RE, wordQueryKinds } from './lib/query-mix.mjs';

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, ...v] = a.replace(/^--/, '').split('=');
    return [k, v.length ? v.join('=') : 'true'];
  }),
);
const root = args.root ?? '/work/bench-data/s100k/user/index';
const prefix = args.prefix ?? 'greenfinger';
const catalogId = args.catalog ?? '284af48a-3d62-4f01-8d7f-a34cc9d8aeb4';
const version = Number(args.version ?? 0);
const perKind = Number(args['per-kind'] ?? 100);
const dist = resolve(args.dist ?? new URL('../packages/core/dist', import.meta.url).pathname);
const { SqliteFtsIndex } = await import(pathToFileURL(join(dist, 'index.js')).href);
const Database = createRequire(join(dist, 'index.js'))('better-sqlite3');

const rand = rng(42);

/** Pages sampled from the index (read-only): the vocabulary ranked by document frequency, titles and texts. */
function sampleIndex(file, n) {
  const db = new Database(file, { readonly: true });
  try {
    const max = db.prepare('SELECT max(rowid) AS m FROM docs').get().m;
    const get = db.prepare('SELECT title, text FROM docs WHERE rowid = ?');
    const pages = [];
    for (let i = 0; i < n * 2 && pages.length < n; i++) {
      const row = get.get(1 + Math.floor(rand() * max));
      if (row) pages.push(row);
    }
    return pages;
  } finally {
    db.close();
  }
}

export function queryMix(pages, perKind) {
  const df = new Map();
  for (const p of pages) {
    for (const w of new Set(`${p.title} ${p.text}`.toLowerCase().match(WORD_RE) ?? [])) df.set(w, (df.get(w) ?? 0) + 1);
  }
  const ranked = [...df].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([w]) => w);
  const kinds = wordQueryKinds(pages, ranked, rand);
  const list = [];
  for (const [kind, share, make] of kinds) for (let i = 0; i < perKind; i++) list.push({ kind, share, q: make() });
  return { list, vocabulary: ranked.length };
}

function percentile(samples, p) {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** Percentile of samples carrying weights (each kind weighs its share of the mix). */
function weightedPercentile(samples, p) {
  const s = [...samples].sort((a, b) => a.ms - b.ms);
  const total = s.reduce((a, x) => a + x.w, 0);
  let acc = 0;
  for (const x of s) {
    acc += x.w;
    if (acc >= (p / 100) * total) return x.ms;
  }
  return s.at(-1)?.ms;
}

const file = join(root, `${prefix}-${catalogId}`, 'index.db');
const pages = sampleIndex(file, 3000);
const { list, vocabulary } = queryMix(pages, perKind);
console.log(`index ${file}\n${pages.length} sampled pages, ${vocabulary} words; ${list.length} queries`);

let t = performance.now();
const index = new SqliteFtsIndex({
  root,
  prefix,
  championSearch: args.exact !== 'true',
  pairSearch: args['no-pairs'] !== 'true',
  mergeOnOptimize: args['no-merge'] !== 'true',
});
await index.countVersion(catalogId, version);
console.log(`open (migrates a version-1 file): ${(performance.now() - t).toFixed(0)} ms`);
const scopes = [{ catalogId, version }];
const out = { file, dist, queries: list.length, optimize: null, kinds: [], overall: null };
if (args.optimize === 'true') {
  if (typeof index.optimize !== 'function') throw new Error('this build has no SearchIndex.optimize');
  t = performance.now();
  const stats = await index.optimize(catalogId, version);
  out.optimize = { ms: performance.now() - t, stats };
  console.log(`optimize: ${(out.optimize.ms / 1000).toFixed(1)} s`, JSON.stringify(stats));
}
const t0 = performance.now();
for (const { q } of list) await index.search({ q, scopes, size: 10 });
console.log(`warm-up pass: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
const samples = [];
for (const { kind, share, q } of list) {
  const t = performance.now();
  const r = await index.search({ q, scopes, size: 10 });
  const ms = performance.now() - t;
  samples.push({ kind, q, ms, w: share / perKind, total: r.total, path: index.lastPlan?.targets?.[0]?.path });
}
await index.close();

const row = (label, list) => {
  const ms = list.map((s) => s.ms);
  return {
    kind: label,
    n: list.length,
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    mean: ms.reduce((a, b) => a + b, 0) / ms.length,
    matches: percentile(
      list.map((s) => s.total),
      50,
    ),
    paths: Object.entries(
      list.reduce((acc, s) => {
        acc[s.path ?? 'n/a'] = (acc[s.path ?? 'n/a'] ?? 0) + 1;
        return acc;
      }, {}),
    )
      .map(([k, v]) => `${k}:${v}`)
      .join(' '),
  };
};
for (const kind of [...new Set(samples.map((s) => s.kind))])
  out.kinds.push(
    row(
      kind,
      samples.filter((s) => s.kind === kind),
    ),
  );
out.overall = { p50: weightedPercentile(samples, 50), p99: weightedPercentile(samples, 99) };
console.log('\n| kind | n | p50 ms | p99 ms | mean ms | median matches | path |');
console.log('|---|---|---|---|---|---|---|');
for (const k of out.kinds) {
  console.log(
    `| ${k.kind} | ${k.n} | ${k.p50.toFixed(1)} | ${k.p99.toFixed(1)} | ${k.mean.toFixed(1)} | ${k.matches} | ${k.paths} |`,
  );
}
console.log(`| overall (weighted mix) | | ${out.overall.p50.toFixed(1)} | ${out.overall.p99.toFixed(1)} | | | |`);
const slow = [...samples].sort((a, b) => b.ms - a.ms).slice(0, 8);
console.log('\nslowest:', slow.map((s) => `${s.q} (${s.kind.split(' ')[0]}) ${s.ms.toFixed(0)} ms`).join('; '));
if (args.json) writeFileSync(args.json, `${JSON.stringify({ ...out, samples }, null, 2)}\n`);
