// `use-lite-onnx`: the bundled Universal Sentence Encoder lite on its two runtimes, the same chunks each way —
// TF.js on the wasm backend (@energetic-ai/embeddings, UseLiteEmbeddingClient) against the ONNX graph the build
// converts from the same weights (packages/core/scripts/use-lite-to-onnx.mjs) run by onnxruntime-node
// (UseLiteOnnxEmbeddingClient), 1 and 2 intra-op threads. Real text: the python docs (the `python` corpus's files
// on disk, /usr/share/doc/python3.11/html), tags stripped, cut by the pipeline's chunkText (1,000 / 200 / 20), at
// most --per-page chunks of a page, the first --chunks of them.
//
// Each variant runs in its own fresh node process (load time and peak RSS are that process's), one after the
// other; the `pool2-*` variants are two such processes at once, each embedding half the chunks, the way the
// crawl's two embedding workers share a batch. Per variant: load ms (import to ready), warm-up ms (the first
// batch), chunks/s over every chunk after the warm-up, peak RSS. Equality: cosine of every chunk's ONNX vector
// against its TF.js vector.
//
//   npm run bench -- use-lite-onnx [--chunks 480] [--per-page 3] [--batch 16] [--variants a,b]
//   (or: node --import tsx bench/onnx-use-lite.mjs …); builds the graph first if it is missing.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForQuiet } from './lib/measure.mjs';
import { fmt, goal, mdTable, repoRoot, saveResults } from './lib/report.mjs';

const SELF = fileURLToPath(import.meta.url);
const CORPUS = '/usr/share/doc/python3.11/html';

export const ONNX_VARIANTS = {
  tfjs: { what: 'TF.js wasm backend (today), one process', runtime: 'tfjs', procs: 1 },
  'onnx-t1': { what: 'onnxruntime-node, 1 intra-op thread, one process', runtime: 'onnx', threads: 1, procs: 1 },
  'onnx-t2': { what: 'onnxruntime-node, 2 intra-op threads, one process', runtime: 'onnx', threads: 2, procs: 1 },
  'pool2-tfjs': { what: 'TF.js wasm, two processes at once (the 2-worker pool)', runtime: 'tfjs', procs: 2 },
  'pool2-onnx-t1': {
    what: 'onnxruntime-node 1 thread, two processes at once',
    runtime: 'onnx',
    threads: 1,
    procs: 2,
  },
};

function htmlText(html) {
  const main = /<div[^>]+role="main"[^>]*>([\s\S]*)<\/div>\s*<\/div>\s*<\/div>/.exec(html)?.[1] ?? html;
  return main
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#(\d+);/g, (_, d) => String.fromCodePoint(Number(d)))
    .replace(/&#x([0-9a-f]+);/gi, (_, h) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Real chunks of the python docs, deterministic: pages by path, at most perPage chunks each. */
export async function pythonChunks(count, perPage = 3) {
  const { chunkText } = await import('../packages/core/src/vector/chunking.ts');
  const files = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(dir, e.name);
      if (e.isDirectory() && !e.name.startsWith('_')) walk(p);
      else if (e.name.endsWith('.html')) files.push(p);
    }
  };
  walk(CORPUS);
  const chunks = [];
  for (const f of files) {
    for (const c of chunkText(htmlText(readFileSync(f, 'utf8'))).slice(0, perPage)) chunks.push(c);
    if (chunks.length >= count) break;
  }
  return chunks.slice(0, count);
}

