import { join } from 'node:path';
import type { Logger } from 'pino';
import { type AdminWriter, LocalAdminWriter } from '../admin/admin-writer.js';
import type { NodeStores } from '../admin/node-stores.js';
import type { Settings } from '../config.js';
import { LevelUrlFilter } from '../dedup/level-url-filter.js';
import type { ContentDedupFilter, ExistingUrlPathFilter } from '../dedup/url-filter.js';
import { createEmbeddingClient } from '../embeddings/create-embedding-client.js';
import type { EmbeddingClient } from '../embeddings/embedding-client.js';
import {
  findImageModel,
  type ImageEmbeddingClient,
  TransformersImageEmbeddingClient,
} from '../embeddings/transformers-image-embedding-client.js';
import { vectorSpace } from '../embeddings/vector-space.js';
import { CrawlEvents } from '../engine/flow/crawl-events.js';
import { DnsCache } from '../fetch/dns-cache.js';
import { FileRenderMemory } from '../fetch/file-render-memory.js';
import type { RenderMemory } from '../fetch/render-memory.js';
import { PublishedCatalogs } from '../index/catalog-registry.js';
import type { SearchIndex } from '../index/search-index.js';
import { SqliteFtsIndex } from '../index/sqlite-fts-index.js';
import { DataLayout } from '../layout.js';
import type { CrawlRunner } from '../runs/crawl-runner.js';
import { LocalRunRegistry, type RunRegistry } from '../runs/run-registry.js';
import type { BlobStore } from '../storage/blob-store.js';
import { createRecordDatabase } from '../storage/create-record-database.js';
import { probeDataRoot } from '../storage/probe.js';
import type { RecordDatabase } from '../storage/record-store.js';
import { SqliteVecFamily } from '../vector/sqlite-vec-family.js';
import type { VectorStore, VectorStoreFamily } from '../vector/vector-store.js';
import type { SharedThread } from '../worker-entry.js';
import { type GreenfingerComponents, type NodeContext, resolvePart } from './components.js';
import { esIndexTarget, esVectorTarget, isEsStore } from './es-targets.js';
import { Publications } from './publications.js';
import { contentDedupRegistry } from './registries.js';
import { type CheckedStore, fileTarget, isCheckedStore, qdrantTarget } from './store-targets.js';

/**
 * The one composition point: every store and stage of the crawler is built here and nowhere else, from a part given
 * in `components` when there is one and from the embedded default otherwise. Node-wide stores open lazily and
 * once; the parts of one run are assembled by `RunAssembly` (run-assembly.ts) from this factory.
 */
export class ComponentFactory implements NodeContext, NodeStores {
  readonly settings: Readonly<Settings>;
  readonly layout: DataLayout;
  readonly log: Logger;
  readonly components: GreenfingerComponents;
  readonly blobs: BlobStore;
  /** What search may read: each catalog and its published version (user/index/catalogs.json). */
  readonly published: PublishedCatalogs;
  readonly runs: RunRegistry;
  readonly writer: AdminWriter;
  /** The crawl events of every run of this node (`gf.on`). */
  readonly events: CrawlEvents;
  /** Told of each run that published (its change set): alerts and webhooks listen here. */
  readonly publications: Publications;
  #db: Promise<RecordDatabase> | undefined;
  #index: SearchIndex | undefined;
  #embedding: Promise<EmbeddingClient> | undefined;
  #imageEmbedding: Promise<ImageEmbeddingClient> | undefined;
  #vectorFamily: VectorStoreFamily | undefined;
  #urlFilter: Promise<ExistingUrlPathFilter> | undefined;
  #renderMemory: RenderMemory | undefined;
  #dnsCache: DnsCache | undefined;
  readonly #contentDedup = new Map<string, Promise<ContentDedupFilter>>();
  /** Stores on other servers (GF_FILE_TARGET=s3, GF_VECTOR_STORE=qdrant), asked by `checkStores`. */
  readonly #remote: CheckedStore[] = [];

  constructor(settings: Readonly<Settings>, log: Logger, components: GreenfingerComponents = {}) {
    this.settings = settings;
    this.layout = new DataLayout(settings.dataStore);
    this.log = log;
    this.components = components;
    const blobs = components.blobStore
      ? resolvePart(components.blobStore, this)
      : fileTarget(settings, this.layout.user);
    if (isCheckedStore(blobs)) this.#remote.push(blobs);
    this.blobs = components.wrapBlobStore?.(blobs, this) ?? blobs;
    this.published = new PublishedCatalogs(this.layout.indexRoot);
    this.runs = components.runRegistry?.(this) ?? new LocalRunRegistry(this.layout.system);
    const ctx = { ...this.#node(), database: () => this.database() };
    this.writer = components.adminWriter?.(ctx) ?? new LocalAdminWriter(this);
    this.events = new CrawlEvents(log);
    this.publications = new Publications(log);
    for (const { event, listener } of components.listeners ?? []) this.events.on(event, listener);
  }

  /**
   * Check that the data root can be written (`system/`, and `user/` unless a blob store component holds the pages),
   * before a run opens any store.
   * @throws CrawlerError STORAGE in one line: read-only, full, or not a directory, with the fix
   */
  probeDataRoot(): void {
    probeDataRoot(this.layout.root, { userDir: !this.components.blobStore });
  }

  #node(): NodeContext {
    return { settings: this.settings, layout: this.layout, log: this.log };
  }

