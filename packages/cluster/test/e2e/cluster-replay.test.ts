import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createRecordDatabase, type ResourceRow, silentLogger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Corpus, startCorpus } from '../../../core/test/support/corpus.js';
import { createTestDatabase, type TestDatabase } from '../../../core/test/support/pg.js';
import { createTempDir, type TempDir } from '../../../core/test/support/tmp.js';
import { ClusterClient } from '../../src/cluster-client.js';
import { type ClusterReplayReport, currentReplayKey, ReplayKeys } from '../../src/replay/replay-protocol.js';
import type { ClusterRunReport } from '../../src/run/cluster-report.js';
import { onMember, topUrls } from '../support/member-view.js';
import { clusterEnv, type Proc, runJson, startNode, stopAll, untilMembers } from '../support/processes.js';
import { type TestCluster, testCluster, testRedisUrl, until } from '../support/redis.js';

const log = silentLogger();
const NAMES = ['n1', 'n2', 'n3'];
const QUERIES = ['json encoder', 'regular expression', 'thread pool', 'time zone', 'unit test'];
/** 526 pages in slices of 25: 22 slices, several for each member, so one can die with slices still out. */
const SLICE_PAGES = '25';

/**
 * Three `greenfinger node` processes on one shared PostgreSQL, the python docs crawled once for the whole file (the
 * handbook until 6 December: 5 times the pages, 40 s more, and nothing more judged).
 */
interface World {
  corpus: Corpus;
  tmp: TempDir;
  db: TestDatabase;
  cluster: TestCluster;
  members: Map<string, Proc>;
  crawl: ClusterRunReport;
  /** The top 10 of each query after the crawl, on n1. */
  tops: string[][];
  /** Which member alone holds each page's files (made so by the first test), by url path. */
  holder: Map<string, string>;
  rows: ResourceRow[];
}

let w: World;

function env(): NodeJS.ProcessEnv {
  return clusterEnv({ DATABASE_URL: w.db.url });
}

function startMember(name: string): void {
  w.members.set(name, startNode(w.cluster.name, w.tmp.path, name, env()));
}

const allMembers = () => untilMembers(w.cluster.name, NAMES.length);

const stopMembers = () => stopAll([...w.members.values()]);

/** The CLI as a user runs it; resolves with its exit code, stdout parsed as JSON, stderr. */
const cli = <T>(args: string[]) => runJson<T>(args, env());

/** The top 10 of each query on one member's own data root (its index; the shared PostgreSQL). */
function topsOn(name: string): Promise<string[][]> {
  return onMember({ dataStore: join(w.tmp.path, name), databaseUrl: w.db.url }, (gf) => topUrls(gf, QUERIES));
}

function replayArgs(layers: string): string[] {
  return [
    'replay',
    '--cluster',
    w.cluster.name,
    '--id',
    w.crawl.catalogId,
    '--layers',
    layers,
    '--slice-pages',
    SLICE_PAGES,
    '--json',
  ];
}

function tails(): string {
  return [...w.members.values()].map((m) => `${m.name}: ${m.stderr().slice(-1500)}`).join('\n');
}

beforeAll(async () => {
  w = {
    corpus: await startCorpus('python'),
    tmp: createTempDir('gf-e2e-replay-'),
    db: await createTestDatabase(),
    cluster: await testCluster(),
    members: new Map(),
    crawl: undefined as unknown as ClusterRunReport,
    tops: [],
    holder: new Map(),
    rows: [],
  };
  for (const name of NAMES) startMember(name);
  await allMembers();
  const crawled = await cli<ClusterRunReport>([
    'crawl',
    '--cluster',
    w.cluster.name,
    '--url',
    `${w.corpus.url}/`,
    '--interval',
    '0',
    '--outputs',
    'file+index',
    '--json',
  ]);
  expect(crawled.code, crawled.stderr).toBe(0);
  w.crawl = crawled.json as ClusterRunReport;
  expect(w.crawl.ending.published).toBe(true);
  w.tops = await topsOn('n1');
  expect(w.tops[0]).toHaveLength(10);
}, 240_000);

afterAll(async () => {
  if (!w) return;
  await stopMembers();
  await w.cluster.close();
  await w.db.drop();
  await w.corpus.stop();
  w.tmp.remove();
});

