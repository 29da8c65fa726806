import type { Logger } from 'pino';
import type { AcceptorContext, Candidate, UrlPathAcceptor, Verdict } from '../acceptors/acceptor.js';
import type { AdminWriter } from '../admin/admin-writer.js';
import type { Settings } from '../config.js';
import type { ContentExtractor } from '../content/content-extractor.js';
import type { ContentDedupFilter, ExistingUrlPathFilter } from '../dedup/url-filter.js';
import type { EmbeddingClient } from '../embeddings/embedding-client.js';
import type { ImageEmbeddingClient } from '../embeddings/transformers-image-embedding-client.js';
import type { CrawlCoordinator } from '../engine/crawl-coordinator.js';
import type { Politeness } from '../engine/crawl-engine.js';
import type { DocumentConsumer } from '../engine/flow/consumers.js';
import type { CrawlEventFilter, CrawlListener } from '../engine/flow/crawl-events.js';
import type { PageBudget } from '../engine/page-budget.js';
import type { PictureRegistry } from '../engine/picture-registry.js';
import type { DnsCache } from '../fetch/dns-cache.js';
import type { Extractor } from '../fetch/extractor.js';
import type { HostPaceControl, Pacer } from '../fetch/politeness.js';
import type { RenderMemory } from '../fetch/render-memory.js';
import type { CrawlFrontier } from '../frontier/frontier.js';
import type { Prioritizer } from '../frontier/prioritizer.js';
import type { SearchIndex } from '../index/search-index.js';
import type { DataLayout } from '../layout.js';
import type { Catalog, CrawlAction } from '../model.js';
import type { OutputChannel } from '../outputs/output-channel.js';
import type { CrawlRunner } from '../runs/crawl-runner.js';
import type { RunRegistry } from '../runs/run-registry.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { CatalogStore, RecordDatabase, ResourceRecordStore } from '../storage/record-store.js';
import type { VectorStoreFamily } from '../vector/vector-store.js';

/** What every node-wide component is built from: the node settings, the data layout and the logger. */
export interface NodeContext {
  readonly settings: Readonly<Settings>;
  readonly layout: DataLayout;
  readonly log: Logger;
}

/** What a component of one run is built from: the node's context plus the catalog version being crawled. */
export interface RunContext extends NodeContext {
  readonly catalog: Catalog;
  readonly version: number;
  readonly action: CrawlAction;
}

/** What a fetcher is built from; `createDefault()` builds the one the catalog names, to wrap it. */
export interface FetcherContext extends NodeContext {
  /** Keep-alive connections per origin the run wants. */
  readonly connectionsPerOrigin: number;
  /** The node's DNS cache, for the fetcher's connections. Absent: the system lookup on every new connection. */
  readonly dnsCache?: DnsCache | undefined;
  /** Build the fetcher the catalog names (by default `http`), for a replacement that wraps it. */
  createDefault(): Extractor;
}

/** What a politeness replacement is built with. */
export interface PolitenessContext extends NodeContext {
  /** Build the default (per-host slots and interval of this process, robots.txt Crawl-delay), for one that wraps it. */
  createDefault(): Politeness & Partial<Pacer & HostPaceControl>;
  /** A host's robots.txt Crawl-delay in milliseconds, when it has one (read once per host). */
  crawlDelayMs(host: string): Promise<number | undefined>;
}

/** Something that answers whether a url may be offered to the frontier: the UrlPathAcceptor chain. */
export interface AcceptorCheck {
  check(candidate: Candidate): Verdict | Promise<Verdict>;
}

/** A part given as an object, or as a factory of it (called once, when the part is first needed). */
export type Part<T, C> = T | ((ctx: C) => T);

/**
 * Seams a library user (or a test) replaces for the whole process by passing them to `Greenfinger.open({ components })`.
 * Every one defaults to the embedded implementation built by the ComponentFactory, the one composition point; a
 * part given here is used instead and none of its default is created. Per catalog, the fetcher, the content
 * extractor, the acceptors and the dedup filter are chosen by name instead (see `registries`).
 */
