// Crawl benches over the real corpora served by shared/tools/serve-corpus.sh: our CLI against the Crawlee and
// Scrapy baselines (handbook, python), our crawl behind a 50 ms latency proxy (latency), and with vectors on
// (vectors). Every crawl gets a fresh server on a free port and a fresh data dir; runs alternate the order.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileRenderMemory } from '../packages/core/src/fetch/file-render-memory.ts';
import { adviseRender, DEFAULT_RENDER_POLICY } from '../packages/core/src/fetch/render-memory.ts';
import { renderPattern } from '../packages/core/src/fetch/render-pattern.ts';
import { createRenderingDetector } from '../packages/core/src/fetch/rendering-detector.ts';
import { startCorpus } from '../packages/core/test/support/corpus.ts';
import { measure, waitForQuiet } from './lib/measure.mjs';
import { fmt, goal, machine, mdTable, median, repoRoot, saveResults } from './lib/report.mjs';

const WRAPPER = join(repoRoot, 'greenfinger');
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const CORPUS_ROOT = { handbook: '/usr/share/doc/debian-handbook/html', python: '/usr/share/doc/python3.11/html' };
const STAGES = ['fetch', 'extract', 'dedup', 'file', 'index', 'vector', 'commit'];

/** Reads every corpus file once so each crawl meets the same warm page cache. */
export function warmCorpus(name) {
  execFileSync('bash', ['-c', `find "${CORPUS_ROOT[name]}" -type f -print0 | xargs -0 cat > /dev/null`]);
}

function lastJsonLine(stdout) {
  const lines = stdout.trim().split('\n').reverse();
  for (const line of lines) {
    if (!line.startsWith('{')) continue;
    try {
      return JSON.parse(line);
    } catch {}
  }
  return undefined;
}

/** What the access log says about one crawl (the script's curl readiness probe left out). */
export function analyseLog(lines) {
  const requests = lines.filter((l) => !l.userAgent.startsWith('curl/'));
  const byPath = new Map();
  for (const r of requests) byPath.set(r.path, (byPath.get(r.path) ?? 0) + 1);
  const repeated = [...byPath].filter(([, n]) => n > 1);
  const times = requests.map((r) => r.msec).sort((a, b) => a - b);
  let maxGapMs = 0;
  for (let i = 1; i < times.length; i++) maxGapMs = Math.max(maxGapMs, times[i] - times[i - 1]);
  const seconds = new Set(times.map((t) => Math.floor((t - times[0]) / 1000)));
  const spanSeconds = times.length > 1 ? Math.floor((times.at(-1) - times[0]) / 1000) + 1 : 1;
  return {
    requests: requests.length,
    html200: requests.filter((r) => r.status === 200 && r.contentType.startsWith('text/html')).length,
    images200: requests.filter((r) => r.status === 200 && r.contentType.startsWith('image/')).length,
    errors: requests.filter((r) => r.status >= 400).length,
    repeatedPaths: repeated.length,
    repeatedExamples: repeated.slice(0, 5).map(([p, n]) => `${p} ×${n}`),
    fetchSpanS: times.length > 1 ? (times.at(-1) - times[0]) / 1000 : 0,
    firstMsec: times[0] ?? 0,
    lastMsec: times.at(-1) ?? 0,
    maxGapMs,
    /** Share of the seconds between the first and the last request that saw at least one request. */
    busySeconds: seconds.size / spanSeconds,
  };
}

/**
 * Our CLI as users run it, through the `./greenfinger` wrapper (which sets the process's malloc tuning, then execs
 * node: the measured process is the crawler itself): fresh data dir, outputs as given, no politeness interval,
 * 16 pages and 16 requests per host in flight.
 */
