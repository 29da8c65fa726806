// `embed`: time to search. The README's quick start (the python docs, file+index+vector, through the CLI) once
// per pipeline variant, in one run: today's pipeline first (the baseline), then each change. For each: chunks/s and
// pages/s embedded, peak RSS, wall time to the last fetch, to words-searchable, to meaning-searchable for every page
// and to complete — each observed from outside while the crawl runs (the search registry the crawl writes, and a
// real search in this process answering) — and meaning recall@10 on the search bench's meaning queries (its
// generator, over these pages) scored the search bench's way (the share of a reference top 10 also returned), the
// reference being the baseline's exact search.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

const CHUNKS_1000 = { GF_CHUNK_SIZE: '1000', GF_CHUNK_OVERLAP: '200', GF_MAX_CHUNKS: '20' };
// The variants measured before the ONNX graph existed ran the bundled encoder on TF.js: they still do.
const TFJS = { GF_USE_LITE_ONNX: 'false' };

/** The variants, by name: settings given to the crawl through its environment. */
export const EMBED_VARIANTS = {
  baseline: {
    what: "today's pipeline before issue 18: 1 embedding worker, chunks of 1000 chars, overlap 200, at most 20, page by page, words and meaning published together at the end",
    env: { GF_EMBEDDING_WORKERS: '1', ...CHUNKS_1000, GF_SEARCH_EARLY: 'false', ...TFJS },
  },
  workers2: {
    what: '2 embedding workers (one model each), same chunks, published at the end',
    env: { GF_EMBEDDING_WORKERS: '2', ...CHUNKS_1000, GF_SEARCH_EARLY: 'false', ...TFJS },
  },
  chunks2000: {
    what: '2 workers, chunks of 2000 chars, overlap 200, at most 10 (the same text span per page), published at the end',
    env: {
      GF_EMBEDDING_WORKERS: '2',
      GF_CHUNK_SIZE: '2000',
      GF_CHUNK_OVERLAP: '200',
      GF_MAX_CHUNKS: '10',
      GF_SEARCH_EARLY: 'false',
      ...TFJS,
    },
  },
  chunks2000x6: {
    what: '2 workers, chunks of 2000 chars, overlap 200, at most 6 (the first ~11,000 chars of a page), published at the end',
    env: {
      GF_EMBEDDING_WORKERS: '2',
      GF_CHUNK_SIZE: '2000',
      GF_CHUNK_OVERLAP: '200',
      GF_MAX_CHUNKS: '6',
      GF_SEARCH_EARLY: 'false',
      ...TFJS,
    },
  },
  chunks4000: {
    what: '2 workers, chunks of 4000 chars, overlap 200, at most 5 (the same text span per page), published at the end',
    env: {
      GF_EMBEDDING_WORKERS: '2',
      GF_CHUNK_SIZE: '4000',
      GF_CHUNK_OVERLAP: '200',
      GF_MAX_CHUNKS: '5',
      GF_SEARCH_EARLY: 'false',
      ...TFJS,
    },
  },
  early: {
    what: '2 workers, same chunks; words published when the fetch ends, the first chunk of every page first, meaning from the vectors written so far (GF_SEARCH_EARLY, the default), on TF.js',
    env: { GF_EMBEDDING_WORKERS: '2', ...CHUNKS_1000, GF_SEARCH_EARLY: 'true', ...TFJS },
  },
  onnx: {
    what: 'early, the bundled encoder run by onnxruntime-node from the graph the build converts from its weights (GF_USE_LITE_ONNX, the default when the graph is built; each worker 1 thread)',
    env: { GF_EMBEDDING_WORKERS: '2', ...CHUNKS_1000, GF_SEARCH_EARLY: 'true', GF_USE_LITE_ONNX: 'true' },
  },
  defaults: { what: 'the settings as shipped (nothing set)', env: {} },
};

const ENV_KEYS = [
  'GF_EMBEDDING_WORKERS',
  'GF_CHUNK_SIZE',
  'GF_CHUNK_OVERLAP',
  'GF_MAX_CHUNKS',
  'GF_SEARCH_EARLY',
  'GF_USE_LITE_ONNX',
];

/**
 * Watches a crawl from outside, as a user would: every 250 ms it reads the search registry the crawl writes
 * (user/index/catalogs.json) and, the first time it shows the version published, asks a words query; the first time
 * every page has a vector, a meaning query; and it notes when the version is complete (no embedding left). Each time
 * is from `spawnedAt` and counts only once a query (in this process, through the library) answered.
 */