export interface GreenfingerComponents {
  /** BlobStore: the file layer (pages, article text, pictures, reports). Default: local files under user/. */
  blobStore?: Part<BlobStore, NodeContext>;
  /** The record database: CatalogStore + ResourceRecordStore. Default: SQLite, or PostgreSQL for DATABASE_URL. */
  recordDatabase?: Part<RecordDatabase | Promise<RecordDatabase>, NodeContext>;
  /** CatalogStore alone (the rest of the record database stays the default). */
  catalogStore?: Part<CatalogStore, NodeContext>;
  /** ResourceRecordStore alone (the rest of the record database stays the default). */
  resourceRecordStore?: Part<ResourceRecordStore, NodeContext>;
  /** Searcher + IndexAdmin of the full-text family. Default: embedded SQLite FTS5 under user/index. */
  searchIndex?: Part<SearchIndex, NodeContext>;
  /** EmbeddingClient for text vectors. Default: the local model (GF_MODEL_DIR), or the bundled fallback. */
  embeddingClient?: Part<EmbeddingClient | Promise<EmbeddingClient>, NodeContext>;
  /**
   * The image model of catalogs whose `contentMode` is `text+image` (their pictures, and a pictures query's text).
   * Default: GF_IMAGE_MODEL under GF_MODEL_DIR through transformers.js, loaded on first use and kept.
   */
  imageEmbeddingClient?: Part<ImageEmbeddingClient | Promise<ImageEmbeddingClient>, NodeContext>;
  /** VectorStore family (one collection per embedding width). Default: sqlite-vec under user/vector. */
  vectorStores?: Part<VectorStoreFamily, NodeContext>;
  /**
   * Wraps the node's blob store once it is built (the default or `blobStore`), e.g. to send the files a run writes to
   * other processes as well (a cluster member's `blob` channel): given the store, returns the one the node uses.
   */
  wrapBlobStore?: (store: BlobStore, ctx: NodeContext) => BlobStore;
  /** Wraps the node's vector store family once it is built (the default or `vectorStores`), as `wrapBlobStore`. */
  wrapVectorStores?: (family: VectorStoreFamily, ctx: NodeContext) => VectorStoreFamily;
  /** ExistingUrlPathFilter. Default: LevelDB + Bloom filter under system/dedup/url. */
  urlFilter?: Part<ExistingUrlPathFilter | Promise<ExistingUrlPathFilter>, NodeContext>;
  /**
   * Wraps the node's url filter once it is opened (the default or `urlFilter`), as `wrapBlobStore` (a cluster member's
   * `frontier-dedup` channel sends the urls a run marks to the other members' filters).
   */
  wrapUrlFilter?: (filter: ExistingUrlPathFilter, ctx: NodeContext) => ExistingUrlPathFilter;
  /**
   * DnsCache of the node: every fetch of every run looks host names up through it. Default: answers kept for their TTL
   * between GF_DNS_TTL_MIN_MS and GF_DNS_TTL_MAX_MS, failures for GF_DNS_NEGATIVE_TTL_MS, on the system resolver; a
   * test passes one on a resolver of its own.
   */
  dnsCache?: Part<DnsCache, NodeContext>;
  /**
   * The time every run's recrawlable resolver judges a page due by (epoch ms): a test moves it to see a page's
   * recrawl interval pass without waiting. Default: Date.now.
   */
  recrawlClock?: () => number;
  /** ContentDedupFilter for every catalog (instead of the one its name or GF_CONTENT_DEDUP picks). */
  contentDedup?: Part<ContentDedupFilter | Promise<ContentDedupFilter>, NodeContext>;
  /** CrawlFrontier of one run. Default: LevelDB under system/frontier/{catalog}/v{n}. */
  frontier?: (ctx: RunContext) => CrawlFrontier | Promise<CrawlFrontier>;
  /** Extractor (the fetcher) for every catalog; `ctx.createDefault()` builds the one it replaces, to wrap it. */
  fetcher?: (ctx: FetcherContext & RunContext) => Extractor;
  /**
   * Per-host politeness of one run. Default: HostPoliteness with the catalog's concurrency and interval. A
   * replacement that also has `pace(host, signal)` (see `Pacer`) spaces a rendered page's own requests too.
   */
  politeness?: (ctx: PolitenessContext & RunContext) => Politeness;
  /**
   * Who fetches each picture url of one run when other processes crawl the same run (a cluster: one member fetches a
   * picture, the others link the row it became). Default: none — a run fetches each picture url once by itself.
   */
  pictureRegistry?: (ctx: RunContext) => PictureRegistry | undefined;
  /**
   * The page limit of one run when other processes save pages of it too (a cluster: one count in Redis, so the
   * members together save at most `maxPages`). Default: none — a run counts its own pages.
   */
  pageBudget?: (ctx: RunContext) => PageBudget | undefined;
  /**
   * RenderMemory: what the adaptive extractor learned per host and url pattern, across runs (shared through Redis in
   * a cluster). Default: one JSON file per host under system/render-memory. Closed with the node.
   */
  renderMemory?: Part<RenderMemory, NodeContext>;
  /** ContentExtractor for every catalog, run on the calling thread (the named built-ins run on worker threads). */
  contentExtractor?: ContentExtractor;
  /**
   * The Prioritizer of one run (seed 003): scores each url offered to the frontier, which puts it in a front queue
   * by its score. Default: the five weighed parts of frontier/prioritizer.ts with the catalog's `priorityWeights`.
   */
  prioritizer?: Part<Prioritizer, RunContext>;
  /** The whole UrlPathAcceptor chain of one run (instead of the catalog's named acceptors). */
  acceptors?: (ctx: AcceptorContext & RunContext) => AcceptorCheck;
  /** Output channels written after file → index → vector, in this order; their failures are counted, not fatal. */
  outputChannels?: (ctx: RunContext) => OutputChannel[];
  /** CrawlCoordinator (next hops, and the completion check). Default: the local frontier. */
  coordinator?: (frontier: CrawlFrontier, ctx: RunContext) => CrawlCoordinator;
  /**
   * Listeners of the crawl's events (seed 002): every url's outcome (`REJECTED_NONCANONICAL`, `SAVED`, …),
   * `DOCUMENT_PREIMPORTED` and `DOCUMENT_POSTIMPORTED`, or `*` for all; more can be added with `gf.on(…)`.
   */
  listeners?: ReadonlyArray<{ readonly event: CrawlEventFilter; readonly listener: CrawlListener }>;
  /** Pre- and post-import consumers (seed 002): code that sees every document before it is read and before it is written. */
  consumers?: readonly DocumentConsumer[];
  /** The single writer of administrative writes. Default: a plain method call on this node. */
  adminWriter?: (ctx: NodeContext & { database(): Promise<RecordDatabase> }) => AdminWriter;
  /** What runs now, pause, stop, live counters. Default: this process plus run locks under system/locks. */
  runRegistry?: (ctx: NodeContext) => RunRegistry;
  /**
   * What runs the crawl verbs of jobs (`gf.jobs.start`: the REST API, the prompt). Default: `local`, this process's
   * CrawlService; a cluster member sends them to its leader instead.
   */
  crawlRunner?: (ctx: NodeContext & { local: CrawlRunner }) => CrawlRunner;
}

/** An acceptor a catalog can name in `acceptors`; built once per run from the run's acceptor context. */
export type NamedAcceptorFactory = (ctx: AcceptorContext) => UrlPathAcceptor;

/** Resolve a Part: call a factory, or take the object as it is. */
export function resolvePart<T, C>(part: Part<T, C>, ctx: C): T {
  return typeof part === 'function' ? (part as (c: C) => T)(ctx) : part;
}