function ours(
  label,
  { outputs = 'file+index', concurrency = 16, threads = concurrency, noImages = false, extractor, env, tree } = {},
) {
  // `tree`: a built checkout whose dist/bin.js runs directly with the wrapper's malloc tuning (the wrapper would
  // rebuild a tree whose sources changed, inside the measured crawl).
  const direct = tree ? { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '0', MALLOC_TOP_PAD_: '0', ...env } : env;
  return {
    label,
    ours: !tree,
    start(corpus) {
      const data = mkdtempSync(join(tmpdir(), 'gf-bench-data-'));
      const origin = `${corpus.url}/`;
      return {
        command: tree ? process.execPath : WRAPPER,
        args: [
          ...(tree ? [join(tree, 'packages/shell/dist/bin.js')] : []),
          'crawl',
          '--url',
          origin,
          '--start-url',
          corpus.startUrl,
          '--json',
          '--data',
          data,
          '--outputs',
          outputs,
          '--interval',
          '0',
          '--threads',
          String(threads),
          '--host-concurrency',
          String(concurrency),
          ...(noImages ? ['--no-images'] : []),
          ...(extractor ? ['--extractor', extractor] : []),
        ],
        env: direct ? { ...process.env, ...direct } : undefined,
        cleanup: () => rmSync(data, { recursive: true, force: true }),
      };
    },
    parse(stdout) {
      const report = JSON.parse(stdout);
      return { pages: report.produced.saved, report };
    },
  };
}

const crawlee = {
  label: 'crawlee',
  start: (corpus) => ({
    command: process.execPath,
    args: [join(repoRoot, 'bench/baselines/crawlee-cheerio.mjs'), corpus.startUrl, '16'],
  }),
  parse: (stdout) => ({ pages: lastJsonLine(stdout)?.pages ?? Number.NaN }),
};

const scrapy = {
  label: 'scrapy',
  start: (corpus) => ({
    command: PYTHON,
    args: [join(repoRoot, 'bench/baselines/scrapy_spider.py'), corpus.startUrl, '16'],
  }),
  parse: (stdout) => ({ pages: lastJsonLine(stdout)?.pages ?? Number.NaN }),
};

/** One crawl: fresh server, measured child, server stopped, log analysed. */
async function crawlOnce(corpusName, crawler, { latencyMs = 0, timeoutMs = 900_000, quietWaitS = 60 } = {}) {
  const quiet = await waitForQuiet({ maxWaitS: quietWaitS });
  const corpus = await startCorpus(corpusName, { latencyMs });
  const spec = crawler.start(corpus);
  let m;
  try {
    m = await measure(spec.command, spec.args, { cwd: repoRoot, timeoutMs, ...(spec.env ? { env: spec.env } : {}) });
  } finally {
    await corpus.stop();
    spec.cleanup?.();
  }
  const log = analyseLog(corpus.accessLog());
  let parsed = { pages: Number.NaN };
  let parseError;
  try {
    parsed = crawler.parse(m.stdout);
  } catch (err) {
    parseError = String(err);
  }
  if (m.code !== 0 || parseError) {
    console.log(
      `  ! ${crawler.label} exited ${m.code ?? m.signal}${m.timedOut ? ' (timed out)' : ''}${parseError ? `, ${parseError}` : ''}: ${m.stderr.trim().split('\n').slice(-3).join(' | ')}`,
    );
  }
  const record = {
    crawler: crawler.label,
    corpus: corpusName,
    latencyMs,
    code: m.code,
    wallS: m.wallS,
    cpuS: m.cpuS,
    otherCpuS: m.otherCpuS,
    quietBefore: quiet,
    userS: m.userS,
    systemS: m.systemS,
    peakRssMb: m.peakRssMb,
    hwmPolledMb: m.hwmPolledMb,
    treeRssPeakMb: m.treeRssPeakMb,
    pages: parsed.pages,
    pagesPerS: parsed.pages / m.wallS,
    htmlPerS: log.html200 / m.wallS,
    cpuMsPerPage: (m.cpuS * 1000) / parsed.pages,
    log,
    proxy: corpus.proxyStats(),
    report: parsed.report,
  };
  console.log(
    `  ${crawler.label.padEnd(14)} ${fmt(m.wallS, 2).padStart(7)} s  ${String(parsed.pages).padStart(5)} pages  ` +
      `${fmt(record.pagesPerS, 0).padStart(5)} pages/s  ${fmt(m.peakRssMb, 0).padStart(4)} MB  cpu ${fmt(m.cpuS, 1)} s ` +
      `(rest of machine ${fmt(m.otherCpuS, 1)} s${quiet.quiet ? '' : `, BUSY before start: ${fmt(quiet.busyCores, 1)} cores`})  ` +
      `${log.requests} requests, ${log.html200} html 200, ${log.repeatedPaths} paths twice`,
  );
  return record;
}

