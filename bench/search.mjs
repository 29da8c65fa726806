// `search`: latency of the real SearchService (Greenfinger.open + gf.search.search), words, meaning and hybrid, over
// an index holding real crawls of the handbook and python corpora (file+index+vector, through the CLI) plus
// generated pages up to --pages. Generated text walks a bigram chain learned from the crawled text, so it
// keeps the corpora's vocabulary, languages and word frequencies; generated vectors mix real embeddings of
// generated chunks with noise. Queries: real words at several document frequencies, word pairs and phrases
// from real titles (words); real titles and passages (meaning); hybrid is timed on both lists.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCorpus } from '../packages/core/test/support/corpus.ts';
import { rng } from '../packages/core/test/support/random.mjs';
import { measure } from './lib/measure.mjs';
import { textWords, WORD_RE, wordQueryKinds } from './lib/query-mix.mjs';
import { fmt, goal, mdTable, percentile, repoRoot, saveResults } from './lib/report.mjs';

const CLI = join(repoRoot, 'packages/shell/dist/bin.js');
const MARKER = 'bench-search.json';
const MAX_GENERATED_WORDS = 1500;

const rand = rng(42);
const pick = (arr) => arr[Math.floor(rand() * arr.length)];

async function crawlInto(data, corpusName) {
  const corpus = await startCorpus(corpusName);
  try {
    const m = await measure(
      process.execPath,
      [
        CLI,
        'crawl',
        '--url',
        `${corpus.url}/`,
        '--start-url',
        corpus.startUrl,
        '--name',
        corpusName,
        '--json',
        '--data',
        data,
        '--outputs',
        'file+index+vector',
        '--interval',
        '0',
        '--threads',
        '16',
        '--host-concurrency',
        '16',
      ],
      { cwd: repoRoot, timeoutMs: 3_600_000 },
    );
    if (m.code !== 0) throw new Error(`crawl of ${corpusName} failed (${m.code}): ${m.stderr.slice(-800)}`);
    const report = JSON.parse(m.stdout);
    console.log(
      `  crawled ${corpusName}: ${report.produced.saved} pages, ${report.produced.vectored} vectored ` +
        `(${report.embedding?.chunks ?? 0} chunks, ${fmt(report.embedding?.msPerPage, 1)} ms/page) in ${fmt(m.wallS, 1)} s`,
    );
    return { corpus: corpusName, catalogId: report.catalogId, report, wallS: m.wallS };
  } finally {
    await corpus.stop();
  }
}

/** Every saved text of the real crawls: the first line is the title. */
export function readRealPages(data) {
  const pages = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.txt') && dir.includes(`${'/'}pages${'/'}`)) {
        const text = readFileSync(p, 'utf8');
        const nl = text.indexOf('\n');
        pages.push({ title: (nl > 0 ? text.slice(0, nl) : text).trim(), text });
      }
    }
  };
  walk(join(data, 'user', 'assets'));
  return pages;
}

/** Bigram chain over whitespace tokens, weighted by frequency. */
function bigramModel(pages) {
  const next = new Map();
  const starts = [];
  for (const { text } of pages) {
    const tokens = text.split(/\s+/).filter(Boolean);
    if (tokens.length > 0) starts.push(tokens[0]);
    for (let i = 0; i + 1 < tokens.length; i++) {
      let list = next.get(tokens[i]);
      if (!list) {
        list = [];
        next.set(tokens[i], list);
      }
      if (list.length < 64) list.push(tokens[i + 1]);
    }
  }
  return (n) => {
    const out = [];
    let w = pick(starts);
    for (let i = 0; i < n; i++) {
      out.push(w);
      const list = next.get(w);
      w = list && rand() < 0.97 ? pick(list) : pick(starts);
    }
    return out.join(' ');
  };
}

/** Document frequency of every word (lower case, ≥ 3 letters) over the real pages, ranked. */
export function rankedVocabulary(pages) {
  const df = new Map();
  for (const { text } of pages) {
    for (const w of new Set(text.toLowerCase().match(WORD_RE) ?? [])) df.set(w, (df.get(w) ?? 0) + 1);
  }
  return [...df].sort((a, b) => b[1] - a[1]);
}

function normalise(v) {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}