describe('replay scattered over the three nodes (shared PostgreSQL, per-node files and index)', () => {
  it('index after every member lost user/index: each member does slices, the pages add up, the same top 10 everywhere, zero requests', async () => {
    await stopMembers();
    for (const name of NAMES) rmSync(join(w.tmp.path, name, 'user', 'index'), { recursive: true, force: true });
    // Each page's files on one member only (as without the blob channel: each member holds the pages it fetched), so
    // a slice pulled by one member names most of its pages absent and they travel on to the others.
    const db = await createRecordDatabase({ databaseUrl: w.db.url, sqliteFile: join(w.tmp.path, 'unused.db') });
    const rows: ResourceRow[] = [];
    try {
      for await (const batch of db.resources.iterateResources(w.crawl.catalogId, w.crawl.version)) rows.push(...batch);
    } finally {
      await db.close();
    }
    w.rows = rows;
    for (const [i, row] of rows.entries()) {
      const keep = NAMES[i % NAMES.length] as string;
      w.holder.set(new URL(row.url).pathname, keep);
      for (const name of NAMES.filter((n) => n !== keep)) {
        for (const key of [row.htmlPath, row.textPath]) rmSync(join(w.tmp.path, name, 'user', key), { force: true });
      }
    }
    for (const name of NAMES) startMember(name);
    await allMembers();
    const requestsBefore = w.corpus.accessLog().length;
    const started = Date.now();
    const { code, json, stderr } = await cli<ClusterReplayReport>(replayArgs('index'));
    const wall = Date.now() - started;
    expect(code, `${stderr}\n${tails()}`).toBe(0);
    const r = json as ClusterReplayReport;
    const pages = w.crawl.produced.saved;
    expect(r.nodes).toEqual(NAMES);
    expect(r.missing, JSON.stringify(r.missing)).toBeUndefined();
    expect(r.redone).toEqual([]);
    for (const name of NAMES) expect(r.byNode[name]?.slices, name).toBeGreaterThanOrEqual(1);
    // Each member rebuilt exactly the pages whose files it holds.
    for (const name of NAMES)
      expect(r.byNode[name]?.pages, name).toBe(Math.floor((pages + 2 - NAMES.indexOf(name)) / 3));
    expect(Object.values(r.byNode).reduce((a, n) => a + n.pages, 0)).toBe(pages);
    expect(r.layers.index).toEqual({ written: pages, failed: 0 });
    expect(r.unrebuilt).toBe(0);
    expect(r.requests).toBe(0);
    expect(r.republished).toBe(true);
    // An index replay never fetches: nothing reached the site.
    expect(w.corpus.accessLog().length).toBe(requestsBefore);
    for (const name of NAMES) expect(await topsOn(name), name).toEqual(w.tops);
    console.log(
      `index replay of ${pages} pages over three members in ${(wall / 1000).toFixed(1)} s (CLI wall), ` +
        `${(r.elapsedMs / 1000).toFixed(1)} s gathered: ` +
        NAMES.map((n) => `${n} ${r.byNode[n]?.slices} slices / ${r.byNode[n]?.pages} pages`).join(', ') +
        `; 0 requests`,
    );
  }, 120_000);

  it('kill -9 of a member while slices are out: its slices are done again by the leader, the report still adds up', async () => {
    const client = await ClusterClient.open({ cluster: w.cluster.name, redisUrl: testRedisUrl, log });
    try {
      const leader = (await client.status()).leader?.name as string;
      const victim = NAMES.find((n) => n !== leader) as string;
      const requestsBefore = w.corpus.accessLog().length;
      const running = cli<ClusterReplayReport>(replayArgs('file+index'));
      let replayId = '';
      await until(
        'the replay started',
        async () => {
          const text = await w.cluster.redis.get(currentReplayKey(w.cluster.keys));
          replayId = text ? String(JSON.parse(text).replayId) : '';
          return replayId !== '';
        },
        30_000,
      );
      const rk = new ReplayKeys(w.cluster.keys, replayId);
      await until(
        `${victim} answered a slice`,
        async () => {
          const p = JSON.parse((await w.cluster.redis.get(rk.progress)) ?? '{}');
          return (p.byNode?.[victim]?.slices ?? 0) >= 1;
        },
        30_000,
      );
      w.members.get(victim)?.child.kill('SIGKILL');
      const { code, json, stderr } = await running;
      expect(json, `${stderr}\n${tails()}`).toBeDefined();
      const r = json as ClusterReplayReport;
      const pages = w.crawl.produced.saved;
      expect(r.missing?.[victim], JSON.stringify(r)).toBeDefined();
      // Every page was rebuilt somewhere: by the members that held its files, or fetched again by the last one asked
      // (the killed member's files went with it).
      expect(Object.values(r.byNode).reduce((a, n) => a + n.pages, 0)).toBe(pages);
      expect(r.unrebuilt).toBe(0);
      expect(r.layers.index?.written).toBe(pages);
      expect(r.layers.index?.failed).toBe(0);
      expect(r.byNode[victim]?.slices ?? 0).toBeGreaterThanOrEqual(1);
      expect(code, stderr).toBe(0);
      // What was fetched again is pages only the killed member held: nothing else.
      const fetched = w.corpus.accessLog().slice(requestsBefore);
      expect(fetched.length).toBe(r.requests);
      const pagesFetched = fetched.filter((l) => l.contentType.startsWith('text/html'));
      expect(pagesFetched.filter((l) => w.holder.get(l.path) !== victim)).toEqual([]);
      expect(r.requests).toBeLessThanOrEqual(Math.ceil(pages / 3));
      const survivors = NAMES.filter((n) => n !== victim);
      // The pages fetched again (only the killed member held them, and it had not reached them) went from the
      // survivor that fetched them to the other on the replay's blob channel: both hold their files now.
      const again = new Set(pagesFetched.map((l) => l.path));
      const victims = w.rows.filter((row) => again.has(new URL(row.url).pathname));
      expect(victims.length).toBe(pagesFetched.length);
      for (const name of survivors) {
        const has = (key: string) => existsSync(join(w.tmp.path, name, 'user', key));
        const lacking = victims.filter((row) => !has(row.htmlPath) || !has(row.textPath));
        expect(lacking.length, `${name} lacks the files of ${lacking.length} of ${victims.length} pages`).toBe(0);
      }
      for (const name of survivors) expect(await topsOn(name), name).toEqual(w.tops);
      console.log(
        `kill -9 of ${victim} during a file+index replay: ${r.redone.length} slices done again ` +
          `(${r.redone.reduce((a, d) => a + d.pages, 0)} pages), ${r.requests} requests to fetch again what only it held; ` +
          NAMES.map((n) => `${n} ${r.byNode[n]?.slices} slices / ${r.byNode[n]?.pages} pages`).join(', ') +
          ` = ${pages}; ${(r.elapsedMs / 1000).toFixed(1)} s`,
      );
    } finally {
      await client.close();
    }
  }, 150_000);
});
