// `render`: the adaptive extractor against always-browser on a mixed site (issue 17): client-rendered pages (a
// framework-free script builds each article from JSON) among static ones, on 127.0.0.1. Each crawl is the CLI
// (`crawl --extractor adaptive|browser --json`) in a child process, measured with its whole process tree (Chromium
// included): wall time, pages per second, peak tree RSS, pages rendered. Options: --client N (200), --static N (2000).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure, waitForQuiet } from './lib/measure.mjs';
import { fmt, goal, mdTable, repoRoot, saveResults } from './lib/report.mjs';

const CLI = join(repoRoot, 'packages/shell/dist/bin.js');
const PER_LIST = 100;

const sentence = (seed, i) => `${seed} sentence ${i} says something plain that a reader would want to read.`;
const paragraph = (seed, n) => Array.from({ length: n }, (_, i) => sentence(seed, i)).join(' ');
const html = (title, body) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

/** The mixed site: `/` links to lists of 100 pages each; `/s/N` static, `/c/N` rendered on the client. */
export function startMixedSite({ client, statics }) {
  const pages = [
    ...Array.from({ length: statics }, (_, i) => `/s/${i}`),
    ...Array.from({ length: client }, (_, i) => `/c/${i}`),
  ];
  // Client pages spread evenly among the static ones.
  pages.sort((a, b) => hash(a) - hash(b));
  const lists = Math.ceil(pages.length / PER_LIST);
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (type, body) => res.writeHead(200, { 'content-type': `${type}; charset=utf-8` }).end(body);
    if (path === '/') {
      return send(
        'text/html',
        html(
          'Home',
          `<h1>Home</h1><p>${paragraph('Home', 4)}</p>${Array.from({ length: lists }, (_, i) => `<a href="/list/${i}">List ${i}</a>`).join(' ')}`,
        ),
      );
    }
    let m = /^\/list\/(\d+)$/.exec(path);
    if (m) {
      const links = pages.slice(Number(m[1]) * PER_LIST, (Number(m[1]) + 1) * PER_LIST);
      return send(
        'text/html',
        html(
          `List ${m[1]}`,
          `<h1>List ${m[1]}</h1><p>${paragraph('List', 4)}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}`,
        ),
      );
    }
    m = /^\/s\/(\d+)$/.exec(path);
    if (m)
      return send(
        'text/html',
        html(`Static ${m[1]}`, `<article><h1>Static ${m[1]}</h1><p>${paragraph(`Static${m[1]}`, 6)}</p></article>`),
      );
    m = /^\/c\/(\d+)$/.exec(path);
    if (m) return send('text/html', html(`Client ${m[1]}`, `<div id="root"></div><script src="/app.js"></script>`));
    m = /^\/data\/c\/(\d+)\.json$/.exec(path);
    if (m)
      return send('application/json', JSON.stringify({ title: `Client ${m[1]}`, text: paragraph(`Client${m[1]}`, 6) }));
    if (path === '/app.js') {
      return send(
        'application/javascript',
        `fetch('/data' + location.pathname + '.json').then((r) => r.json()).then((a) => {
  const root = document.getElementById('root');
  const h = document.createElement('h1'); h.textContent = a.title; root.appendChild(h);
  const p = document.createElement('p'); p.textContent = a.text; root.appendChild(p);
});`,
      );
    }
    if (path === '/robots.txt') return send('text/plain', 'User-agent: *\nAllow: /\n');
    res.writeHead(404).end();
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        origin: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((r) => {
            server.close(() => r());
            server.closeAllConnections();
          }),
      });
    });
  });
}

function hash(s) {
  let h = 2166136261;
  for (const c of s) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return h;
}

async function crawlOnce(origin, extractor) {
  const data = mkdtempSync(join(tmpdir(), `gf-bench-render-${extractor}-`));
  try {
    const args = [CLI, 'crawl', '--url', `${origin}/`, '--data', data, '--json', '--extractor', extractor];
    args.push('--interval', '0', '--threads', '4', '--host-concurrency', '4', '--outputs', 'file+index');
    // Always-browser at full size takes longer than a catalog's default 30-minute limit.
    args.push('--no-images', '--no-sitemap', '--duration', '240');
    const r = await measure(process.execPath, args, { timeoutMs: 3_600_000, env: { ...process.env, GF_WORKERS: '1' } });
    let report;
    try {
      report = JSON.parse(r.stdout);
    } catch {
      throw new Error(`crawl --extractor ${extractor} printed no report (exit ${r.code}): ${r.stderr.slice(-800)}`);
    }
    const saved = report.produced?.saved ?? 0;
    return {
      extractor,
      wallS: r.wallS,
      cpuS: r.cpuS,
      saved,
      pagesPerS: saved / r.wallS,
      rendered: report.rendered?.pages ?? 0,
      reasons: report.rendered?.reasons ?? {},
      memory: report.rendered?.memory,
      treeRssPeakMb: r.treeRssPeakMb,
      peakRssMb: r.peakRssMb,
      ending: report.ending?.reason,
    };
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

export async function renderBench({ client = 200, statics = 2000, quietWaitS } = {}) {
  const site = await startMixedSite({ client, statics });
  const runs = [];
  try {
    for (const extractor of ['adaptive', 'browser']) {
      if (quietWaitS > 0) await waitForQuiet({ maxWaitS: quietWaitS });
      const run = await crawlOnce(site.origin, extractor);
      console.log(`${extractor}: ${fmt(run.wallS)} s, ${run.saved} saved, ${run.rendered} rendered`);
      runs.push(run);
    }
  } finally {
    await site.close();
  }
  const [adaptive, browser] = runs;
  console.log(`\n### render: ${client} client pages among ${statics} static ones\n`);
  console.log(
    mdTable(
      ['extractor', 'wall s', 'CPU s', 'saved', 'pages/s', 'rendered', 'peak RSS, tree (MB)', 'peak RSS, crawler (MB)'],
      runs.map((r) => [
        r.extractor,
        fmt(r.wallS),
        fmt(r.cpuS),
        r.saved,
        fmt(r.pagesPerS),
        r.rendered,
        fmt(r.treeRssPeakMb, 0),
        fmt(r.peakRssMb, 0),
      ]),
    ),
  );
  for (const r of runs) {
    console.log(
      `${r.extractor}: rendered for ${JSON.stringify(r.reasons)}; render memory ${JSON.stringify(r.memory ?? {})}`,
    );
  }
  // Pages per second, so a run a limit ended early still compares (the wall ratio too, when both drained).
  const speedup = adaptive.pagesPerS / browser.pagesPerS;
  const drained = runs.every((r) => r.ending === 'frontier-drained');
  const goals = [
    goal(
      'adaptive renders only the client pages',
      adaptive.rendered === client,
      `${adaptive.rendered} rendered of ${client} client pages`,
    ),
    goal(
      'adaptive at least 5x faster than always-browser (pages per second)',
      speedup >= 5,
      `${fmt(speedup)}x${drained ? ` (wall ${fmt(browser.wallS / adaptive.wallS)}x)` : `; not every run drained: ${runs.map((r) => `${r.extractor} ${r.ending}`).join(', ')}`}`,
    ),
  ];
  saveResults('render', { client, statics, runs, speedup, goals });
  return { goals };
}
