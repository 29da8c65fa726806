import { createHash } from 'node:crypto';
import { CrawlerError, type CrawlFrontier, type FrontierEntry, type LeasedEntry } from '@greenfinger/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/** One frontier under test; `reopen` is given by durable implementations only. */
export interface FrontierHarness {
  open(): Promise<CrawlFrontier>;
  /** Open the same store again after the previous instance was closed. */
  reopen?: () => Promise<CrawlFrontier>;
  dispose(): Promise<void>;
}

const e = (n: number, extra: Partial<FrontierEntry> = {}): FrontierEntry => ({
  url: `https://example.com/p/${n}`,
  depth: n % 5,
  ...extra,
});

async function drain(frontier: CrawlFrontier, ack = true, limit = 100_000): Promise<LeasedEntry[]> {
  const out: LeasedEntry[] = [];
  for (let i = 0; i < limit; i++) {
    const next = await frontier.poll();
    if (!next) return out;
    out.push(next);
    if (ack) await frontier.ack(next);
  }
  throw new Error(`frontier still not empty after ${limit} polls`);
}

const urls = (entries: FrontierEntry[]): string[] => entries.map((x) => x.url);

/**
 * The CrawlFrontier contract, run against every implementation.
 * With `durable`, also the reopen and crash tests (the harness must then give `reopen`).
 */
