// On-demand benchmarks: npm run bench -- <name> [--runs N] [options]
//   handbook | python   our crawl vs Crawlee and Scrapy over a real corpus        (--crawlers ours,crawlee,scrapy)
//                       --before DIR: this tree vs a built checkout of an older commit instead (wall, peak RSS)
//   latency             handbook behind a --latency 50 proxy vs none               (--latency MS, --concurrency N)
//   vectors             python with vectors on vs off
//   frontier            LevelFrontier / LevelUrlFilter at 100k and 1M urls
//   search              SearchService over real crawls + generated pages           (--pages N, --queries N, --data DIR, --corpora a,b, --recall-queries N)
//   search-quality      hit@3 and MRR@10 per mode (words, meaning, hybrid) of bench/queries/python-docs.json
//                       over a crawl of the python docs with the bundled model   (--data DIR to reuse, --misses)
//                       and pictures mode over the GIMP help (bench/queries/gimp-pictures.json; --set python|pictures|all)
//   embed               time to search: python quick start per embedding variant   (--variants baseline,early, --recall-queries N)
//   extractor           handbook with --extractor http vs adaptive (the default) vs adaptive detecting every page
//   cluster             one cluster member vs three, side by side, handbook behind --latency 50 (GF_REDIS_URL;
//                       --latency MS, --threads N (16), --host-concurrency N (2); not in `all`: it starts node processes)
//   api-load            the REST API over a handbook crawl: 32 searches in flight on the event loop vs the search
//                       threads (searches/s, /v2/health p50/p99), stored-page reads under 60 sign-ins in flight
//                       (--clients N (32), --seconds S (10), --keep to keep the crawled data root, --data DIR to reuse it,
//                       --phases searches,sign-in,crawl,crawl-loop, --rounds N (2) crawl alone/beside searches pairs)
//   all                 every one of the above
//   use-lite-onnx       the bundled USE-lite on TF.js wasm vs its ONNX graph on onnxruntime-node, same chunks
//                       (--chunks N (480), --per-page N (3), --batch N (16), --variants tfjs,onnx-t1,…; not in `all`)
//   soak                a generated site of 100,000 pages crawled with --outputs file+index: peak RSS < 500 MB,
//                       pages/s of the last tenth ≥ 80 % of the first (--pages N, --threads N (16); not in `all`)
//   render              adaptive extractor vs always-browser, client pages among static ones (--client N, --static N;
//                       not in `all`: always-browser renders every page, about 1 page/s on 2 cores)
// Every crawl first waits (at most --quiet-wait S, default 60) for the rest of the machine to go quiet.
// Results: a markdown table per bench on stdout, JSON in bench/results/<name>-<stamp>.json.

// Each bench's module is loaded when it runs: one that does not load (a source file half edited) stops only its bench.
const NAMES = [
  'handbook',
  'python',
  'latency',
  'vectors',
  'frontier',
  'search',
  'search-quality',
  'embed',
  'extractor',
  'api-load',
];

function parseArgs(argv) {
  const names = [];
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) {
      names.push(a);
      continue;
    }
    const [key, inline] = a.slice(2).split('=');
    const value = inline ?? (argv[i + 1] && !argv[i + 1].startsWith('--') ? argv[++i] : 'true');
    opts[key] = value;
  }
  return { names, opts };
}

const { names, opts } = parseArgs(process.argv.slice(2));
const wanted = names.includes('all') ? NAMES : names;
const KNOWN = [...NAMES, 'render', 'cluster', 'use-lite-onnx', 'soak'];
const unknown = wanted.filter((n) => !KNOWN.includes(n));
if (wanted.length === 0 || unknown.length > 0) {
  console.error(
    `${unknown.length ? `unknown bench: ${unknown.join(', ')}\n` : ''}usage: npm run bench -- <${[...KNOWN, 'all'].join('|')}> [--runs N]`,
  );
  process.exit(2);
}
const num = (key, fallback) => {
  if (opts[key] === undefined) return fallback;
  const n = Number(opts[key]);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--${key} ${opts[key]}: give a whole number from 1`);
    process.exit(2);
  }
  return n;
};
const runs = num('runs', 3);
const quietWaitS = opts['quiet-wait'] === undefined ? 60 : Number(opts['quiet-wait']);
const failed = [];
for (const name of wanted) {
  let result;
  if (name === 'handbook' || name === 'python') {
    result = await (await import('./crawl.mjs')).compareBench(name, {
      runs,
      crawlers: opts.crawlers?.split(','),
      quietWaitS,
      before: opts.before,
    });
  } else if (name === 'latency') {
    result = await (await import('./crawl.mjs')).latencyBench({
      runs,
      latencyMs: num('latency', 50),
      concurrency: num('concurrency', 64),
      quietWaitS,
    });
  } else if (name === 'extractor') {
    result = await (await import('./crawl.mjs')).extractorBench({ runs, quietWaitS });
  } else if (name === 'vectors') {
    result = await (await import('./crawl.mjs')).vectorsBench({ runs, quietWaitS });
  } else if (name === 'embed') {
    result = await (await import('./embed.mjs')).embedBench({
      variants: opts.variants ? opts.variants.split(',') : undefined,
      recallQueries: num('recall-queries', 40),
      quietWaitS,
    });
  } else if (name === 'cluster') {
    result = await (await import('./cluster.mjs')).clusterBench({
      runs,
      latencyMs: num('latency', 50),
      threads: num('threads', 16),
      hostConcurrency: num('host-concurrency', 2),
      quietWaitS,
    });
  } else if (name === 'soak') {
    result = await (await import('./soak.mjs')).soakBench({
      pages: num('pages', 100_000),
      threads: num('threads', 16),
      quietWaitS,
    });
  } else if (name === 'render') {
    result = await (await import('./render.mjs')).renderBench({
      client: num('client', 200),
      statics: num('static', 2000),
      quietWaitS,
    });
  } else if (name === 'use-lite-onnx') {
    result = await (await import('./onnx-use-lite.mjs')).onnxUseLiteBench({
      chunks: num('chunks', 480),
      perPage: num('per-page', 3),
      batch: num('batch', 16),
      variants: opts.variants ? opts.variants.split(',') : undefined,
      quietWaitS,
    });
  } else if (name === 'api-load') {
    result = await (await import('./api-load.mjs')).apiLoadBench({
      clients: num('clients', 32),
      seconds: num('seconds', 10),
      data: opts.data,
      keep: opts.keep === 'true',
      phases: opts.phases ? opts.phases.split(',') : undefined,
      rounds: num('rounds', 2),
    });
  } else if (name === 'search-quality') {
    result = await (await import('./search-quality.mjs')).searchQualityBench({
      data: opts.data,
      misses: opts.misses === 'true',
      set: opts.set,
    });
  } else if (name === 'frontier') {
    result = await (await import('./frontier-bench.mjs')).frontierBench();
  } else {
    result = await (await import('./search.mjs')).searchBench({
      pages: num('pages', 100_000),
      queries: num('queries', 300),
      data: opts.data,
      corpora: opts.corpora ? opts.corpora.split(',') : undefined,
      recallQueries: num('recall-queries', 40),
    });
  }
  failed.push(...result.goals.filter((g) => !g.pass).map((g) => g.goal));
}
console.log(failed.length ? `\n${failed.length} goal(s) not met: ${failed.join('; ')}` : '\nevery goal met');
