// Ours vs a maintained npm library, in the same run, for each hand-written part that a library could replace:
//   robots.txt   acceptors/robots.ts        vs robots-parser
//   sitemap      acceptors/sitemap.ts       vs fast-xml-parser (what sitemapper parses with; sitemapper itself
//                                              only works by fetching, so the parse step is compared)
//   bloom        dedup/bloom-filter.ts      vs bloom-filters (BloomFilter)
//   simhash      dedup/simhash.ts           vs simhash-js
// Run: node --import tsx bench/libraries.mjs [--quick] [--only robots,sitemap,bloom,simhash]   (the candidates are root devDependencies, for this bench only)
// Prints one markdown table per part: correctness against the rules we rely on, then speed (median of runs).
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import bloomFilters from 'bloom-filters';
import { XMLParser } from 'fast-xml-parser';
import robotsParser from 'robots-parser';
import simhashJs from 'simhash-js';

const LibBloom = bloomFilters.BloomFilter;

import { parseRobotsTxt } from '../packages/core/src/acceptors/robots.ts';
import { parseSitemap } from '../packages/core/src/acceptors/sitemap.ts';
import { BloomFilter } from '../packages/core/src/dedup/bloom-filter.ts';
import { hammingDistance, simhash64 } from '../packages/core/src/dedup/simhash.ts';
import { normalizeUrl } from '../packages/core/src/url/normalize.ts';
import { rng } from '../packages/core/test/support/random.mjs';

const QUICK = process.argv.includes('--quick');
const RUNS = QUICK ? 3 : 5;
/** `--only robots,sitemap,bloom,simhash` runs some parts; default all. */
const ONLY = (() => {
  const i = process.argv.indexOf('--only');
  return i === -1 ? undefined : new Set(process.argv[i + 1]?.split(','));
})();
const wants = (part) => ONLY === undefined || ONLY.has(part);

/** Median wall time in ms of `runs` calls of fn (after one warm-up call). */
function time(fn, runs = RUNS) {
  fn();
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return ms[Math.floor(ms.length / 2)];
}

