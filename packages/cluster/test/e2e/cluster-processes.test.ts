import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createRecordDatabase, SqliteVecFamily, silentLogger } from '@greenfinger/core/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { type AccessLogLine, type Corpus, type CorpusName, startCorpus } from '../../../core/test/support/corpus.js';
import { createTestDatabase, type TestDatabase } from '../../../core/test/support/pg.js';
import { createTempDir, type TempDir } from '../../../core/test/support/tmp.js';
import { ClusterClient } from '../../src/cluster-client.js';
import { ControlChannel, type ControlMessage } from '../../src/plumbing/control-channel.js';
import type { ClusterRunReport } from '../../src/run/cluster-report.js';
import { type MemberRoot, onMember, topUrls } from '../support/member-view.js';
import { clusterEnv, type Proc, runCli, runJson, startNode, stopAll, untilMembers } from '../support/processes.js';
import { type TestCluster, testCluster, testRedisUrl, until } from '../support/redis.js';

const log = silentLogger();

/**
 * What a whole crawl of each corpus gives (`--url <corpus>/`, the access log's text/html answers): the distinct pages
 * at least (a few of the handbook's are told apart by a query only some runs meet) and the pages saved. The handbook
 * (3,303 pages, 1,658 pictures) is crawled where per-node files and pictures and the pages fetched twice after a
 * member's death or freeze are measured (the freeze, a later join and a follower's death share one crawl); the
 * shared-PostgreSQL whole crawl, the leader's death and a pause crawl the python docs (527 pages): what they judge (one
 * fetch per page, fair shares, who leads and when, what is published, what a resume fetches) does not grow with the
 * site, and each costs a fraction of the time. (On the python docs a follower's kill or freeze refetched 15–17 pages against a bound of 16
 * threads — one over once in five — where the handbook's stayed at 0–16: left on the handbook until that is
 * understood.)
 */
const WHOLE: Record<CorpusName, { pages: number; saved: number }> = {
  handbook: { pages: 3290, saved: 2599 },
  python: { pages: 527, saved: 526 },
};

/** Where the records go: one PostgreSQL for every member, or each member's own SQLite under its data root. */
type Records = 'shared PostgreSQL' | 'per-node SQLite';

interface World {
  records: Records;
  corpus: Corpus;
  tmp: TempDir;
  db: TestDatabase;
  cluster: TestCluster;
  members: Proc[];
  heard: ControlMessage[];
}

let world: World | undefined;

afterEach(async () => {
  const w = world;
  world = undefined;
  if (!w) return;
  await stopAll(w.members);
  await Promise.all([w.cluster.close(), w.db.drop(), w.corpus.stop()]);
  w.tmp.remove();
});

function env(w: World): NodeJS.ProcessEnv {
  return clusterEnv({ DATABASE_URL: w.records === 'shared PostgreSQL' ? w.db.url : '' });
}

function startMember(w: World, name: string): Proc {
  const member = startNode(w.cluster.name, w.tmp.path, name, env(w));
  w.members.push(member);
  return member;
}

async function setUp(
  records: Records = 'shared PostgreSQL',
  names = ['n1', 'n2', 'n3'],
  corpus: CorpusName = 'handbook',
): Promise<World> {
  const w: World = {
    records,
    corpus: await startCorpus(corpus),
    tmp: createTempDir('gf-e2e-cluster-'),
    db: await createTestDatabase(),
    cluster: await testCluster(),
    members: [],
    heard: [],
  };
  world = w;
  await new ControlChannel(w.cluster.redis, w.cluster.keys, log).subscribe(await w.cluster.connect('listener'), (m) => {
    w.heard.push(m);
  });
  for (const name of names) startMember(w, name);
  await untilMembers(w.cluster.name, names.length);
  return w;
}