/** Runs `crawlers` over `corpusName` `runs` times, alternating the order (ours first, then baselines first). */
/** The wrapper rebuilds when sources changed: do that now, not inside a measured crawl. */
function buildOurs() {
  execFileSync('bash', [join(repoRoot, 'scripts/setup.sh'), '--quiet'], { stdio: 'inherit' });
}

async function runAll(corpusName, crawlers, runs, options, quietWaitS) {
  if (crawlers.some((c) => c.ours)) buildOurs();
  warmCorpus(corpusName);
  const records = [];
  for (let run = 1; run <= runs; run++) {
    const order = run % 2 === 1 ? crawlers : [...crawlers].reverse();
    console.log(`run ${run}/${runs}: ${order.map((c) => c.label).join(', ')}`);
    for (const c of order) records.push({ run, ...(await crawlOnce(corpusName, c, { quietWaitS, ...options(c) })) });
  }
  return records;
}

function summarise(records, label) {
  const mine = records.filter((r) => r.crawler === label);
  const pick = (k) => mine.map((r) => r[k]);
  return {
    label,
    runs: mine.length,
    wallS: median(pick('wallS')),
    wallEach: pick('wallS'),
    pages: median(pick('pages')),
    pagesPerS: median(pick('pagesPerS')),
    htmlPerS: median(pick('htmlPerS')),
    peakRssMb: median(pick('peakRssMb')),
    rssEach: pick('peakRssMb'),
    cpuS: median(pick('cpuS')),
    otherCpuS: median(pick('otherCpuS')),
    cpuMsPerPage: median(pick('cpuMsPerPage')),
    html200: median(mine.map((r) => r.log.html200)),
    requests: median(mine.map((r) => r.log.requests)),
    repeatedPaths: Math.max(...mine.map((r) => r.log.repeatedPaths)),
  };
}

function crawlTable(summaries) {
  return mdTable(
    [
      'crawler',
      'wall s median (each run)',
      'pages',
      'pages/s',
      'html 200/s',
      'peak RSS MB median (each)',
      'CPU s',
      'CPU ms/page',
      'rest of machine CPU s',
      'requests',
      'html 200',
      'paths fetched twice',
    ],
    summaries.map((s) => [
      s.label,
      `${fmt(s.wallS, 2)} (${s.wallEach.map((w) => fmt(w, 2)).join(', ')})`,
      s.pages,
      fmt(s.pagesPerS, 0),
      fmt(s.htmlPerS, 0),
      `${fmt(s.peakRssMb, 0)} (${s.rssEach.map((r) => fmt(r, 0)).join(', ')})`,
      fmt(s.cpuS, 1),
      fmt(s.cpuMsPerPage, 2),
      fmt(s.otherCpuS, 1),
      s.requests,
      s.html200,
      s.repeatedPaths,
    ]),
  );
}

