import { join } from 'node:path';
import { silentLogger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccessLogLine, type Corpus, startCorpus } from '../../../core/test/support/corpus.js';
import { createTempDir, type TempDir } from '../../../core/test/support/tmp.js';
import { ClusterClient } from '../../src/cluster-client.js';
import type { ClusterNode } from '../../src/cluster-node.js';
import type { PolitenessScope } from '../../src/run/run-info.js';
import { startMembers } from '../support/members.js';
import { type TestCluster, testCluster, testRedisUrl } from '../support/redis.js';

const log = silentLogger();
const INTERVAL_MS = 100;
/** Gaps judged together (see the test). */
const WINDOW = 5;

/** Request starts (nginx logs the end, `$msec`, and how long it took), sorted; robots.txt and sitemaps left out. */
function starts(lines: AccessLogLine[]): number[] {
  return lines
    .filter(
      (l) =>
        l.method === 'GET' &&
        !l.path.startsWith('/robots.txt') &&
        !l.path.startsWith('/llms.txt') &&
        !l.path.includes('sitemap'),
    )
    .map((l) => l.msec - l.requestTime * 1000)
    .sort((a, b) => a - b);
}

/** The time spanned by every run of `n` consecutive gaps. */
function spans(gaps: number[], n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i + n <= gaps.length; i++) out.push(gaps.slice(i, i + n).reduce((a, g) => a + g, 0));
  return out;
}

/** Three members in one process on the handbook (own data roots and SQLite), the run's politeness scope given. */
describe('politeness over the members of a cluster (nginx access log as the judge)', () => {
  let corpus: Corpus;
  let tmp: TempDir;

  beforeAll(async () => {
    corpus = await startCorpus('handbook');
    tmp = createTempDir('gf-cluster-polite-');
  });
  afterAll(async () => {
    await corpus?.stop();
    tmp?.remove();
  });

  async function crawlWith(scope: PolitenessScope): Promise<{ gaps: number[]; nodes: string[] }> {
    const cluster: TestCluster = await testCluster();
    const nodes: ClusterNode[] = [];
    try {
      nodes.push(...(await startMembers(cluster, join(tmp.path, scope), ['a', 'b', 'c'], { politeness: scope })));
      const before = corpus.accessLog().length;
      const client = await ClusterClient.open({ cluster: cluster.name, redisUrl: testRedisUrl, log });
      try {
        const report = await client.crawl({
          url: corpus.startUrl,
          name: `polite-${scope}`,
          settings: { intervalMs: INTERVAL_MS, hostConcurrency: 2, maxPages: 45, threads: 4, outputs: ['file'] },
        });
        const t = starts(corpus.accessLog().slice(before));
        return { gaps: t.slice(1).map((x, i) => x - (t[i] as number)), nodes: Object.keys(report.byNode) };
      } finally {
        await client.close();
      }
    } finally {
      for (const n of nodes) await n.close().catch(() => undefined);
      await cluster.close();
    }
  }

  it('cluster: the catalog interval holds between any two requests of all three members; member: it holds per member only', async () => {
    const shared = await crawlWith('cluster');
    expect(shared.nodes.sort()).toEqual(['a', 'b', 'c']);
    expect(shared.gaps.length).toBeGreaterThan(40);
    expect(shared.nodes).toHaveLength(3);
    // Slots are granted by Redis at least one interval apart, and a request reaches nginx a little after its grant
    // (three members share this process's event loop; on a loaded CI machine that wait reached 51 ms once), so one
    // gap can be shorter by that wait and the next longer by as much. Judged over windows of five gaps, one such wait
    // costs a window at most one interval: every window spans at least four intervals. Member scope, three budgets
    // at once, packs five gaps into about 1.7 intervals.
    const windows = spans(shared.gaps, WINDOW);
    expect(Math.min(...windows)).toBeGreaterThanOrEqual((WINDOW - 1) * INTERVAL_MS);
    const span = shared.gaps.reduce((a, g) => a + g, 0);
    expect(span).toBeGreaterThanOrEqual((shared.gaps.length - 1) * INTERVAL_MS);

    const own = await crawlWith('member');
    expect(own.gaps.length).toBeGreaterThan(40);
    // Three members with a budget each: many starts closer than one interval.
    expect(own.gaps.filter((g) => g < INTERVAL_MS / 2).length).toBeGreaterThan(own.gaps.length / 4);
    expect(Math.min(...spans(own.gaps, WINDOW))).toBeLessThan((WINDOW - 1) * INTERVAL_MS);
    console.log(
      `politeness over 3 members, interval ${INTERVAL_MS} ms: cluster scope min gap ${Math.min(...shared.gaps).toFixed(0)} ms, ` +
        `min span of ${WINDOW} gaps ${Math.min(...windows).toFixed(0)} ms ` +
        `(${shared.gaps.length + 1} requests); member scope min gap ${Math.min(...own.gaps).toFixed(0)} ms, ` +
        `${own.gaps.filter((g) => g < INTERVAL_MS / 2).length} of ${own.gaps.length} gaps under half the interval`,
    );
  });
});
