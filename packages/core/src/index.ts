/**
 * `@greenfinger/core`: what a library user builds on, listed on purpose (docs/developer-guide.md, "Public API").
 * Everything else of core is reachable from `@greenfinger/core/internal`, for Greenfinger's own packages only.
 */

// Logging.
export type { Logger } from 'pino';
// The store and stage interfaces, each with its registry where a catalog chooses by name.
export type * from './acceptors/acceptor.js';
export { ACCEPT_VERDICT, acceptorRegistry, refuseVerdict } from './acceptors/index.js';
export {
  type AdminWriter,
  type CatalogDefinitionFields,
  type CatalogDeletion,
  DELETE_ORDER,
  type DeleteLayer,
  type DeleteReport,
  type DeleteResultRow,
  type MeaningPublication,
  type UrlLayerCount,
  type VersionDeletion,
  type VersionDeletionResult,
} from './admin/index.js';
// Alerts: saved searches and webhooks told of each publishing run.
export {
  type AlertListing,
  type AlertMatch,
  type AlertMode,
  type AlertRow,
  AlertService,
  type AlertStore,
  type ChangesPayload,
  type FiredAlert,
  type NewAlert,
  type WebhookDelivery,
  webhookSignature,
} from './alerts/index.js';
// The composition seams: parts passed to Greenfinger.open({ components }) and the registries a catalog names from.
export {
  type AcceptorCheck,
  clusterSharing,
  contentDedupRegistry,
  type ExtractorContext,
  extractorRegistry,
  type FetcherContext,
  fetcherRegistry,
  formatStoreProviders,
  type GreenfingerComponents,
  type NamedAcceptorFactory,
  type NodeContext,
  type Part,
  type PolitenessContext,
  type RunContext,
  registries,
  type StoreFamily,
  type StoreProviders,
  type StoreSharing,
  type StoresInUse,
  storeProviders,
  storesInUse,
} from './compose/index.js';
// Settings of the node and of a catalog, and the data model.
export * from './config.js';
export type * from './content/content-extractor.js';
export {
  contentExtractorRegistry,
  type DocumentContentParser,
  documentParserRegistry,
  type ParsedDocument,
} from './content/index.js';
export type * from './dedup/url-filter.js';
export type * from './embeddings/embedding-client.js';
export type {
  CounterSnapshot,
  CrawlCoordinator,
  CrawlEvent,
  CrawlEventFilter,
  CrawlEventName,
  CrawlListener,
  DispatchCommit,
  DocumentConsumer,
  FetchedDocument,
  ImportedDocument,
  PageBudget,
  PictureClaim,
  PictureRegistry,
  Politeness,
} from './engine/index.js';
// Errors: one class, a closed set of codes, each with its HTTP status and exit code.
export * from './error-table.js';
export * from './errors.js';
export type * from './fetch/extractor.js';
export type {
  HostAnswer,
  HostPaceControl,
  HostRate,
  HostReadiness,
  PaceObserver,
  Pacer,
  PatternRecord,
  Release,
  RenderMemory,
  RenderObservation,
  RenderPolicy,
  Reservation,
} from './fetch/index.js';
export type * from './frontier/frontier.js';
export {
  createPrioritizer,
  DEFAULT_PRIORITY_WEIGHTS,
  LevelFrontier,
  type LevelFrontierOptions,
  MemoryFrontier,
  type Prioritizer,
  type PriorityInput,
  type PriorityWeights,
  type ReferringPage,
  type SitemapFacts,
  type UrlPriority,
} from './frontier/index.js';
export { ids, urlHash } from './ids.js';
export type * from './index/search-index.js';
export { DataLayout } from './layout.js';
export { createLogger, silentLogger } from './logger.js';
export type * from './model.js';
export { Outcome } from './outcomes.js';
export type { CrawledPage, OutputChannel, PageImage } from './outputs/index.js';
export { Registry } from './registry.js';
export type { CrawlProgress, CrawlRequest, CrawlRunner, CrawlVerb, EmbeddingProgress } from './runs/crawl-runner.js';
export type { RunHandle, RunInfo, RunRegistry } from './runs/run-registry.js';
// The front door: open a node, drive its services.
export {
  type CatalogDefinition,
  type CatalogRequest,
  CatalogService,
  CrawlService,
  type DeleteOptions,
  type EmbeddingNotice,
  type FileReplayCounts,
  Greenfinger,
  type GreenfingerOptions,
  type Job,
  type JobAction,
  type JobEvent,
  JobService,
  type JobStart,
  type JobState,
  type LedgerCounts,
  type LedgerList,
  type LedgerListQuery,
  LedgerService,
  MetricsService,
  type PagePicture,
  type PictureFields,
  type PictureSearchHit,
  type PublicUser,
  type ReplayLayer,
  type ReplayMissing,
  type ReplayOptions,
  type ReplayProgress,
  type ReplayReport,
  ReplayService,
  type ReplaySession,
  type ReplaySessionOptions,
  type ReplaySlice,
  type ReplaySliceReport,
  type RunStatus,
  type ScheduledCatalog,
  type ScheduledRun,
  ScheduleService,
  SEARCH_MODES,
  type SearchHit,
  type SearchMode,
  type SearchRequest,
  type SearchResponse,
  SearchService,
  type SeedsAdded,
  type TestUrlReport,
  type TestUrlRequest,
  TestUrlService,
  type UrlDeletion,
  type UrlFate,
  UserService,
  type VersionInfo,
  type VersionSearch,
  VersionService,
  type VersionState,
  WORDS_MATCHES,
  type WordsMatch,
  type WordsMatched,
} from './services/index.js';
export type * from './storage/blob-store.js';
export {
  type CatalogStore,
  createRecordDatabase,
  LEDGER_STATES,
  type LedgerQuery,
  type LedgerRow,
  type LedgerState,
  LocalBlobStore,
  type RecordDatabase,
  type ResourceRecordStore,
  type UrlLedgerStore,
  type UserRole,
  type UserRow,
  type UserStore,
} from './storage/index.js';
export { normalizeUrl } from './url/index.js';
export type * from './vector/vector-store.js';
