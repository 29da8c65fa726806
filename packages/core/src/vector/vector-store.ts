/** What a text vector point carries so it explains itself without the database. */
export interface TextPointPayload {
  resourceId: string;
  catalogId: string;
  catalogName: string;
  version: number;
  /** `${catalogId}:${version}` */
  catalogVersion: string;
  chunkIndex: number;
  chunk: string;
  url: string;
  title: string;
  textPath: string;
  linkDensity: number;
}

export interface VectorPoint {
  /** text point: uuidv5(catalog, version|resourceId|chunkIndex) */
  id: string;
  vector: Float32Array;
  payload: TextPointPayload;
}

export interface VectorHit {
  id: string;
  score: number;
  payload: TextPointPayload;
}

export interface VectorQuery {
  vector: Float32Array;
  scopes: Array<{ catalogId: string; version: number }>;
  /** Hits wanted (before dedup by resourceId the store over-fetches). */
  limit: number;
  offset?: number | undefined;
}

/** One collection per embedding width: `{collection}_{dims}`. */
export interface VectorStore {
  readonly name: string;
  readonly collection: string;
  readonly dims: number;
  upsert(points: VectorPoint[]): Promise<void>;
  search(query: VectorQuery): Promise<VectorHit[]>;
  deleteVersion(catalogId: string, version: number): Promise<number>;
  /** Remove every point of one page (a page rewritten with fewer chunks must not keep its old ones). */
  deleteResource(catalogId: string, version: number, resourceId: string): Promise<number>;
  /** The points of one page (what deleteResource would remove). */
  countResource(catalogId: string, version: number, resourceId: string): Promise<number>;
  /** The points of one page with their vectors, in chunk order (an export with `--chunks`); optional. */
  pointsOfResource?(catalogId: string, version: number, resourceId: string): Promise<VectorPoint[]>;
  countVersion(catalogId: string, version: number): Promise<number>;
  /** Remove every point of one catalog, in every version; returns the points removed. */
  purge(catalogId: string): Promise<number>;
  /** Points per catalog version, and bytes on disk when the store can say. */
  stats(): Promise<VectorCollectionStats>;
  /** Prepare a version for searching once it is complete (e.g. finish an approximate index); optional. */
  optimize?(catalogId: string, version: number): Promise<unknown>;
  close(): Promise<void>;
}

/** What one collection holds. */
export interface VectorCollectionStats {
  collection: string;
  dims: number;
  /** Points per catalog version, by catalog id then version. */
  versions: Array<{ catalogId: string; version: number; points: number }>;
  points: number;
  /** Bytes on disk of this collection, when the store can say. */
  bytes?: number | undefined;
}

/** What a vector store family holds, every width (`index-info`). */
export interface VectorStats {
  /** The family's name. */
  name: string;
  /** By width. */
  collections: VectorCollectionStats[];
  /** Bytes on disk of every collection, when the family can say. */
  bytes?: number | undefined;
}

/**
 * One vector store backend (embedded sqlite-vec, Elasticsearch, Qdrant…): a collection per embedding width, and the
 * lifecycle of a catalog's vectors across every width, so that deleting a version written by an older model (another
 * width) goes through the family too. The family owns what it opens: close the family, not the stores it gave.
 */
export interface VectorStoreFamily {
  readonly name: string;
  /** The collection for one embedding width (opened on first use, then the same store). */
  open(dims: number): VectorStore;
  /** Every collection this family holds, of any width, opened (for erase, purge, stats). */
  collections(): Promise<VectorStore[]>;
  /**
   * Delete one version's points from every collection and return how many went; `dryRun`: count them and delete
   * nothing (the same number a delete would return).
   */
  deleteVersion(catalogId: string, version: number, dryRun: boolean): Promise<number>;
  /** Delete one page's points from every collection (a url deleted by hand); `dryRun`: count them only. */
  deleteResource(catalogId: string, version: number, resourceId: string, dryRun: boolean): Promise<number>;
  /** Remove every point of a catalog from every collection; returns the points removed. */
  purge(catalogId: string): Promise<number>;
  stats(): Promise<VectorStats>;
  /** Check every collection before a run writes to it (sqlite-vec: SQLite's quick_check). @throws CrawlerError CORRUPT */
  verify?(catalogId: string): Promise<void>;
  /** Closes every collection it opened. */
  close(): Promise<void>;
}
