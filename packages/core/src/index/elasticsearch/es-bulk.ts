import type { Client } from '@elastic/elasticsearch';
import { CrawlerError } from '../../errors.js';
import { esCall, esError } from './es-client.js';

/** How bulk writes are cut and paced. */
export interface EsBulkOptions {
  /** Bytes of one bulk request before it is sent. @default 5 MiB */
  flushBytes?: number | undefined;
  /** Bulk requests in flight at once; the next batch waits for one to finish (back-pressure). @default 2 */
  concurrency?: number | undefined;
  /** Retries of documents the server refused with 429 (its write queue full), the wait doubling from `waitMs`. */
  retries?: number | undefined;
  waitMs?: number | undefined;
}

/**
 * Index documents with the client's bulk helper: requests of `flushBytes`, at most `concurrency` in flight (the
 * source is read only as fast as the server takes it), a document refused with 429 sent again after a wait. Any
 * document refused otherwise fails the write, naming the first reason. No refresh: Refresher makes writes visible.
 */
export async function bulkIndex(
  client: Client,
  url: string,
  index: string,
  docs: ReadonlyArray<{ id: string; source: unknown }>,
  options: EsBulkOptions = {},
): Promise<void> {
  if (docs.length === 0) return;
  const dropped: Array<{ status: number; error: unknown }> = [];
  const result = await esCall(url, `write ${docs.length} documents to ${index}`, () =>
    client.helpers.bulk<{ id: string; source: unknown }>({
      datasource: docs.slice(),
      onDocument: (doc) => [{ index: { _index: index, _id: doc.id } }, doc.source as Record<string, unknown>],
      onDrop: (drop) => {
        dropped.push({ status: drop.status, error: drop.error });
      },
      flushBytes: options.flushBytes ?? 5 * 1024 * 1024,
      concurrency: options.concurrency ?? 2,
      retries: options.retries ?? 5,
      wait: options.waitMs ?? 500,
      refreshOnCompletion: false,
    }),
  );
  if (result.aborted)
    throw new CrawlerError('STORAGE', `Elasticsearch at ${url}: the bulk write to ${index} was aborted`);
  const first = dropped[0];
  if (first) {
    const e = first.error as { type?: string; reason?: string } | null;
    const reason = e?.reason ? `${e.type ?? ''}: ${e.reason}` : String(first.error);
    if (first.status === 0) throw esError(first.error, url, `write to ${index}`);
    throw new CrawlerError(
      'STORAGE',
      `Elasticsearch at ${url} refused ${dropped.length} of ${docs.length} documents for ${index} (HTTP ${first.status} ${reason})`,
      { fix: 'read the reason above; a mapping conflict means the index was made by another version: purge it' },
    );
  }
}

/**
 * The indices written since their last refresh. A write does not wait for Elasticsearch's refresh; a read of this
 * process refreshes what it wrote first (so it reads its own writes), optimize and close refresh too (so a
 * published version is visible to every reader). Shared by an index and the stores it opens.
 */
export class Refresher {
  readonly #dirty = new Set<string>();

  constructor(
    private readonly client: Client,
    private readonly url: string,
  ) {}

  written(index: string): void {
    this.#dirty.add(index);
  }

  /** Refresh the dirty indices among `indices` (every dirty one when omitted). */
  async refresh(indices?: readonly string[]): Promise<void> {
    const wanted = indices ? indices.filter((i) => this.#dirty.has(i)) : [...this.#dirty];
    if (wanted.length === 0) return;
    await esCall(this.url, `refresh ${wanted.join(', ')}`, () =>
      this.client.indices.refresh({ index: wanted, ignore_unavailable: true, allow_no_indices: true }),
    );
    for (const i of wanted) this.#dirty.delete(i);
  }

  /** Forget an index (deleted). */
  forget(index: string): void {
    this.#dirty.delete(index);
  }
}
