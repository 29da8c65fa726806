// `search-quality`: how often search puts the right page on top, per mode. Crawls the python docs (served on
// loopback by ../shared/tools/serve-corpus.sh) with file+index+vector and the bundled model, then asks every query of
// bench/queries/python-docs.json in words, meaning and hybrid and prints hit@3 (the expected page in the first
// three) and MRR@10 (1/rank of the expected page in the first ten, else 0), overall and per kind of query, and the
// p50 cost of a query per mode. --data DIR keeps the crawl and reuses it; --misses prints the queries each mode
// misses (not in the top 3) with what it answered. Pictures: the GIMP help (Debian gimp-help-en, served on loopback
// by packages/core/test/support/gimp-site.ts) crawled with its pictures, and the 20 picture questions of
// bench/queries/gimp-pictures.json asked in pictures mode (the expected picture's path among the pictureUrls).
// --set python|pictures|all (default all) picks the sets.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCorpus } from '../packages/core/test/support/corpus.ts';
import { gimpHelpMissing, startGimpSite } from '../packages/core/test/support/gimp-site.ts';
import { measure } from './lib/measure.mjs';
import { fmt, goal, mdTable, percentile, repoRoot, saveResults } from './lib/report.mjs';

const CLI = join(repoRoot, 'packages/shell/dist/bin.js');
const SET = join(repoRoot, 'bench/queries/python-docs.json');
const PICTURE_SET = join(repoRoot, 'bench/queries/gimp-pictures.json');
const MARKER = 'bench-search-quality.json';
export const QUALITY_MODES = ['words', 'meaning', 'hybrid'];

/** The query set: { corpus, queries: [{ kind, q, expect }] }, expect relative to the corpus root. */
export function loadQuerySet(path = SET) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

async function crawlPython(data) {
  const corpus = await startCorpus('python');
  try {
    const args = [CLI, 'crawl', '--url', `${corpus.url}/`, '--start-url', corpus.startUrl, '--name', 'python'];
    args.push('--json', '--data', data, '--outputs', 'file+index+vector', '--interval', '0', '--threads', '16');
    const m = await measure(process.execPath, args, { cwd: repoRoot, timeoutMs: 3_600_000 });
    if (m.code !== 0) throw new Error(`crawl of python failed (${m.code}): ${m.stderr.slice(-800)}`);
    const report = JSON.parse(m.stdout);
    console.log(
      `  crawled python: ${report.produced.saved} pages, ${report.produced.vectored} vectored in ${fmt(m.wallS, 1)} s`,
    );
    return { saved: report.produced.saved, vectored: report.produced.vectored, wallS: m.wallS };
  } finally {
    await corpus.stop();
  }
}

/** 1-based rank of the expected page among the results (its url path ends with `expect`), or 0. */
export function rankOf(results, expect) {
  const i = results.findIndex((r) => new URL(r.pictureUrl ?? r.url).pathname.replace(/^\/+/, '') === expect);
  return i + 1;
}

async function crawlGimp(data) {
  const site = await startGimpSite();
  try {
    const args = [CLI, 'crawl', '--url', `${site.origin}/`, '--start-url', `${site.origin}/index.html`];
    args.push('--name', 'gimp', '--json', '--data', data, '--outputs', 'file+index+vector', '--images');
    args.push('--interval', '0', '--threads', '16', '--no-robots');
    const m = await measure(process.execPath, args, { cwd: repoRoot, timeoutMs: 3_600_000 });
    if (m.code !== 0) throw new Error(`crawl of the GIMP help failed (${m.code}): ${m.stderr.slice(-800)}`);
    const report = JSON.parse(m.stdout);
    const pictures = report.produced.images;
    console.log(`  crawled gimp: ${report.produced.saved} pages, ${pictures} pictures in ${fmt(m.wallS, 1)} s`);
    return { saved: report.produced.saved, pictures, wallS: m.wallS };
  } finally {
    await site.close();
  }
}