/** Per-stage cost from report.stages (ms per stage, a number or {cpuMs, wallMs}); "n/a" until the report has it. */
function stageLine(records) {
  const withStages = records.filter((r) => r.report?.stages);
  if (withStages.length === 0) return 'per-stage cost: n/a (the run report has no `stages` yet)';
  const parts = [];
  const keys = new Set([...STAGES, ...Object.keys(withStages[0].report.stages)]);
  for (const k of keys) {
    const vals = withStages.map((r) => r.report.stages[k]).filter((v) => v !== undefined);
    if (vals.length === 0) continue;
    const perPage = (field) =>
      median(
        withStages.map((r) => {
          const v = r.report.stages[k];
          const ms = typeof v === 'number' ? v : v?.[field];
          return ms / r.pages;
        }),
      );
    parts.push(
      typeof vals[0] === 'number'
        ? `${k} ${fmt(perPage(), 3)}`
        : `${k} ${Object.keys(vals[0])
            .map((f) => `${f} ${fmt(perPage(f), 3)}`)
            .join(' / ')}`,
    );
  }
  return `per-stage wall ms per saved page (report.stages: wall time summed over the pages in flight, not CPU; median of runs): ${parts.join(', ')}`;
}

/** Every html page served 200 was saved once or recognised as a copy of a saved page; no path fetched twice. */
function savedOnce(records) {
  const problems = [];
  for (const r of records) {
    const rep = r.report;
    if (!rep) {
      problems.push(`run ${r.run}: no report`);
      continue;
    }
    const accounted = rep.produced.saved + rep.urls.duplicateContent;
    if (r.log.repeatedPaths > 0) problems.push(`run ${r.run}: ${r.log.repeatedExamples.join(', ')}`);
    if (accounted !== r.log.html200)
      problems.push(
        `run ${r.run}: saved ${rep.produced.saved} + same-content ${rep.urls.duplicateContent} = ${accounted} ≠ ${r.log.html200} html served 200`,
      );
    if (rep.outputs.file && rep.outputs.file.written !== rep.produced.saved)
      problems.push(`run ${r.run}: file output wrote ${rep.outputs.file.written} of ${rep.produced.saved}`);
    if (!rep.ending.fullyCrawled) problems.push(`run ${r.run}: ending ${rep.ending.reason}`);
  }
  const r0 = records[0];
  const detail =
    problems.length > 0
      ? problems.join('; ')
      : `${records.length} crawl(s): no path requested twice; saved ${r0?.report?.produced.saved} + ${r0?.report?.urls.duplicateContent} same-content copies = ${r0?.log.html200} html pages served 200; file output wrote every saved page`;
  return { pass: problems.length === 0, detail };
}

/**
 * `handbook` or `python`: ours vs Crawlee vs Scrapy. With `before` (a built checkout of an older commit), ours
 * against that tree instead, both run from their dist/bin.js (this tree as built now: nothing is rebuilt).
 */
