import type { BlobStore } from './blob-store.js';

/** One file to write: its key under the store's root and its bytes or text. */
export interface BlobPut {
  key: string;
  data: Uint8Array | string;
}

/** Requests OffThreadBlobStore sends on the `blobs` channel; each is answered with `{ channel, id, error? }`. */
export interface BlobWriterOp {
  op: 'put';
  root: string;
  puts: BlobPut[];
}
export type BlobWriterRequest = BlobWriterOp & { channel: 'blobs'; id: number };
export interface BlobWriterReply {
  channel: 'blobs';
  id: number;
  /** The request as a whole failed. */
  error?: string;
  /** The writes that failed, by their place in `puts`, with why (every other one is on disk). */
  failures?: Array<[number, string]>;
}

/** The store whose writes go to the worker thread: the local files (LocalBlobStore), reached on this thread too. */
export interface LocalFiles extends BlobStore {
  /** The directory its keys live under. */
  readonly root: string;
  /** The file of a key; throws for a key that is absolute or climbs out of the root. */
  pathOf(key: string): string;
}
