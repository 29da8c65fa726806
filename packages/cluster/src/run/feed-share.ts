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
 * and judges by it, so every held page is judged by the same named set whoever owns it.
 */
export function redisFeedShare(redis: Redis, run: RunKeys, reads: boolean, waitMs: number): FeedShare {
  return {
    reads,
    share: async (feeds: SharedFeeds) => {
      await redis.set(run.feeds, JSON.stringify(feeds), 'EX', KEEP_SECONDS);
    },
    take: async () => {
      const deadline = Date.now() + waitMs;
      for (let i = 0; Date.now() < deadline && i < 1_000_000; i++) {
        const text = await redis.get(run.feeds);
        if (text !== null) return (parseObject(text) ?? {}) as SharedFeeds;
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      return undefined;
    },
  };
}
