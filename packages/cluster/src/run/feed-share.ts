import type { FeedShare, SharedFeeds } from '@greenfinger/core/internal';
import type { Redis } from 'ioredis';
import type { RunKeys } from '../plumbing/keys.js';
import { parseObject } from '../plumbing/wire.js';

/** How often a member waiting for the run's change feeds looks for them. */
const POLL_MS = 100;
/** How long the set stays unread (the run's keys get their own expiry when it completes). */
const KEEP_SECONDS = 24 * 3600;

/**
 * A cluster run's change feeds read once (docs/freshness.md#change-feeds-and-a-cluster): the member that started the
 * run as leader reads them, as a run on one process does (its positions, pushes and kept set), and writes what it
 * read to `run:<id>:feeds`; every other member's merge waits for that set (at most `waitMs`, the feeds' own bounds)
 * and judges by it, so every held page is judged by the same named set whoever owns it. A reader whose part ended
 * without sharing (it failed, or left the run) ends the wait at once: the others then judge as on an ordinary merge.
 */
export function redisFeedShare(
  redis: Redis,
  run: RunKeys,
  who: { me: string; reader: string },
  waitMs: number,
): FeedShare {
  /** The reader's part is over (posted, or it left the run): nothing more will be shared. */
  const readerGone = async () =>
    (await redis.hexists(run.reports, who.reader)) === 1 || (await redis.sismember(run.left, who.reader)) === 1;
  return {
    reads: who.me === who.reader,
    share: async (feeds: SharedFeeds) => {
      await redis.set(run.feeds, JSON.stringify(feeds), 'EX', KEEP_SECONDS);
    },
    take: async () => {
      const deadline = Date.now() + waitMs;
      for (let i = 0; Date.now() < deadline && i < 1_000_000; i++) {
        const text = await redis.get(run.feeds);
        if (text !== null) return (parseObject(text) ?? {}) as SharedFeeds;
        if (i % 10 === 9 && (await readerGone())) return undefined;
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      return undefined;
    },
  };
}
