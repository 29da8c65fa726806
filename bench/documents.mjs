// The document parsers against the candidate libraries (docs/libraries.md, "Documents"), one process per candidate:
//   pdf   ours (pdf.js 5.6 + our layout) vs pdfjs-dist 4.10.38 (same layout), pdf-parse, unpdf, pdftotext (reference)
//   docx  ours (zip-reader + htmlparser2) vs mammoth
// The samples are made here from the repo's docs: pandoc → HTML → Chromium's print to PDF, groff's gropdf, a
// Ghostscript re-distil, pandoc's .docx (each skipped when its tool is missing: apt-get install pandoc chromium groff
// ghostscript poppler-utils). The candidates are not dependencies: install them in a folder of their own,
//   npm i --prefix /tmp/doc-candidates pdfjs-dist@4.10.38 pdf-parse@2.4.5 unpdf@1.2.2 mammoth@1.13.0
// Run: node --import tsx bench/documents.mjs [--candidates /tmp/doc-candidates]
// Prints per candidate and file: median ms of 3 parses, word recall / precision against the source text, paragraphs,
// links, and the candidate process's peak RSS.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const work = '/tmp/gf-bench-documents';
const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
};
const has = (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

const words = (s) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
function score(text, truth) {
  const count = (list) => list.reduce((m, w) => m.set(w, (m.get(w) ?? 0) + 1), new Map());
  const t = count(words(truth));
  const o = count(words(text));
  let common = 0;
  for (const [w, n] of o) common += Math.min(n, t.get(w) ?? 0);
  const total = (m) => [...m.values()].reduce((a, b) => a + b, 0);
  return { recall: +(common / total(t)).toFixed(3), precision: +(common / Math.max(1, total(o))).toFixed(3) };
}

// ── candidates (run in a child process: `node --import tsx bench/documents.mjs --run <name> <file>...`) ─────────
async function candidate(name, dir) {
  const req = dir ? createRequire(join(dir, 'node_modules/')) : undefined;
  const load = (pkg) => import(req.resolve(pkg));
  const layout = async () => (await import('../packages/core/src/content/documents/pdf-text-layout.ts')).PdfPageText;
  switch (name) {
    case 'pdf:ours': {
      const { PdfDocumentParser } = await import('../packages/core/src/content/documents/pdf-parser.ts');
      const p = new PdfDocumentParser();
      return (b) => p.parse(b, 'https://bench.test/a.pdf', 'application/pdf');
    }
    case 'pdf:pdfjs-dist@4': {
      const pdfjs = await load('pdfjs-dist/legacy/build/pdf.mjs');
      const PdfPageText = await layout();
      return async (b) => {
        const doc = await pdfjs.getDocument({ data: new Uint8Array(b), isEvalSupported: false, verbosity: 0 }).promise;
        const pages = [];
        const links = [];
        for (let i = 1; i <= doc.numPages; i++) {
          const page = await doc.getPage(i);
          const t = new PdfPageText();
          for (const it of (await page.getTextContent()).items) if ('str' in it) t.add(it);
          pages.push(t.text());
          for (const a of await page.getAnnotations())
            if (a.subtype === 'Link' && (a.unsafeUrl || a.url)) links.push(a.unsafeUrl ?? a.url);
        }
        await doc.destroy();
        return { text: pages.join('\n\n'), links };
      };
    }
    case 'pdf:pdf-parse': {
      const { PDFParse } = await load('pdf-parse');
      return async (b) => {
        const p = new PDFParse({ data: new Uint8Array(b) });
        const { text } = await p.getText();
        const info = await p.getInfo({ parsePageInfo: true });
        await p.destroy();
        return { text, links: info.pages.flatMap((pg) => pg.links.map((l) => l.url)) };
      };
    }
    case 'pdf:unpdf': {
      const { extractText, getDocumentProxy } = await load('unpdf');
      return async (b) => {
        const doc = await getDocumentProxy(new Uint8Array(b));
        const { text } = await extractText(doc, { mergePages: false });
        await doc.destroy();
        return { text: text.join('\n\n'), links: [] };
      };
    }
    case 'pdf:pdftotext':
      return async (b) => ({ text: execFileSync('pdftotext', ['-', '-'], { input: b }).toString(), links: [] });
    case 'docx:ours': {
      const { DocxDocumentParser } = await import('../packages/core/src/content/documents/docx-parser.ts');
      const p = new DocxDocumentParser();
      return (b) => p.parse(b, 'https://bench.test/a.docx', '');
    }
    case 'docx:mammoth': {
      const mammoth = (await load('mammoth')).default;
      return async (b) => {
        const { value } = await mammoth.extractRawText({ buffer: b });
        const html = (await mammoth.convertToHtml({ buffer: b })).value;
        return { text: value, links: [...html.matchAll(/href="([^"#][^"]*)"/g)].map((m) => m[1]) };
      };
    }
  }
  throw new Error(`unknown candidate ${name}`);
}

if (process.argv[2] === '--run') {
  const [, , , name, dir, ...files] = process.argv;
  const parse = await candidate(name, dir === '-' ? undefined : dir);
  const started = performance.now();
  await parse(readFileSync(files[0]));
  const rows = { cold: Math.round(performance.now() - started) };
  for (const f of files) {
    const b = readFileSync(f);
    const times = [];
    let r;
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      r = await parse(b);
      times.push(performance.now() - t);
    }
    times.sort((a, c) => a - c);
    const truth = readFileSync(f.replace(/\.(pdf|docx)$/, '.truth.txt'), 'utf8');
    rows[f.split('/').pop()] = {
      ms: +times[1].toFixed(1),
      ...score(r.text, truth),
      paragraphs: r.text.split(/\n\s*\n/).length,
      links: new Set(r.links).size,
    };
  }
  rows.peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
  process.stdout.write(JSON.stringify(rows));
  process.exit(0);
}

// ── samples ───────────────────────────────────────────────────────────────────────────────────────────────────
mkdirSync(work, { recursive: true });
const sources = { design: 'docs/design.md', reliability: 'docs/reliability.md', readme: 'README.md' };
const pdfs = [];
const docxs = [];
if (!has('pandoc')) {
  console.error('pandoc is missing: apt-get install pandoc (and chromium, groff, ghostscript, poppler-utils)');
  process.exit(1);
}
const all = join(work, 'all.md');
writeFileSync(
  all,
  [
    join(root, 'README.md'),
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => join(root, 'docs', f)),
  ]
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n\n'),
);
for (const [name, src] of [...Object.entries(sources).map(([n, s]) => [n, join(root, s)]), ['all', all]]) {
  const base = join(work, name);
  const pandoc = (...args) =>
    execFileSync('pandoc', ['-s', '--metadata', `title=${name}`, src, ...args], {
      stdio: ['ignore', 'ignore', 'ignore'],
    });
  pandoc('-o', `${base}.html`);
  pandoc('-o', `${base}.docx`);
  execFileSync('pandoc', [`${base}.html`, '-t', 'plain', '--wrap=none', '-o', `${base}.truth.txt`]);
  docxs.push(`${base}.docx`);
  if (has('chromium')) {
    execFileSync(
      'chromium',
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-pdf-header-footer',
        `--print-to-pdf=${base}.pdf`,
        `file://${base}.html`,
      ],
      { stdio: 'ignore', timeout: 120_000 },
    );
    pdfs.push(`${base}.pdf`);
  }
}
if (has('groff')) {
  const base = join(work, 'groff');
  execFileSync('pandoc', [
    join(root, sources.design),
    '-s',
    '-t',
    'ms',
    '--metadata',
    'title=design',
    '-o',
    `${base}.ms`,
  ]);
  writeFileSync(
    `${base}.pdf`,
    execFileSync('groff', ['-ms', '-Tpdf', '-k', `${base}.ms`], { stdio: ['ignore', 'pipe', 'ignore'] }),
  );
  writeFileSync(`${base}.truth.txt`, readFileSync(join(work, 'design.truth.txt')));
  pdfs.push(`${base}.pdf`);
}
if (has('gs') && existsSync(join(work, 'reliability.pdf'))) {
  const base = join(work, 'ghostscript');
  execFileSync('gs', ['-q', '-sDEVICE=pdfwrite', '-o', `${base}.pdf`, join(work, 'reliability.pdf')]);
  writeFileSync(`${base}.truth.txt`, readFileSync(join(work, 'reliability.truth.txt')));
  pdfs.push(`${base}.pdf`);
}

// ── runs ──────────────────────────────────────────────────────────────────────────────────────────────────────
const dir = arg('--candidates');
const runs = [
  ['pdf:ours', pdfs],
  ['docx:ours', docxs],
  ...(has('pdftotext') ? [['pdf:pdftotext', pdfs]] : []),
  ...(dir
    ? [
        ['pdf:pdfjs-dist@4', pdfs],
        ['pdf:pdf-parse', pdfs],
        ['pdf:unpdf', pdfs],
        ['docx:mammoth', docxs],
      ]
    : []),
];
if (!dir) console.error('(no --candidates folder: ours and pdftotext only)');
for (const [name, files] of runs) {
  if (files.length === 0) continue;
  const r = spawnSync(
    process.execPath,
    [...process.execArgv, new URL(import.meta.url).pathname, '--run', name, dir ?? '-', ...files],
    { encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  if (r.status !== 0) {
    console.log(`${name}: failed\n${r.stderr.split('\n').slice(-5).join('\n')}`);
    continue;
  }
  const rows = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
  console.log(`\n${name}: cold ${rows.cold} ms, peak RSS ${rows.peakRssMb} MB`);
  for (const [file, v] of Object.entries(rows)) {
    if (typeof v === 'object')
      console.log(
        `  ${file.padEnd(18)} ${String(v.ms).padStart(7)} ms  recall ${v.recall}  precision ${v.precision}  paragraphs ${v.paragraphs}  links ${v.links}`,
      );
  }
}