function table(title, head, rows) {
  const lines = [`\n### ${title}\n`, `| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  console.log(lines.join('\n'));
}

const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : String(n));

// ---------------------------------------------------------------------------------------------------------------
// robots.txt
// ---------------------------------------------------------------------------------------------------------------

/** [robots.txt, user agent, path, allowed?] — RFC 9309's rules as our unit tests state them. */
const RFC_EXAMPLE = [
  'User-Agent: *',
  'Disallow: *.gif$',
  'Disallow: /example/',
  'Allow: /publications/',
  '',
  'User-Agent: foobot',
  'Disallow:/',
  'Allow:/example/page.html',
  'Allow:/example/allowed.gif',
  '',
  'User-Agent: barbot',
  'User-Agent: bazbot',
  'Disallow: /example/page.html',
  '',
  'User-Agent: quxbot',
  '',
  'EOF',
].join('\n');

const ROBOTS_CASES = [
  // RFC 9309 §5.1
  [RFC_EXAMPLE, 'foobot', '/example/page.html', true],
  [RFC_EXAMPLE, 'foobot', '/example/allowed.gif', true],
  [RFC_EXAMPLE, 'foobot', '/example/disallowed.gif', false],
  [RFC_EXAMPLE, 'foobot', '/publications/', false],
  [RFC_EXAMPLE, 'FooBot/2.1', '/example/page.html', true],
  [RFC_EXAMPLE, 'barbot', '/example/page.html', false],
  [RFC_EXAMPLE, 'bazbot', '/example/page.html', false],
  [RFC_EXAMPLE, 'bazbot', '/a.gif', true],
  [RFC_EXAMPLE, 'quxbot', '/example/page.html', true],
  [RFC_EXAMPLE, 'otherbot', '/example/page.html', false],
  [RFC_EXAMPLE, 'otherbot', '/publications/x.html', true],
  [RFC_EXAMPLE, 'otherbot', '/images/x.gif', false],
  [RFC_EXAMPLE, 'otherbot', '/images/x.gif?size=2', true],
  // longest match, whatever the order; Allow wins a tie
  ['User-agent: *\nDisallow: /a/b/\nAllow: /a/\n', 'x', '/a/b/c', false],
  ['User-agent: *\nDisallow: /page\nAllow: /page\n', 'x', '/page', true],
  ['User-agent: *\nAllow: /page\nDisallow: /page\n', 'x', '/page', true],
  ['User-agent: *\nDisallow: /*.php\nAllow: /a.php\n', 'x', '/a.php', true],
  // * and $
  ['User-agent: *\nDisallow: /this/*/path\n', 'x', '/this/a/b/pathology', false],
  ['User-agent: *\nDisallow: /*.pdf$\n', 'x', '/doc.pdf?download=1', true],
  ['User-agent: *\nDisallow: /x$y\n', 'x', '/x$y/z', false],
  ['User-agent: *\nDisallow: /**/double\n', 'x', '/a/b/double', false],
  // the query is part of the path
  ['User-agent: *\nDisallow: /search?\n', 'x', '/search', true],
  ['User-agent: *\nDisallow: /*?sessionid=\n', 'x', '/page?sessionid=1', false],
  // percent-encoding normalised on both sides (§2.2.2)
  ['User-agent: *\nDisallow: /foo/bar/ツ\n', 'x', '/foo/bar/%E3%83%84', false],
  ['User-agent: *\nDisallow: /a/%62%61%7A\n', 'x', '/a/baz', false],
  ['User-agent: *\nDisallow: /c/%e3%83%84\n', 'x', '/c/%E3%83%84', false],
  ['User-agent: *\nDisallow: /sp%2fx\n', 'x', '/sp/x', true],
  // empty Disallow; /robots.txt always allowed
  ['User-agent: *\nDisallow:\n', 'x', '/anything', true],
  ['User-agent: *\nDisallow: /\n', 'x', '/robots.txt', true],
  // groups: product token, every group naming the agent merged, * groups merged, rules before any group ignored
  [
    'User-agent: *\nDisallow: /\n\nuser-AGENT: GreenFinger\nDISALLOW: /private\n',
    'Greenfinger/0.1 (+x)',
    '/public',
    true,
  ],
  ['User-agent: a\nDisallow: /x\n\nUser-agent: b\nDisallow: /y\n\nUser-agent: a\nDisallow: /z\n', 'a', '/z', false],
  ['User-agent: *\nDisallow: /x\n\nUser-agent: *\nDisallow: /y\n', 'bot', '/y', false],
  ['Disallow: /\nUser-agent: *\nDisallow: /private\n', 'x', '/public', true],
  ['User-agent: a\nDisallow: /x\nUser-agent: b\nDisallow: /y\n', 'a', '/y', true],
];

function robotsAgreement() {
  let ours = 0;
  let lib = 0;
  const libWrong = [];
  for (const [txt, ua, path, expected] of ROBOTS_CASES) {
    if (parseRobotsTxt(txt).policyFor(ua).isAllowed(path) === expected) ours++;
    const answer = robotsParser('https://example.com/robots.txt', txt).isAllowed(`https://example.com${path}`, ua);
    if (answer === expected) lib++;
    else libWrong.push(`${ua} ${path}`);
  }
  return { ours, lib, libWrong };
}

function bigRobots(lines) {
  const r = rng(7);
  const out = ['User-agent: *'];
  for (let i = 0; i < lines; i++) {
    const dir = `/d${Math.floor(r() * 5000)}/`;
    const kind = r();
    if (kind < 0.6) out.push(`Disallow: ${dir}`);
    else if (kind < 0.8) out.push(`Disallow: ${dir}*.php$`);
    else out.push(`Allow: ${dir}page-${i}.html`);
  }
  out.push('Sitemap: https://example.com/sitemap.xml');
  return out.join('\n');
}