export async function compareBench(corpusName, { runs = 3, crawlers: only, quietWaitS, before } = {}) {
  if (before) {
    const pair = [ours('greenfinger', { tree: repoRoot }), ours('greenfinger before', { tree: before })];
    console.log(`\n== ${corpusName}: this tree vs ${before}, ${runs} run(s) ==`);
    const records = await runAll(corpusName, pair, runs, () => ({}), quietWaitS);
    const [now, then] = pair.map((c) => summarise(records, c.label));
    console.log(`\n${crawlTable([now, then])}\n`);
    const saved = savedOnce(records);
    return {
      goals: [
        goal(
          `${corpusName}: no slower than before`,
          now.wallS <= then.wallS * 1.05,
          `${fmt(now.wallS, 2)} s vs ${fmt(then.wallS, 2)} s (medians, 5 % allowed)`,
        ),
        goal(
          `${corpusName}: no more memory than before`,
          now.peakRssMb <= then.peakRssMb * 1.05,
          `${fmt(now.peakRssMb, 0)} MB vs ${fmt(then.peakRssMb, 0)} MB (medians, 5 % allowed)`,
        ),
        goal(`${corpusName}: every page saved exactly once`, saved.pass, saved.detail),
      ],
      file: saveResults(`${corpusName}-before`, { before, runs, records, summaries: [now, then], machine: machine() }),
    };
  }
  const all = [ours('greenfinger'), crawlee, scrapy];
  const noImages = ours('greenfinger --no-images', { noImages: true });
  const crawlers = only
    ? [...all, noImages].filter(
        (c) =>
          only.includes(c.label) ||
          (c.label === 'greenfinger' && only.includes('ours')) ||
          (c === noImages && only.includes('ours-no-images')),
      )
    : all;
  console.log(`\n== ${corpusName}: ${crawlers.map((c) => c.label).join(' vs ')}, ${runs} run(s) ==`);
  const records = await runAll(corpusName, crawlers, runs, () => ({}), quietWaitS);
  const summaries = crawlers.map((c) => summarise(records, c.label));
  const [us, ...baselines] = summaries;
  console.log(`\n${crawlTable(summaries)}\n`);
  const ratioRows = baselines.map((b) => [
    `greenfinger / ${b.label}`,
    fmt(us.wallS / b.wallS, 2),
    fmt(us.peakRssMb / b.peakRssMb, 2),
    fmt(us.cpuS / us.html200 / (b.cpuS / b.html200), 2),
    fmt(us.htmlPerS / b.htmlPerS, 2),
  ]);
  if (ratioRows.length) {
    console.log(
      `${mdTable(['ratio (medians)', 'wall', 'peak RSS', 'CPU per html page', 'html pages/s'], ratioRows)}\n`,
    );
  }
  console.log(stageLine(records.filter((r) => r.crawler === us.label)));
  const goals = [];
  const cr = summaries.find((s) => s.label === 'crawlee');
  if (us.label === 'greenfinger' && cr) {
    goals.push(
      goal(
        `${corpusName}: wall ≤ ½ Crawlee's`,
        us.wallS <= cr.wallS / 2,
        `${fmt(us.wallS, 2)} s vs ${fmt(cr.wallS, 2)} s (ratio ${fmt(us.wallS / cr.wallS, 2)}, limit 0.50)`,
      ),
      goal(
        `${corpusName}: peak RSS ≤ ½ Crawlee's`,
        us.peakRssMb <= cr.peakRssMb / 2,
        `${fmt(us.peakRssMb, 0)} MB vs ${fmt(cr.peakRssMb, 0)} MB (ratio ${fmt(us.peakRssMb / cr.peakRssMb, 2)}, limit 0.50)`,
      ),
    );
  }
  const saved = savedOnce(records.filter((r) => r.crawler.startsWith('greenfinger')));
  goals.push(goal(`${corpusName}: every page saved exactly once`, saved.pass, saved.detail));
  saveResults(corpusName, { runs, summaries, records, goals, stages: stageLine(records) });
  return { summaries, goals };
}

