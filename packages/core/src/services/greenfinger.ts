import { join } from 'node:path';
import type { Logger } from 'pino';
import { loadSettings, type Settings } from '../config.js';
import { createEmbeddingClient } from '../embeddings/create-embedding-client.js';
import type { EmbeddingClient } from '../embeddings/embedding-client.js';
import { PublishedCatalogs } from '../index/catalog-registry.js';
import { OffThreadIndex } from '../index/off-thread-index.js';
import type { SearchIndex } from '../index/search-index.js';
import { SqliteFtsIndex, type SqliteFtsIndexOptions } from '../index/sqlite-fts-index.js';
import { DataLayout } from '../layout.js';
import { silentLogger } from '../logger.js';
import type { BlobStore } from '../storage/blob-store.js';
import { createRecordDatabase } from '../storage/create-record-database.js';
import { LocalBlobStore } from '../storage/local-blob-store.js';
import type { RecordDatabase } from '../storage/record-store.js';
import { SqliteVecStore } from '../vector/sqlite-vec-store.js';
import type { VectorStore } from '../vector/vector-store.js';
import type { SharedThread } from '../worker-entry.js';
import { CatalogService } from './catalog-service.js';
import { CrawlService } from './crawl-service.js';
import { ReplayService } from './replay-service.js';
import { SearchService } from './search-service.js';
import { VersionService } from './version-service.js';

/**
 * Seams a library user (or a test) can replace; each defaults to the embedded implementation.
 * A factory gets the runtime, so it can read settings and paths.
 */
export interface GreenfingerComponents {
  blobStore?: (gf: Greenfinger) => BlobStore;
  recordDatabase?: (gf: Greenfinger) => Promise<RecordDatabase>;
  searchIndex?: (gf: Greenfinger) => SearchIndex;
  embeddingClient?: (gf: Greenfinger) => Promise<EmbeddingClient>;
  vectorStore?: (gf: Greenfinger, dims: number) => VectorStore;
}

export interface GreenfingerOptions {
  /** Settings that win over the environment (e.g. from CLI flags). */
  settings?: Partial<Settings>;
  env?: NodeJS.ProcessEnv;
  log?: Logger;
  components?: GreenfingerComponents;
}

/**
 * The service layer both front ends drive: catalogs, crawls and search, over one data store.
 * Stores open lazily: a search opens the index and the vectors and never the database.
 */
export class Greenfinger {
  readonly settings: Readonly<Settings>;
  readonly layout: DataLayout;
  readonly log: Logger;
  readonly blobs: BlobStore;
  readonly published: PublishedCatalogs;
  readonly crawler: CrawlService;
  readonly search: SearchService;
  readonly versions: VersionService;
  readonly replay: ReplayService;
  readonly #components: GreenfingerComponents;
  #db: Promise<RecordDatabase> | undefined;
  #index: SearchIndex | undefined;
  #embedding: Promise<EmbeddingClient> | undefined;
  #vectors: VectorStore | undefined;
  #catalogs: CatalogService | undefined;

  private constructor(options: GreenfingerOptions) {
    this.settings = loadSettings(options.settings, options.env);
    this.layout = new DataLayout(this.settings.dataStore);
    this.log = options.log ?? silentLogger();
    this.#components = options.components ?? {};
    this.blobs = this.#components.blobStore?.(this) ?? new LocalBlobStore(this.layout.user);
    this.published = new PublishedCatalogs(this.layout.indexRoot);
    this.crawler = new CrawlService(this);
    this.search = new SearchService(this);
    this.versions = new VersionService(this);
    this.replay = new ReplayService(this);
  }

  static async open(options: GreenfingerOptions = {}): Promise<Greenfinger> {
    return new Greenfinger(options);
  }

  /** The record database (opened and migrated on first use). */
  database(): Promise<RecordDatabase> {
    this.#db ??= (async () => {
      if (this.#components.recordDatabase) return this.#components.recordDatabase(this);
      return createRecordDatabase({ databaseUrl: this.settings.databaseUrl, sqliteFile: this.layout.sqliteFile });
    })();
    return this.#db;
  }

  /** Catalog definitions (opens the database). */
  async catalogs(): Promise<CatalogService> {
    this.#catalogs ??= new CatalogService((await this.database()).catalogs);
    return this.#catalogs;
  }

  index(): SearchIndex {
    this.#index ??= this.#components.searchIndex?.(this) ?? new SqliteFtsIndex(this.#ftsOptions());
    return this.#index;
  }

  /**
   * The full-text index to write a crawl or a replay through: the embedded index is written off the event loop, on
   * `thread` when one is lent (an extraction worker's: one V8 isolate fewer) and on a thread of its own otherwise,
   * with the reader's settings, so that its optimize() at publish (champion lists, word pairs: seconds to minutes
   * at scale) never blocks the event loop either. A configured index is written as it is. Close the writer when
   * done if it is not `index()`.
   */
  indexWriter(thread?: SharedThread): SearchIndex {
    const reader = this.index();
    if (!(reader instanceof SqliteFtsIndex)) return reader;
    return new OffThreadIndex(reader, { ...this.#ftsOptions(), thread });
  }

  /** The embedded full-text index's options from the node settings (the reader's and the writer's alike). */
  #ftsOptions(): SqliteFtsIndexOptions {
    return {
      root: this.layout.indexRoot,
      prefix: this.settings.indexPrefix,
      championMinDf: this.settings.championMinDf,
      championSize: this.settings.championSize,
      pairsMinDocs: this.settings.pairsMinDocs,
    };
  }

  /** The text embedding client (loaded on first use, off the event loop). */
  embedding(): Promise<EmbeddingClient> {
    if (!this.#embedding) {
      this.#embedding = this.#components.embeddingClient?.(this) ?? createEmbeddingClient(this.settings);
    }
    const embedding = this.#embedding;
    return embedding;
  }

  /** The text vector collection for the embedding width. */
  async vectors(): Promise<VectorStore> {
    if (!this.#vectors) {
      const client = await this.embedding();
      this.#vectors =
        this.#components.vectorStore?.(this, client.dims) ??
        new SqliteVecStore({
          root: join(this.layout.user, 'vector'),
          collection: this.settings.vectorCollection,
          dims: client.dims,
          annMinPoints: this.settings.annMinPoints,
        });
    }
    return this.#vectors;
  }

  async close(): Promise<void> {
    await this.crawler.close();
    if (this.#vectors) await this.#vectors.close();
    if (this.#embedding) await (await this.#embedding).close();
    if (this.#index) await this.#index.close();
    if (this.#db) await (await this.#db).close();
    await this.blobs.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
