import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Catalog, type ChangesPayload, Greenfinger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChangingSite, EDITED, startChangingSite } from '../support/changing-site.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** One POST a receiver got. */
interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A webhook receiver on loopback: `/ok` answers 200, `/flaky` 500 then 200, `/moved` a 302 to `/target` (which
 * must never be reached: redirects are not followed).
 */
async function startReceiver(): Promise<{ origin: string; got: Received[]; close(): Promise<void> }> {
  const got: Received[] = [];
  let flaky = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      got.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (path === '/flaky' && flaky++ === 0) res.writeHead(500).end('busy');
      else if (path === '/moved') res.writeHead(302, { location: '/target' }).end();
      else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, got, close: () => new Promise((r) => server.close(() => r())) };
}

/** The HMAC check a receiver makes: sha256=<hex HMAC-SHA256 of the exact body> with the shared secret. */
function signedBy(secret: string, r: Received): boolean {
  const header = String(r.headers['x-greenfinger-signature'] ?? '');
  const expected = `sha256=${createHmac('sha256', secret).update(r.body).digest('hex')}`;
  return header.length === expected.length && timingSafeEqual(Buffer.from(header), Buffer.from(expected));
}

/**
 * Alerts (issue 27 item 6): webhooks told of each publishing run, signed, retried, never redirected, never to a
 * private address unless allowed; saved searches that fire on the pages a run added or changed.
 */