/** `greenfinger crawl --cluster … --json` as a user runs it; resolves with its exit code and the merged report. */
async function crawl(
  w: World,
  options: { outputs?: string; args?: string[] } = {},
): Promise<{ code: number | null; report: ClusterRunReport | undefined; stderr: string }> {
  const { code, json, stderr } = await runJson<ClusterRunReport>(
    [
      'crawl',
      '--cluster',
      w.cluster.name,
      '--url',
      `${w.corpus.url}/`,
      '--interval',
      '0',
      '--outputs',
      options.outputs ?? 'file+index',
      ...(options.args ?? []),
      '--json',
    ],
    env(w),
    400_000,
  );
  return { code, report: json, stderr };
}

/**
 * The crawl's end, or after `ms` a failure that says where the run stands (the routing counters, the streams, who
 * posted a report, the members' last words), so a run that never ends is explained rather than only timed out.
 */
async function ended<T>(w: World, running: Promise<T>, ms = 180_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(async () => {
      const client = await ClusterClient.open({ cluster: w.cluster.name, redisUrl: testRedisUrl, log });
      const status = await client.status().finally(() => client.close());
      const runId = status.run?.runId ?? '';
      const reports = runId ? await w.cluster.redis.hkeys(w.cluster.keys.run(runId).reports) : [];
      const tails = w.members.map((m) => `${m.name}: ${m.stderr().slice(-1500)}`).join('\n');
      reject(
        new Error(`the crawl did not end in ${ms} ms: ${JSON.stringify(status)}; reports from ${reports}\n${tails}`),
      );
    }, ms);
  });
  try {
    return await Promise.race([running, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The HTML pages the corpus served (robots.txt and the sitemap answer 404 here; pictures are not pages). */
function pageRequests(w: World): AccessLogLine[] {
  return w.corpus
    .accessLog()
    .filter((l) => l.method === 'GET' && l.status === 200 && l.contentType.startsWith('text/html'));
}

function countsByPath(lines: AccessLogLine[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const l of lines) counts.set(l.path, (counts.get(l.path) ?? 0) + 1);
  return counts;
}

/** The files under a directory, as paths relative to it (empty when it is not there). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const stack = [dir];
  for (let i = 0; i < 1_000_000 && stack.length > 0; i++) {
    const d = stack.pop() as string;
    if (!existsSync(d)) continue;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) stack.push(join(d, e.name));
      else if (e.isFile()) out.push(relative(dir, join(d, e.name)));
    }
  }
  return out.sort();
}

/**
 * The largest each replicated channel's stream grew during a run (`MEMORY USAGE`, every 250 ms), by channel; stop()
 * ends the sampling and gives them.
 */
function sampleStreams(w: World): { stop(): Promise<Record<string, number>> } {
  const peaks: Record<string, number> = {};
  let stopped = false;
  const loop = (async () => {
    for (let i = 0; i < 2_400 && !stopped; i++) {
      for (const channel of ['search', 'record', 'blob', 'vectors']) {
        const [, found] = await w.cluster.redis.scan(
          '0',
          'MATCH',
          `${w.cluster.keys.prefix}run:*:${channel}`,
          'COUNT',
          1000,
        );
        for (const key of found) {
          const bytes = Number((await w.cluster.redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0);
          peaks[channel] = Math.max(peaks[channel] ?? 0, bytes);
        }
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return peaks;
    },
  };
}

/** One member's data root, and the database it records into. */
function rootOf(w: World, name: string): MemberRoot {
  return { dataStore: join(w.tmp.path, name), databaseUrl: w.records === 'shared PostgreSQL' ? w.db.url : '' };
}

/** A member that does not lead now, and its process. */
async function aFollower(w: World, client: ClusterClient): Promise<{ victim: { name: string }; member: Proc }> {
  const victim = (await client.status()).members.find((m) => !m.leader) as { name: string };
  return { victim, member: w.members.find((m) => m.name === victim.name) as Proc };
}

/** Pages saved over the cluster so far (the members' progress, flushed every 500 ms). */
async function savedSoFar(client: ClusterClient): Promise<number> {
  return (await client.status()).members.reduce((sum, m) => sum + (m.run?.saved ?? 0), 0);
}

/**
 * The whole-crawl cases: per-node SQLite on the handbook, where every member's files and pictures are compared (the
 * blob channel's load); the shared PostgreSQL on the python docs (what it judges — one fetch per page, fair shares,
 * one publish, the same answers on every member — does not grow with the site; the handbook took 69 s of crawl).
 */
const WHOLE_CRAWLS: Array<{ records: Records; corpus: CorpusName; pictures: number; queries: string[] }> = [
  {
    records: 'shared PostgreSQL',
    corpus: 'python',
    pictures: 0,
    queries: ['json encoder', 'regular expression', 'thread pool', 'time zone', 'unit test'],
  },
  {
    records: 'per-node SQLite',
    corpus: 'handbook',
    pictures: 1000,
    queries: ['network configuration', 'apache virtual host', 'debian package', 'samba', 'firewall rules'],
  },
];

describe.each(WHOLE_CRAWLS)(
  'three member processes crawl the $corpus corpus, $records',
  ({ records, corpus, pictures: leastPictures, queries }) => {
    it('every page fetched exactly once, each member a fair share, the merged report adds up, published once, the same top 10 everywhere', async () => {
      const w = await setUp(records, ['n1', 'n2', 'n3'], corpus);
      const streams = sampleStreams(w);
      const { code, report, stderr } = await crawl(w);
      const peaks = await streams.stop();
      expect(code, stderr).toBe(0);
      expect(report).toBeDefined();
      const r = report as ClusterRunReport;

      const pages = pageRequests(w);
      const counts = countsByPath(pages);
      expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
      expect(counts.size).toBeGreaterThanOrEqual(WHOLE[corpus].pages);
      // Pictures too: each picture url is fetched by one member only (the run's picture registry).
      const pictures = countsByPath(
        w.corpus.accessLog().filter((l) => l.method === 'GET' && l.contentType.startsWith('image/')),
      );
      expect([...pictures].filter(([, n]) => n > 1)).toEqual([]);
      expect(pictures.size).toBeGreaterThan(leastPictures);
      const byAgent = new Map<string, number>();
      for (const l of pages) byAgent.set(l.userAgent, (byAgent.get(l.userAgent) ?? 0) + 1);
      for (const name of ['n1', 'n2', 'n3']) {
        const share = (byAgent.get(`greenfinger-e2e/${name}`) ?? 0) / pages.length;
        expect(share, `${name} fetched ${(share * 100).toFixed(1)}%`).toBeGreaterThanOrEqual(0.2);
      }

      expect(r.nodes).toEqual(['n1', 'n2', 'n3']);
      expect(r.missing, JSON.stringify(r.missing)).toBeUndefined();
      expect(r.ending).toMatchObject({ reason: 'frontier-drained', published: true, fullyCrawled: true });
      expect(r.urls.handled).toBe(r.urls.dispatched);
      expect(r.routing?.handled).toBe(r.routing?.dispatched);
      expect(Object.values(r.byNode).reduce((a, n) => a + n.produced.saved, 0)).toBe(r.produced.saved);
      // saved + duplicates: every page the corpus served was kept or counted as a duplicate of one kept
      expect(r.produced.saved + r.urls.duplicateContent).toBe(counts.size);
      await until('COMPLETED heard', () => w.heard.some((m) => m.type === 'COMPLETED'), 30_000);
      expect(w.heard.filter((m) => m.type === 'PUBLISHED')).toHaveLength(1);
      expect(w.heard.filter((m) => m.type === 'COMPLETED')).toHaveLength(1);
      // Search on each member's own data root: the same top 10 for five queries (the search channel filled every
      // member's embedded index with every page).
      const tops: Record<string, string[][]> = {};
      for (const name of ['n1', 'n2', 'n3']) {
        const [top, versions] = await onMember(rootOf(w, name), async (gf) => [
          await topUrls(gf, queries),
          await gf.versions.list({ id: r.catalogId }),
        ]);
        tops[name] = top;
        // Every member's record database holds every saved page (per-node SQLite: the record channel).
        expect(
          versions.find((v) => v.version === 0),
          name,
        ).toMatchObject({ saved: r.produced.saved, serving: true });
      }
      if (records === 'per-node SQLite') {
        // Every member's data root holds every saved page's files and every picture (the blob channel).
        const assets = (name: string) => join(w.tmp.path, name, 'user', 'assets', r.catalogId, 'v0');
        const pageFiles = Object.fromEntries(['n1', 'n2', 'n3'].map((n) => [n, filesUnder(join(assets(n), 'pages'))]));
        const pictureFiles = Object.fromEntries(
          ['n1', 'n2', 'n3'].map((n) => [n, filesUnder(join(assets(n), 'images'))]),
        );
        const texts = pageFiles.n1?.filter((f) => f.endsWith('.txt')) ?? [];
        expect(texts.length).toBe(r.produced.saved);
        expect(pageFiles.n1?.length).toBe(2 * r.produced.saved);
        expect(pageFiles.n2).toEqual(pageFiles.n1);
        expect(pageFiles.n3).toEqual(pageFiles.n1);
        // Every picture row of the run has its file on every member (the pictures of a version, by content hash).
        const db = await createRecordDatabase({ sqliteFile: join(w.tmp.path, 'n1', 'system', 'greenfinger.db') });
        const rows = new Set<string>();
        try {
          for await (const batch of db.resources.iterateImages(r.catalogId, 0))
            for (const row of batch) rows.add(row.path);
        } finally {
          await db.close();
        }
        const prefix = `assets/${r.catalogId}/v0/images/`;
        expect(pictureFiles.n1).toEqual([...rows].map((p) => p.slice(prefix.length)).sort());
        expect(pictureFiles.n1?.length).toBeGreaterThan(300);
        expect(pictureFiles.n2).toEqual(pictureFiles.n1);
        expect(pictureFiles.n3).toEqual(pictureFiles.n1);
        // The same bytes on every member, for a sample of pages and pictures (every 50th).
        const sample = [
          ...(pageFiles.n1 ?? []).filter((_, i) => i % 50 === 0).map((f) => join('pages', f)),
          ...(pictureFiles.n1 ?? []).filter((_, i) => i % 50 === 0).map((f) => join('images', f)),
        ];
        for (const f of sample) {
          const one = readFileSync(join(assets('n1'), f));
          expect(readFileSync(join(assets('n2'), f)).equals(one), f).toBe(true);
          expect(readFileSync(join(assets('n3'), f)).equals(one), f).toBe(true);
        }
        const bytes = [
          ...(pageFiles.n1 ?? []).map((f) => join('pages', f)),
          ...(pictureFiles.n1 ?? []).map((f) => join('images', f)),
        ].reduce((sum, f) => sum + statSync(join(assets('n1'), f)).size, 0);
        console.log(
          `per-node files: ${pageFiles.n1?.length} page files and ${pictureFiles.n1?.length} pictures on each member, ` +
            `${(bytes / 1e6).toFixed(1)} MB (${Math.round(bytes / r.produced.saved)} bytes a saved page, each sent once on the blob channel); ` +
            `peak stream memory (bytes) ${JSON.stringify(peaks)}, ` +
            `${Math.round((peaks.blob ?? 0) / r.produced.saved)} blob-stream bytes per saved page at the peak`,
        );
      }
      for (const [i, q] of queries.entries()) {
        expect(tops.n1?.[i]?.length, q).toBe(10);
        expect(tops.n2?.[i], q).toEqual(tops.n1?.[i]);
        expect(tops.n3?.[i], q).toEqual(tops.n1?.[i]);
      }
      console.log(
        `three members, ${records}: ${counts.size} pages each fetched once in ${(r.elapsedMs / 1000).toFixed(1)} s; ` +
          ['n1', 'n2', 'n3']
            .map((n) => `${n} ${(((byAgent.get(`greenfinger-e2e/${n}`) ?? 0) / pages.length) * 100).toFixed(1)}%`)
            .join(', ') +
          `; ${pictures.size} pictures each fetched once` +
          `; saved ${r.produced.saved} + ${r.urls.duplicateContent} duplicates; dispatched ${r.urls.dispatched} = handled ${r.urls.handled}`,
      );
    }, 300_000);
  },
);

describe('three member processes crawl the handbook, per-node SQLite, with vectors', () => {
  it('every member’s embedded vector store holds every point of the run: the same top 10 by meaning on each', async () => {
    const w = await setUp('per-node SQLite');
    const { code, report, stderr } = await ended(
      w,
      crawl(w, { outputs: 'file+index+vector', args: ['--max-pages', '60'] }),
    );
    expect(code, stderr).toBe(0);
    const r = report as ClusterRunReport;
    expect(r.ending).toMatchObject({ published: true });
    const points: Record<string, number> = {};
    for (const name of ['n1', 'n2', 'n3']) {
      const family = new SqliteVecFamily({
        root: join(w.tmp.path, name, 'user', 'vector'),
        collection: 'greenfinger_text',
      });
      try {
        const stats = await family.stats();
        points[name] = stats.collections
          .flatMap((c) => c.versions)
          .filter((v) => v.catalogId === r.catalogId && v.version === 0)
          .reduce((sum, v) => sum + v.points, 0);
      } finally {
        await family.close();
      }
    }
    // Each member embedded its own pages only; the others' points came on the vector channel.
    const own = Object.fromEntries(Object.entries(r.byNode).map(([n, b]) => [n, b.produced.saved]));
    expect(points.n1).toBeGreaterThanOrEqual(r.produced.saved);
    expect(points.n2).toBe(points.n1);
    expect(points.n3).toBe(points.n1);
    const queries = ['network configuration', 'how to install a package'];
    const tops: Record<string, string[][]> = {};
    for (const name of ['n1', 'n2', 'n3'])
      tops[name] = await onMember(rootOf(w, name), (gf) => topUrls(gf, queries, 'meaning'));
    for (const [i, q] of queries.entries()) {
      expect(tops.n1?.[i]?.length, q).toBe(10);
      expect(tops.n2?.[i], q).toEqual(tops.n1?.[i]);
      expect(tops.n3?.[i], q).toEqual(tops.n1?.[i]);
    }
    console.log(
      `three members with vectors: ${r.produced.saved} pages saved (by member ${JSON.stringify(own)}), ` +
        `${points.n1} points on every member (${JSON.stringify(points)})`,
    );
  }, 300_000);
});

describe('three member processes, shared PostgreSQL, the leader killed', () => {
  it('kill -9 of the leader at about 150 pages of the python docs: another member leads within the lease time, the crawl completes and publishes once', async () => {
    const w = await setUp('shared PostgreSQL', ['n1', 'n2', 'n3'], 'python');
    const client = await ClusterClient.open({ cluster: w.cluster.name, redisUrl: testRedisUrl, log });
    try {
      const running = crawl(w);
      await until('about 150 pages saved', async () => (await savedSoFar(client)) >= 150, 120_000);
      const leader = (await client.status()).leader?.name as string;
      const member = w.members.find((m) => m.name === leader) as Proc;
      member.child.kill('SIGKILL');
      const killedAt = Date.now();
      let next: string | undefined;
      await until(
        'a new leader',
        async () => {
          next = (await client.status()).leader?.name;
          return next !== undefined && next !== leader;
        },
        30_000,
      );
      const takeover = Date.now() - killedAt;
      expect(takeover).toBeLessThan(5000); // the lease time: the heartbeat (3 s) tells first
      const { code, report, stderr } = await ended(w, running);
      expect(code, stderr).toBe(0);
      const r = report as ClusterRunReport;
      const said = JSON.stringify({
        ending: r.ending,
        missing: r.missing,
        saved: r.produced.saved,
        rehomed: r.rehomed,
        routing: r.routing,
        byNode: Object.fromEntries(
          Object.entries(r.byNode).map(([n, b]) => [n, [b.produced.saved, b.ending.reason, b.endedAt]]),
        ),
      });
      expect(r.ending, said).toMatchObject({ reason: 'frontier-drained', published: true });
      const killed = `${said}; killed ${leader} at ${new Date(killedAt).toISOString()}`;
      const own = r.byNode[leader];
      if (own) {
        // Its report is in the merge: then it was posted before the kill reached the process (a part ended by then),
        // never after. Seen once in a fresh-clone CI run, where the TypeError below hid the figures.
        expect(new Date(own.endedAt).getTime(), killed).toBeLessThanOrEqual(killedAt);
      } else {
        expect(r.missing?.[leader] ?? '', killed).toMatch(/without a report/);
        expect(Object.keys(r.missing ?? {}), killed).toEqual([leader]);
      }
      const counts = countsByPath(pageRequests(w));
      expect(counts.size).toBeGreaterThanOrEqual(WHOLE.python.pages);
      await until('COMPLETED heard', () => w.heard.some((m) => m.type === 'COMPLETED'), 30_000);
      expect(w.heard.filter((m) => m.type === 'PUBLISHED')).toHaveLength(1);
      expect(w.heard.filter((m) => m.type === 'COMPLETED')).toHaveLength(1);
      console.log(
        `kill -9 of leader ${leader}: ${next} led after ${takeover} ms; ${counts.size} distinct pages, ` +
          `${[...counts].filter(([, n]) => n > 1).length} fetched twice, re-homed ${JSON.stringify(r.rehomed)}`,
      );
    } finally {
      await client.close();
    }
  }, 300_000);
});

describe('three member processes, shared PostgreSQL, the membership or the run changing', () => {
  it('a member frozen 5 s (SIGSTOP) is taken for dead and, awake, leaves what was re-homed, fetching twice only what it had in flight; a member joining later takes its share of the queued and new urls; a follower killed (kill -9) refetches at most its threads', async () => {
    // One handbook crawl judges all three: the freeze at about 500 pages, the kill of the other follower at about
    // 1,000 and the join at about 1,300 (each a whole crawl of its own until 6 December: 70 s apiece). A page fetched
    // twice must have one fetch by the frozen member or one by the killed member: the join fetches nothing twice.
    const w = await setUp();
    const client = await ClusterClient.open({ cluster: w.cluster.name, redisUrl: testRedisUrl, log });
    try {
      const running = crawl(w);
      await until('about 500 pages saved', async () => (await savedSoFar(client)) >= 500, 120_000);
      const { victim: frozen, member } = await aFollower(w, client);
      member.child.kill('SIGSTOP');
      await new Promise((r) => setTimeout(r, 5000));
      member.child.kill('SIGCONT');
      await until('about 1,000 pages saved', async () => (await savedSoFar(client)) >= 1000, 120_000);
      const status = await client.status();
      const killed = status.members.find((m) => !m.leader && m.name !== frozen.name) as { name: string };
      const killedAt = Date.now();
      (w.members.find((m) => m.name === killed.name) as Proc).child.kill('SIGKILL');
      await until('about 1,300 pages saved', async () => (await savedSoFar(client)) >= 1300, 120_000);
      const joinedAt = await savedSoFar(client);
      startMember(w, 'n4');
      const { code, report, stderr } = await ended(w, running);
      expect(code, stderr).toBe(0);
      const r = report as ClusterRunReport;
      expect(r.nodes).toEqual(['n1', 'n2', 'n3', 'n4']);
      expect(r.ending).toMatchObject({ reason: 'frontier-drained', published: true });
      expect(r.missing?.[killed.name]).toMatch(/without a report/);
      expect(Object.keys(r.missing ?? {}), JSON.stringify(r.missing)).toEqual([killed.name]);
      expect(r.routing?.handled).toBe(r.routing?.dispatched);
      const pages = pageRequests(w);
      const counts = countsByPath(pages);
      expect(counts.size).toBeGreaterThanOrEqual(WHOLE.handbook.pages);
      expect([...counts].filter(([, n]) => n > 2)).toEqual([]);
      const fetchesOf = (path: string) => pages.filter((l) => l.path === path);
      const who = (path: string) =>
        fetchesOf(path)
          .map((l) => `${l.userAgent.replace('greenfinger-e2e/', '')} ${Math.round(l.msec - killedAt)} ms`)
          .join(', ');
      const twice = [...counts].filter(([, n]) => n > 1).map(([p]) => p);
      const fetchedBy = (path: string, name: string) =>
        fetchesOf(path).some((l) => l.userAgent === `greenfinger-e2e/${name}`);
      const byFreeze = twice.filter((p) => fetchedBy(p, frozen.name));
      const byKill = twice.filter((p) => fetchedBy(p, killed.name) && !fetchedBy(p, frozen.name));
      expect(
        twice.filter((p) => !fetchedBy(p, frozen.name) && !fetchedBy(p, killed.name)).map((p) => `${p}: ${who(p)}`),
      ).toEqual([]);
      // The freeze: its entries were re-homed (it held up to 32 read ahead); what it had polled — at most its 16
      // threads' leases — is fetched after it wakes; the rest it took out of its frontier.
      expect(r.rehomed?.[frozen.name]?.claimed ?? 0, JSON.stringify(r.rehomed)).toBeGreaterThan(0);
      expect(byFreeze.length, byFreeze.map((p) => `${p} (${who(p)})`).join('; ')).toBeLessThanOrEqual(16);
      // The kill (issue 30 item 4: 63 with a read-ahead of 64): of what it held (read ahead: 2 × threads), only the
      // urls handed to its threads and not yet acknowledged by a commit can have been fetched: its 16 threads.
      expect(r.rehomed?.[killed.name]?.claimed ?? 0, JSON.stringify(r.rehomed)).toBeGreaterThan(0);
      expect(byKill.length, byKill.map((p) => `${p} (${who(p)})`).join('; ')).toBeLessThanOrEqual(16);
      const late = pages.filter((l) => l.userAgent === 'greenfinger-e2e/n4').length;
      const n4 = r.byNode.n4;
      expect(
        n4?.produced.saved ?? 0,
        JSON.stringify({ produced: n4?.produced, urls: n4?.urls, ending: n4?.ending, startedAt: n4?.startedAt }),
      ).toBeGreaterThan(0);
      expect(late).toBeGreaterThan(0.05 * pages.length);
      console.log(
        `${frozen.name} frozen 5 s: ${r.rehomed?.[frozen.name]?.claimed} of its entries re-homed, ` +
          `${r.revoked?.[frozen.name] ?? 0} taken out of its frontier on waking, ${byFreeze.length} pages fetched twice; ` +
          `n4 joined at ${joinedAt} pages saved and fetched ${late} of ${pages.length} pages ` +
          `(${((late / pages.length) * 100).toFixed(1)}%); kill -9 of ${killed.name} at ` +
          `${status.members.reduce((a, m) => a + (m.run?.saved ?? 0), 0)} pages: ${byKill.length} fetched twice, ` +
          `${r.rehomed?.[killed.name]?.claimed} held re-homed; ${counts.size} distinct pages`,
      );
    } finally {
      await client.close();
    }
  }, 300_000);

  it('pause --cluster (python docs) stops every member at once (nothing more fetched, nothing published); resume --cluster finishes the crawl, every page fetched once over both', async () => {
    const w = await setUp('shared PostgreSQL', ['n1', 'n2', 'n3'], 'python');
    const client = await ClusterClient.open({ cluster: w.cluster.name, redisUrl: testRedisUrl, log });
    try {
      const running = crawl(w);
      await until('about 100 pages saved', async () => (await savedSoFar(client)) >= 100, 120_000);
      const pause = await runCli(['pause', '--cluster', w.cluster.name, '--json'], env(w), 60_000);
      const pausedAt = Date.now();
      expect(pause.code, pause.stderr).toBe(0);
      expect(JSON.parse(pause.stdout)).toMatchObject({ paused: true });
      const { report, stderr } = await ended(w, running);
      const r = report as ClusterRunReport;
      expect(r, stderr).toBeDefined();
      expect(r.ending).toMatchObject({ reason: 'interrupted', published: false });
      for (const n of ['n1', 'n2', 'n3']) expect(r.byNode[n]?.ending.reason).toBe('interrupted');
      // Requests answered more than 2 s after the stop: none (pages in flight finish, nothing new starts).
      const after = w.corpus.accessLog().filter((l) => l.msec > pausedAt + 2000);
      expect(after.length).toBe(0);
      const pages = countsByPath(pageRequests(w));
      expect([...pages].filter(([, n]) => n > 1)).toEqual([]);
      await until('COMPLETED heard', () => w.heard.some((m) => m.type === 'COMPLETED'), 30_000);
      expect(w.heard.filter((m) => m.type === 'PUBLISHED')).toHaveLength(0);
      expect(w.heard.filter((m) => m.type === 'STOP')).toHaveLength(1);
      console.log(
        `pause --cluster at ${r.produced.saved} pages saved: the run ended in ${(r.endedAt > r.startedAt ? (new Date(r.endedAt).getTime() - pausedAt) / 1000 : 0).toFixed(1)} s, ${pages.size} pages fetched, none twice, none after the stop`,
      );

      // resume --cluster, as a user types it: the stopped run's queue is taken over, nothing is fetched twice.
      const resumed = await runCli(
        ['resume', '--cluster', w.cluster.name, '--url', `${w.corpus.url}/`, '--json'],
        env(w),
        240_000,
      );
      expect(resumed.code, resumed.stderr).toBe(0);
      const rr = JSON.parse(resumed.stdout) as ClusterRunReport;
      expect(rr).toMatchObject({ action: 'resume', version: 0 });
      expect(rr.resumed).toMatchObject({ runId: r.runId, reason: 'interrupted', saved: r.produced.saved });
      expect(rr.ending).toMatchObject({ reason: 'frontier-drained', published: true });
      expect(rr.produced.saved).toBe(WHOLE.python.saved);
      const all = countsByPath(pageRequests(w));
      expect([...all].filter(([, n]) => n > 1)).toEqual([]);
      expect(all.size).toBeGreaterThanOrEqual(WHOLE.python.pages);
      await until(
        'the resumed run COMPLETED',
        () => w.heard.filter((m) => m.type === 'COMPLETED').length === 2,
        30_000,
      );
      expect(w.heard.map((m) => m.type)).toEqual(['STARTED', 'STOP', 'COMPLETED', 'STARTED', 'PUBLISHED', 'COMPLETED']);
      const again = await runCli(['resume', '--cluster', w.cluster.name, '--url', `${w.corpus.url}/`], env(w));
      expect(again.code).toBe(2);
      expect(again.stderr.trim().split('\n')).toHaveLength(1);
      expect(again.stderr).toMatch(
        /^greenfinger: nothing to resume: cluster .* holds no stopped run of .*crawl or update it instead/,
      );
      console.log(
        `resume --cluster: ${rr.produced.saved - r.produced.saved} more pages saved in ${((new Date(rr.endedAt).getTime() - new Date(rr.resumed?.endedAt ?? rr.startedAt).getTime()) / 1000).toFixed(1)} s; ${all.size} pages fetched over both runs, none twice`,
      );
    } finally {
      await client.close();
    }
  }, 420_000);
});
