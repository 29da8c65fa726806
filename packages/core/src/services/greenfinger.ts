import type { Logger } from 'pino';
import type { AdminWriter } from '../admin/admin-writer.js';
import { type CatalogDeletion, deleteCatalog } from '../admin/catalog-deletion.js';
import { AlertService } from '../alerts/alert-service.js';
import { ComponentFactory } from '../compose/component-factory.js';
import type { GreenfingerComponents } from '../compose/components.js';
import { loadSettings, type Settings } from '../config.js';
import type { EmbeddingClient } from '../embeddings/embedding-client.js';
import type { CrawlEventFilter, CrawlListener } from '../engine/flow/crawl-events.js';
import type { PublishedCatalogs } from '../index/catalog-registry.js';
import type { SearchIndex } from '../index/search-index.js';
import type { DataLayout } from '../layout.js';
import { silentLogger } from '../logger.js';
import type { RunRegistry } from '../runs/run-registry.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { RecordDatabase } from '../storage/record-store.js';
import type { VectorStore, VectorStoreFamily } from '../vector/vector-store.js';
import type { SharedThread } from '../worker-entry.js';
import { type CatalogRef, CatalogService } from './catalog-service.js';
import { ChangeService } from './change-service.js';
import { CrawlService } from './crawl-service.js';
import { JobService } from './job-service.js';
import { LedgerService } from './ledger-service.js';
import { MetricsService } from './metrics-service.js';
import { PageService } from './page-service.js';
import { ReplayService } from './replay-service.js';
import { ScheduleService } from './schedule-service.js';
import { SearchService } from './search-service.js';
import { TestUrlService } from './test-url-service.js';
import { UserService } from './user-service.js';
import { VersionService } from './version-service.js';

export type { GreenfingerComponents } from '../compose/components.js';

export interface GreenfingerOptions {
  /** Settings that win over the environment (e.g. from CLI flags). */
  settings?: Partial<Settings>;
  env?: NodeJS.ProcessEnv;
  log?: Logger;
  /** Parts that replace their embedded default for the whole process (see GreenfingerComponents). */
  components?: GreenfingerComponents;
}

/**
 * The service layer both front ends drive: catalogs, crawls, versions, replay and search, over one data store. Every
 * part comes from one composition point (`factory`); stores open lazily, so a search opens the index and the vectors
 * and never the database. One long-lived Greenfinger can serve many requests (an API server, a prompt).
 */
export class Greenfinger {
  readonly settings: Readonly<Settings>;
  readonly log: Logger;
  /** The composition point: every store and stage is built there. */
  readonly factory: ComponentFactory;
  readonly crawler: CrawlService;
  readonly search: SearchService;
  readonly versions: VersionService;
  /** The change log: what each publishing run changed, and two kept versions compared (docs/freshness.md). */
  readonly changes: ChangeService;
  readonly replay: ReplayService;
  /** Every url's fate per version: why, lists by state, delete one url's page. */
  readonly ledger: LedgerService;
  /** Saved pages as a reader gets them: a page's Markdown by id or url. */
  readonly pages: PageService;
  /** People who may sign in to the REST API. */
  readonly users: UserService;
  /** Runs in the background of a long-lived process (a server, the prompt), each with a job id. */
  readonly jobs: JobService;
  /** Catalogs run on their schedules (`--schedule`): what is due, and the loop `watch` and `serve` run. */
  readonly schedules: ScheduleService;
  /** Saved searches and webhooks, told of each publishing run (docs/freshness.md#alerts). */
  readonly alerts: AlertService;
  /** One url through a catalog's whole pipeline, saving nothing: every stage's verdict, the text, the links' fates. */
  readonly testUrl: TestUrlService;
  /** Prometheus text of this node: counters per catalog, fetch latency, frontier sizes, output failures. */
  readonly metrics: MetricsService;
  #catalogs: Promise<CatalogService> | undefined;