async function addGenerated(gf, real, target) {
  const count = Math.max(0, target - real.length);
  if (count === 0) return { generated: 0, points: 0 };
  const generate = bigramModel(real);
  const lengths = real.map((p) => Math.min(MAX_GENERATED_WORDS, p.text.split(/\s+/).length));
  const settings = gf.settings;
  const wordsPerChunk = settings.chunkSize / 6;
  const embedder = await gf.embedding();
  const baseTexts = Array.from({ length: 256 }, () => generate(Math.round(wordsPerChunk)));
  const base = [];
  for (let i = 0; i < baseTexts.length; i += 32)
    base.push(...(await embedder.embedDocuments(baseTexts.slice(i, i + 32))));
  const store = await gf.vectors();
  const index = gf.index();
  const catalogId = randomUUID();
  const name = 'generated';
  let points = 0;
  const started = performance.now();
  for (let start = 0; start < count; start += 1000) {
    const docs = [];
    const vecs = [];
    for (let i = start; i < Math.min(count, start + 1000); i++) {
      const id = randomUUID();
      const words = pick(lengths);
      const text = generate(words);
      const title = generate(3 + Math.floor(rand() * 6));
      const url = `http://generated.invalid/p/${i}.html`;
      docs.push({
        id,
        catalogId,
        catalogName: name,
        version: 0,
        url,
        title,
        text,
        imageText: '',
        htmlPath: `assets/${catalogId}/v0/pages/${id}.html`,
        textPath: `assets/${catalogId}/v0/pages/${id}.txt`,
        images: [],
        linkDensity: rand() * 0.5,
        fetchedAt: new Date().toISOString(),
      });
      const chunks = Math.max(1, Math.min(settings.maxChunks, Math.ceil(text.length / settings.chunkSize)));
      for (let c = 0; c < chunks; c++) {
        const a = pick(base);
        const b = pick(base);
        const mix = rand();
        const v = new Float32Array(a.length);
        for (let d = 0; d < v.length; d++) v[d] = mix * a[d] + (1 - mix) * b[d] + (rand() - 0.5) * 0.05;
        vecs.push({
          id: randomUUID(),
          vector: normalise(v),
          payload: {
            resourceId: id,
            catalogId,
            catalogName: name,
            version: 0,
            catalogVersion: `${catalogId}:0`,
            chunkIndex: c,
            chunk: text.slice(c * settings.chunkSize, (c + 1) * settings.chunkSize),
            url,
            title,
            textPath: `assets/${catalogId}/v0/pages/${id}.txt`,
            linkDensity: 0.2,
          },
        });
      }
    }
    await index.upsert(docs);
    await store.upsert(vecs);
    points += vecs.length;
    if ((start / 1000) % 10 === 0) {
      console.log(
        `  generated ${start + docs.length}/${count} pages, ${points} vectors (${fmt((performance.now() - started) / 1000, 0)} s)`,
      );
    }
  }
  await gf.published.publish({
    catalogId,
    name,
    url: 'http://generated.invalid/',
    searchVersion: 0,
    versions: [0],
  });
  return { generated: count, points };
}

/**
 * The timed queries, from a generator of their own: the same queries whether this run built the data (which draws
 * from `rand`) or reused it.
 */
export function queryMix(real, vocab, n) {
  const rand = rng(4242);
  const pick = (arr) => arr[Math.floor(rand() * arr.length)];
  const kinds = wordQueryKinds(
    real,
    vocab.map(([w]) => w),
    rand,
  );
  const words = [];
  for (const [kind, share, make] of kinds) {
    for (let i = 0; i < Math.round(share * n); i++) words.push({ kind, q: make() });
  }
  const texts = textWords(real);
  const meaning = [];
  const m = Math.max(50, Math.round(n / 3));
  for (let i = 0; i < m; i++) {
    if (i % 2 === 0) meaning.push({ kind: 'real title', q: pick(real).title });
    else {
      const t = pick(texts);
      const at = Math.floor(rand() * (t.length - 8));
      meaning.push({ kind: 'passage of 4-8 words', q: t.slice(at, at + 4 + Math.floor(rand() * 5)).join(' ') });
    }
  }
  const shuffle = (a) => {
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a;
  };
  return { words: shuffle(words), meaning: shuffle(meaning) };
}

async function timeQueries(gf, mode, list) {
  for (const { q } of list.slice(0, 10)) await gf.search.search({ q, mode, size: 10 });
  const samples = [];
  for (const { kind, q } of list) {
    const t = performance.now();
    const r = await gf.search.search({ q, mode, size: 10 });
    samples.push({ kind, q, ms: performance.now() - t, total: r.total, hits: r.results.length });
  }
  return samples;
}

