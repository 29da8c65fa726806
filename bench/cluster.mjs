// `npm run bench -- cluster`: one member against three, side by side in the same run, on the handbook behind the
// corpus server's --latency 50 proxy. Every side gets a fresh corpus server, fresh data roots (per-node SQLite), a
// cluster name of its own in Redis (GF_REDIS_URL) and `greenfinger node` processes started for it; the crawl is sent
// with `greenfinger crawl --cluster … --json` and timed from its start to its merged report. Runs alternate the order.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCorpus } from '../packages/core/test/support/corpus.ts';
import { warmCorpus } from './crawl.mjs';
import { waitForQuiet } from './lib/measure.mjs';
import { fmt, goal, mdTable, median, repoRoot, saveResults } from './lib/report.mjs';

const BIN = join(repoRoot, 'packages/shell/dist/bin.js');

/** GF_BENCH_PROFILE=DIR: every member writes a V8 CPU profile there (read with bench/profile-summary.mjs). */
const PROFILE = process.env.GF_BENCH_PROFILE;

function run(args, env, { stdout = false } = {}) {
  const node = PROFILE && args[0] === 'node' ? ['--cpu-prof', '--cpu-prof-dir', PROFILE] : [];
  const child = spawn(process.execPath, [...node, BIN, ...args], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (b) => {
    if (stdout) out += b;
  });
  child.stderr.on('data', (b) => {
    err += b;
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, out, err })));
  return { child, exited };
}

async function status(cluster, env) {
  const { exited } = run(['status', '--cluster', cluster, '--json'], env, { stdout: true });
  const r = await exited;
  return r.code === 0 ? JSON.parse(r.out) : undefined;
}

