// `api-load`: the REST API under load, over a real crawl of the handbook corpus (file+index, through the API).
//   searches  --clients N (32) words searches in flight for --seconds S (10), with the searches on the event loop
//             (searchThreads 0, as before) and on the search threads (2): searches/s, and /v2/health every 20 ms
//             (p50, p99) meanwhile. Goals: health p99 under 50 ms on the threads, throughput at least the loop's.
//   sign-in   waves of 60 sign-ins at once (wrong passwords, limiter wide open) against stored-page reads
//             (GET /v2/resource/{id}/html): read p50/p99 with and without the flood. Goal: flood p99 under 100 ms.
//   crawl     a rebuild of the handbook alone, then with the searches on the threads in flight until it ends,
//             alternated --rounds N (2) times; the slowdown is of the sums. Goal: slowed by at most 15 %.
//   crawl-loop one rebuild with the searches on the event loop instead (about 100 s).
//   --phases searches,sign-in,crawl,crawl-loop (all) runs some of them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { buildApp, LoginLimiter } from '../packages/api/src/index.ts';
import { Greenfinger } from '../packages/core/src/index.ts';
import { startCorpus } from '../packages/core/test/support/corpus.ts';
import { fmt, goal, mdTable, percentile, saveResults } from './lib/report.mjs';

const ADMIN = { username: 'bench', password: 'bench load password 1' };
const QUERIES = ['package', 'network configuration', 'apt', 'kernel', 'firewall rules', 'debian', 'samba', 'ldap'];

async function crawlHandbook(data) {
  const corpus = await startCorpus('handbook');
  const gf = await Greenfinger.open({ settings: { dataStore: data } });
  await gf.users.add(ADMIN.username, ADMIN.password, 'admin');
  const app = await buildApp(gf, { searchThreads: 0 });
  try {
    const token = (await app.inject({ method: 'POST', url: '/v2/login', payload: ADMIN })).json().data.token;
    const as = { authorization: `Bearer ${token}` };
    const created = await app.inject({
      method: 'POST',
      url: '/v2/catalog',
      headers: as,
      payload: {
        name: 'handbook',
        url: `${corpus.url}/`,
        startUrl: corpus.startUrl,
        settings: { intervalMs: 0, outputs: ['file', 'index'], threads: 16, hostConcurrency: 16 },
      },
    });
    if (created.statusCode !== 201) throw new Error(created.body);
    const jobId = (await app.inject({ method: 'POST', url: '/v2/crawl/handbook', headers: as })).json().data.jobId;
    const until = Date.now() + 1_800_000;
    while (Date.now() < until && !gf.jobs.get(jobId)?.endedAt) await new Promise((r) => setTimeout(r, 500));
    const job = gf.jobs.get(jobId);
    console.log(`  crawled handbook: ${job?.report?.produced?.saved ?? '?'} pages`);
  } finally {
    await app.close();
    await gf.close();
    await corpus.stop();
  }
}