describe('alerts', () => {
  const SECRET = 'a-shared-secret-for-the-test';
  const settings = { intervalMs: 0, threads: 4, hostConcurrency: 4, outputs: ['file', 'index'] as ['file', 'index'] };
  let site: ChangingSite;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let tmp: TempDir;
  let gf: Greenfinger;
  let catalog: Catalog;
  const allowBefore = process.env.GF_WEBHOOK_ALLOW_PRIVATE;
  const to = (path: string) => receiver.got.filter((r) => r.path === path);

  beforeAll(async () => {
    // The receivers are on loopback: allowed, at setting time and at send time, by the setting.
    process.env.GF_WEBHOOK_ALLOW_PRIVATE = 'true';
    site = await startChangingSite();
    receiver = await startReceiver();
    tmp = createTempDir('gf-alerts-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 1, webhookSecret: SECRET } });
    const webhooks = ['/ok', '/flaky', '/moved'].map((p) => `${receiver.origin}${p}`);
    const report = await gf.crawler.crawl({ url: `${site.origin}/a/`, settings: { ...settings, webhooks } });
    expect(report.ending).toMatchObject({ published: true });
    catalog = await (await gf.catalogs()).get({ url: `${site.origin}/a/` });
    await gf.alerts.close(); // the deliveries under way
  }, 60_000);

  afterAll(async () => {
    if (allowBefore === undefined) delete process.env.GF_WEBHOOK_ALLOW_PRIVATE;
    else process.env.GF_WEBHOOK_ALLOW_PRIVATE = allowBefore;
    await gf?.close();
    await receiver?.close();
    await site?.close();
    tmp?.remove();
  });

  it('POSTs the change set once per publishing run, signed with GF_WEBHOOK_SECRET', () => {
    const posts = to('/ok');
    expect(posts).toHaveLength(1);
    const post = posts[0] as Received;
    expect(signedBy(SECRET, post)).toBe(true);
    expect(signedBy('another secret', post)).toBe(false);
    expect(post.headers['x-greenfinger-event']).toBe('changes');
    expect(post.headers['content-type']).toBe('application/json');
    const body = JSON.parse(post.body) as ChangesPayload;
    expect(body).toMatchObject({ event: 'changes', catalog: { id: catalog.id }, version: 0, action: 'crawl' });
    expect(body.runId).toMatch(/-crawl-/);
    expect(body.added).toHaveLength(31);
    expect(body.changed).toEqual([]);
    expect(body.alerts).toBeUndefined();
  });

  it('retries a 500 and delivers on the next attempt; a redirect is not followed', async () => {
    expect(to('/flaky')).toHaveLength(2);
    expect(to('/flaky')[1]?.body).toBe(to('/ok')[0]?.body);
    expect(to('/moved')).toHaveLength(1);
    expect(to('/target')).toHaveLength(0);
    const { webhooks } = await gf.alerts.list({ id: catalog.id });
    const last = Object.fromEntries(webhooks.map((w) => [new URL(w.url).pathname, w.lastDelivery]));
    expect(last['/ok']).toMatchObject({ status: 'delivered', attempts: 1, httpStatus: 200 });
    expect(last['/flaky']).toMatchObject({ status: 'delivered', attempts: 2, httpStatus: 200 });
    expect(last['/moved']).toMatchObject({ status: 'failed', attempts: 1, httpStatus: 302 });
    expect(last['/moved']?.error).toContain('redirects are not followed');
  });

  it('a run that publishes no change sends nothing', async () => {
    const before = receiver.got.length;
    await gf.crawler.crawl({ id: catalog.id, action: 'update' });
    await gf.alerts.close();
    expect(receiver.got.length).toBe(before);
  }, 30_000);

  it('a saved search fires on a changed page that matches, not on one that matches no changed page', async () => {
    const fires = await gf.alerts.add({ id: catalog.id }, { query: 'replanted' });
    const quiet = await gf.alerts.add({ id: catalog.id }, { name: 'juniper groves', query: 'juniper' });
    // Both queries find pages of the catalog; only "replanted" is on pages the merge changes (juniper: 9, 19, 29).
    expect((await gf.search.search({ q: 'juniper', catalogs: [catalog.id] })).results.length).toBeGreaterThan(0);
    site.edit();
    const merge = await gf.crawler.crawl({ id: catalog.id, action: 'merge' });
    expect(merge.changes).toEqual({ added: 1, changed: 3, removed: 1 });
    await gf.alerts.close();
    const posts = to('/ok');
    expect(posts).toHaveLength(2);
    const body = JSON.parse(posts[1]?.body ?? '{}') as ChangesPayload;
    expect(signedBy(SECRET, posts[1] as Received)).toBe(true);
    expect(body.changed.map((c) => c.url).sort()).toEqual(EDITED.map((n) => site.url('a', n)).sort());
    expect(body.alerts).toEqual([
      {
        id: fires.id,
        name: 'replanted',
        query: 'replanted',
        matches: expect.arrayContaining(EDITED.map((n) => ({ url: site.url('a', n), title: `Page ${n}` }))),
      },
    ]);
    expect(body.alerts?.[0]?.matches).toHaveLength(3);
    const listed = await gf.alerts.list({ id: catalog.id });
    const byId = Object.fromEntries(listed.alerts.map((a) => [a.id, a]));
    expect(byId[fires.id]?.lastFiredAt).toBe(body.publishedAt);
    expect(byId[fires.id]?.lastMatches).toHaveLength(3);
    expect(byId[quiet.id]?.lastFiredAt).toBeNull();
    await gf.alerts.remove({ id: catalog.id }, quiet.id);
    expect((await gf.alerts.list({ id: catalog.id })).alerts.map((a) => a.id)).toEqual([fires.id]);
  }, 30_000);

  it('refuses an address that resolves to loopback when private addresses are not allowed', async () => {
    const own = createTempDir('gf-alerts-refused-');
    const strict = await Greenfinger.open({
      settings: { dataStore: own.path, workers: 1, webhookSecret: SECRET, webhookAllowPrivate: false },
    });
    try {
      const port = new URL(receiver.origin).port;
      const before = receiver.got.length;
      await strict.crawler.crawl({
        url: `${site.origin}/b/`,
        settings: { ...settings, maxPages: 3, webhooks: [`http://localhost:${port}/ok`] },
      });
      await strict.alerts.close();
      expect(receiver.got.length).toBe(before);
      const { webhooks } = await strict.alerts.list({ url: `${site.origin}/b/` });
      expect(webhooks[0]?.lastDelivery).toMatchObject({ status: 'refused', attempts: 0 });
      expect(webhooks[0]?.lastDelivery?.error).toMatch(
        /^localhost resolves to \S+, a loopback \(.*\) address, refused \(SSRF\)$/,
      );
    } finally {
      await strict.close();
      own.remove();
    }
  }, 30_000);
});