/**
 * Pictures mode over the GIMP help: hit@3 and MRR@10 of the picture questions (goal hit@3 >= 0.75) and the issue's
 * query (export-webp-dialog.png among the first three pictureUrls).
 */
async function pictureQuality(dir, misses) {
  const { Greenfinger } = await import('../packages/core/dist/index.js');
  const set = loadQuerySet(PICTURE_SET);
  const why = gimpHelpMissing();
  if (why) {
    console.log(`\n== search-quality pictures: skipped, ${why} ==`);
    return { goals: [], skipped: why };
  }
  console.log(`\n== search-quality: ${set.queries.length} picture questions over the GIMP help, pictures mode ==`);
  const data = join(dir, 'gimp');
  const marker = join(data, MARKER);
  let crawl = existsSync(marker) ? JSON.parse(readFileSync(marker, 'utf8')) : undefined;
  if (!crawl) {
    crawl = await crawlGimp(data);
    writeFileSync(marker, JSON.stringify(crawl, null, 2));
  }
  const gf = await Greenfinger.open({ settings: { dataStore: data } });
  let scored;
  let webp;
  try {
    scored = await askAll(gf, 'pictures', set.queries);
    webp = await askAll(gf, 'pictures', [
      { q: 'the dialog for exporting webp images', kind: 'done-when', expect: 'images/using/export-webp-dialog.png' },
    ]);
  } finally {
    await gf.close();
  }
  const kinds = [...new Set(set.queries.map((q) => q.kind))];
  const all = scoreRanks(scored);
  const perKind = kinds.map((k) => scoreRanks(scored.filter((s) => s.kind === k)));
  const row = [
    'pictures',
    fmt(all.hit3, 3),
    fmt(all.mrr10, 3),
    ...perKind.flatMap((s) => [fmt(s.hit3, 3), fmt(s.mrr10, 3)]),
    fmt(
      percentile(
        scored.map((s) => s.ms),
        50,
      ),
      1,
    ),
  ];
  const head = ['mode', 'hit@3', 'MRR@10', ...kinds.flatMap((k) => [`${k} hit@3`, `${k} MRR@10`]), 'p50 ms'];
  console.log(`\n${crawl.saved} pages, ${crawl.pictures} pictures crawled\n\n${mdTable(head, [row])}\n`);
  if (misses) {
    for (const s of scored.filter((x) => x.rank < 1 || x.rank > 3))
      console.log(`  [${s.rank || '-'}] ${s.q} → ${s.expect}; got ${s.top.map((u) => new URL(u).pathname).join(' ')}`);
  }
  const rank = webp[0]?.rank ?? 0;
  const goals = [
    goal('search-quality: pictures hit@3 >= 0.75', all.hit3 >= 0.75, fmt(all.hit3, 3)),
    goal(
      'search-quality: pictures finds export-webp-dialog.png in the top 3 for the WebP dialog question',
      rank >= 1 && rank <= 3,
      `rank ${rank || 'none'}`,
    ),
  ];
  return { crawl, scored, goals };
}

/** hit@3 and MRR@10 of one mode over a list of scored queries ({ rank }). */
export function scoreRanks(scored) {
  const n = Math.max(1, scored.length);
  return {
    queries: scored.length,
    hit3: scored.filter((s) => s.rank >= 1 && s.rank <= 3).length / n,
    mrr10: scored.reduce((a, s) => a + (s.rank >= 1 && s.rank <= 10 ? 1 / s.rank : 0), 0) / n,
  };
}

/** Asks every query in one mode (size 10): its rank, time and top three. */
export async function askAll(gf, mode, queries) {
  const out = [];
  for (const { q, kind, expect } of queries) {
    const t = performance.now();
    const r = await gf.search.search({ q, mode, size: 10 });
    const ms = performance.now() - t;
    out.push({
      q,
      kind,
      expect,
      mode: r.mode,
      ms,
      rank: rankOf(r.results, expect),
      top: r.results.slice(0, 3).map((h) => h.pictureUrl ?? h.url),
    });
  }
  return out;
}

