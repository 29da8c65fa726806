// `soak`: the scale check of issue 26 item 7. A generated site of --pages pages (default 100,000; bench/soak-site.mjs)
// served from this process on loopback, crawled once by our CLI with --outputs file+index, as a measured child.
// Goals: the crawler's peak RSS < 500 MB, and pages/s over the last tenth of the pages served at least 80 % of the
// first tenth's (the crawl does not slow down as its frontier, url filter, files and index grow).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure, waitForQuiet } from './lib/measure.mjs';
import { fmt, goal, machine, mdTable, repoRoot, saveResults } from './lib/report.mjs';
import { startSoakSite } from './soak-site.mjs';

const BIN = join(repoRoot, 'packages/shell/dist/bin.js');
/** The malloc tuning the ./greenfinger wrapper sets (the wrapper is not used: it would rebuild a changed tree). */
const MALLOC_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '0', MALLOC_TOP_PAD_: '0' };

/** Pages/s over each tenth of the pages served, by count: [first, …, last]. */
export function tenths(times) {
  const t = [...times].sort((a, b) => a - b);
  const out = [];
  const n = t.length;
  for (let k = 0; k < 10; k++) {
    const from = Math.floor((k * n) / 10);
    const to = Math.floor(((k + 1) * n) / 10) - 1;
    const spanS = (t[to] - t[from]) / 1000;
    out.push(spanS > 0 ? (to - from) / spanS : Number.NaN);
  }
  return out;
}

export async function soakBench({ pages = 100_000, threads = 16, quietWaitS = 60, timeoutMin = 90 } = {}) {
  console.log(`\n== soak: a generated site of ${pages.toLocaleString('en')} pages, --outputs file+index ==`);
  const quiet = await waitForQuiet({ maxWaitS: quietWaitS });
  const site = await startSoakSite(pages);
  console.log(
    `site ${site.url}: ${site.shape.articles} articles + ${site.shape.listings} listings = ${site.shape.total}`,
  );
  const data = mkdtempSync(join(tmpdir(), 'gf-bench-soak-'));
  let m;
  try {
    m = await measure(
      process.execPath,
      [
        BIN,
        'crawl',
        '--url',
        `${site.url}/`,
        '--json',
        '--data',
        data,
        '--outputs',
        'file+index',
        '--sitemap',
        '--interval',
        '0',
        '--threads',
        String(threads),
        '--host-concurrency',
        String(threads),
        '--max-pages',
        String(site.shape.total + 1000),
        '--duration',
        String(timeoutMin),
        '--no-images',
        // Every page is wanted: the site's pagination (116 pages a category at 100,000) and its "next article" links
        // (/a/N.html found on /a/N-1.html) are numeric sequences, which the trap budget cuts at 100 urls each.
        '--trap-pattern-urls',
        String(site.shape.total),
      ],
      { cwd: repoRoot, env: { ...process.env, ...MALLOC_ENV }, timeoutMs: (timeoutMin + 5) * 60_000 },
    );
  } catch (err) {
    rmSync(data, { recursive: true, force: true });
    throw err;
  } finally {
    await site.stop();
  }
  // The figures first: deleting 100,000 pages' files takes minutes on a disk that discards freed blocks.
  process.on('exit', () => rmSync(data, { recursive: true, force: true }));
  let report;
  try {
    report = JSON.parse(m.stdout);
  } catch {
    throw new Error(`soak crawl failed (${m.code}${m.timedOut ? ', timed out' : ''}): ${m.stderr.slice(-800)}`);
  }
  const rates = tenths(site.served);
  const [first, last] = [rates[0], rates[9]];
  const stats = site.stats();
  const record = {
    pages: site.shape,
    saved: report.produced.saved,
    served: stats,
    ending: report.ending,
    rejected: report.rejected,
    wallS: m.wallS,
    cpuS: m.cpuS,
    otherCpuS: m.otherCpuS,
    peakRssMb: m.peakRssMb,
    tenthsPagesPerS: rates,
    quietBefore: quiet,
    machine: machine(),
  };
  console.log(
    `\n${mdTable(
      ['site pages', 'saved', 'requests', 'wall s', 'CPU s', 'rest of machine CPU s', 'peak RSS MB', 'pages/s overall'],
      [
        [
          site.shape.total,
          report.produced.saved,
          stats.requests,
          fmt(m.wallS, 1),
          fmt(m.cpuS, 1),
          fmt(m.otherCpuS, 1),
          fmt(m.peakRssMb, 0),
          fmt(stats.pages / m.wallS, 1),
        ],
      ],
    )}\n`,
  );
  console.log(`pages/s by tenth of the pages served: ${rates.map((r) => fmt(r, 0)).join(', ')}`);
  const refused = Object.entries(report.rejected ?? {}).sort((a, b) => b[1] - a[1]);
  console.log(`refused: ${refused.map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}\n`);
  const goals = [
    goal(
      'soak: every page saved',
      report.produced.saved >= site.shape.total,
      `${report.produced.saved} of ${site.shape.total} (${report.ending.reason})`,
    ),
    goal('soak: peak RSS < 500 MB', m.peakRssMb < 500, `${fmt(m.peakRssMb, 0)} MB`),
    goal(
      'soak: last tenth ≥ 80 % of the first tenth (pages/s)',
      last >= 0.8 * first,
      `${fmt(last, 1)} vs ${fmt(first, 1)} pages/s (ratio ${fmt(last / first, 2)})`,
    ),
  ];
  saveResults('soak', { ...record, goals });
  return { goals };
}