/** `latency`: handbook behind a 50 ms proxy vs without, our crawl with `concurrency` per host. */
export async function latencyBench({ runs = 3, latencyMs = 50, concurrency = 64, quietWaitS } = {}) {
  // Twice as many pages in flight as requests per host: a page and then its pictures are fetched one after the
  // other, so half the pages in flight are between requests at any moment.
  const threads = 2 * concurrency;
  const plain = ours('no latency', { concurrency, threads });
  const slow = ours(`latency ${latencyMs} ms`, { concurrency, threads });
  console.log(`\n== latency: handbook, host concurrency ${concurrency}, ${latencyMs} ms vs none, ${runs} run(s) ==`);
  const records = await runAll(
    'handbook',
    [plain, slow],
    runs,
    (c) => ({ latencyMs: c === slow ? latencyMs : 0 }),
    quietWaitS,
  );
  const a = summarise(records, plain.label);
  const b = summarise(records, slow.label);
  console.log(`\n${crawlTable([a, b])}\n`);
  const slowRuns = records.filter((r) => r.crawler === slow.label);
  const maxInFlight = Math.max(...slowRuns.map((r) => Number(r.proxy?.maxInFlight ?? Number.NaN)));
  const maxConnections = Math.max(...slowRuns.map((r) => Number(r.proxy?.maxConnections ?? Number.NaN)));
  const boundS = (b.requests * latencyMs) / 1000 / concurrency;
  console.log(
    `latency floor: ${b.requests} requests × ${latencyMs} ms / ${concurrency} in flight = ${fmt(boundS, 1)} s ` +
      `(best possible ${fmt(b.pages / boundS, 0)} pages/s); measured ${fmt(b.wallS, 1)} s = ${fmt((boundS / b.wallS) * 100, 0)}% of the ideal overlap`,
  );
  console.log(`proxy: maxInFlight ${maxInFlight}, maxConnections ${maxConnections}\n`);
  console.log(stageLine(records));
  const goals = [
    goal(
      'latency: throughput within 30% of no latency',
      b.pagesPerS >= 0.7 * a.pagesPerS,
      `${fmt(b.pagesPerS, 0)} vs ${fmt(a.pagesPerS, 0)} pages/s (${fmt((b.pagesPerS / a.pagesPerS) * 100, 0)}%, need ≥ 70%; ` +
        `floor at this concurrency ${fmt(b.pages / boundS, 0)} pages/s = ${fmt((b.pages / boundS / a.pagesPerS) * 100, 0)}%)`,
    ),
    goal(
      'latency: proxy maxInFlight ≤ host concurrency',
      maxInFlight <= concurrency,
      `maxInFlight ${maxInFlight}, configured ${concurrency} (maxConnections ${maxConnections})`,
    ),
  ];
  const saved = savedOnce(records);
  goals.push(goal('latency: every page saved exactly once', saved.pass, saved.detail));
  saveResults('latency', { runs, latencyMs, concurrency, summaries: [a, b], boundS, maxInFlight, records, goals });
  return { summaries: [a, b], goals };
}

/** `vectors`: the python corpus with vectors on vs off. */
export async function vectorsBench({ runs = 3, quietWaitS } = {}) {
  const on = ours('vectors on', { outputs: 'file+index+vector' });
  const off = ours('vectors off', { outputs: 'file+index' });
  console.log(`\n== vectors: python, file+index+vector vs file+index, ${runs} run(s) ==`);
  const records = await runAll('python', [on, off], runs, () => ({ timeoutMs: 1_800_000 }), quietWaitS);
  const a = summarise(records, on.label);
  const b = summarise(records, off.label);
  console.log(`\n${crawlTable([a, b])}\n`);
  const onRuns = records.filter((r) => r.crawler === on.label);
  const offRuns = records.filter((r) => r.crawler === off.label);
  const emb = onRuns.map((r) => r.report?.embedding).filter(Boolean);
  const msPerPage = median(emb.map((e) => e.msPerPage));
  const chunks = median(emb.map((e) => e.chunks));
  const spanOn = median(onRuns.map((r) => r.log.fetchSpanS));
  const spanOff = median(offRuns.map((r) => r.log.fetchSpanS));
  const gapOn = Math.max(...onRuns.map((r) => r.log.maxGapMs));
  const gapOff = Math.max(...offRuns.map((r) => r.log.maxGapMs));
  const tailOn = median(onRuns.map((r) => r.wallS - r.log.fetchSpanS));
  const busyOn = Math.min(...onRuns.map((r) => r.log.busySeconds));
  console.log(
    mdTable(
      ['', 'vectors on', 'vectors off'],
      [
        ['embedding ms/page (report)', fmt(msPerPage, 1), '—'],
        ['chunks embedded', chunks, '—'],
        ['model', emb[0] ? `${emb[0].provider} ${emb[0].model} (${emb[0].dims}-d)` : 'n/a', '—'],
        ['vectored pages', median(onRuns.map((r) => r.report?.produced.vectored)), '—'],
        ['fetch span s (first → last request)', fmt(spanOn, 2), fmt(spanOff, 2)],
        ['largest gap between two requests ms', gapOn, gapOff],
        [
          'seconds of the fetch span with a request',
          `${fmt(busyOn * 100, 0)}%`,
          `${fmt(Math.min(...offRuns.map((r) => r.log.busySeconds)) * 100, 0)}%`,
        ],
        [
          'wall after the last request s (median)',
          fmt(tailOn, 2),
          fmt(median(offRuns.map((r) => r.wallS - r.log.fetchSpanS)), 2),
        ],
      ],
    ),
  );
  console.log(stageLine(onRuns));
  const goals = [
    goal(
      'vectors: report gives embedding cost per page',
      Number.isFinite(msPerPage) && emb.length === onRuns.length,
      `report.embedding.msPerPage ${fmt(msPerPage, 1)} ms over ${chunks} chunks (${emb.length}/${onRuns.length} runs)`,
    ),
    goal(
      'vectors: the crawl kept fetching while embedding',
      gapOn < 1000 && busyOn >= 0.95,
      `largest gap between requests ${gapOn} ms (need < 1000), ${fmt(busyOn * 100, 0)}% of the seconds saw a request (need ≥ 95%); ` +
        `fetch span ${fmt(spanOn, 1)} s vs ${fmt(spanOff, 1)} s without vectors (${fmt(spanOn / spanOff, 1)}×: the crawl is paced by embedding)`,
    ),
  ];
  const saved = savedOnce(records);
  goals.push(goal('vectors: every page saved exactly once', saved.pass, saved.detail));
  saveResults('vectors', { runs, summaries: [a, b], msPerPage, spanOn, spanOff, gapOn, records, goals });
  return { summaries: [a, b], goals };
}

