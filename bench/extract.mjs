// Times content extraction per page: HtmlContentExtractor (one htmlparser2 SAX pass) against
// ReadabilityContentExtractor (Mozilla Readability over linkedom), plus the bare htmlparser2 pass as a floor.
// Run on demand: node --import tsx bench/extract.mjs [files…] [--runs=200]
// Default pages: installed Debian docs (python3.11-doc, debian-handbook).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { HtmlContentExtractor, ReadabilityContentExtractor } from '../packages/core/src/content/index.ts';

const { Parser } = createRequire(new URL('../packages/core/package.json', import.meta.url))('htmlparser2');

const args = process.argv.slice(2);
const runs = Number(args.find((a) => a.startsWith('--runs='))?.slice(7) ?? 200);
const defaults = [
  '/usr/share/doc/python3.11/html/library/json.html',
  '/usr/share/doc/debian-handbook/html/en-US/sect.apt-get.html',
  '/usr/share/doc/debian-handbook/html/en-US/apt.html',
  '/usr/share/doc/python3.11/html/library/index.html',
];
const files = args.filter((a) => !a.startsWith('--'));
const pages = (files.length ? files : defaults).filter((f) => existsSync(f));
if (pages.length === 0) {
  console.error('no pages: pass html files, or install python3.11-doc / debian-handbook');
  process.exit(1);
}

function time(fn, n) {
  for (let i = 0; i < Math.min(20, n); i++) fn();
  const t = performance.now();
  for (let i = 0; i < n; i++) fn();
  return (performance.now() - t) / n;
}

const html = new HtmlContentExtractor();
const readability = new ReadabilityContentExtractor();
console.log(
  'page'.padEnd(34),
  'KB'.padStart(6),
  'sax-floor'.padStart(10),
  'html'.padStart(8),
  'readability'.padStart(12),
  '  ms/page',
);
for (const file of pages) {
  const src = readFileSync(file, 'utf8');
  const url = `https://bench.test/${file.split('/').pop()}`;
  const floor = time(
    () => new Parser({ onopentag() {}, ontext() {}, onclosetag() {} }, { decodeEntities: true }).end(src),
    runs,
  );
  const a = time(() => html.extract(src, url), runs);
  const b = time(() => readability.extract(src, url), Math.max(5, Math.round(runs / 20)));
  console.log(
    file.split('/').slice(-2).join('/').padEnd(34),
    (src.length / 1024).toFixed(0).padStart(6),
    floor.toFixed(2).padStart(10),
    a.toFixed(2).padStart(8),
    b.toFixed(2).padStart(12),
  );
}