export async function searchQualityBench({ data, misses = false, set: which = 'all' } = {}) {
  if (!['python', 'pictures', 'all'].includes(which)) throw new Error(`--set ${which}: use python, pictures or all`);
  const dir = data ?? mkdtempSync(join(tmpdir(), 'gf-bench-quality-'));
  console.log(`data: ${dir}${data ? ' (kept)' : ' (removed at the end; pass --data DIR to keep and reuse it)'}`);
  try {
    const python = which === 'pictures' ? { goals: [] } : await pythonQuality(dir, misses);
    const pictures = which === 'python' ? { goals: [] } : await pictureQuality(dir, misses);
    const goals = [...python.goals, ...pictures.goals];
    if (which !== 'python') saveResults('search-quality-pictures', pictures);
    return { goals };
  } finally {
    if (!data) rmSync(dir, { recursive: true, force: true });
  }
}

/** Words, meaning and hybrid over the python docs. */
async function pythonQuality(dir, misses) {
  const { Greenfinger } = await import('../packages/core/dist/index.js');
  const set = loadQuerySet();
  console.log(`\n== search-quality: ${set.queries.length} queries over the python docs, hit@3 and MRR@10 per mode ==`);
  const marker = join(dir, MARKER);
  let crawl = existsSync(marker) ? JSON.parse(readFileSync(marker, 'utf8')) : undefined;
  if (!crawl) {
    crawl = await crawlPython(dir);
    writeFileSync(marker, JSON.stringify(crawl, null, 2));
  }
  const gf = await Greenfinger.open({ settings: { dataStore: dir } });
  const byMode = {};
  let embedder = 'n/a';
  try {
    embedder = (await gf.embedding()).describe();
    await askAll(gf, 'hybrid', set.queries.slice(0, 5));
    for (const mode of QUALITY_MODES) byMode[mode] = await askAll(gf, mode, set.queries);
  } finally {
    await gf.close();
  }
  const kinds = [...new Set(set.queries.map((q) => q.kind))];
  const rows = [];
  for (const mode of QUALITY_MODES) {
    const all = scoreRanks(byMode[mode]);
    const perKind = kinds.map((k) => scoreRanks(byMode[mode].filter((s) => s.kind === k)));
    const p50 = percentile(
      byMode[mode].map((s) => s.ms),
      50,
    );
    rows.push([
      mode,
      fmt(all.hit3, 3),
      fmt(all.mrr10, 3),
      ...perKind.flatMap((s) => [fmt(s.hit3, 3), fmt(s.mrr10, 3)]),
      fmt(p50, 1),
    ]);
  }
  const head = ['mode', 'hit@3', 'MRR@10', ...kinds.flatMap((k) => [`${k} hit@3`, `${k} MRR@10`]), 'p50 ms'];
  console.log(`\n${embedder}; ${crawl.saved} pages crawled\n\n${mdTable(head, rows)}\n`);
  if (misses) {
    for (const mode of QUALITY_MODES) {
      const missed = byMode[mode].filter((s) => s.rank < 1 || s.rank > 3);
      console.log(`${mode} misses (${missed.length}):`);
      for (const s of missed)
        console.log(
          `  [${s.rank || '-'}] ${s.q} → ${s.expect}; got ${s.top.map((u) => new URL(u).pathname).join(' ')}`,
        );
    }
  }
  const copy = byMode.hybrid.find((s) => s.q === 'make a deep copy of an object including nested ones');
  const hit3 = (mode) => scoreRanks(byMode[mode]).hit3;
  const goals = [
    goal('search-quality: words hit@3 >= 0.90', hit3('words') >= 0.9, fmt(hit3('words'), 3)),
    goal('search-quality: hybrid hit@3 >= 0.90', hit3('hybrid') >= 0.9, fmt(hit3('hybrid'), 3)),
    goal(
      'search-quality: hybrid finds copy.html in the top 3 for the deep-copy question',
      copy && copy.rank >= 1 && copy.rank <= 3,
      `rank ${copy?.rank || 'none'}`,
    ),
  ];
  saveResults('search-quality', { crawl, embedder, byMode, goals });
  return { goals };
}