/** Open the server over `data` with `searchThreads`, listening on loopback; a signed-in client. */
async function serve(data, searchThreads, limiter) {
  const gf = await Greenfinger.open({ settings: { dataStore: data } });
  const app = await buildApp(gf, { searchThreads, ...(limiter ? { limiter } : {}) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${app.server.address().port}`;
  const res = await fetch(`${base}/v2/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  const token = (await res.json()).data.token;
  const get = async (path) => {
    const t0 = performance.now();
    const r = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
    await r.arrayBuffer();
    return { status: r.status, ms: performance.now() - t0 };
  };
  return {
    gf,
    app,
    base,
    token,
    get,
    close: async () => {
      await app.close();
      await gf.close();
    },
  };
}

/**
 * The clients run on a thread of their own (so their fetches do not share the server's event loop): `clients`
 * searches in flight for `seconds`, and /v2/health every 20 ms meanwhile.
 */
const CLIENTS = `
const { parentPort, workerData: w } = require('node:worker_threads');
let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const get = async (path) => {
  const t0 = performance.now();
  const r = await fetch(w.base + path, { headers: { authorization: 'Bearer ' + w.token } });
  await r.arrayBuffer();
  return { status: r.status, ms: performance.now() - t0 };
};
(async () => {
  const end = Date.now() + w.seconds * 1000;
  let done = 0, failed = 0;
  const health = [];
  const probe = async () => {
    while (Date.now() < end) {
      health.push((await get('/v2/health')).ms);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const client = async () => {
    while (Date.now() < end) {
      const q = encodeURIComponent(w.queries[Math.floor(rand() * w.queries.length)]);
      const r = await get('/v2/search?q=' + q + '&size=10');
      if (r.status === 200) done++; else failed++;
    }
  };
  await Promise.all([probe(), ...Array.from({ length: w.clients }, client)]);
  parentPort.postMessage({ done, failed, health });
})();
`;

async function searchLoad(data, searchThreads, clients, seconds) {
  const s = await serve(data, searchThreads);
  try {
    await s.get('/v2/search?q=debian'); // threads started, index opened
    const token = s.token;
    const out = await new Promise((resolve, reject) => {
      const w = new Worker(CLIENTS, {
        eval: true,
        workerData: { base: s.base, token, seconds, clients, queries: QUERIES },
      });
      w.once('message', resolve);
      w.once('error', reject);
    });
    return {
      searchThreads,
      perSecond: out.done / seconds,
      failed: out.failed,
      p50: percentile(out.health, 50),
      p99: percentile(out.health, 99),
    };
  } finally {
    await s.close();
  }
}

/**
 * One `rebuild` of the handbook through the API (every page fetched again into a new version), timed; with
 * `searching`, `clients` words searches stay in flight on a client thread until it ends.
 */
async function timedRebuild(data, searching, clients, searchThreads = 2) {
  const corpus = await startCorpus('handbook');
  const s = await serve(data, searchThreads);
  try {
    const catalogs = await s.gf.catalogs();
    const c = await catalogs.get({ name: 'handbook' });
    await catalogs.update(c.id, { url: `${corpus.url}/`, startUrl: corpus.startUrl });
    await s.get('/v2/search?q=debian');
    let stop = () => undefined;
    let load = Promise.resolve({ done: 0 });
    if (searching) {
      const w = new Worker(CLIENTS, {
        eval: true,
        workerData: { base: s.base, token: s.token, seconds: 3600, clients, queries: QUERIES },
      });
      load = new Promise((resolve) => w.once('exit', () => resolve({ done: Number.NaN })));
      stop = () => void w.terminate();
    }
    const t0 = performance.now();
    const res = await fetch(`${s.base}/v2/crawl/handbook/rebuild`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}` },
    });
    const jobId = (await res.json()).data.jobId;
    const until = Date.now() + 1_800_000;
    while (Date.now() < until && !s.gf.jobs.get(jobId)?.endedAt) await new Promise((r) => setTimeout(r, 200));
    const seconds = (performance.now() - t0) / 1000;
    stop();
    await load;
    return { searching, searchThreads, seconds, saved: s.gf.jobs.get(jobId)?.report?.produced?.saved ?? null };
  } finally {
    await s.close();
    await corpus.stop();
  }
}

async function signInFlood(data, seconds) {
  const s = await serve(data, 2, new LoginLimiter({ perUser: 1e9, perAddress: 1e9 }));
  try {
    const ids = await listIds(s);
    const reads = async (until) => {
      const ms = [];
      let i = 0;
      while (Date.now() < until) ms.push((await s.get(`/v2/resource/${ids[i++ % ids.length]}/html`)).ms);
      return ms;
    };
    const quiet = await reads(Date.now() + seconds * 500);
    const end = Date.now() + seconds * 1000;
    // Waves of 60 sign-ins sent at once, the next wave when the last answer of this one is in.
    const signIn = () =>
      fetch(`${s.base}/v2/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...ADMIN, password: 'wrong wrong wrong' }),
      }).then((r) => r.arrayBuffer());
    const waves = async () => {
      while (Date.now() < end) await Promise.all(Array.from({ length: 60 }, signIn));
    };
    const [flood] = await Promise.all([reads(end), waves()]);
    return {
      quietP50: percentile(quiet, 50),
      quietP99: percentile(quiet, 99),
      floodP50: percentile(flood, 50),
      floodP99: percentile(flood, 99),
    };
  } finally {
    await s.close();
  }
}

async function listIds(s) {
  const r = await s.gf.ledger.list({ catalog: { name: 'handbook' }, state: 'done', limit: 200, offset: 0 });
  return r.items.filter((i) => i.outcome === 'SAVED').map((i) => i.id);
}

const PHASES = ['searches', 'sign-in', 'crawl', 'crawl-loop'];

/**
 * `phases` (all by default): `searches`, `sign-in`, `crawl` (a rebuild alone, then beside the searches on the
 * threads, alternated `rounds` times, since a shared machine drifts between runs) and `crawl-loop` (one rebuild
 * beside the searches on the event loop, ~100 s).
 */
