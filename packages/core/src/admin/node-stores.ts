import type { Logger } from 'pino';
import type { Settings } from '../config.js';
import type { ContentDedupFilter, ExistingUrlPathFilter } from '../dedup/url-filter.js';
import type { PublishedCatalogs } from '../index/catalog-registry.js';
import type { SearchIndex } from '../index/search-index.js';
import type { DataLayout } from '../layout.js';
import type { RunRegistry } from '../runs/run-registry.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { RecordDatabase } from '../storage/record-store.js';
import type { VectorStoreFamily } from '../vector/vector-store.js';

/**
 * The node's stores, as the back office (the admin writer, the erasers, page removal) reaches them: what it reads and
 * deletes, and nothing of how they are built. The composition point (`compose/ComponentFactory`) implements it; a
 * test may hand a smaller one.
 */
export interface NodeStores {
  readonly settings: Readonly<Settings>;
  readonly layout: DataLayout;
  readonly log: Logger;
  /** The file layer (pages, article text, pictures, reports). */
  readonly blobs: BlobStore;
  /** What search may read: each catalog and its published version (user/index/catalogs.json). */
  readonly published: PublishedCatalogs;
  /** What runs now on this node (a version's working state is not removed from under a run). */
  readonly runs: RunRegistry;
  /** Which dedup stores a library user replaced (theirs are cleared even where no default folder exists). */
  readonly components: { readonly urlFilter?: unknown; readonly contentDedup?: unknown };
  /** CatalogStore + ResourceRecordStore + ledger + users (opened on first use). */
  database(): Promise<RecordDatabase>;
  /** The full-text index. */
  index(): SearchIndex;
  /** The vector store family (every embedding width). */
  vectorFamily(): VectorStoreFamily;
  /** The url filter shared by every catalog. */
  urlFilter(): Promise<ExistingUrlPathFilter>;
  /** The content dedup filter a catalog names (empty: the node's default). */
  contentDedup(name: string): Promise<ContentDedupFilter>;
  /** Close the dedup stores (their LevelDB locks); they reopen on next use. */
  releaseDedup(): Promise<void>;
}