function robotsSpeed() {
  const txt = bigRobots(QUICK ? 500 : 2000);
  const r = rng(11);
  const paths = Array.from({ length: QUICK ? 2000 : 10_000 }, (_, i) => `/d${Math.floor(r() * 5000)}/page-${i}.html`);
  const parseOurs = time(() => parseRobotsTxt(txt).policyFor('Greenfinger/0.1'));
  const parseLib = time(() => robotsParser('https://example.com/robots.txt', txt));
  const policy = parseRobotsTxt(txt).policyFor('Greenfinger/0.1');
  const robots = robotsParser('https://example.com/robots.txt', txt);
  const askOurs = time(() => {
    for (const p of paths) policy.isAllowed(p);
  });
  const askLib = time(() => {
    for (const p of paths) robots.isAllowed(`https://example.com${p}`, 'Greenfinger/0.1');
  });
  let differ = 0;
  for (const p of paths) {
    if (policy.isAllowed(p) !== robots.isAllowed(`https://example.com${p}`, 'Greenfinger/0.1')) differ++;
  }
  return { lines: txt.split('\n').length, queries: paths.length, parseOurs, parseLib, askOurs, askLib, differ };
}

// ---------------------------------------------------------------------------------------------------------------
// sitemap
// ---------------------------------------------------------------------------------------------------------------

function bigSitemap(n) {
  const parts = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">',
  ];
  for (let i = 0; i < n; i++) {
    parts.push(
      `<url><loc>https://example.com/docs/section-${i % 97}/page-${i}.html?a=1&amp;b=${i}</loc>` +
        `<lastmod>2024-05-${String((i % 28) + 1).padStart(2, '0')}</lastmod><changefreq>weekly</changefreq>` +
        `<image:image><image:loc>https://example.com/img/${i}.png</image:loc></image:image></url>`,
    );
  }
  parts.push('</urlset>');
  return parts.join('\n');
}

const xml = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  isArray: (name) => name === 'url' || name === 'sitemap',
});

/** fast-xml-parser, then the same rules as ours: loc and lastmod of each url, normalised, invalid skipped. */
function libSitemap(text) {
  const doc = xml.parse(text);
  const kind = doc.urlset ? 'urlset' : doc.sitemapindex ? 'sitemapindex' : 'unknown';
  const items = doc.urlset?.url ?? doc.sitemapindex?.sitemap ?? [];
  const entries = [];
  for (const item of items) {
    const loc = normalizeUrl(String(item?.loc ?? '').trim());
    if (loc === undefined) continue;
    const lastmod = item.lastmod === undefined ? '' : String(item.lastmod).trim();
    entries.push(lastmod === '' ? { loc } : { loc, lastmod });
  }
  return { kind, entries };
}

const SITEMAP_CASES = [
  [
    'namespace prefix on every element',
    '<s:urlset xmlns:s="http://www.sitemaps.org/schemas/sitemap/0.9"><s:url><s:loc>https://e.com/a</s:loc></s:url></s:urlset>',
    ['https://e.com/a'],
  ],
  [
    'image:loc is not a page',
    '<urlset><url><loc>https://e.com/a</loc><image:image><image:loc>https://e.com/i.png</image:loc></image:image></url></urlset>',
    ['https://e.com/a'],
  ],
  [
    'CDATA loc',
    '<urlset><url><loc><![CDATA[https://e.com/b?x=1&y=2]]></loc></url></urlset>',
    ['https://e.com/b?x=1&y=2'],
  ],
  ['entity in loc', '<urlset><url><loc>https://e.com/c?x=1&amp;y=2</loc></url></urlset>', ['https://e.com/c?x=1&y=2']],
  ['one url only', '<urlset><url><loc>https://e.com/d</loc></url></urlset>', ['https://e.com/d']],
  [
    'sitemap index',
    '<sitemapindex><sitemap><loc>https://e.com/s1.xml</loc></sitemap><sitemap><loc>https://e.com/s2.xml</loc></sitemap></sitemapindex>',
    ['https://e.com/s1.xml', 'https://e.com/s2.xml'],
  ],
  [
    'truncated file keeps what came before',
    '<urlset><url><loc>https://e.com/e</loc></url><url><loc>https://e.com/f</loc></url><url><loc>https://e.c',
    ['https://e.com/e', 'https://e.com/f'],
  ],
];

function sitemapAgreement() {
  let ours = 0;
  let lib = 0;
  const libWrong = [];
  for (const [name, text, expected] of SITEMAP_CASES) {
    const same = (locs) => JSON.stringify(locs) === JSON.stringify(expected);
    if (same(parseSitemap(text).entries.map((e) => e.loc))) ours++;
    let locs;
    try {
      locs = libSitemap(text).entries.map((e) => e.loc);
    } catch (err) {
      locs = [`threw: ${err.message}`];
    }
    if (same(locs)) lib++;
    else libWrong.push(name);
  }
  return { ours, lib, libWrong };
}