export async function apiLoadBench({
  clients = 32,
  seconds = 10,
  data,
  keep = false,
  phases = PHASES,
  rounds = 2,
} = {}) {
  const unknown = phases.filter((p) => !PHASES.includes(p));
  if (unknown.length) throw new TypeError(`--phases: unknown ${unknown.join(', ')} (choose from ${PHASES.join(', ')})`);
  const root = data ?? mkdtempSync(join(tmpdir(), 'gf-api-load-'));
  try {
    if (!data) await crawlHandbook(root);
    if (keep) console.log(`  data root kept: ${root} (--data ${root} reuses it)`);
    const goals = [];
    const out = { clients, seconds, rounds };
    if (phases.includes('searches')) {
      const loop = await searchLoad(root, 0, clients, seconds);
      const threads = await searchLoad(root, 2, clients, seconds);
      Object.assign(out, { loop, threads });
      console.log(
        mdTable(
          ['searches run', 'searches/s', 'failed', '/v2/health p50 ms', 'p99 ms'],
          [loop, threads].map((r) => [
            r.searchThreads ? `${r.searchThreads} threads` : 'event loop',
            fmt(r.perSecond),
            r.failed,
            fmt(r.p50),
            fmt(r.p99),
          ]),
        ),
      );
      goals.push(
        goal('health p99 < 50 ms with 32 searches in flight', threads.p99 < 50, `${fmt(threads.p99)} ms`),
        goal(
          'search throughput on threads >= on the loop',
          threads.perSecond >= loop.perSecond * 0.95,
          `${fmt(threads.perSecond)} vs ${fmt(loop.perSecond)} /s`,
        ),
      );
    }
    if (phases.includes('sign-in')) {
      const flood = await signInFlood(root, seconds);
      out.flood = flood;
      console.log(
        mdTable(
          ['stored-page reads', 'p50 ms', 'p99 ms'],
          [
            ['quiet', fmt(flood.quietP50, 2), fmt(flood.quietP99, 2)],
            ['60 sign-ins in flight', fmt(flood.floodP50, 2), fmt(flood.floodP99, 2)],
          ],
        ),
      );
      goals.push(
        goal(
          'stored-page read p99 < 100 ms under a sign-in flood',
          flood.floodP99 < 100,
          `${fmt(flood.floodP99, 2)} ms`,
        ),
      );
    }
    const rows = [];
    if (phases.includes('crawl')) {
      // Alone and beside the searches, alternated: each pair ran under the same load from the rest of the machine.
      const pairs = [];
      for (let i = 0; i < rounds; i++) {
        const alone = await timedRebuild(root, false, clients);
        const busy = await timedRebuild(root, true, clients);
        pairs.push({ alone, busy, slowdown: busy.seconds / alone.seconds - 1 });
        rows.push(
          [`round ${i + 1}: no search`, fmt(alone.seconds), alone.saved, ''],
          [
            `round ${i + 1}: ${clients} searches in flight (threads)`,
            fmt(busy.seconds),
            busy.saved,
            `${fmt((busy.seconds / alone.seconds - 1) * 100)} %`,
          ],
        );
      }
      out.crawlPairs = pairs;
      const alone = pairs.reduce((a, p) => a + p.alone.seconds, 0);
      const busy = pairs.reduce((a, p) => a + p.busy.seconds, 0);
      const slowdown = busy / alone - 1;
      goals.push(
        goal(
          'a crawl slowed by at most 15 % by 32 searches in flight',
          slowdown <= 0.15,
          `${fmt(slowdown * 100)} % (sum of ${rounds} rounds; each: ${pairs.map((p) => `${fmt(p.slowdown * 100)} %`).join(', ')})`,
        ),
      );
    }
    if (phases.includes('crawl-loop')) {
      const loopCrawl = await timedRebuild(root, true, clients, 0);
      out.loopCrawl = loopCrawl;
      rows.push([`${clients} searches in flight (event loop)`, fmt(loopCrawl.seconds), loopCrawl.saved, '']);
    }
    if (rows.length) console.log(mdTable(['rebuild of the handbook', 'seconds', 'pages saved', 'slowed'], rows));
    saveResults('api-load', { ...out, goals });
    return { goals };
  } finally {
    if (!data && !keep) rmSync(root, { recursive: true, force: true });
  }
}