/** One side: `nodes` members on one machine, the handbook crawled through them. */
async function side(nodes, { latencyMs, threads, hostConcurrency, redisUrl }) {
  const corpus = await startCorpus('handbook', { latencyMs });
  const dir = mkdtempSync(join(tmpdir(), `gf-bench-cluster-${nodes}-`));
  const cluster = `bench${nodes}x${process.pid}${Date.now() % 100000}`;
  const env = { ...process.env, GF_REDIS_URL: redisUrl, DATABASE_URL: '', GF_WORKERS: '1', GF_LOG_LEVEL: 'warn' };
  const members = [];
  try {
    for (let i = 1; i <= nodes; i++) {
      const name = `n${i}`;
      members.push(run(['node', '--cluster', cluster, '--data', join(dir, name), '--node-name', name], env));
    }
    for (let i = 0; i < 120; i++) {
      const s = await status(cluster, env);
      if (s && s.members.length === nodes && s.leader) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const started = performance.now();
    const crawl = run(
      [
        'crawl',
        '--cluster',
        cluster,
        '--url',
        `${corpus.url}/`,
        '--interval',
        '0',
        '--threads',
        String(threads),
        '--host-concurrency',
        String(hostConcurrency),
        '--outputs',
        'file+index',
        '--json',
      ],
      env,
      { stdout: true },
    );
    const done = await crawl.exited;
    const wallS = (performance.now() - started) / 1000;
    if (done.code !== 0) throw new Error(`crawl --cluster exited ${done.code}: ${done.err.slice(-500)}`);
    const report = JSON.parse(done.out);
    const log = corpus.accessLog().filter((l) => !l.userAgent.startsWith('curl/'));
    const pages = log.filter((l) => l.status === 200 && l.contentType.startsWith('text/html'));
    const byPath = new Map();
    for (const p of pages) byPath.set(p.path, (byPath.get(p.path) ?? 0) + 1);
    const times = log.map((l) => l.msec).sort((a, b) => a - b);
    return {
      nodes,
      wallS,
      /** First to last request the corpus answered: the crawl itself, without starting and completing the run. */
      fetchSpanS: times.length > 1 ? (times.at(-1) - times[0]) / 1000 : 0,
      /** The merged report's first start to last end over the members. */
      reportS: report.elapsedMs / 1000,
      saved: report.produced.saved,
      pages: byPath.size,
      pagesFetchedTwice: [...byPath.values()].filter((n) => n > 1).length,
      requests: log.length,
      pagesPerS: byPath.size / wallS,
      fetchPagesPerS: byPath.size / ((times.at(-1) - times[0]) / 1000),
      byNode: Object.fromEntries(Object.entries(report.byNode).map(([n, r]) => [n, r.produced.saved])),
    };
  } finally {
    for (const m of members) m.child.kill('SIGTERM');
    await Promise.race([Promise.all(members.map((m) => m.exited)), new Promise((r) => setTimeout(r, 20_000))]);
    for (const m of members) if (m.child.exitCode === null) m.child.kill('SIGKILL');
    await corpus.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The catalog's defaults (16 threads, 2 requests at a time per host) unless given. */
export async function clusterBench({ runs = 3, latencyMs = 50, threads = 16, hostConcurrency = 2, quietWaitS } = {}) {
  const redisUrl = process.env.GF_REDIS_URL || 'redis://127.0.0.1:6379';
  console.log(
    `\n== cluster: handbook behind --latency ${latencyMs}, 1 member vs 3 (each ${threads} threads, host concurrency ` +
      `${hostConcurrency}, per-node SQLite, Redis ${redisUrl}), ${runs} run(s) ==`,
  );
  warmCorpus('handbook');
  const records = [];
  for (let i = 0; i < runs; i++) {
    for (const nodes of i % 2 === 0 ? [1, 3] : [3, 1]) {
      const quiet = await waitForQuiet({ maxWaitS: quietWaitS ?? 60 });
      const r = await side(nodes, { latencyMs, threads, hostConcurrency, redisUrl });
      r.quiet = quiet.quiet;
      records.push(r);
      console.log(
        `run ${i + 1}, ${nodes} member${nodes > 1 ? 's' : ''}: ${r.pages} pages in ${fmt(r.wallS, 1)} s = ` +
          `${fmt(r.pagesPerS, 1)} pages/s (fetching ${fmt(r.fetchSpanS, 1)} s = ${fmt(r.fetchPagesPerS, 1)} pages/s, ` +
          `report ${fmt(r.reportS, 1)} s; ${r.requests} requests; by member ${JSON.stringify(r.byNode)})`,
      );
    }
  }
  const one = records.filter((r) => r.nodes === 1);
  const three = records.filter((r) => r.nodes === 3);
  const rate1 = median(one.map((r) => r.pagesPerS));
  const rate3 = median(three.map((r) => r.pagesPerS));
  console.log(
    `\n${mdTable(
      ['members', 'pages/s (median)', 'wall s (median)', 'pages', 'requests (median)', 'pages fetched twice'],
      [
        [
          1,
          fmt(rate1, 1),
          fmt(median(one.map((r) => r.wallS)), 1),
          median(one.map((r) => r.pages)),
          median(one.map((r) => r.requests)),
          Math.max(...one.map((r) => r.pagesFetchedTwice)),
        ],
        [
          3,
          fmt(rate3, 1),
          fmt(median(three.map((r) => r.wallS)), 1),
          median(three.map((r) => r.pages)),
          median(three.map((r) => r.requests)),
          Math.max(...three.map((r) => r.pagesFetchedTwice)),
        ],
      ],
    )}\n`,
  );
  const goals = [
    goal(
      'cluster: three members at 2.5× one or more',
      rate3 >= 2.5 * rate1,
      `${fmt(rate3, 1)} vs ${fmt(rate1, 1)} pages/s = ${fmt(rate3 / rate1, 2)}×`,
    ),
    goal(
      'cluster: every page fetched once',
      records.every((r) => r.pagesFetchedTwice === 0),
      `pages fetched twice per run: ${records.map((r) => r.pagesFetchedTwice).join(', ')}`,
    ),
  ];
  saveResults('cluster', { runs, latencyMs, threads, hostConcurrency, records, rate1, rate3, goals });
  return { goals };
}