/**
 * `extractor`: what the default extractor costs on a site that needs no browser. The handbook crawled with
 * `--extractor http` (the baseline: no detector), `adaptive` (the default: the RenderingDetector until the render
 * memory knows a pattern, GF_RENDER_MEMORY_STATIC pages) and `adaptive` with the memory off for static patterns
 * (GF_RENDER_MEMORY_STATIC=0: every page put to the detector), alternating, each on a fresh data dir.
 */
export async function extractorBench({ runs = 3, corpus = 'handbook', quietWaitS } = {}) {
  const http = ours('http', { extractor: 'http' });
  const adaptive = ours('adaptive', { extractor: 'adaptive' });
  const always = ours('adaptive, detector on every page', {
    extractor: 'adaptive',
    env: { GF_RENDER_MEMORY_STATIC: '0' },
  });
  const crawlers = [http, adaptive, always];
  console.log(`\n== extractor: ${corpus}, ${crawlers.map((c) => c.label).join(' vs ')}, ${runs} run(s) ==`);
  const records = await runAll(corpus, crawlers, runs, () => ({}), quietWaitS);
  const summaries = crawlers.map((c) => summarise(records, c.label));
  console.log(`\n${crawlTable(summaries)}\n`);
  const [base] = summaries;
  const ratioRows = summaries
    .slice(1)
    .map((s) => [
      `${s.label} / http`,
      fmt(s.wallS / base.wallS, 3),
      fmt(s.cpuS / base.cpuS, 3),
      fmt(s.peakRssMb / base.peakRssMb, 3),
    ]);
  console.log(`${mdTable(['ratio (medians)', 'wall', 'CPU', 'peak RSS'], ratioRows)}\n`);
  const adaptiveRuns = records.filter((r) => r.crawler !== http.label);
  const memory = adaptiveRuns.map((r) => r.report?.rendered?.memory);
  for (const c of crawlers.slice(1)) {
    const m = records.find((r) => r.crawler === c.label)?.report?.rendered?.memory;
    console.log(`${c.label}: detector asked ${m?.detected ?? 'n/a'}, not asked ${m?.overHttp ?? 'n/a'}`);
  }
  const inProcess = await decisionCost(corpus);
  console.log(
    `in-process, the adaptive extractor's own work per html page of ${corpus} (${inProcess.pages} pages, CPU): ` +
      `with the render memory ${fmt(inProcess.withMemoryUs, 0)} µs (detector asked ${inProcess.detected} times), ` +
      `detector on every page ${fmt(inProcess.everyPageUs, 0)} µs; the http crawl's CPU per page: ` +
      `${fmt((base.cpuS * 1e6) / base.pages, 0)} µs\n`,
  );
  const rendered = adaptiveRuns.map((r) => r.report?.rendered?.pages ?? Number.NaN);
  const a = summaries[1];
  const goals = [
    goal(
      `extractor: adaptive renders nothing on ${corpus} (no browser started)`,
      rendered.every((n) => n === 0) && memory.every((m) => m?.toBrowser === 0),
      `${rendered.join(', ')} pages rendered over ${adaptiveRuns.length} adaptive crawls`,
    ),
    goal(
      'extractor: the default costs nothing measurable (median CPU and wall within 5% of http)',
      a.cpuS <= base.cpuS * 1.05 && a.wallS <= base.wallS * 1.05,
      `CPU ${fmt(a.cpuS, 2)} vs ${fmt(base.cpuS, 2)} s (${fmt(a.cpuS / base.cpuS, 3)}), wall ${fmt(a.wallS, 2)} vs ${fmt(base.wallS, 2)} s (${fmt(a.wallS / base.wallS, 3)})`,
    ),
  ];
  const saved = savedOnce(records);
  goals.push(goal(`extractor: every page saved exactly once`, saved.pass, saved.detail));
  saveResults('extractor', { corpus, runs, summaries, records, goals, inProcess });
  return { summaries, goals };
}