function watchSearchable(data, spawnedAt) {
  const registry = join(data, 'user', 'index', 'catalogs.json');
  const seen = { wordsS: undefined, meaningS: undefined, completeS: undefined, notices: [] };
  let gf;
  let stopped = false;
  let busy = false;
  const at = () => (Date.now() - spawnedAt) / 1000;
  const entryOf = () => {
    try {
      return JSON.parse(readFileSync(registry, 'utf8')).catalogs[0];
    } catch {
      return undefined;
    }
  };
  const open = async () => {
    if (!gf) {
      const { Greenfinger } = await import('../packages/core/dist/index.js');
      gf = await Greenfinger.open({ settings: { dataStore: data, embeddingWorkers: 1 } });
    }
    return gf;
  };
  const look = async () => {
    const e = entryOf();
    if (!e || e.searchVersion < 0) return;
    const t = at();
    if (seen.wordsS === undefined) {
      const r = await (await open()).search.search({ q: 'module', mode: 'words', size: 10 });
      if (r.results.length > 0) seen.wordsS = t;
    }
    const everyPage = !e.embedding || e.embedding.embedded >= e.embedding.pages;
    const ownMeaning = e.meaningVersion === undefined;
    if (seen.meaningS === undefined && everyPage && ownMeaning) {
      const r = await (await open()).search.search({ q: 'read a file line by line', mode: 'meaning', size: 10 });
      if (r.results.length > 0) {
        seen.meaningS = t;
        if (r.embedding) seen.notices.push({ atS: t, ...r.embedding });
      }
    }
    if (e.embedding && seen.notices.length === 0) seen.notices.push({ atS: t, ...e.embedding, fromRegistry: true });
    if (seen.completeS === undefined && !e.embedding && ownMeaning && seen.wordsS !== undefined) seen.completeS = t;
  };
  const timer = setInterval(() => {
    if (busy || stopped) return;
    busy = true;
    look()
      .catch(() => undefined)
      .finally(() => {
        busy = false;
      });
  }, 250);
  return {
    seen,
    async stop() {
      stopped = true;
      clearInterval(timer);
      for (let i = 0; i < 400 && busy; i++) await new Promise((r) => setTimeout(r, 25));
      // The crawl has ended: a last look, for a version published in its last moments.
      await look().catch(() => undefined);
      await gf?.close();
    },
  };
}

async function crawlVariant(name, quietWaitS) {
  const variant = EMBED_VARIANTS[name];
  const quiet = await waitForQuiet({ maxWaitS: quietWaitS });
  const corpus = await startCorpus('python');
  const data = mkdtempSync(join(tmpdir(), 'gf-bench-embed-'));
  const env = { ...MALLOC, ...process.env };
  for (const k of ENV_KEYS) delete env[k];
  Object.assign(env, variant.env);
  const args = [CLI, 'crawl', '--url', `${corpus.url}/`, '--start-url', corpus.startUrl, '--json', '--data', data];
  args.push('--outputs', 'file+index+vector', '--interval', '0', '--threads', '16', '--host-concurrency', '16');
  const spawnedAt = Date.now();
  const watch = watchSearchable(data, spawnedAt);
  let m;
  try {
    m = await measure(process.execPath, args, { cwd: repoRoot, env, timeoutMs: 3_600_000 });
  } finally {
    await watch.stop();
    await corpus.stop();
  }
  if (m.code !== 0) throw new Error(`${name}: crawl exited ${m.code ?? m.signal}: ${m.stderr.slice(-800)}`);
  const report = JSON.parse(m.stdout);
  const log = analyseLog(corpus.accessLog());
  const chunks = report.embedding?.chunks ?? 0;
  const vectored = report.produced.vectored;
  // The report's own figures are from the run's start; the process started earlier (model, stores).
  const startS = (Date.parse(report.startedAt) - spawnedAt) / 1000;
  const own = (ms) => (ms === null || ms === undefined ? undefined : startS + ms / 1000);
  const { seen } = watch;
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
    // Observed from outside (watchSearchable); undefined when never seen (e.g. the crawl failed to publish).
    toWordsS: seen.wordsS,
    toMeaningS: seen.meaningS,
    toCompleteS: seen.completeS,
    notices: seen.notices,
    reported: {
      startS,
      wordsS: own(report.searchable?.wordsAfterMs),
      meaningS: own(report.searchable?.meaningAfterMs),
      completeS: own(report.searchable?.completeAfterMs),
    },
    chunksPerS: chunks / m.wallS,
    pagesPerS: vectored / m.wallS,
  };
  console.log(
    `  ${name.padEnd(11)} ${fmt(m.wallS, 1)} s, last fetch at ${fmt(record.toLastFetchS, 1)} s, words at ${fmt(record.toWordsS, 1)} s, ` +
      `meaning (every page) at ${fmt(record.toMeaningS, 1)} s, complete at ${fmt(record.toCompleteS, 1)} s, ${record.saved} pages, ` +
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

export async function embedBench({ variants = ['baseline', 'early'], recallQueries = 40, quietWaitS }) {
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
        'to meaning-searchable (every page) s',
        'to complete s',
        'report: words / meaning / complete s',
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
        fmt(r.toCompleteS, 1),
        `${fmt(r.reported.wordsS, 1)} / ${fmt(r.reported.meaningS, 1)} / ${fmt(r.reported.completeS, 1)}`,
        fmt(r.recallAt10, 3),
        fmt(r.otherCpuS, 1),
      ]),
    )}\n`,
  );
  for (const r of records) console.log(`  ${r.name}: ${r.what}; ${r.model}`);
  for (const r of records) {
    const n = r.notices[0];
    if (n) console.log(`  ${r.name}: first notice at ${fmt(n.atS, 1)} s: embedding ${n.embedded} of ${n.pages} pages`);
  }
  const last = records.at(-1);
  const goals = [
    goal(
      'embed: words search answers within 15 s of the crawl start',
      last.wordsAnswered && last.toWordsS !== undefined && last.toWordsS <= 15,
      `${last.name}: ${fmt(last.toWordsS, 1)} s (baseline ${fmt(base.toWordsS, 1)} s)`,
    ),
    goal(
      'embed: meaning search answers for every page within 120 s',
      last.meaningAnswered && last.vectored === last.saved && last.toMeaningS !== undefined && last.toMeaningS <= 120,
      `${last.name}: ${fmt(last.toMeaningS, 1)} s, ${last.vectored}/${last.saved} pages vectored, complete at ${fmt(last.toCompleteS, 1)} s (baseline ${fmt(base.toMeaningS, 1)} s)`,
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
