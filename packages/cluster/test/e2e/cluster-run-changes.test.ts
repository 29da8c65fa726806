import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { ChangesPayload } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureFacts } from '../../../core/test/support/fixture-facts.js';
import { type FixtureSite, startFixtureSite } from '../../../core/test/support/fixture-site.js';
import { createTestDatabase, type TestDatabase } from '../../../core/test/support/pg.js';
import { createTempDir, type TempDir } from '../../../core/test/support/tmp.js';
import {
  startWikiSite,
  WIKI_CREATED,
  WIKI_DELETED,
  WIKI_EDITED,
  WIKI_NULL_EDIT,
  WIKI_PAGES,
} from '../../../core/test/support/wiki-site.js';
import type { ClusterRunReport } from '../../src/run/cluster-report.js';
import { onMember } from '../support/member-view.js';
import { clusterEnv, type Proc, runCli, runJson, startNode, stopAll, untilMembers } from '../support/processes.js';
import { type TestCluster, testCluster, until } from '../support/redis.js';

const SECRET = 'cluster-hook-secret';

/** The wiki's times are to the second: an edit in the second of a fetch would look older than it (bounded wait). */
async function nextSecond(): Promise<void> {
  const next = Math.ceil((Date.now() + 1) / 1000) * 1000;
  while (Date.now() < next) await new Promise((r) => setTimeout(r, next - Date.now()));
}
const QUERY = 'grow food on balconies';

/**
 * A cluster run's change set (docs/freshness.md, docs/cluster.md): two `greenfinger node` processes on one shared
 * PostgreSQL, each with its own files. One `crawl --cluster` of a catalog with a webhook and a saved search: the
 * change log has one entry for the run on each member (the whole set, not one member's part), and the webhook gets
 * one signed POST, from the leader, of the whole set with the saved search fired.
 */
