// Frontier and url-filter throughput. Run: node --import tsx bench/frontier.mjs [count] [--json]
// (--json: one JSON line with the rows and the Bloom figures, for bench/run.mjs)
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LevelUrlFilter } from '../packages/core/src/dedup/index.ts';
import { LevelFrontier } from '../packages/core/src/frontier/index.ts';

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const asJson = process.argv.includes('--json');
const N = Number(positional[0] ?? 1_000_000);
const CAT = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const rows = [];
const url = (i) => `https://example.com/section/${i % 97}/page-${i}.html?ref=${(i * 7919) % 10007}`;
const sha = (s) => createHash('sha256').update(s).digest('hex');
const mb = () => Math.round(process.resourceUsage().maxRSS / 1024);

async function phase(name, count, fn) {
  const started = performance.now();
  await fn();
  const seconds = (performance.now() - started) / 1000;
  rows.push({
    phase: name,
    count,
    seconds: seconds.toFixed(1),
    'ops/s': Math.round(count / seconds),
    'µs/op': Number(((seconds * 1e6) / count).toFixed(2)),
    'peak RSS MB': mb(),
  });
}

const root = await mkdtemp(join(tmpdir(), 'gf-bench-frontier-'));
try {
  const frontier = await LevelFrontier.open(join(root, 'frontier'));
  await phase('frontier put() one by one', N, async () => {
    for (let i = 0; i < N; i++) await frontier.put({ url: url(i), depth: 1 });
  });
  if ((await frontier.size()) !== N) throw new Error(`size ${await frontier.size()} after ${N} puts`);
  await phase('frontier poll() + ack()', N, async () => {
    for (let i = 0; i < N; i++) {
      const entry = await frontier.poll();
      if (!entry) throw new Error(`queue empty after ${i} polls`);
      await frontier.ack(entry);
    }
    if (await frontier.poll()) throw new Error('queue not empty');
  });
  await frontier.clear();
  await phase('frontier putAll() by 1000', N, async () => {
    for (let i = 0; i < N; i += 1000) {
      await frontier.putAll(Array.from({ length: Math.min(1000, N - i) }, (_, j) => ({ url: url(i + j), depth: 1 })));
    }
  });
  await phase('frontier recover() (rebuilds u:)', N, async () => {
    await frontier.recover();
  });
  await frontier.close();

  const filter = await LevelUrlFilter.open(join(root, 'dedup-url'));
  const present = (i) => sha(url(i));
  await phase('url filter markAll() by 1000', N, async () => {
    for (let i = 0; i < N; i += 1000)
      await filter.markAll(
        CAT,
        1,
        Array.from({ length: Math.min(1000, N - i) }, (_, j) => present(i + j)),
      );
  });
  await filter.close();
  const reopened = await LevelUrlFilter.open(join(root, 'dedup-url'));
  await phase('url filter Bloom rebuild (first has)', N, async () => {
    await reopened.has(CAT, 1, present(0));
  });
  let falsePositives = 0;
  await phase('url filter has() absent (Bloom)', N, async () => {
    for (let i = 0; i < N; i++) if (await reopened.has(CAT, 1, sha(`absent ${i}`))) falsePositives++;
  });
  await phase('url filter has() present (LevelDB)', N, async () => {
    for (let i = 0; i < N; i++) if (!(await reopened.has(CAT, 1, present(i)))) throw new Error(`lost ${i}`);
  });
  const stats = await reopened.stats(CAT, 1);
  await reopened.close();
  if (asJson) {
    console.log(
      JSON.stringify({
        count: N,
        rows,
        falsePositives,
        configuredFalsePositiveRate: stats.configuredFalsePositiveRate,
        fill: stats.fill,
        estimatedFalsePositiveRate: stats.estimatedFalsePositiveRate,
        peakRssMb: mb(),
      }),
    );
  } else console.table(rows);
  console.log(
    `absent urls reported present: ${falsePositives} (Bloom configured ${stats.configuredFalsePositiveRate}, ` +
      `fill ${stats.fill.toFixed(3)}, estimated ${stats.estimatedFalsePositiveRate.toFixed(4)}); ` +
      'each has() includes computing one sha256',
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