function sitemapSpeed() {
  const n = QUICK ? 10_000 : 50_000;
  const text = bigSitemap(n);
  const ours = time(() => parseSitemap(text));
  const lib = time(() => libSitemap(text));
  const a = parseSitemap(text).entries;
  const b = libSitemap(text).entries;
  const same = a.length === b.length && a.every((e, i) => e.loc === b[i].loc && e.lastmod === b[i].lastmod);
  return { n, mb: Buffer.byteLength(text) / 1e6, ours, lib, same };
}

// ---------------------------------------------------------------------------------------------------------------
// Bloom filter
// ---------------------------------------------------------------------------------------------------------------

function bloomBench() {
  const n = QUICK ? 50_000 : 200_000;
  const p = 0.01;
  const keys = Array.from({ length: n }, (_, i) => createHash('sha256').update(`https://e.com/${i}`).digest('hex'));
  const absent = Array.from({ length: n }, (_, i) => createHash('sha256').update(`https://x.org/${i}`).digest('hex'));
  const rows = [];
  for (const [name, make, add, has, bits] of [
    [
      'ours (BloomFilter)',
      () => new BloomFilter({ expectedItems: n, falsePositiveRate: p }),
      (f, k) => f.add(k),
      (f, k) => f.mightContain(k),
      (f) => f.bits,
    ],
    ['bloom-filters 3.0.4', () => LibBloom.create(n, p), (f, k) => f.add(k), (f, k) => f.has(k), (f) => f.size],
  ]) {
    let filter;
    const addMs = time(
      () => {
        filter = make();
        for (const k of keys) add(filter, k);
      },
      QUICK ? 1 : 3,
    );
    let missed = 0;
    const hasMs = time(
      () => {
        missed = 0;
        for (const k of keys) if (!has(filter, k)) missed++;
      },
      QUICK ? 1 : 3,
    );
    let fp = 0;
    for (const k of absent) if (has(filter, k)) fp++;
    rows.push([
      name,
      n.toLocaleString('en'),
      fmt(addMs),
      fmt(hasMs),
      fmt(((n / addMs) * 1000) / 1e6, 2),
      missed,
      `${fmt((fp / n) * 100, 2)} %`,
      fmt(bits(filter) / 8 / 1024, 0),
    ]);
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------------------------
// simhash
// ---------------------------------------------------------------------------------------------------------------

const VOCAB = (() => {
  const r = rng(3);
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  return Array.from({ length: 5000 }, () =>
    Array.from({ length: 3 + Math.floor(r() * 7) }, () => letters[Math.floor(r() * 26)]).join(''),
  );
})();

function doc(r, words) {
  return Array.from({ length: words }, () => VOCAB[Math.floor(r() * VOCAB.length)]);
}

/** A near-duplicate: `share` of the words replaced (a changed date, a counter, a rotated teaser…). */
function edit(r, ws, share) {
  const out = [...ws];
  const changes = Math.max(1, Math.round(ws.length * share));
  for (let i = 0; i < changes; i++) out[Math.floor(r() * out.length)] = VOCAB[Math.floor(r() * VOCAB.length)];
  return out;
}

function popcount(n) {
  let c = 0;
  let x = n >>> 0;
  while (x) {
    x &= x - 1;
    c++;
  }
  return c;
}

function simhashBench() {
  const pages = QUICK ? 200 : 1000;
  const r = rng(5);
  const texts = Array.from({ length: pages }, () => doc(r, 600));
  const near1 = texts.map((ws) => edit(r, ws, 0.01).join(' '));
  const near5 = texts.map((ws) => edit(r, ws, 0.05).join(' '));
  const originals = texts.map((ws) => ws.join(' '));
  const lib = new simhashJs.SimHash();
  const libDistance = (a, b) => popcount((a ^ b) >>> 0);

  const oursMs = time(() => {
    for (const t of originals) simhash64(t);
  });
  const libMs = time(() => {
    for (const t of originals) lib.hash(t);
  });

  const o = originals.map((t) => simhash64(t));
  const o1 = near1.map((t) => simhash64(t));
  const o5 = near5.map((t) => simhash64(t));
  const l = originals.map((t) => lib.hash(t));
  const l1 = near1.map((t) => lib.hash(t));
  const l5 = near5.map((t) => lib.hash(t));
  // Our threshold is GF_SIMHASH_DISTANCE ≤ 3 of 64 bits; for a 32-bit hash the same share is ≤ 1 bit.
  const share = (xs, ys, d, max) => (xs.filter((x, i) => d(x, ys[i]) <= max).length / xs.length) * 100;
  const unrelated = (xs, d, max) => {
    let hits = 0;
    let pairs = 0;
    for (let i = 0; i < xs.length; i++) {
      for (let j = i + 1; j < Math.min(xs.length, i + 20); j++) {
        pairs++;
        if (d(xs[i], xs[j]) <= max) hits++;
      }
    }
    return (hits / pairs) * 100;
  };
  return [
    [
      'ours simhash64 (64-bit, word 3-shingles, FNV-1a)',
      fmt((oursMs / pages) * 1000, 0),
      `${fmt(share(o, o1, hammingDistance, 3))} %`,
      `${fmt(share(o, o5, hammingDistance, 3))} %`,
      `${fmt(unrelated(o, hammingDistance, 3), 2)} %`,
    ],
    [
      'simhash-js 1.0.0 (32-bit, 4-character chunks, Jenkins)',
      fmt((libMs / pages) * 1000, 0),
      `${fmt(share(l, l1, libDistance, 1))} %`,
      `${fmt(share(l, l5, libDistance, 1))} %`,
      `${fmt(unrelated(l, libDistance, 1), 2)} %`,
    ],
  ];
}

// ---------------------------------------------------------------------------------------------------------------

console.log(`# Libraries bench (${QUICK ? 'quick' : 'full'}; median of ${RUNS} runs; Node ${process.version})`);

if (wants('robots')) {
  const ra = robotsAgreement();
  const rs = robotsSpeed();
  table(
    'robots.txt: acceptors/robots.ts vs robots-parser 3.0.1',
    [
      'parser',
      `RFC 9309 cases right (of ${ROBOTS_CASES.length})`,
      `parse ${rs.lines} lines (ms)`,
      `${rs.queries.toLocaleString('en')} isAllowed (ms)`,
    ],
    [
      ['ours', ra.ours, fmt(rs.parseOurs, 2), fmt(rs.askOurs, 1)],
      ['robots-parser', ra.lib, fmt(rs.parseLib, 2), fmt(rs.askLib, 1)],
    ],
  );
  console.log(`\nrobots-parser got wrong: ${ra.libWrong.join('; ') || 'none'}`);
  console.log(`answers that differ on the generated file: ${rs.differ} of ${rs.queries}`);
}

if (wants('sitemap')) {
  const sa = sitemapAgreement();
  const ss = sitemapSpeed();
  table(
    `sitemap: acceptors/sitemap.ts (htmlparser2 SAX) vs fast-xml-parser 5.12.1 (DOM-like object)`,
    ['parser', `cases right (of ${SITEMAP_CASES.length})`, `${ss.n.toLocaleString('en')} urls, ${fmt(ss.mb)} MB (ms)`],
    [
      ['ours', sa.ours, fmt(ss.ours, 0)],
      ['fast-xml-parser + the same url rules', sa.lib, fmt(ss.lib, 0)],
    ],
  );
  console.log(
    `\nfast-xml-parser got wrong: ${sa.libWrong.join('; ') || 'none'}; same entries on the big file: ${ss.same}`,
  );
}

if (wants('bloom'))
  table(
    'Bloom filter: dedup/bloom-filter.ts vs bloom-filters 3.0.4 (sized for n items at 1 %)',
    ['filter', 'items', 'add all (ms)', 'query all (ms)', 'M adds/s', 'false negatives', 'false positives', 'KiB'],
    bloomBench(),
  );

if (wants('simhash'))
  table(
    'simhash: dedup/simhash.ts vs simhash-js 1.0.0 (600-word pages)',
    ['simhash', 'µs / page', 'dup found, 1 % words changed', 'dup found, 5 % changed', 'unrelated pages flagged'],
    simhashBench(),
  );