  /** CatalogStore + ResourceRecordStore (opened and migrated on first use). */
  database(): Promise<RecordDatabase> {
    this.#db ??= this.#openDatabase();
    return this.#db;
  }

  async #openDatabase(): Promise<RecordDatabase> {
    const c = this.components;
    const db = c.recordDatabase
      ? await resolvePart(c.recordDatabase, this.#node())
      : await createRecordDatabase({ databaseUrl: this.settings.databaseUrl, sqliteFile: this.layout.sqliteFile });
    if (!c.catalogStore && !c.resourceRecordStore) return db;
    return {
      kind: db.kind,
      catalogs: c.catalogStore ? resolvePart(c.catalogStore, this.#node()) : db.catalogs,
      resources: c.resourceRecordStore ? resolvePart(c.resourceRecordStore, this.#node()) : db.resources,
      ledger: db.ledger,
      users: db.users,
      alerts: db.alerts,
      migrate: () => db.migrate(),
      close: () => db.close(),
    };
  }

  /** The full-text index search reads (Searcher + IndexAdmin). */
  index(): SearchIndex {
    this.#index ??= this.components.searchIndex
      ? resolvePart(this.components.searchIndex, this.#node())
      : (esIndexTarget(this.settings, this.log) ??
        new SqliteFtsIndex({
          root: this.layout.indexRoot,
          prefix: this.settings.indexPrefix,
          championMinDf: this.settings.championMinDf,
          championSize: this.settings.championSize,
          pairsMinDocs: this.settings.pairsMinDocs,
        }));
    if (isEsStore(this.#index) && !this.#remote.includes(this.#index)) this.#remote.push(this.#index);
    return this.#index;
  }

  /**
   * The index a crawl or a replay writes through: the family's own writer when it has one (the embedded index is
   * written off the event loop, on `thread` when one is lent), the index itself otherwise. Close it when it is not
   * `index()`.
   */
  indexWriter(thread?: SharedThread): SearchIndex {
    const index = this.index();
    return index.openWriter?.({ thread }) ?? index;
  }

  /** The text embedding client (loaded on first use, off the event loop). */
  embedding(): Promise<EmbeddingClient> {
    if (!this.#embedding) {
      const open = this.components.embeddingClient
        ? Promise.resolve(resolvePart(this.components.embeddingClient, this.#node()))
        : createEmbeddingClient(this.settings);
      // An endpoint that did not answer (GF_EMBEDDING_URL) is asked again on next use.
      open.catch(() => {
        if (this.#embedding === open) this.#embedding = undefined;
      });
      this.#embedding = open;
    }
    return this.#embedding;
  }

  /**
   * The image model (GF_IMAGE_MODEL under GF_MODEL_DIR, or the `imageEmbeddingClient` component), loaded on first use
   * and kept for the life of this factory (one per process or search thread: it is big). Only a crawl of a
   * `text+image` catalog and a pictures search over image vectors ask for it.
   */
  imageEmbedding(): Promise<ImageEmbeddingClient> {
    if (!this.#imageEmbedding) {
      const open = this.components.imageEmbeddingClient
        ? Promise.resolve(resolvePart(this.components.imageEmbeddingClient, this.#node()))
        : TransformersImageEmbeddingClient.load({ modelDir: this.settings.modelDir, model: this.settings.imageModel });
      open.catch(() => {
        if (this.#imageEmbedding === open) this.#imageEmbedding = undefined;
      });
      this.#imageEmbedding = open;
    }
    return this.#imageEmbedding;
  }

  /** Whether an image model is at hand (the component, or both towers of GF_IMAGE_MODEL), without loading it. */
  hasImageModel(): boolean {
    if (this.components.imageEmbeddingClient) return true;
    return findImageModel(this.settings.modelDir, this.settings.imageModel) !== null;
  }

  /** The vector store family: one collection per embedding width, and erase/purge/stats across all of them. */
  vectorFamily(): VectorStoreFamily {
    if (!this.#vectorFamily) {
      const family = this.components.vectorStores
        ? resolvePart(this.components.vectorStores, this.#node())
        : (qdrantTarget(this.settings, vectorSpace(this.settings)) ??
          esVectorTarget(this.settings, vectorSpace(this.settings)) ??
          new SqliteVecFamily({
            root: join(this.layout.user, 'vector'),
            collection: this.settings.vectorCollection,
            space: vectorSpace(this.settings),
            annMinPoints: this.settings.annMinPoints,
          }));
      if (isCheckedStore(family) || isEsStore(family)) this.#remote.push(family);
      this.#vectorFamily = this.components.wrapVectorStores?.(family, this.#node()) ?? family;
    }
    return this.#vectorFamily;
  }

  /**
   * Ask each store on another server (GF_FILE_TARGET=s3, GF_VECTOR_STORE=qdrant) once, with a deadline of seconds;
   * none configured: nothing is sent. `Greenfinger.open` calls it, so the CLI and `serve` stop at once.
   * Every check ends (each within its deadline) before this answers, so the stores can be closed after a failure.
   * @throws ConfigError naming the setting (GF_S3_ENDPOINT, GF_QDRANT_URL, …) of the first that does not answer
   */
  async checkStores(): Promise<void> {
    this.vectorFamily();
    if (this.settings.indexProvider !== 'sqlite') this.index();
    const checks = await Promise.allSettled(this.#remote.map((store) => store.check()));
    const failed = checks.find((c): c is PromiseRejectedResult => c.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** The text vector collection of the embedding client's width. */
  async vectors(): Promise<VectorStore> {
    return this.vectorFamily().open((await this.embedding()).dims);
  }

  /** ExistingUrlPathFilter, shared by every catalog of the data store. */
  urlFilter(): Promise<ExistingUrlPathFilter> {
    if (!this.#urlFilter) {
      const opened = this.components.urlFilter
        ? Promise.resolve(resolvePart(this.components.urlFilter, this.#node()))
        : LevelUrlFilter.open(this.layout.urlDedupDir);
      const wrap = this.components.wrapUrlFilter;
      const open = wrap ? opened.then((filter) => wrap(filter, this.#node())) : opened;
      // A store another process holds open (its LevelDB lock) is tried again on next use.
      open.catch(() => {
        if (this.#urlFilter === open) this.#urlFilter = undefined;
      });
      this.#urlFilter = open;
    }
    return this.#urlFilter;
  }

  /** What runs the crawl verbs of jobs: the `crawlRunner` component over `local`, else `local` (the CrawlService). */
  crawlRunner(local: CrawlRunner): CrawlRunner {
    return this.components.crawlRunner?.({ ...this.#node(), local }) ?? local;
  }

  /** The render memory of the adaptive extractor, shared by every run of the node: system/render-memory by default. */
  renderMemory(): RenderMemory {
    this.#renderMemory ??= this.components.renderMemory
      ? resolvePart(this.components.renderMemory, this.#node())
      : new FileRenderMemory(this.layout.renderMemoryDir, { log: this.log.child({ component: 'render-memory' }) });
    return this.#renderMemory;
  }

  /** The DNS cache of the node, shared by every fetch of every run (GF_DNS_TTL_MIN_MS, _MAX_MS, _NEGATIVE_TTL_MS). */
  dnsCache(): DnsCache {
    const s = this.settings;
    this.#dnsCache ??= this.components.dnsCache
      ? resolvePart(this.components.dnsCache, this.#node())
      : new DnsCache({
          minTtlMs: s.dnsTtlMinMs,
          maxTtlMs: s.dnsTtlMaxMs,
          negativeTtlMs: s.dnsNegativeTtlMs,
          maxEntries: s.dnsCacheSize,
        });
    return this.#dnsCache;
  }

  /** The ContentDedupFilter a catalog names (empty: GF_CONTENT_DEDUP), opened once per name. */
  contentDedup(name: string): Promise<ContentDedupFilter> {
    const key = this.components.contentDedup ? '(component)' : name || this.settings.contentDedup;
    let open = this.#contentDedup.get(key);
    if (!open) {
      open = this.components.contentDedup
        ? Promise.resolve(resolvePart(this.components.contentDedup, this.#node()))
        : contentDedupRegistry.get(key)(this.#node());
      const opened = open;
      opened.catch(() => {
        if (this.#contentDedup.get(key) === opened) this.#contentDedup.delete(key);
      });
      this.#contentDedup.set(key, opened);
    }
    return open;
  }

  /**
   * Close the url filter and the content dedup filters (their LevelDB locks), so another process or a delete can
   * open them; they reopen on next use. Refused while this process crawls.
   */
  async releaseDedup(): Promise<void> {
    const filters = [this.#urlFilter, ...this.#contentDedup.values()];
    this.#urlFilter = undefined;
    this.#contentDedup.clear();
    for (const f of filters) if (f) await (await f.catch(() => undefined))?.close();
  }

  async close(): Promise<void> {
    await this.releaseDedup();
    if (this.#renderMemory) await this.#renderMemory.close();
    if (this.#vectorFamily) await this.#vectorFamily.close();
    if (this.#embedding) await (await this.#embedding).close();
    if (this.#imageEmbedding) await (await this.#imageEmbedding.catch(() => undefined))?.close();
    if (this.#index) await this.#index.close();
    if (this.#db) await (await this.#db).close();
    await this.blobs.close();
  }
}