export function describeFrontierContract(
  name: string,
  factory: () => Promise<FrontierHarness>,
  options: { durable?: boolean } = {},
): void {
  describe(`CrawlFrontier contract: ${name}`, () => {
    let harness: FrontierHarness;
    let frontier: CrawlFrontier;

    beforeEach(async () => {
      harness = await factory();
      frontier = await harness.open();
    });
    afterEach(async () => {
      await frontier.close().catch(() => undefined);
      await harness.dispose();
    });

    it('polls in put order within one priority, then reports empty', async () => {
      for (const n of [3, 1, 2]) expect(await frontier.put(e(n))).toBe(true);
      const got = await drain(frontier);
      expect(urls(got)).toEqual(urls([e(3), e(1), e(2)]));
      expect(got[0]).toMatchObject({ url: e(3).url, depth: 3 });
      expect(await frontier.poll()).toBeUndefined();
    });

    it('keeps referrer and priority on the leased entry', async () => {
      await frontier.put({ url: 'https://example.com/x', depth: 2, referrer: 'https://example.com/', priority: 4 });
      const got = await frontier.poll();
      expect(got).toMatchObject({
        url: 'https://example.com/x',
        depth: 2,
        referrer: 'https://example.com/',
        priority: 4,
      });
      expect(typeof got?.leaseKey).toBe('string');
    });

    it('polls lower priority numbers first, FIFO within each', async () => {
      await frontier.put(e(1, { priority: 5 }));
      await frontier.put(e(2, { priority: 0 }));
      await frontier.put(e(3, { priority: 5 }));
      await frontier.put(e(4, { priority: -1 }));
      await frontier.put(e(5));
      await frontier.put(e(6, { priority: 0.5 }));
      expect(urls(await drain(frontier))).toEqual(urls([e(4), e(2), e(5), e(6), e(1), e(3)]));
    });

    it('serves an urgent entry put after polling began before the rest', async () => {
      await frontier.putAll(Array.from({ length: 1500 }, (_, i) => e(i, { priority: 5 })));
      expect((await frontier.poll())?.url).toBe(e(0).url);
      expect(await frontier.put(e(9000, { priority: 5 }))).toBe(true);
      expect(await frontier.put(e(9001, { priority: 1 }))).toBe(true);
      expect((await frontier.poll())?.url).toBe(e(9001).url);
      const rest = await drain(frontier);
      expect(rest).toHaveLength(1500);
      expect(rest[0]?.url).toBe(e(1).url);
      expect(rest.at(-1)?.url).toBe(e(9000).url);
    });

    it('front queues: start urls (priority below 1) first, then each queue 3 times as often as the one below', async () => {
      // Queue q holds priorities [1 + q, 2 + q) (front-queues.ts); weights 3^(7 - q).
      await frontier.putAll(Array.from({ length: 300 }, (_, i) => e(i, { priority: 1.5 })));
      await frontier.putAll(Array.from({ length: 100 }, (_, i) => e(1000 + i, { priority: 2.5 })));
      await frontier.put(e(2000, { priority: 0 }));
      const got = await drain(frontier, true, 500);
      expect(got[0]?.url).toBe(e(2000).url);
      // Smooth weighted round robin, 3 : 1 while both hold urls: one of queue 1 in every 4 polls.
      const second = got.slice(1, 401).flatMap((x, i) => (x.priority === 2.5 ? [i] : []));
      expect(second.slice(0, 3)).toEqual([2, 6, 10]);
      expect(second.length).toBe(100);
      expect(got).toHaveLength(401);
    });

    it('a low front queue still drains while higher ones keep being fed', async () => {
      await frontier.putAll(Array.from({ length: 2 }, (_, i) => e(50_000 + i, { priority: 8 })));
      let fed = 0;
      // Queue 0 is fed 500 urls at a time before it runs dry: it always holds urls.
      const feed = () => frontier.putAll(Array.from({ length: 500 }, () => e(fed++, { priority: 1.25 })));
      await feed();
      const lowTaken: number[] = [];
      for (let poll = 0; poll < 10_000 && lowTaken.length < 2; poll++) {
        if (poll % 400 === 399) await feed();
        const next = (await frontier.poll()) as LeasedEntry;
        if (next.priority === 8) lowTaken.push(poll);
        else expect(next.priority).toBe(1.25);
        await frontier.ack(next);
      }
      // Weights 2187 : 1 — queue 7 gets one poll in every 2188, however long queue 0 is fed.
      expect(lowTaken).toEqual([1094, 3282]);
      expect(await frontier.size()).toBeGreaterThan(0);
    });

    it('a front queue found empty is served again once a url is put in it', async () => {
      await frontier.putAll([e(1, { priority: 3.5 }), e(2, { priority: 1 })]);
      expect(urls(await drain(frontier))).toEqual(urls([e(2), e(1)]));
      await frontier.putAll([e(3, { priority: 8.25 }), e(4, { priority: 3.25 })]);
      expect(urls(await drain(frontier))).toEqual(urls([e(4), e(3)]));
    });

    it('refuses a url already queued during this run, even once polled and acked', async () => {
      expect(await frontier.put(e(1))).toBe(true);
      expect(await frontier.put(e(1, { depth: 3, priority: -5 }))).toBe(false);
      const leased = await frontier.poll();
      await frontier.ack(leased as LeasedEntry);
      expect(await frontier.put(e(1))).toBe(false);
      expect(await frontier.size()).toBe(0);
    });

    it('putAll answers per entry, including duplicates inside the batch', async () => {
      await frontier.put(e(2));
      expect(await frontier.putAll([e(1), e(2), e(3), e(1), e(4)])).toEqual([true, false, true, false, true]);
      expect(await frontier.putAll([])).toEqual([]);
      expect(await frontier.size()).toBe(4);
      expect(urls(await drain(frontier))).toEqual(urls([e(2), e(1), e(3), e(4)]));
    });

    it('concurrent puts of one url enqueue it exactly once', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, () => frontier.put(e(7))));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await frontier.size()).toBe(1);
    });

    it('concurrent polls hand out each entry once', async () => {
      await frontier.putAll(Array.from({ length: 1200 }, (_, i) => e(i)));
      const polled = await Promise.all(Array.from({ length: 1300 }, () => frontier.poll()));
      const got = polled.filter((x): x is LeasedEntry => x !== undefined);
      expect(got).toHaveLength(1200);
      expect(new Set(urls(got)).size).toBe(1200);
      expect(frontier.inFlight()).toBe(1200);
    });

    it('tracks leases until acked; acking twice is harmless', async () => {
      await frontier.putAll([e(1), e(2), e(3)]);
      const a = (await frontier.poll()) as LeasedEntry;
      const b = (await frontier.poll()) as LeasedEntry;
      expect(frontier.inFlight()).toBe(2);
      expect(await frontier.size()).toBe(1);
      await frontier.ack(a);
      await frontier.ack(a);
      expect(frontier.inFlight()).toBe(1);
      await frontier.ack(b);
      expect(frontier.inFlight()).toBe(0);
      expect(await frontier.size()).toBe(1);
    });

    it('recover() returns unacked leases to the queue once, in order, and rebuilds u:', async () => {
      await frontier.putAll([e(1), e(2), e(3), e(4), e(5)]);
      const [a, b, c] = [await frontier.poll(), await frontier.poll(), await frontier.poll()] as LeasedEntry[];
      await frontier.ack(b as LeasedEntry);
      expect(await frontier.recover()).toBe(2);
      expect(frontier.inFlight()).toBe(0);
      expect(await frontier.size()).toBe(4);
      expect(await frontier.recover()).toBe(0);
      expect(await frontier.put(e(1))).toBe(false);
      expect(await frontier.put(e(2))).toBe(true);
      expect(urls(await drain(frontier))).toEqual(urls([a as LeasedEntry, c as LeasedEntry, e(4), e(5), e(2)]));
    });

    it('size() follows puts, polls and recover', async () => {
      expect(await frontier.size()).toBe(0);
      await frontier.putAll(Array.from({ length: 700 }, (_, i) => e(i)));
      expect(await frontier.size()).toBe(700);
      for (let i = 0; i < 600; i++) await frontier.poll();
      expect(await frontier.size()).toBe(100);
      await frontier.recover();
      expect(await frontier.size()).toBe(700);
    });

    it('clear() drops the queue, the leases and "queued during this run"', async () => {
      await frontier.putAll([e(1), e(2), e(3)]);
      await frontier.poll();
      await frontier.clear();
      expect(await frontier.size()).toBe(0);
      expect(frontier.inFlight()).toBe(0);
      expect(await frontier.poll()).toBeUndefined();
      expect(await frontier.recover()).toBe(0);
      expect(await frontier.put(e(1))).toBe(true);
      expect(urls(await drain(frontier))).toEqual([e(1).url]);
    });

    it('clear({ keepJournal }) keeps the journal entries under the prefixes named, and drops everything else', async () => {
      await frontier.putAll([e(1), e(2)]);
      const a = (await frontier.poll()) as LeasedEntry;
      await frontier.commit({
        puts: [],
        acks: [a],
        checkpoint: () => '{"saved":1}',
        journal: {
          put: [
            ['index:p1', ''],
            ['vector:p1', ''],
            ['vector:p2', 'x'],
            ['refused:u', ''],
          ],
        },
      });
      await frontier.clear({ keepJournal: ['index:', 'vector:'] });
      const kept: string[] = [];
      for (const prefix of ['index:', 'vector:', 'refused:']) {
        for await (const [key, value] of frontier.journal(prefix)) kept.push(`${key}=${value}`);
      }
      expect(kept).toEqual(['index:p1=', 'vector:p1=', 'vector:p2=x']);
      expect(await frontier.checkpoint()).toBeUndefined();
      expect(await frontier.size()).toBe(0);
      expect(frontier.inFlight()).toBe(0);
      expect(await frontier.put(e(1))).toBe(true);
      expect(await frontier.put(e(2))).toBe(true);
      expect(urls(await drain(frontier))).toEqual(urls([e(1), e(2)]));
      await frontier.clear();
      for await (const _ of frontier.journal('')) expect.unreachable('clear() drops the whole journal');
    });

    it('round-trips 10,000 entries in order', async () => {
      const all = Array.from({ length: 10_000 }, (_, i) => e(i, { referrer: `https://example.com/r/${i >> 4}` }));
      for (let i = 0; i < 9_000; i += 1000) {
        expect((await frontier.putAll(all.slice(i, i + 1000))).every(Boolean)).toBe(true);
      }
      for (const x of all.slice(9_000)) await frontier.put(x);
      expect(await frontier.size()).toBe(10_000);
      const got = await drain(frontier);
      expect(urls(got)).toEqual(urls(all));
      expect(got[4321]).toMatchObject({ url: all[4321]?.url, depth: all[4321]?.depth, referrer: all[4321]?.referrer });
      expect(await frontier.size()).toBe(0);
      expect(frontier.inFlight()).toBe(0);
    });

    it('long urls are queued and deduplicated like short ones', async () => {
      const long = `https://example.com/${'a'.repeat(3000)}`;
      expect(await frontier.put({ url: long, depth: 1 })).toBe(true);
      expect(await frontier.put({ url: `${long}b`, depth: 1 })).toBe(true);
      expect(await frontier.put({ url: long, depth: 1 })).toBe(false);
      expect((await frontier.poll())?.url).toBe(long);
    });

    it('rejects entries without a url, depth or finite priority', async () => {
      await expect(frontier.put({ url: '', depth: 0 })).rejects.toMatchObject({ code: 'BAD_INPUT' });
      await expect(frontier.put({ url: 'https://example.com/', depth: Number.NaN })).rejects.toBeInstanceOf(
        CrawlerError,
      );
      await expect(frontier.put({ url: 'https://example.com/', depth: 0, priority: Infinity })).rejects.toMatchObject({
        code: 'BAD_INPUT',
      });
      expect(await frontier.size()).toBe(0);
    });

    it('refuses use after close', async () => {
      await frontier.close();
      await expect(frontier.put(e(1))).rejects.toBeInstanceOf(CrawlerError);
      await expect(frontier.poll()).rejects.toBeInstanceOf(CrawlerError);
    });

    if (!options.durable) return;
    const reopen = (): Promise<CrawlFrontier> => {
      if (!harness.reopen) throw new Error(`${name}: a durable harness must give reopen()`);
      return harness.reopen();
    };

    it('commit() enqueues, acks (marking urls done) and stores the checkpoint together', async () => {
      await frontier.putAll([e(1), e(2)]);
      const a = (await frontier.poll()) as LeasedEntry;
      const enqueued = await frontier.commit({
        puts: [e(2), e(3), e(3)],
        acks: [a],
        checkpoint: (r) => JSON.stringify({ enqueued: r.filter(Boolean).length }),
      });
      expect(enqueued).toEqual([false, true, false]);
      expect(frontier.inFlight()).toBe(0);
      expect(JSON.parse((await frontier.checkpoint()) as string)).toEqual({ enqueued: 1 });
      const done: string[] = [];
      for await (const batch of frontier.doneUrlHashes()) done.push(...batch);
      expect(done).toEqual([createHash('sha256').update(e(1).url).digest('hex')]);
      expect(urls(await drain(frontier))).toEqual(urls([e(2), e(3)]));
    });

    it('the journal clear({ keepJournal }) kept is there after a reopen, and the store opens clean', async () => {
      await frontier.putAll([e(1), e(2), e(3)]);
      await frontier.poll();
      await frontier.commit({ puts: [], acks: [], journal: { put: [['vector:p9', '']] } });
      await frontier.clear({ keepJournal: ['vector:'] });
      await frontier.put(e(4));
      await frontier.close();
      frontier = await reopen();
      const kept: string[] = [];
      for await (const [key] of frontier.journal('vector:')) kept.push(key);
      expect(kept).toEqual(['vector:p9']);
      expect(await frontier.size()).toBe(1);
      expect(urls(await drain(frontier))).toEqual([e(4).url]);
    });

    it('recover({ keepRun }) keeps "queued during this run": handled urls stay collapsed', async () => {
      await frontier.putAll([e(1), e(2)]);
      const a = (await frontier.poll()) as LeasedEntry;
      await frontier.commit({ puts: [], acks: [a] });
      (await frontier.poll()) as LeasedEntry;
      expect(await frontier.recover({ keepRun: true })).toBe(1);
      expect(await frontier.put(e(1))).toBe(false);
      expect(urls(await drain(frontier))).toEqual(urls([e(2)]));
      expect(await frontier.recover()).toBe(0);
      expect(await frontier.put(e(1))).toBe(true);
    });

    it('reopen: a url handled in this run can be queued again; queued, leased and unknown urls are left', async () => {
      await frontier.putAll([e(1), e(2), e(3)]);
      const a = (await frontier.poll()) as LeasedEntry;
      await frontier.commit({ puts: [], acks: [a] });
      const b = (await frontier.poll()) as LeasedEntry;
      expect(await frontier.put(e(1))).toBe(false);
      expect(await frontier.reopen([e(1).url, e(2).url, e(3).url, e(9).url])).toBe(1);
      expect(await frontier.reopen([])).toBe(0);
      expect(await frontier.put(e(1))).toBe(true);
      expect(await frontier.put(e(1))).toBe(false);
      expect(await frontier.put(e(3))).toBe(false);
      await frontier.commit({ puts: [], acks: [b] });
      expect(urls(await drain(frontier))).toEqual(urls([e(3), e(1)]));
      const done: string[] = [];
      for await (const batch of frontier.doneUrlHashes()) done.push(...batch);
      const hash = (n: number) => createHash('sha256').update(e(n).url).digest('hex');
      expect(done.sort()).toEqual([hash(1), hash(2), hash(3)].sort());
    });

    describe('durability', () => {
      it('keeps queue, order, size and sequence across close and reopen', async () => {
        await frontier.putAll([e(1), e(2, { priority: 1 }), e(3)]);
        await frontier.close();
        frontier = await reopen();
        expect(await frontier.size()).toBe(3);
        expect(await frontier.recover()).toBe(0);
        expect(await frontier.put(e(1))).toBe(false);
        expect(await frontier.put(e(4))).toBe(true);
        expect(urls(await drain(frontier))).toEqual(urls([e(1), e(3), e(4), e(2)]));
      });

      it('after a crash (close without ack), recover returns leased entries exactly once', async () => {
        await frontier.putAll(Array.from({ length: 1000 }, (_, i) => e(i)));
        const leased: LeasedEntry[] = [];
        for (let i = 0; i < 300; i++) leased.push((await frontier.poll()) as LeasedEntry);
        for (const x of leased.slice(0, 200)) await frontier.ack(x);
        await frontier.close();
        frontier = await reopen();
        expect(await frontier.size()).toBe(700);
        expect(await frontier.recover()).toBe(100);
        expect(await frontier.size()).toBe(800);
        expect(await frontier.put(e(250))).toBe(false);
        expect(await frontier.put(e(150))).toBe(true);
        await frontier.close();
        frontier = await reopen();
        expect(await frontier.recover()).toBe(0);
        const got = urls(await drain(frontier));
        expect(got).toHaveLength(801);
        expect(got.slice(0, 800)).toEqual(urls(Array.from({ length: 800 }, (_, i) => e(i + 200))));
        expect(got[800]).toBe(e(150).url);
      });
    });
  });
}
