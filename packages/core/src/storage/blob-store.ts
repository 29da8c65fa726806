import type { SharedThread } from '../worker-entry.js';

/**
 * BlobStore: the file layer's bytes, addressed by keys relative to `user/`
 * (e.g. `assets/{catalogId}/v{n}/pages/ab/cd/{id}.html`). Keys are the same locally and in an object store.
 */
export interface BlobStore {
  readonly name: string;
  put(key: string, data: Uint8Array | string): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  getText(key: string): Promise<string | undefined>;
  exists(key: string): Promise<boolean>;
  /** Bytes under a prefix and how many objects, walking without deleting. */
  stat(prefix: string): Promise<{ objects: number; bytes: number }>;
  /** Remove everything under a prefix; returns what it removed. */
  deletePrefix(prefix: string): Promise<{ objects: number; bytes: number }>;
  list(prefix: string): AsyncIterable<string>;
  /**
   * The store a crawl writes its files through, when the family has a faster writer for bulk writes (the local
   * store writes on a worker thread, on `thread` when one is lent). Absent: the crawl writes through the store
   * itself. Close what it returns.
   */
  openWriter?(options: { thread?: SharedThread | undefined }): BlobStore;
  close(): Promise<void>;
}