function latencyRows(mode, samples) {
  const kinds = [...new Set(samples.map((s) => s.kind))];
  const row = (label, list) => [
    mode,
    label,
    list.length,
    fmt(
      percentile(
        list.map((s) => s.ms),
        50,
      ),
      1,
    ),
    fmt(
      percentile(
        list.map((s) => s.ms),
        99,
      ),
      1,
    ),
    fmt(Math.max(...list.map((s) => s.ms)), 1),
    fmt(list.reduce((a, s) => a + s.total, 0) / list.length, 0),
  ];
  return [
    row('all', samples),
    ...kinds.map((k) =>
      row(
        k,
        samples.filter((s) => s.kind === k),
      ),
    ),
  ];
}

function dirBytes(dir) {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return total;
}

/** optimize() every published version in the full-text index and the vector store, timed. */
async function optimizeAll(gf) {
  const scopes = await gf.search.scopes();
  const index = gf.index();
  const store = await gf.vectors();
  let t = performance.now();
  for (const s of scopes) await index.optimize?.(s.catalogId, s.version);
  const indexMs = performance.now() - t;
  t = performance.now();
  for (const s of scopes) await store.optimize?.(s.catalogId, s.version);
  const vectorMs = performance.now() - t;
  return { indexMs, vectorMs };
}

/**
 * How much the fast paths give up: the top 10 pages of the timed search against exact search over the same
 * data, opened with the approximate index off (GF_VECTOR_ANN_MIN=0) and champion lists off. Recall@10 = the
 * share of the exact top 10 that the timed search also returns.
 */
async function measureRecall(gf, dir, mix, n) {
  const { Greenfinger, SqliteFtsIndex } = await import('../packages/core/dist/internal.js');
  const exact = await Greenfinger.open({
    settings: { dataStore: dir, annMinPoints: 0 },
    components: {
      searchIndex: (g) =>
        new SqliteFtsIndex({ root: g.layout.indexRoot, prefix: g.settings.indexPrefix, championSearch: false }),
    },
  });
  const overlap = (a, b) => {
    const want = new Set(b.map((h) => h.resourceId ?? h.id));
    return a.filter((h) => want.has(h.resourceId ?? h.id)).length / Math.max(1, Math.min(10, b.length));
  };
  try {
    let meaning = 0;
    const mq = mix.meaning.slice(0, n);
    for (const { q } of mq) {
      const got = await gf.search.search({ q, mode: 'meaning', size: 10 });
      const want = await exact.search.search({ q, mode: 'meaning', size: 10 });
      meaning += overlap(got.results, want.results);
    }
    let words = 0;
    let approximate = 0;
    const wq = mix.words.filter((w) => w.kind.startsWith('top') || w.kind.startsWith('common')).slice(0, n);
    for (const { q } of wq) {
      const got = await gf.search.search({ q, mode: 'words', size: 10 });
      const want = await exact.search.search({ q, mode: 'words', size: 10 });
      words += overlap(got.results, want.results);
      if (got.results.map((h) => h.id).join() !== want.results.map((h) => h.id).join()) approximate++;
    }
    return {
      meaning: { queries: mq.length, recall: meaning / Math.max(1, mq.length) },
      words: {
        queries: wq.length,
        recall: words / Math.max(1, wq.length),
        differing: approximate,
      },
    };
  } finally {
    await exact.close();
  }
}

