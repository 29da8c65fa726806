import type { SqliteFtsIndexOptions } from './fts-options.js';
import type { FtsOptimizeStats, IndexDocument } from './search-index.js';

/** Requests OffThreadIndex sends on the `index` channel; each is answered with `{ channel, id, error? }`. */
export type IndexWriterOp =
  | { op: 'open'; options: SqliteFtsIndexOptions }
  | { op: 'upsert'; docs: IndexDocument[] }
  | { op: 'purge'; catalogId: string }
  | { op: 'optimize'; catalogId: string; version: number }
  | { op: 'close' };
export type IndexWriterRequest = IndexWriterOp & { channel: 'index'; id: number };
export interface IndexWriterReply {
  channel: 'index';
  id: number;
  error?: string;
  /** The answer of an `optimize` request. */
  stats?: FtsOptimizeStats;
}
