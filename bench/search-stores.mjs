// Times the embedded search stores on this machine: SQLite FTS5 words queries (SqliteFtsIndex.search, with
// count, ranking and highlights) and sqlite-vec KNN (SqliteVecStore.search, scoped to one published version).
// Run on demand: node --import tsx bench/search-stores.mjs [--sizes=10000,100000] [--chunks=5] [--dims=384] [--queries=200]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteFtsIndex } from '../packages/core/src/index/index.ts';
import { SqliteVecStore } from '../packages/core/src/vector/index.ts';
import { rng } from '../packages/core/test/support/random.mjs';

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'];
  }),
);
const sizes = (args.sizes ?? '10000,100000').split(',').map(Number);
const chunksPerPage = Number(args.chunks ?? 5);
const dims = Number(args.dims ?? 384);
const queries = Number(args.queries ?? 200);
const CATALOG = '0190a0b0-0000-7000-8000-0000000000be';
const OTHER = '0190a0b0-0000-7000-8000-0000000000bf';

const rand = rng(7);
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'to', 'vi', 'ze', 'po', 'da', 'fe', 'gu', 'hi', 'jo', 'be'];
const VOCAB = Array.from({ length: 20000 }, (_, i) => {
  let w = '';
  let n = i + 1;
  while (n > 0) {
    w += SYLLABLES[n % 16];
    n = Math.floor(n / 16);
  }
  return w;
});
// Zipf(1): word i drawn with weight 1/(i+1)
const cumulative = [];
let acc = 0;
for (let i = 0; i < VOCAB.length; i++) {
  acc += 1 / (i + 1);
  cumulative.push(acc);
}
function word() {
  const x = rand() * acc;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCAB[lo];
}
const words = (n) => Array.from({ length: n }, word).join(' ');

function percentiles(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
  return `p50 ${at(50).toFixed(2)} ms  p99 ${at(99).toFixed(2)} ms`;
}
async function time(fn, n) {
  await fn(0);
  const out = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}
const mb = (file) => `${(statSync(file).size / 1e6).toFixed(0)} MB`;

for (const size of sizes) {
  const root = mkdtempSync(join(tmpdir(), 'gf-bench-search-'));
  try {
    console.log(`\n== ${size.toLocaleString('en')} pages ==`);
    // ---- FTS5
    const index = new SqliteFtsIndex({ root: join(root, 'index'), prefix: 'greenfinger' });
    let t = performance.now();
    for (let start = 0; start < size; start += 2000) {
      const docs = [];
      for (let i = start; i < Math.min(size, start + 2000); i++) {
        docs.push({
          id: `doc-${String(i).padStart(8, '0')}`,
          catalogId: CATALOG,
          catalogName: 'bench',
          version: i % 10 === 0 ? 2 : 1,
          url: `http://127.0.0.1/p/${i}`,
          title: words(6),
          text: words(250),
          imageText: words(5),
          htmlPath: `assets/p/${i}.html`,
          textPath: `assets/p/${i}.txt`,
          images: [],
          linkDensity: rand(),
          fetchedAt: '2026-01-01T00:00:00Z',
        });
      }
      await index.upsert(docs);
    }
    console.log(
      `fts5 upsert: ${((performance.now() - t) / 1000).toFixed(1)} s, ${mb(join(index.dirOf(CATALOG), 'index.db'))}`,
    );
    const scopes = [{ catalogId: CATALOG, version: 1 }];
    const kinds = {
      'common word (top 10)': () => VOCAB[Math.floor(rand() * 10)],
      'mid word (rank 100-1000)': () => VOCAB[100 + Math.floor(rand() * 900)],
      'rare word (rank 5000+)': () => VOCAB[5000 + Math.floor(rand() * 15000)],
      'two mid words (AND)': () => `${VOCAB[20 + Math.floor(rand() * 200)]} ${VOCAB[20 + Math.floor(rand() * 200)]}`,
    };
    for (const [label, make] of Object.entries(kinds)) {
      let hits = 0;
      const samples = await time(async () => {
        const r = await index.search({ q: make(), scopes, size: 10 });
        hits += r.total;
      }, queries);
      console.log(
        `fts5 ${label.padEnd(26)} ${percentiles(samples)}  (avg ${Math.round(hits / (queries + 1))} matches)`,
      );
    }
    let cursor;
    const deep = await time(
      async () => {
        const r = await index.search({ q: VOCAB[3], scopes, size: 10, cursor });
        cursor = r.nextCursor ?? undefined;
      },
      Math.min(queries, 50),
    );
    console.log(`fts5 ${'common word, next page'.padEnd(26)} ${percentiles(deep)}`);
    await index.close();

    // ---- sqlite-vec
    const store = new SqliteVecStore({ root: join(root, 'vector'), collection: 'bench', dims });
    const points = size * chunksPerPage;
    t = performance.now();
    const vec = () => {
      const v = new Float32Array(dims);
      let n = 0;
      for (let d = 0; d < dims; d++) {
        v[d] = rand() - 0.5;
        n += v[d] * v[d];
      }
      n = Math.sqrt(n);
      for (let d = 0; d < dims; d++) v[d] /= n;
      return v;
    };
    for (let start = 0; start < points; start += 5000) {
      const batch = [];
      for (let i = start; i < Math.min(points, start + 5000); i++) {
        const page = Math.floor(i / chunksPerPage);
        const catalogId = page % 10 === 0 ? OTHER : CATALOG;
        batch.push({
          id: `pt-${i}`,
          vector: vec(),
          payload: {
            resourceId: `doc-${page}`,
            catalogId,
            catalogName: 'bench',
            version: 1,
            catalogVersion: `${catalogId}:1`,
            chunkIndex: i % chunksPerPage,
            chunk: 'x'.repeat(200),
            url: `http://127.0.0.1/p/${page}`,
            title: 'title',
            textPath: `assets/p/${page}.txt`,
            linkDensity: 0.1,
          },
        });
      }
      await store.upsert(batch);
    }
    console.log(
      `sqlite-vec upsert ${points.toLocaleString('en')} × ${dims}-d: ${((performance.now() - t) / 1000).toFixed(1)} s, ${mb(store.file)}`,
    );
    for (const limit of [40, 400]) {
      const samples = await time(() => store.search({ vector: vec(), scopes, limit }), Math.min(queries, 50));
      console.log(
        `sqlite-vec knn k=${String(limit).padEnd(4)} (${Math.round(points * 0.9).toLocaleString('en')} vectors in scope) ${percentiles(samples)}`,
      );
    }
    await store.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