  private constructor(options: GreenfingerOptions) {
    this.settings = loadSettings(options.settings, options.env);
    this.log = options.log ?? silentLogger();
    this.factory = new ComponentFactory(this.settings, this.log, options.components);
    const catalogs = () => this.catalogs();
    this.crawler = new CrawlService(this.factory, catalogs);
    this.search = new SearchService(this.factory);
    this.versions = new VersionService(this.factory, catalogs);
    this.changes = new ChangeService(this.factory, catalogs);
    this.replay = new ReplayService(this.factory, catalogs);
    this.ledger = new LedgerService(this.factory, catalogs, () => this.crawler.running());
    this.pages = new PageService(this.factory, catalogs, this.ledger);
    this.users = new UserService(this.factory);
    this.jobs = new JobService({
      factory: this.factory,
      catalogs,
      crawler: this.crawler,
      runner: this.factory.crawlRunner(this.crawler),
      replay: this.replay,
    });
    this.metrics = new MetricsService(this.factory, this.jobs);
    this.schedules = new ScheduleService({
      catalogs,
      database: () => this.database(),
      jobs: this.jobs,
      changes: this.changes,
      log: this.log,
    });
    this.testUrl = new TestUrlService(this.factory, catalogs);
    this.alerts = new AlertService({ factory: this.factory, catalogs, search: (req) => this.search.search(req) });
    this.factory.publications.add(this.alerts);
  }

  static async open(options: GreenfingerOptions = {}): Promise<Greenfinger> {
    const gf = new Greenfinger(options);
    // A store on another server (GF_QDRANT_URL, GF_S3_ENDPOINT) that does not answer stops here, in one line; what
    // was opened for it (the stores' clients, a caller's components) is closed first, so a caller leaks nothing.
    try {
      await gf.factory.checkStores();
    } catch (err) {
      await gf.close().catch((closeErr: unknown) => gf.log.warn({ err: closeErr }, 'closing after a failed open'));
      throw err;
    }
    return gf;
  }

  get layout(): DataLayout {
    return this.factory.layout;
  }

  get blobs(): BlobStore {
    return this.factory.blobs;
  }

  get published(): PublishedCatalogs {
    return this.factory.published;
  }

  /** The single writer of administrative writes (catalog rows, running state, publish, prune, version deletion). */
  get writer(): AdminWriter {
    return this.factory.writer;
  }

  /** What runs now, pause and stop, live counters. */
  get runs(): RunRegistry {
    return this.factory.runs;
  }

  /**
   * Listen to the crawl events of every run of this node (seed 002): each url's outcome once it is committed
   * (`SAVED`, `REJECTED_NONCANONICAL`, … — an acceptor's or stage's name in `detail`), `DOCUMENT_PREIMPORTED`,
   * `DOCUMENT_POSTIMPORTED`, or `*` for all. A listener that throws is logged; the crawl goes on.
   * @returns the unsubscribe
   */
  on(event: CrawlEventFilter, listener: CrawlListener): () => void {
    return this.factory.events.on(event, listener);
  }

  /** The record database (opened and migrated on first use). */
  database(): Promise<RecordDatabase> {
    return this.factory.database();
  }

  /** Catalog definitions (opens the database). */
  catalogs(): Promise<CatalogService> {
    this.#catalogs ??= this.database().then((db) => new CatalogService(db.catalogs, this.factory.writer));
    return this.#catalogs;
  }

  /**
   * Delete a catalog definition; refused while it holds versions unless `purge` (every version and its data go first).
   * A running job of the catalog is stopped first (in-flight pages finish, nothing is published).
   */
  async deleteCatalog(ref: CatalogRef, options: { purge?: boolean } = {}): Promise<CatalogDeletion> {
    const catalogs = await this.catalogs();
    const catalog = await catalogs.get(ref);
    if (this.jobs.running(catalog.id)) await this.jobs.stop({ id: catalog.id });
    const deleted = await deleteCatalog(
      { catalogs, versions: this.versions, published: this.published },
      { id: catalog.id },
      options,
    );
    await (await this.database()).alerts?.deleteCatalog(catalog.id);
    return deleted;
  }

  index(): SearchIndex {
    return this.factory.index();
  }

  /** The index a crawl or a replay writes through; close it when it is not `index()`. */
  indexWriter(thread?: SharedThread): SearchIndex {
    return this.factory.indexWriter(thread);
  }

  /** The text embedding client (loaded on first use, off the event loop). */
  embedding(): Promise<EmbeddingClient> {
    return this.factory.embedding();
  }

  /** The vector store family (every embedding width). */
  vectorFamily(): VectorStoreFamily {
    return this.factory.vectorFamily();
  }

  /** The text vector collection for the embedding width. */
  vectors(): Promise<VectorStore> {
    return this.factory.vectors();
  }

  async close(): Promise<void> {
    await this.jobs.close();
    await this.crawler.close();
    await this.alerts.close();
    await this.factory.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
