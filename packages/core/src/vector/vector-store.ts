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
  countVersion(catalogId: string, version: number): Promise<number>;
  /** Prepare a version for searching once it is complete (e.g. finish an approximate index); optional. */
  optimize?(catalogId: string, version: number): Promise<unknown>;
  close(): Promise<void>;
}