/**
 * What the adaptive extractor adds to a page that needs no browser, measured in this process on the corpus's html
 * files (read once, beforehand): the url pattern, the render memory's read and count (a real FileRenderMemory in a
 * temp dir), the policy, and the RenderingDetector when the policy asks for it — with the default policy, and with
 * the detector on every page. CPU µs per page, best of 3 passes.
 */
export async function decisionCost(corpusName) {
  const root = CORPUS_ROOT[corpusName];
  const files = execFileSync('find', ['-L', root, '-type', 'f', '-name', '*.html'], { encoding: 'utf8' })
    .trim()
    .split('\n');
  const { readFileSync } = await import('node:fs');
  const pages = files.map((f) => ({
    url: new URL(`http://127.0.0.1:8083${f.slice(root.length)}`).href,
    body: readFileSync(f),
  }));
  const detector = createRenderingDetector();
  const pass = async (policy) => {
    const dir = mkdtempSync(join(tmpdir(), 'gf-bench-memory-'));
    const memory = new FileRenderMemory(dir);
    let detected = 0;
    const t0 = process.cpuUsage();
    for (const p of pages) {
      const u = new URL(p.url);
      const pattern = renderPattern(u);
      const advice = adviseRender(await memory.get(u.host, pattern), policy);
      if (advice === 'detect') {
        detected++;
        detector.decide(p.body.toString('latin1'));
        await memory.record(u.host, pattern, { needed: 'http', checked: true });
      } else {
        await memory.record(u.host, pattern, { needed: 'unchecked', checked: false });
      }
    }
    const cpu = process.cpuUsage(t0);
    await memory.close();
    rmSync(dir, { recursive: true, force: true });
    return { us: (cpu.user + cpu.system) / pages.length, detected };
  };
  const best = async (policy) => {
    let r;
    for (let i = 0; i < 3; i++) {
      const x = await pass(policy);
      if (!r || x.us < r.us) r = x;
    }
    return r;
  };
  const withMemory = await best(DEFAULT_RENDER_POLICY);
  const everyPage = await best({ ...DEFAULT_RENDER_POLICY, staticAfter: 0 });
  return { pages: pages.length, withMemoryUs: withMemory.us, detected: withMemory.detected, everyPageUs: everyPage.us };
}