/** Builds (or reuses with --data) the index, then times the query mix in both modes. */
export async function searchBench({
  pages = 100_000,
  queries = 300,
  data,
  corpora = ['handbook', 'python'],
  recallQueries = 40,
} = {}) {
  const { Greenfinger } = await import('../packages/core/dist/index.js');
  const dir = data ?? mkdtempSync(join(tmpdir(), 'gf-bench-search-'));
  const marker = join(dir, MARKER);
  console.log(`\n== search: SearchService over real crawls + generated pages up to ${pages.toLocaleString('en')} ==`);
  console.log(`data: ${dir}${data ? ' (kept)' : ' (removed at the end; pass --data DIR to keep and reuse it)'}`);
  try {
    let built = existsSync(marker) ? JSON.parse(readFileSync(marker, 'utf8')) : undefined;
    if (built && built.pages !== pages) {
      throw new Error(
        `${dir} holds an index built for --pages ${built.pages}: use another --data dir or the same --pages`,
      );
    }
    const real = [];
    if (!built) {
      const crawls = [];
      for (const c of corpora) crawls.push(await crawlInto(dir, c));
      real.push(...readRealPages(dir));
      const gf = await Greenfinger.open({ settings: { dataStore: dir } });
      try {
        const gen = await addGenerated(gf, real, pages);
        built = {
          pages,
          corpora,
          realPages: real.length,
          ...gen,
          crawls: crawls.map((c) => ({ corpus: c.corpus, wallS: c.wallS, saved: c.report.produced.saved })),
        };
      } finally {
        await gf.close();
      }
      writeFileSync(marker, JSON.stringify(built, null, 2));
    } else {
      real.push(...readRealPages(dir));
    }
    if (!built.optimized) {
      // What a crawl does when it publishes a version: champion lists for the full-text index, the whole
      // approximate index for the vectors. Timed: it is the cost of making a 100k-page version fast to search.
      const gf = await Greenfinger.open({ settings: { dataStore: dir } });
      try {
        built.optimized = await optimizeAll(gf);
      } finally {
        await gf.close();
      }
      writeFileSync(marker, JSON.stringify(built, null, 2));
    }
    console.log(
      `optimize (at publish): full-text ${fmt(built.optimized.indexMs / 1000, 1)} s, vectors ${fmt(built.optimized.vectorMs / 1000, 1)} s`,
    );
    const vocab = rankedVocabulary(real);
    const mix = queryMix(real, vocab, queries);
    const gf = await Greenfinger.open({ settings: { dataStore: dir } });
    let words;
    let meaning;
    let hybrid;
    let quality;
    let embedder = 'n/a';
    try {
      const scopes = await gf.search.scopes();
      let indexed = 0;
      for (const s of scopes) indexed += await gf.index().countVersion(s.catalogId, s.version);
      let vectors = 0;
      for (const s of scopes) vectors += await (await gf.vectors()).countVersion(s.catalogId, s.version);
      embedder = (await gf.embedding()).describe();
      console.log(
        `index: ${indexed.toLocaleString('en')} pages (${built.realPages} real), ${vectors.toLocaleString('en')} vectors; ` +
          `full-text ${fmt(dirBytes(join(dir, 'user', 'index')) / 1e6, 0)} MB, vectors ${fmt(dirBytes(join(dir, 'user', 'vector')) / 1e6, 0)} MB; ${embedder}`,
      );
      words = await timeQueries(gf, 'words', mix.words);
      meaning = await timeQueries(gf, 'meaning', mix.meaning);
      hybrid = await timeQueries(gf, 'hybrid', [...mix.words, ...mix.meaning]);
      quality = await measureRecall(gf, dir, mix, recallQueries);
      built.indexed = indexed;
      built.vectors = vectors;
    } finally {
      await gf.close();
    }
    console.log(
      `\n${mdTable(['mode', 'queries', 'n', 'p50 ms', 'p99 ms', 'max ms', 'avg matches'], [...latencyRows('words', words), ...latencyRows('meaning', meaning), ...latencyRows('hybrid', hybrid)])}\n`,
    );
    const wp50 = percentile(
      words.map((s) => s.ms),
      50,
    );
    const wp99 = percentile(
      words.map((s) => s.ms),
      99,
    );
    const mp50 = percentile(
      meaning.map((s) => s.ms),
      50,
    );
    const goals = [
      goal(
        'search: words p50 < 10 ms',
        wp50 < 10,
        `${fmt(wp50, 1)} ms over ${words.length} queries at ${built.indexed} pages`,
      ),
      goal('search: words p99 < 50 ms', wp99 < 50, `${fmt(wp99, 1)} ms`),
      goal(
        'search: meaning p50 < 30 ms',
        mp50 < 30,
        `${fmt(mp50, 1)} ms over ${meaning.length} queries, ${built.vectors} vectors`,
      ),
    ];
    console.log(
      `quality against exact search (top 10 pages, ${quality.meaning.queries} meaning / ${quality.words.queries} words queries): ` +
        `meaning recall@10 ${fmt(quality.meaning.recall, 3)}; words recall@10 ${fmt(quality.words.recall, 3)} ` +
        `(top and common words, the queries champion lists answer; ${quality.words.differing} not in the exact order)`,
    );
    saveResults('search', { built, embedder, words, meaning, hybrid, quality, goals });
    return { goals };
  } finally {
    if (!data) rmSync(dir, { recursive: true, force: true });
  }
}
