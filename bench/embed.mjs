// `embed`: time to search. The README's quick start (the python docs, file+index+vector, through the CLI) once
// per pipeline variant, in one run: today's pipeline first (the baseline), then each change. For each: chunks/s and
// pages/s embedded, peak RSS, wall time to the last fetch, to words-searchable and to meaning-searchable, and
// meaning recall@10 on the search bench's meaning queries (its generator, over these pages) scored the search
// bench's way (the share of a reference top 10 also returned), the reference being the baseline's exact search.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCorpus } from '../packages/core/test/support/corpus.ts';
import { analyseLog, warmCorpus } from './crawl.mjs';
import { measure, waitForQuiet } from './lib/measure.mjs';
import { fmt, goal, mdTable, repoRoot, saveResults } from './lib/report.mjs';
import { queryMix, rankedVocabulary, readRealPages } from './search.mjs';

// The built CLI (run `pnpm run build` first), with the malloc tuning the ./greenfinger wrapper sets.
const CLI = join(repoRoot, 'packages/shell/dist/bin.js');
const MALLOC = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '0', MALLOC_TOP_PAD_: '0' };

/** The variants, by name: settings given to the crawl through its environment. */
export const EMBED_VARIANTS = {
  baseline: {
    what: "today's pipeline before issue 18: 1 embedding worker, chunks of 1000 chars, overlap 200, at most 20",
    env: { GF_EMBEDDING_WORKERS: '1', GF_CHUNK_SIZE: '1000', GF_CHUNK_OVERLAP: '200', GF_MAX_CHUNKS: '20' },
  },
  workers2: {
    what: '2 embedding workers (one model each), same chunks',
    env: { GF_EMBEDDING_WORKERS: '2', GF_CHUNK_SIZE: '1000', GF_CHUNK_OVERLAP: '200', GF_MAX_CHUNKS: '20' },
  },
  chunks2000: {
    what: '2 workers, chunks of 2000 chars, overlap 200, at most 10 (the same text span per page)',
    env: { GF_EMBEDDING_WORKERS: '2', GF_CHUNK_SIZE: '2000', GF_CHUNK_OVERLAP: '200', GF_MAX_CHUNKS: '10' },
  },
  chunks2000x6: {
    what: '2 workers, chunks of 2000 chars, overlap 200, at most 6 (the first ~11,000 chars of a page)',
    env: { GF_EMBEDDING_WORKERS: '2', GF_CHUNK_SIZE: '2000', GF_CHUNK_OVERLAP: '200', GF_MAX_CHUNKS: '6' },
  },
  chunks4000: {
    what: '2 workers, chunks of 4000 chars, overlap 200, at most 5 (the same text span per page)',
    env: { GF_EMBEDDING_WORKERS: '2', GF_CHUNK_SIZE: '4000', GF_CHUNK_OVERLAP: '200', GF_MAX_CHUNKS: '5' },
  },
  defaults: { what: 'the settings as shipped (nothing set)', env: {} },
};

async function crawlVariant(name, quietWaitS) {
  const variant = EMBED_VARIANTS[name];
  const quiet = await waitForQuiet({ maxWaitS: quietWaitS });
  const corpus = await startCorpus('python');
  const data = mkdtempSync(join(tmpdir(), 'gf-bench-embed-'));
  const env = { ...MALLOC, ...process.env };
  for (const k of ['GF_EMBEDDING_WORKERS', 'GF_CHUNK_SIZE', 'GF_CHUNK_OVERLAP', 'GF_MAX_CHUNKS']) delete env[k];
  Object.assign(env, variant.env);
  const args = [CLI, 'crawl', '--url', `${corpus.url}/`, '--start-url', corpus.startUrl, '--json', '--data', data];
  args.push('--outputs', 'file+index+vector', '--interval', '0', '--threads', '16', '--host-concurrency', '16');
  const spawnedAt = Date.now();
  let m;
  try {
    m = await measure(process.execPath, args, { cwd: repoRoot, env, timeoutMs: 3_600_000 });
  } finally {
    await corpus.stop();
  }
  if (m.code !== 0) throw new Error(`${name}: crawl exited ${m.code ?? m.signal}: ${m.stderr.slice(-800)}`);
  const report = JSON.parse(m.stdout);
  const log = analyseLog(corpus.accessLog());
  const chunks = report.embedding?.chunks ?? 0;
  const vectored = report.produced.vectored;
  const record = {
    name,
    what: variant.what,
    env: variant.env,
    data,
    quietBefore: quiet,
    wallS: m.wallS,
    cpuS: m.cpuS,
    otherCpuS: m.otherCpuS,
    peakRssMb: m.peakRssMb,
    saved: report.produced.saved,
    vectored,
    chunks,
    model: report.embedding ? `${report.embedding.provider} ${report.embedding.model}` : 'n/a',
    msPerPageReported: report.embedding?.msPerPage,
    requests: log.requests,
    toLastFetchS: (log.lastMsec - spawnedAt) / 1000,
    // The run publishes its version (words and meaning together) as it ends: both are searchable at exit.
    toWordsS: m.wallS,
    toMeaningS: m.wallS,
    chunksPerS: chunks / m.wallS,
    pagesPerS: vectored / m.wallS,
  };
  console.log(
    `  ${name.padEnd(11)} ${fmt(m.wallS, 1)} s, last fetch at ${fmt(record.toLastFetchS, 1)} s, ${record.saved} pages, ` +
      `${vectored} vectored, ${chunks} chunks (${fmt(record.chunksPerS, 1)}/s), ${fmt(m.peakRssMb, 0)} MB, cpu ${fmt(m.cpuS, 1)} s ` +
      `(rest of machine ${fmt(m.otherCpuS, 1)} s${quiet.quiet ? '' : `, BUSY before start: ${fmt(quiet.busyCores, 1)} cores`})`,
  );
  return record;
}

