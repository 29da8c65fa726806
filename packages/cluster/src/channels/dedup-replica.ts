import type { ExistingUrlPathFilter } from '@greenfinger/core';
import { num, str } from '../plumbing/wire.js';
import type { FrameConsumer, FrameSender, ReplicaStream } from './multicast-frames.js';
import { replicaConsumer } from './multicast-frames.js';

/** One `markAll` of a run: the url hashes a commit marked known in a catalog version. */
interface Marked {
  c: string;
  v: number;
  h: string[];
}

/**
 * The sending half of the `frontier-dedup` channel (seed 000's `rocksdb` channel: the url dedup store is per node,
 * always — LevelDB under `system/dedup/url`): every url a cluster run marks as known is marked in this member's filter,
 * then sent to the other members, so each member's filter knows every url of the run. A later `update` or `crawl` of
 * the version then finds a url known on whichever member owns it — the ring can differ from run to run — instead of
 * fetching it again. Forgetting (orphans, removed pages) is not sent: a cluster run judges no orphans, and a url a
 * person deleted is refused by the deleted-urls acceptor on every member.
 */
export function replicatedUrlFilter(
  inner: ExistingUrlPathFilter,
  senderOf: (catalogId: string, version: number) => FrameSender | undefined,
): ExistingUrlPathFilter {
  const send = async (catalogId: string, version: number, hashes: string[]) => {
    if (hashes.length > 0)
      await senderOf(catalogId, version)?.push('urls', [{ c: catalogId, v: version, h: hashes } satisfies Marked]);
  };
  return {
    has: (catalogId, version, hash) => inner.has(catalogId, version, hash),
    async mark(catalogId, version, hash) {
      await inner.mark(catalogId, version, hash);
      await send(catalogId, version, [hash]);
    },
    async markAll(catalogId, version, hashes) {
      await inner.markAll(catalogId, version, hashes);
      await send(catalogId, version, hashes);
    },
    forgetAll: (catalogId, version, hashes) => inner.forgetAll(catalogId, version, hashes),
    clearVersion: (catalogId, version) => inner.clearVersion(catalogId, version),
    close: () => inner.close(),
  };
}

/** The receiving half: the other members' marks applied to this member's own filter (marking is idempotent). */
export function urlFilterReplicaConsumer(options: ReplicaStream & { filter: ExistingUrlPathFilter }): FrameConsumer {
  return replicaConsumer(options, 'dedup-replica', async (kind, items) => {
    if (kind !== 'urls') return;
    for (const item of items) {
      const o = item && typeof item === 'object' ? (item as Record<string, unknown>) : undefined;
      const catalogId = o ? str(o, 'c') : undefined;
      const version = o ? num(o, 'v') : undefined;
      const hashes = Array.isArray(o?.h) ? (o.h as unknown[]).filter((h): h is string => typeof h === 'string') : [];
      if (!catalogId || version === undefined || hashes.length === 0) continue;
      await options.filter.markAll(catalogId, version, hashes);
    }
  });
}
