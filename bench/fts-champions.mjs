// Quality of the champion-list approximation of SqliteFtsIndex (docs/search.md, "Words search at scale"):
// recall@10 of the champion path against exact ranking, over queries of frequent words and pairs of them, on an
// index already optimized (SearchIndex.optimize, e.g. by bench/fts-words.mjs --optimize). Build first.
//
//   node bench/fts-champions.mjs <index.db> [--version=0] [--queries=60] [--dist=packages/core/dist]
//
// <index.db> is `<root>/<prefix>-<catalogId>/index.db`; the root, prefix and catalog id are read from the path.
// Three sets of queries, drawn from a seeded sample of the index's own pages: single frequent words, pairs of
// frequent words, and pairs of consecutive words of real titles (kept when both words are frequent). For each,
// the first page (10 hits) with champion lists and with exact ranking (championSearch: false).

import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { rng } from '../packages/core/test/support/random.mjs';

const [file, ...rest] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/fts-champions.mjs <index.db> [--version=0] [--queries=60]');
  process.exit(2);
}
const args = Object.fromEntries(
  rest.map((a) => {
    const [k, ...v] = a.replace(/^--/, '').split('=');
    return [k, v.length ? v.join('=') : 'true'];
  }),
);
const version = Number(args.version ?? 0);
const perSet = Number(args.queries ?? 60);
const dist = resolve(args.dist ?? new URL('../packages/core/dist', import.meta.url).pathname);
const { SqliteFtsIndex } = await import(pathToFileURL(join(dist, 'index.js')).href);
const Database = createRequire(join(dist, 'index.js'))('better-sqlite3');

const dir = basename(dirname(resolve(file)));
const match = /^(.*)-([0-9A-Za-z_-]{36})$/.exec(dir);
if (!match) throw new Error(`cannot read <prefix>-<catalogId> from ${dir}`);
const [, prefix, catalogId] = match;
const root = dirname(dirname(resolve(file)));

const rand = rng(20261130);
const pick = (arr) => arr[Math.floor(rand() * arr.length)];
const WORD_RE = /[\p{L}\p{N}]{3,}/gu;

// A sample of pages: words by document frequency, and titles.
const db = new Database(file, { readonly: true });
const build = db.prepare('SELECT * FROM champion_builds WHERE version = ?').get(version);
if (!build) throw new Error(`no champion lists for version ${version}: run optimize first`);
const max = db.prepare('SELECT max(rowid) AS m FROM docs').get().m;
const get = db.prepare('SELECT title, text FROM docs WHERE rowid = ?');
const pages = [];
for (let i = 0; i < 6000 && pages.length < 2000; i++) {
  const row = get.get(1 + Math.floor(rand() * max));
  if (row) pages.push(row);
}
db.close();
const df = new Map();
for (const p of pages) {
  for (const w of new Set(`${p.title} ${p.text}`.toLowerCase().match(WORD_RE) ?? [])) df.set(w, (df.get(w) ?? 0) + 1);
}
// Frequent in the sample: well above the lists' threshold once scaled to the whole index.
const minShare = (build.min_df * 1.5) / max;
const frequent = [...df].filter(([, n]) => n / pages.length >= minShare).map(([w]) => w);
const titles = pages.map((p) => p.title.match(WORD_RE) ?? []).filter((t) => t.length >= 2);

const fast = new SqliteFtsIndex({ root, prefix });
const exact = new SqliteFtsIndex({ root, prefix, championSearch: false });
const scopes = [{ catalogId, version }];

async function run(kind, make) {
  const out = [];
  const seen = new Set();
  for (let tries = 0; out.length < perSet && tries < perSet * 20; tries++) {
    const q = make();
    if (!q || seen.has(q.toLowerCase())) continue;
    seen.add(q.toLowerCase());
    let t = performance.now();
    const a = await fast.search({ q, scopes, size: 10 });
    const fastMs = performance.now() - t;
    const plan = fast.lastPlan?.targets[0];
    if (!plan) continue;
    // Pairs of titles: keep only those whose words are all frequent (the champion path's business).
    if (kind !== 'frequent word' && plan.reason === 'infrequent-term') continue;
    t = performance.now();
    const b = await exact.search({ q, scopes, size: 10 });
    const exactMs = performance.now() - t;
    const truth = new Set(b.results.map((h) => h.id));
    const hit = a.results.filter((h) => truth.has(h.id)).length;
    out.push({
      kind,
      q,
      path: `${plan.path}${plan.scores ? `/${plan.scores}` : ''}${plan.reason ? `/${plan.reason}` : ''}`,
      recall: truth.size === 0 ? 1 : hit / truth.size,
      total: a.total,
      sameTotal: a.total === b.total,
      fastMs,
      exactMs,
    });
  }
  return out;
}

const sets = [
  await run('frequent word', () => pick(frequent)),
  await run('two frequent words', () => `${pick(frequent)} ${pick(frequent)}`),
  await run('two words of a real title', () => {
    const t = pick(titles);
    const i = Math.floor(rand() * (t.length - 1));
    return `${t[i]} ${t[i + 1]}`;
  }),
];
await fast.close();
await exact.close();

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
};
console.log(`index ${file}: lists of ${build.terms} terms (df >= ${build.min_df}, R = ${build.size})\n`);
console.log('| queries | n | mean recall@10 | min | recall = 1 | paths | exact total | median ms champion / exact |');
console.log('|---|---|---|---|---|---|---|---|');
const all = sets.flat();
for (const list of [...sets, all]) {
  const kind = list === all ? 'all' : list[0]?.kind;
  const paths = Object.entries(
    list.reduce((acc, r) => {
      acc[r.path] = (acc[r.path] ?? 0) + 1;
      return acc;
    }, {}),
  )
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
  const mean = list.reduce((a, r) => a + r.recall, 0) / list.length;
  console.log(
    `| ${kind} | ${list.length} | ${mean.toFixed(3)} | ${Math.min(...list.map((r) => r.recall)).toFixed(1)} | ` +
      `${list.filter((r) => r.recall === 1).length} | ${paths} | ${list.every((r) => r.sameTotal) ? 'yes' : 'NO'} | ` +
      `${median(list.map((r) => r.fastMs)).toFixed(1)} / ${median(list.map((r) => r.exactMs)).toFixed(1)} |`,
  );
}
const misses = all.filter((r) => r.recall < 1).sort((a, b) => a.recall - b.recall);
if (misses.length) console.log(`\nbelow 1: ${misses.map((r) => `${r.q} (${r.recall.toFixed(1)})`).join('; ')}`);
