// Summarises V8 .cpuprofile files (node --cpu-prof): self time per file and the top functions by self time.
// Run: node bench/profile-summary.mjs <dir-or-file>... [--top N]
// One table per profile (the main thread and every worker thread write their own), then all of them together.
// Self time of a sample = the interval to the next sample; "(idle)" is reported apart, shares are of busy time.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));

function shortFile(url) {
  if (!url) return '(native / v8)';
  let f = url.replace(/^file:\/\//, '');
  const pnpm = f.indexOf('/node_modules/.pnpm/');
  if (pnpm >= 0) {
    const rest = f.slice(pnpm + '/node_modules/.pnpm/'.length);
    const inner = rest.indexOf('/node_modules/');
    return `npm:${inner >= 0 ? rest.slice(inner + '/node_modules/'.length) : rest}`;
  }
  if (f.startsWith(repoRoot)) f = relative(repoRoot, f);
  return f;
}

/** Self time (ms) per node id of one profile. */
export function selfTimes(profile) {
  const self = new Map();
  const { samples = [], timeDeltas = [] } = profile;
  for (let i = 0; i < samples.length; i++) {
    // timeDeltas[i] is the time before sample i; charge it to the sample that follows it.
    const dt = (timeDeltas[i + 1] ?? timeDeltas[i] ?? 0) / 1000;
    self.set(samples[i], (self.get(samples[i]) ?? 0) + dt);
  }
  return self;
}

/** Aggregates one profile into per-function and per-file self time. */
export function summarise(profile) {
  const self = selfTimes(profile);
  const byFunction = new Map();
  const byFile = new Map();
  const byOwner = new Map();
  const parent = new Map();
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const owner = (node) => {
    for (let n = node, guard = 0; n && guard < 10_000; n = nodes.get(parent.get(n.id)), guard++) {
      const url = n.callFrame.url;
      if (url && !url.startsWith('node:')) return shortFile(url);
    }
    return shortFile(node.callFrame.url);
  };
  let total = 0;
  let idle = 0;
  for (const node of profile.nodes) {
    const ms = self.get(node.id) ?? 0;
    if (ms === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idle += ms;
      continue;
    }
    total += ms;
    const file = shortFile(url);
    const name = functionName || (url ? '(anonymous)' : node.callFrame.functionName || '(root)');
    const key = `${name} ${file}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + ms);
    byFile.set(file, (byFile.get(file) ?? 0) + ms);
    const o = owner(node);
    byOwner.set(o, (byOwner.get(o) ?? 0) + ms);
  }
  return { total, idle, byFunction, byFile, byOwner };
}

function merge(into, from) {
  into.total += from.total;
  into.idle += from.idle;
  for (const k of ['byFunction', 'byFile', 'byOwner'])
    for (const [key, ms] of from[k]) into[k].set(key, (into[k].get(key) ?? 0) + ms);
  return into;
}

function print(title, s, top) {
  const pct = (ms) => `${((ms / s.total) * 100).toFixed(1)}%`;
  const rows = (map, n) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, ms]) => `| ${k.replaceAll('|', '\\|')} | ${ms.toFixed(0)} | ${pct(ms)} |`);
  console.log(
    `\n### ${title}: ${(s.total / 1000).toFixed(2)} s busy, ${(s.idle / 1000).toFixed(2)} s idle (shares are of busy time)\n`,
  );
  console.log('| file | self ms | share |\n|---|---|---|');
  console.log(rows(s.byFile, top).join('\n'));
  console.log(
    '\n| file, with native and node: time charged to the nearest calling package or project file | ms | share |',
  );
  console.log('|---|---|---|');
  console.log(rows(s.byOwner, top).join('\n'));
  console.log('\n| function | self ms | share |\n|---|---|---|');
  console.log(rows(s.byFunction, top).join('\n'));
}

function profilesIn(paths) {
  const out = [];
  for (const p of paths) {
    if (statSync(p).isDirectory()) {
      for (const f of readdirSync(p).sort()) if (f.endsWith('.cpuprofile')) out.push(join(p, f));
    } else out.push(p);
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? Number(args[topAt + 1]) : 15;
  const paths = args.filter((a, i) => a !== '--top' && i !== topAt + 1);
  if (paths.length === 0) {
    console.error('usage: node bench/profile-summary.mjs <dir-or-.cpuprofile>... [--top N]');
    process.exit(2);
  }
  const files = profilesIn(paths);
  const all = { total: 0, idle: 0, byFunction: new Map(), byFile: new Map(), byOwner: new Map() };
  const summaries = files
    .map((f) => ({ f, s: summarise(JSON.parse(readFileSync(f, 'utf8'))) }))
    .sort((a, b) => b.s.total - a.s.total);
  for (const { f, s } of summaries) {
    print(relative(process.cwd(), f) || f, s, top);
    merge(all, s);
  }
  if (summaries.length > 1) print(`all ${summaries.length} profiles (threads) together`, all, top);
}
