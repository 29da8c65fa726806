import {
  type CrawledPage,
  type IndexDocument,
  type Logger,
  type OutputChannel,
  type SearchIndex,
  toIndexDocument,
} from '@greenfinger/core/internal';
import type { Redis } from 'ioredis';
import { str } from '../plumbing/wire.js';
import { type FrameConsumer, FrameSender, type ReplicaStream, replicaConsumer } from './multicast-frames.js';

/**
 * The sending half of the `search` channel (seed 000: multicast excluding self, buffered, applied idempotently, only
 * when the store behind it is per node): an extra output channel whose every saved page goes into the run's search
 * stream as its self-contained index document, so every member's embedded index ends up holding every page of the
 * run. A shared search service would need none of this.
 */
export class IndexReplicaChannel implements OutputChannel {
  readonly layer = 'index-replica';
  readonly #frames: FrameSender;

  constructor(redis: Redis, key: string, node: string, log: Logger) {
    this.#frames = new FrameSender(redis, key, node, log);
  }

  write(page: CrawledPage): Promise<void> {
    return this.#frames.push('index', [toIndexDocument(page)]);
  }

  flush(): Promise<void> {
    return this.#frames.flush();
  }

  async deleteVersion(): Promise<{ count: number; bytes: number }> {
    return { count: 0, bytes: 0 };
  }

  counts(): { written: number; failed: number; lastError?: string } {
    const f = this.#frames;
    return { written: f.sent, failed: f.failed, ...(f.lastError ? { lastError: f.lastError } : {}) };
  }

  close(): Promise<void> {
    return this.#frames.flush();
  }
}

/** The receiving half: the other members' index documents upserted into this member's index (by resource id). */
export function indexReplicaConsumer(options: ReplicaStream & { index: SearchIndex }): FrameConsumer {
  return replicaConsumer(options, 'index-replica', async (kind, items) => {
    if (kind !== 'index') return;
    const docs = items.filter((d): d is IndexDocument => {
      const o = d && typeof d === 'object' ? (d as Record<string, unknown>) : undefined;
      return !!o && !!str(o, 'id') && !!str(o, 'catalogId') && typeof o.version === 'number';
    });
    if (docs.length > 0) await options.index.upsert(docs);
  });
}
