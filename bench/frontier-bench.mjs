// `frontier`: bench/frontier.mjs as a measured child at 100k and at 1M urls, checked against the goals.
import { join } from 'node:path';
import { measure } from './lib/measure.mjs';
import { fmt, goal, mdTable, repoRoot, saveResults } from './lib/report.mjs';

async function frontierRun(count) {
  console.log(`frontier.mjs ${count.toLocaleString('en')} urls …`);
  const m = await measure(
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'bench/frontier.mjs'), String(count), '--json'],
    {
      cwd: repoRoot,
      timeoutMs: 1_200_000,
    },
  );
  const line = m.stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  if (m.code !== 0 || !line) throw new Error(`bench/frontier.mjs ${count} failed (${m.code}): ${m.stderr.slice(-800)}`);
  return { ...JSON.parse(line), wallS: m.wallS, cpuS: m.cpuS, processPeakRssMb: m.peakRssMb };
}

export async function frontierBench() {
  console.log('\n== frontier: LevelFrontier and LevelUrlFilter at 100k and 1M urls ==');
  const small = await frontierRun(100_000);
  const big = await frontierRun(1_000_000);
  const row = (r, phase) => r.rows.find((x) => x.phase.startsWith(phase));
  console.log(
    `\n${mdTable(
      ['phase', 'ops/s at 1M', 'µs/op at 1M', 'µs/op at 100k', 'RSS MB after phase (1M)'],
      big.rows.map((r) => [
        r.phase,
        r['ops/s'],
        fmt(r['µs/op'], 2),
        fmt(row(small, r.phase)?.['µs/op'], 2),
        r['peak RSS MB'],
      ]),
    )}\n`,
  );
  console.log(
    `whole bench process at 1M: ${fmt(big.wallS, 1)} s wall, ${fmt(big.cpuS, 1)} s CPU, peak RSS ${fmt(big.processPeakRssMb, 0)} MB`,
  );
  const put = row(big, 'frontier put()');
  const poll = row(big, 'frontier poll()');
  const absent = row(big, 'url filter has() absent');
  const present = row(big, 'url filter has() present');
  const absentSmall = row(small, 'url filter has() absent');
  const presentSmall = row(small, 'url filter has() present');
  const fpRate = big.falsePositives / big.count;
  const goals = [
    goal(
      'frontier: 1M put() ≥ 20,000 ops/s',
      put['ops/s'] >= 20_000,
      `${put['ops/s'].toLocaleString('en')} ops/s one by one`,
    ),
    goal(
      'frontier: 1M poll()+ack() ≥ 20,000 ops/s',
      poll['ops/s'] >= 20_000,
      `${poll['ops/s'].toLocaleString('en')} ops/s`,
    ),
    goal(
      'frontier: peak RSS < 300 MB through 1M put + poll',
      poll['peak RSS MB'] < 300,
      `${poll['peak RSS MB']} MB after put+poll (whole bench process incl. putAll/recover/url filter phases: ${fmt(big.processPeakRssMb, 0)} MB)`,
    ),
    goal(
      'dedup: has() O(1) per url (µs/op at 1M ≤ 2× at 100k)',
      absent['µs/op'] <= 2 * absentSmall['µs/op'] && present['µs/op'] <= 2 * presentSmall['µs/op'],
      `absent ${fmt(absent['µs/op'], 2)} vs ${fmt(absentSmall['µs/op'], 2)} µs, present ${fmt(present['µs/op'], 2)} vs ${fmt(presentSmall['µs/op'], 2)} µs`,
    ),
    goal(
      'dedup: Bloom FP rate configured and reported',
      Number.isFinite(big.configuredFalsePositiveRate) &&
        big.estimatedFalsePositiveRate <= 2 * big.configuredFalsePositiveRate &&
        big.falsePositives === 0,
      `configured ${big.configuredFalsePositiveRate}, estimated ${fmt(big.estimatedFalsePositiveRate, 4)} at fill ${fmt(big.fill, 3)}; ` +
        `has() wrong for ${big.falsePositives}/${big.count.toLocaleString('en')} absent urls (${fpRate.toFixed(4)}; Bloom positives are confirmed in LevelDB)`,
    ),
  ];
  saveResults('frontier', { small, big, goals });
  return { goals };
}