async function child({ runtime, threads, batch, chunksFile, outFile }) {
  const chunks = JSON.parse(readFileSync(chunksFile, 'utf8'));
  const t0 = performance.now();
  let client;
  if (runtime === 'tfjs') {
    const { UseLiteEmbeddingClient } = await import('../packages/core/src/embeddings/use-lite-embedding-client.ts');
    client = await UseLiteEmbeddingClient.load({ batchSize: batch });
  } else {
    const { UseLiteOnnxEmbeddingClient } = await import(
      '../packages/core/src/embeddings/use-lite-onnx-embedding-client.ts'
    );
    client = await UseLiteOnnxEmbeddingClient.load({ batchSize: batch, threads });
  }
  const loadMs = performance.now() - t0;
  const w0 = performance.now();
  await client.embedDocuments(chunks.slice(0, batch));
  const warmMs = performance.now() - w0;
  const start = Date.now();
  const s0 = performance.now();
  const vectors = [];
  for (let i = 0; i < chunks.length; i += batch)
    vectors.push(...(await client.embedDocuments(chunks.slice(i, i + batch))));
  const embedMs = performance.now() - s0;
  const end = Date.now();
  const flat = new Float32Array(vectors.length * 512);
  for (const [i, v] of vectors.entries()) flat.set(v, i * 512);
  writeFileSync(outFile, Buffer.from(flat.buffer));
  const ru = process.resourceUsage();
  await client.close();
  process.stdout.write(
    `${JSON.stringify({ loadMs, warmMs, embedMs, start, end, chunks: chunks.length, maxRssMb: ru.maxRSS / 1024, cpuS: (ru.userCPUTime + ru.systemCPUTime) / 1e6, describe: client.describe() })}\n`,
  );
}

function runChild(args) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', SELF, '--child', JSON.stringify(args)], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, MALLOC_ARENA_MAX: '2' },
    });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    const timer = setTimeout(() => p.kill('SIGKILL'), 600_000);
    p.on('exit', (code) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').at(-1);
      if (code === 0 && line) resolve(JSON.parse(line));
      else reject(new Error(`child ${args.runtime} exited ${code}: ${out.slice(-500)}`));
    });
  });
}

function cosines(a, b) {
  const out = [];
  for (let r = 0; r < a.length / 512; r++) {
    let d = 0;
    let na = 0;
    let nb = 0;
    for (let j = 0; j < 512; j++) {
      const x = a[r * 512 + j];
      const y = b[r * 512 + j];
      d += x * y;
      na += x * x;
      nb += y * y;
    }
    out.push(d / Math.sqrt(na * nb));
  }
  return out;
}

const readVec = (f) => {
  const b = readFileSync(f);
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
};