describe('a cluster run’s change set: recorded once, sent once', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let db: TestDatabase;
  let cluster: TestCluster;
  const procs: Proc[] = [];
  const got: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  let hook = '';
  const env = () => clusterEnv({ DATABASE_URL: db.url, GF_WEBHOOK_ALLOW_PRIVATE: 'true', GF_WEBHOOK_SECRET: SECRET });
  /** The members' last log lines, for a failure's message. */
  const tails = () => procs.map((p) => `${p.name}: ${p.stderr().slice(-2500)}`).join('\n');
  const cli = (args: string[]) => runCli([...args, '--data', join(tmp.path, 'cli')], env());

  beforeAll(async () => {
    site = await startFixtureSite();
    tmp = createTempDir('gf-e2e-cluster-changes-');
    db = await createTestDatabase();
    cluster = await testCluster();
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    procs.push(startNode(cluster.name, tmp.path, 'n1', env()));
    await untilMembers(cluster.name, 1, 30_000);
    procs.push(startNode(cluster.name, tmp.path, 'n2', env()));
    await untilMembers(cluster.name, 2, 30_000);
  }, 60_000);

  afterAll(async () => {
    await stopAll(procs);
    await new Promise<void>((r) => receiver.close(() => r()));
    await cluster?.close();
    await db?.drop();
    await site?.close();
    tmp?.remove();
  });

  it('one change log entry and one signed webhook POST of the whole set, with the saved search fired', async () => {
    const created = await cli([
      'catalog',
      'create',
      '--cluster',
      cluster.name,
      '--url',
      `${site.origin}/`,
      '--name',
      'site',
      '--interval',
      '0',
      '--webhook',
      hook,
    ]);
    expect(created.code, created.stderr).toBe(0);
    const alert = await cli(['alert', 'add', '--name', 'site', QUERY]);
    expect(alert.code, alert.stderr).toBe(0);

    const t0 = Date.now();
    const crawl = await runJson<ClusterRunReport>(
      ['crawl', '--cluster', cluster.name, '--name', 'site', '--json'],
      env(),
      90_000,
    );
    expect(crawl.code, crawl.stderr).toBe(0);
    const report = crawl.json as ClusterRunReport;
    expect(report.ending.published).toBe(true);
    // Both members saved pages: a member's own part would be a part of the set only.
    expect(Object.keys(report.byNode).sort()).toEqual(['n1', 'n2']);
    for (const n of ['n1', 'n2']) expect(report.byNode[n]?.produced.saved).toBeGreaterThan(0);
    const saved = report.produced.saved;
    expect(saved).toBe(fixtureFacts.savedCount);
    // The merged report counts the whole set too.
    expect(report.changes).toEqual({ added: saved, changed: 0, removed: 0 });

    // The leader's POST (sent after the run completed, in the background): one, of the whole set, signed.
    await until('the webhook POST', () => got.length >= 1, 20_000);
    console.log(`cluster-run-changes: crawl and webhook POST ${Date.now() - t0} ms`);
    expect(got).toHaveLength(1);
    const post = got[0] as { headers: IncomingHttpHeaders; body: string };
    const expected = `sha256=${createHmac('sha256', SECRET).update(post.body, 'utf8').digest('hex')}`;
    expect(post.headers['x-greenfinger-signature']).toBe(expected);
    const body = JSON.parse(post.body) as ChangesPayload;
    expect(body).toMatchObject({ event: 'changes', catalog: { name: 'site' }, action: 'crawl', removed: [] });
    expect(body.added).toHaveLength(saved);
    expect(new Set(body.added).size).toBe(saved);
    expect(body.alerts?.map((a) => a.query)).toEqual([QUERY]);

    // The change log: one entry for the run on each member's own files, the whole set.
    // (n2 copies the leader's entry when it hears COMPLETED, a moment after the CLI did.)
    const changesOn = (name: string) =>
      onMember({ dataStore: join(tmp.path, name), databaseUrl: db.url }, (gf) =>
        gf.changes.changes({ name: 'site' }, { sinceDate: new Date(0) }),
      );
    await until('n2 holds the run’s entry', async () => (await changesOn('n2')).runs.length > 0, 10_000);
    for (const name of ['n1', 'n2']) {
      const answer = await changesOn(name);
      expect(answer.runs, name).toHaveLength(1);
      expect(answer.added, name).toEqual(body.added);
    }
    expect(got).toHaveLength(1);
  }, 120_000);

  it('a merge of a catalog with change feeds reads them once, on the leader; every member judges by its set', async () => {
    const wiki = await startWikiSite();
    try {
      const feeds = [`mediawiki:${wiki.origin}/w/api.php`, `rss:${wiki.origin}/feed.rss`, 'sitemap'];
      const created = await cli([
        'catalog',
        'create',
        '--cluster',
        cluster.name,
        '--url',
        `${wiki.origin}/`,
        '--name',
        'wiki',
        '--interval',
        '0',
        '--threads',
        '4',
        '--host-concurrency',
        '8',
        ...feeds.flatMap((f) => ['--change-feed', f]),
      ]);
      expect(created.code, created.stderr).toBe(0);
      const crawl = await runJson<ClusterRunReport>(
        ['crawl', '--cluster', cluster.name, '--name', 'wiki', '--json'],
        env(),
        90_000,
      );
      expect(crawl.code, `${crawl.stderr}\n${tails()}`).toBe(0);
      expect(crawl.json?.produced.saved).toBe(WIKI_PAGES + 1);
      await nextSecond();
      wiki.edit();
      const from = wiki.log.length;
      const t0 = Date.now();
      const merge = await runJson<ClusterRunReport>(
        ['merge', '--cluster', cluster.name, '--name', 'wiki', '--json'],
        env(),
        90_000,
      );
      console.log(`cluster-run-changes: the merge with change feeds on 2 members took ${Date.now() - t0} ms`);
      expect(merge.code, `${merge.stderr}\n${tails()}`).toBe(0);
      const report = merge.json as ClusterRunReport;
      expect(report.ending).toMatchObject({ reason: 'frontier-drained', published: true });
      expect(Object.keys(report.byNode).sort()).toEqual(['n1', 'n2']);
      // Each feed read once for the run (by the leader), not once per member.
      const feedReads = wiki.log.slice(from).filter((p) => p === '/feed.rss');
      expect(feedReads).toHaveLength(1);
      // Only what the feeds named was fetched, whichever member owns it: the 3 edited, the null edit, the new page —
      // and the start url `/`, a redirect (no held page), asked on every merge as on one process.
      const pages = wiki.pageRequests(from);
      expect(pages.length).toBeLessThanOrEqual(15);
      expect([...pages].sort()).toEqual(
        ['/', ...[...WIKI_EDITED, WIKI_NULL_EDIT, WIKI_CREATED].map((n) => `/wiki/Page_${n}`)].sort(),
      );
      // Both members' notes say what the feeds named (the reader's numbers, shared).
      for (const n of ['n1', 'n2'])
        expect(report.byNode[n]?.ending.note ?? '').toMatch(/change feeds: 5 changed, 1 deleted/);
      // The run's one change set: the 3 edited changed (not the null edit), the new page added, the deleted removed.
      // (read on n2, which copies the leader's entry when it hears COMPLETED, a moment after the CLI did.)
      const latest = () =>
        onMember({ dataStore: join(tmp.path, 'n2'), databaseUrl: db.url }, (gf) =>
          gf.changes.changes({ name: 'wiki' }),
        );
      await until('n2 holds the merge’s entry', async () => (await latest()).runs[0]?.action === 'merge', 10_000);
      const answer = await latest();
      expect(answer.changed.map((c) => new URL(c.url).pathname).sort()).toEqual(
        WIKI_EDITED.map((n) => `/wiki/Page_${n}`).sort(),
      );
      expect(answer.added.map((u) => new URL(u).pathname)).toEqual([`/wiki/Page_${WIKI_CREATED}`]);
      expect(answer.removed.map((u) => new URL(u).pathname)).toEqual([`/wiki/Page_${WIKI_DELETED}`]);
    } finally {
      await wiki.close();
    }
    expect(got).toHaveLength(1);
  }, 120_000);
});
