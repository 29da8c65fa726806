// What a crawl's file layer costs per file on this machine: making the two-level directories of the layout
// (`pages/ab/cd/`) and writing a page's text and html, done the two ways Greenfinger can do them — through
// node:fs/promises from the event loop (each mkdir, open, write and close handed to the libuv pool) and with
// synchronous calls on one thread (what OffThreadBlobStore does on the extraction worker). Both run in the same
// process, one after the other, on fresh directories. Run on demand:
//   node bench/fs-calls.mjs [--dirs=3000] [--dir=/tmp]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'];
  }),
);
const DIRS = Number(args.dirs ?? 3000);
const BASE = args.dir ?? tmpdir();
const TEXT = 'x'.repeat(5_000);
const HTML = 'y'.repeat(30_000);

/** The directory of the i-th page: two levels from a hash, as the layout's `ab/cd`. */
function dirOf(root, i) {
  const h = (Math.imul(i + 1, 2654435761) >>> 0).toString(16).padStart(8, '0');
  return join(root, h.slice(0, 2), h.slice(2, 4), h.slice(4, 6));
}

function measure(label, fn) {
  return async () => {
    const root = mkdtempSync(join(BASE, 'gf-fs-calls-'));
    try {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await fn(root);
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      return { label, ms, userMs: cpu.user / 1000, sysMs: cpu.system / 1000 };
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  };
}

const runs = [
  measure('sync: mkdir -p + 2 files per page', async (root) => {
    for (let i = 0; i < DIRS; i++) {
      const dir = dirOf(root, i);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${i}.txt`), TEXT);
      writeFileSync(join(dir, `${i}.html`), HTML);
    }
  }),
  measure('fs/promises, 16 pages at a time', async (root) => {
    let next = 0;
    const worker = async () => {
      while (next < DIRS) {
        const i = next++;
        const dir = dirOf(root, i);
        await mkdir(dir, { recursive: true });
        await Promise.all([writeFile(join(dir, `${i}.txt`), TEXT), writeFile(join(dir, `${i}.html`), HTML)]);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
  }),
];

console.log(`${DIRS} pages (a new 3-level directory and 2 files each) under ${BASE}\n`);
console.log('| way | wall ms | µs per page (wall) | user CPU ms | system CPU ms | CPU µs per page |');
console.log('|---|---|---|---|---|---|');
const results = [];
for (const round of [0, 1]) {
  for (const run of round === 0 ? runs : [...runs].reverse()) results.push(await run());
}
for (const label of new Set(results.map((r) => r.label))) {
  const mine = results.filter((r) => r.label === label);
  const avg = (k) => mine.reduce((a, r) => a + r[k], 0) / mine.length;
  const cpu = avg('userMs') + avg('sysMs');
  console.log(
    `| ${label} | ${avg('ms').toFixed(0)} | ${((avg('ms') * 1000) / DIRS).toFixed(0)} | ${avg('userMs').toFixed(0)} | ${avg('sysMs').toFixed(0)} | ${((cpu * 1000) / DIRS).toFixed(0)} |`,
  );
}
console.log(
  '\nCPU counts every thread of this process (the libuv pool included). Each way ran twice, in alternating order.',
);