export async function onnxUseLiteBench({ chunks = 480, perPage = 3, batch = 16, variants, quietWaitS = 60 } = {}) {
  const names = variants ?? Object.keys(ONNX_VARIANTS);
  for (const n of names) if (!ONNX_VARIANTS[n]) throw new Error(`unknown variant ${n}`);
  const { USE_LITE_ONNX_PATH } = await import('../packages/core/src/embeddings/use-lite-onnx-embedding-client.ts');
  if (!existsSync(USE_LITE_ONNX_PATH)) {
    const r = spawnSync(process.execPath, [join(repoRoot, 'packages/core/scripts/use-lite-to-onnx.mjs')], {
      stdio: 'inherit',
    });
    if (r.status !== 0) throw new Error('use-lite-to-onnx failed');
  }
  const texts = await pythonChunks(chunks, perPage);
  const dir = mkdtempSync(join(tmpdir(), 'gf-onnx-bench-'));
  const results = [];
  try {
    const all = join(dir, 'chunks.json');
    writeFileSync(all, JSON.stringify(texts));
    const half = Math.ceil(texts.length / 2);
    const halves = [texts.slice(0, half), texts.slice(half)].map((part, i) => {
      const f = join(dir, `half${i}.json`);
      writeFileSync(f, JSON.stringify(part));
      return f;
    });
    const chars = texts.reduce((a, t) => a + t.length, 0);
    console.log(
      `use-lite-onnx: ${texts.length} chunks of the python docs (mean ${Math.round(chars / texts.length)} chars), batches of ${batch}`,
    );
    for (const name of names) {
      const v = ONNX_VARIANTS[name];
      const quiet = await waitForQuiet({ maxWaitS: quietWaitS });
      if (!quiet.quiet) console.log(`  ${name}: the machine did not go quiet (${fmt(quiet.busyCores)} cores busy)`);
      const files = v.procs === 1 ? [all] : halves;
      const outs = files.map((_, i) => join(dir, `${name}-${i}.f32`));
      const rs = await Promise.all(
        files.map((f, i) =>
          runChild({ runtime: v.runtime, threads: v.threads, batch, chunksFile: f, outFile: outs[i] }),
        ),
      );
      const wallS = (Math.max(...rs.map((r) => r.end)) - Math.min(...rs.map((r) => r.start))) / 1000;
      const vec = new Float32Array(texts.length * 512);
      let at = 0;
      for (const o of outs) {
        const part = readVec(o);
        vec.set(part, at);
        at += part.length;
      }
      writeFileSync(join(dir, `${name}.f32`), Buffer.from(vec.buffer));
      const r = {
        name,
        what: v.what,
        chunks: texts.length,
        chunksPerS: texts.length / wallS,
        loadMs: Math.max(...rs.map((x) => x.loadMs)),
        warmMs: Math.max(...rs.map((x) => x.warmMs)),
        peakRssMb: rs.reduce((a, x) => a + x.maxRssMb, 0),
        cpuS: rs.reduce((a, x) => a + x.cpuS, 0),
        describe: rs[0].describe,
        quiet: quiet.quiet,
        busyCoresAtStart: quiet.busyCores,
        loadAverageAtStart: loadavg()[0],
      };
      results.push(r);
      console.log(
        `  ${name}: ${fmt(r.chunksPerS)} chunks/s, load ${fmt(r.loadMs, 0)} ms, peak RSS ${fmt(r.peakRssMb, 0)} MB`,
      );
    }
    // equality against TF.js (the first TF.js variant run)
    const refName = names.find((n) => ONNX_VARIANTS[n].runtime === 'tfjs');
    if (refName) {
      const ref = readVec(join(dir, `${refName}.f32`));
      for (const r of results) {
        const cs = cosines(readVec(join(dir, `${r.name}.f32`)), ref);
        r.cosineMin = Math.min(...cs);
        r.cosineMean = cs.reduce((a, c) => a + c, 0) / cs.length;
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const base = results.find((r) => r.name === 'tfjs');
  const pool = results.find((r) => r.name === 'pool2-tfjs');
  console.log(
    `\n${mdTable(
      [
        'variant',
        'chunks',
        'chunks/s',
        'vs TF.js',
        'load ms',
        'first batch ms',
        'peak RSS MB',
        'CPU s',
        'cosine vs TF.js min / mean',
      ],
      results.map((r) => {
        const ref = r.name.startsWith('pool2') ? pool : base;
        return [
          r.name,
          r.chunks,
          fmt(r.chunksPerS),
          ref ? `${fmt(r.chunksPerS / ref.chunksPerS, 2)}×` : '',
          fmt(r.loadMs, 0),
          fmt(r.warmMs, 0),
          fmt(r.peakRssMb, 0),
          fmt(r.cpuS, 1),
          r.cosineMin === undefined
            ? ''
            : `${r.cosineMin.toFixed(7)} / ${r.cosineMean.toFixed(7)} (1 − min = ${(1 - r.cosineMin).toExponential(1)})`,
        ];
      }),
    )}\n`,
  );
  const goals = [];
  const onnx = results.filter((r) => r.name.includes('onnx'));
  if (base && onnx.length) {
    goals.push(
      goal(
        'use-lite-onnx: every ONNX vector equals TF.js (cosine ≥ 0.999 per chunk)',
        onnx.every((r) => r.cosineMin >= 0.999),
        onnx.map((r) => `${r.name} min ${r.cosineMin.toFixed(7)}`).join(', '),
      ),
    );
    const best = onnx.filter((r) => !r.name.startsWith('pool2')).sort((a, b) => b.chunksPerS - a.chunksPerS)[0];
    if (best)
      goals.push(
        goal(
          'use-lite-onnx: ONNX faster than TF.js on one process',
          best.chunksPerS > base.chunksPerS,
          `${best.name} ${fmt(best.chunksPerS)} vs tfjs ${fmt(base.chunksPerS)} chunks/s`,
        ),
      );
  }
  saveResults('use-lite-onnx', { chunks, perPage, batch, results, goals });
  return { results, goals };
}

if (process.argv[2] === '--child') {
  await child(JSON.parse(process.argv[3]));
} else if (process.argv[1] === SELF) {
  const opt = (k, d) => {
    const i = process.argv.indexOf(`--${k}`);
    return i > 0 ? process.argv[i + 1] : d;
  };
  const res = await onnxUseLiteBench({
    chunks: Number(opt('chunks', 480)),
    perPage: Number(opt('per-page', 3)),
    batch: Number(opt('batch', 16)),
    variants: opt('variants')?.split(','),
    quietWaitS: Number(opt('quiet-wait', 60)),
  });
  process.exitCode = res.goals.every((g) => g.pass) ? 0 : 1;
}