/** Exact meaning search (no approximate index) over one crawl's data: the top 10 urls of each query. */
async function exactTop10(dir, queries) {
  const { Greenfinger } = await import('../packages/core/dist/index.js');
  const gf = await Greenfinger.open({ settings: { dataStore: dir, annMinPoints: 0 } });
  try {
    const out = [];
    for (const { q } of queries) {
      const r = await gf.search.search({ q, mode: 'meaning', size: 10 });
      // Each crawl has its own corpus server (its own port): pages are compared by path.
      out.push(r.results.map((h) => new URL(h.url).pathname));
    }
    const words = await gf.search.search({ q: 'module', mode: 'words', size: 10 });
    return { top: out, wordsAnswered: words.results.length > 0 };
  } finally {
    await gf.close();
  }
}

export async function embedBench({
  variants = ['baseline', 'workers2', 'chunks2000'],
  recallQueries = 40,
  quietWaitS,
}) {
  const unknown = variants.filter((v) => !EMBED_VARIANTS[v]);
  if (unknown.length) throw new Error(`unknown embed variant: ${unknown.join(', ')} (${Object.keys(EMBED_VARIANTS)})`);
  if (variants[0] !== 'baseline') variants = ['baseline', ...variants];
  console.log(`\n== embed: python quick start, file+index+vector, variants ${variants.join(', ')} ==`);
  warmCorpus('python');
  const records = [];
  try {
    for (const v of variants) {
      records.push(await crawlVariant(v, quietWaitS));
      saveResults('embed-crawls', { variants, records });
    }
    const real = readRealPages(records[0].data);
    const mix = queryMix(real, rankedVocabulary(real), 300);
    const queries = mix.meaning.slice(0, recallQueries);
    const tops = [];
    for (const r of records) tops.push(await exactTop10(r.data, queries));
    const ref = tops[0].top;
    records.forEach((r, i) => {
      let sum = 0;
      tops[i].top.forEach((hits, qi) => {
        const want = new Set(ref[qi]);
        sum += hits.filter((h) => want.has(h)).length / Math.max(1, Math.min(10, ref[qi].length));
      });
      r.recallAt10 = sum / Math.max(1, queries.length);
      r.wordsAnswered = tops[i].wordsAnswered;
      r.meaningAnswered = tops[i].top.every((h) => h.length > 0);
    });
  } catch (err) {
    console.log(`  ! embed failed; the crawls' data is kept: ${records.map((r) => r.data).join(' ')}`);
    throw err;
  }
  for (const r of records) rmSync(r.data, { recursive: true, force: true });
  const base = records[0];
  console.log(
    `\n${mdTable(
      [
        'variant',
        'chunks',
        'chunks/s',
        'pages/s',
        'peak RSS MB',
        'CPU s',
        'to last fetch s',
        'to words-searchable s',
        'to meaning-searchable s',
        'meaning recall@10 vs baseline',
        'rest of machine CPU s',
      ],
      records.map((r) => [
        r.name,
        r.chunks,
        fmt(r.chunksPerS, 1),
        fmt(r.pagesPerS, 2),
        fmt(r.peakRssMb, 0),
        fmt(r.cpuS, 1),
        fmt(r.toLastFetchS, 1),
        fmt(r.toWordsS, 1),
        fmt(r.toMeaningS, 1),
        fmt(r.recallAt10, 3),
        fmt(r.otherCpuS, 1),
      ]),
    )}\n`,
  );
  for (const r of records) console.log(`  ${r.name}: ${r.what}; ${r.model}`);
  const last = records.at(-1);
  const goals = [
    goal(
      'embed: words search answers within 15 s of the crawl start',
      last.wordsAnswered && last.toWordsS <= 15,
      `${last.name}: ${fmt(last.toWordsS, 1)} s (baseline ${fmt(base.toWordsS, 1)} s)`,
    ),
    goal(
      'embed: meaning search answers for every page within 120 s',
      last.meaningAnswered && last.vectored === last.saved && last.toMeaningS <= 120,
      `${last.name}: ${fmt(last.toMeaningS, 1)} s, ${last.vectored}/${last.saved} pages vectored (baseline ${fmt(base.toMeaningS, 1)} s)`,
    ),
    goal(
      'embed: meaning recall@10 ≥ 0.885 against the baseline',
      records.every((r) => r.recallAt10 >= 0.885),
      records.map((r) => `${r.name} ${fmt(r.recallAt10, 3)}`).join(', '),
    ),
  ];
  saveResults('embed', { variants, recallQueries, records, goals });
  return { records, goals };
}
