// Generated from the API's description (/v2/openapi.json) by packages/web/scripts/api-types.mjs. Do not edit:
// change the API (its answers are described in packages/api/src/answer-shapes.ts), then run
// `node packages/web/scripts/api-types.mjs`. packages/web/test/api-types.test.ts fails while this file is stale.

/** A saved search of a catalog: it fires when a page a publishing run added or changed matches it. */
export interface Alert {
  id: string;
  catalogId: string;
  name: string;
  query: string;
  /** words, meaning or hybrid */
  mode: string;
  createdAt: string;
  lastFiredAt: string | null;
  lastMatches: Array<{
    url: string;
    title: string;
  }> | null;
}

export interface Alerts {
  catalog: {
    id: string;
    name: string;
  };
  alerts: Alert[];
  webhooks: Array<{
    url: string;
    lastDelivery: {
      url: string;
      /** delivered, failed or refused */
      status: string;
      httpStatus?: number;
      attempts: number;
      at: string;
      runId: string;
      error?: string;
    } | null;
  }>;
}

export interface Catalog {
  id: string;
  name: string;
  url: string;
  startUrl: string;
  settings: CatalogSettings;
  /** The version being written. */
  indexVersion: number;
  /** The version search reads; -1 = none published yet. */
  searchVersion: number;
  runningState: string;
  createdAt: string;
  updatedAt: string;
}

/** The settings a catalog stores (those not given take their defaults). */
export interface CatalogSettings {
  cat?: 'news' | 'tech' | 'business' | 'food' | 'travel' | 'health' | 'education' | 'entertainment' | 'other';
  depth?: number;
  seedUrls?: string[];
  maxPages?: number;
  durationMinutes?: number;
  intervalMs?: number;
  threads?: number;
  hostConcurrency?: number;
  burst?: number;
  include?: string[];
  exclude?: string[];
  outputs?: Array<'file' | 'index' | 'vector'>;
  contentMode?: 'text' | 'text+image';
  images?: boolean;
  maxVersions?: number;
  minPublishRatio?: number;
  orphans?: 'ignore' | 'delete' | 'process';
  maxRetries?: number;
  robots?: boolean;
  sitemap?: boolean;
  maxConsecutiveFailures?: number;
  trapDuplicates?: number;
  trapPatternUrls?: number;
  sessionParams?: string[];
  acceptors?: string[];
  fetcher?: string;
  extractor?: string;
  renderHosts?: string[];
  contentExtractor?: string;
  contentDedup?: '' | string;
  documents?: boolean;
  headPass?: boolean;
  adaptivePace?: boolean;
  markdownFiles?: boolean;
  metadataFilters?: Array<{
    header: string;
    match?: string;
    min?: number;
    max?: number;
    before?: string;
    after?: string;
    onMatch?: 'exclude' | 'include';
  }>;
  documentFilters?: Array<{
    field?: 'text' | 'title' | 'url' | 'contentType';
    match: string;
    onMatch?: 'exclude' | 'include';
  }>;
  canonical?: boolean;
  recrawlSitemap?: boolean;
  changeDistance?: number;
  recrawlMin?: string;
  recrawlMax?: string;
  recrawlFrequencies?: Array<{
    field?: 'url' | 'contentType';
    match: string;
    every: string;
  }>;
  schedule?: string;
  webhooks?: string[];
  changeFeeds?: string[];
  postImportLinks?: boolean;
  priorityWeights?: {
    depth?: number;
    type?: number;
    freshness?: number;
    quality?: number;
    sitemap?: number;
  };
}

/** One publishing run's change set: its urls added, changed (with a short diff), removed, each list cut to `limit`. */
export interface ChangeRun {
  catalog: {
    id: string;
    name: string;
  };
  version: number;
  action: string;
  at: string;
  comparedWith?: number;
  total: {
    added: number;
    changed: number;
    removed: number;
  };
  added: string[];
  changed: Array<{
    url: string;
    /** Lines removed (`- …`), then lines added (`+ …`). */
    diff: string;
  }>;
  removed: string[];
}

/** The change log run by run, newest first: each publishing run and how many urls it added, changed and removed. */
export interface ChangeRuns {
  catalog: {
    id: string;
    name: string;
  };
  runs: Array<{
    version: number;
    action: string;
    /** When the run ended: the key of `changes/run?at=`. */
    at: string;
    /** A rebuild: the version its set was compared with. */
    comparedWith?: number;
    added: number;
    changed: number;
    removed: number;
  }>;
  /** How many runs the change log holds. */
  total: number;
}

/** What changed in a catalog: urls added, pages whose article changed beyond volatile text (with a short diff), urls removed. */
export interface Changes {
  catalog: {
    id: string;
    name: string;
  };
  /** The publishing runs it covers, oldest first. */
  runs: Array<{
    version: number;
    action: string;
    at: string;
  }>;
  added: string[];
  changed: Array<{
    url: string;
    /** Lines removed (`- …`), then lines added (`+ …`). */
    diff: string;
  }>;
  removed: string[];
}

/** Live counters of a run, each REJECTED_* with its count in `rejected` and its first url in `examples`. */
export interface Counters {
  dispatched: number;
  handled: number;
  saved: number;
  images: number;
  indexed: number;
  vectored: number;
  alreadySeen: number;
  filtered: number;
  unreachable: number;
  duplicateContent: number;
  failures: number;
  abandoned: number;
  unmodified: number;
  redirected: number;
  rejected: Record<string, number>;
  examples: Record<string, string>;
  [key: string]: unknown;
}

export interface DeleteReport {
  catalogId: string;
  catalog: string;
  dryRun: boolean;
  versions: number[];
  layers: string[];
  results: DeleteRow[];
  searchVersion: number;
  purged: boolean;
}

export interface DeleteRow {
  version: number;
  layer: string;
  count: number;
  bytes: number;
  error?: string;
  note?: string;
}

export interface JobStarted {
  jobId: string;
  job: JobView;
}

/** A background job: a crawl verb or a replay, its live counters and, once it ended, its report. */
export interface JobView {
  jobId: string;
  catalog: string;
  catalogId: string;
  version: number;
  action: string;
  /** queued, running, completed, failed or stopped */
  state: string;
  counters: Counters | null;
  queued: number;
  active?: number;
  pagesPerSecond: number;
  /** The busy hosts' pace now, busiest first (at most 10; empty once ended): request starts per second allowed now and by the settings (null: unlimited), requests in flight and waiting, the pause left after a Retry-After (docs/crawling.md). */
  hosts: Array<{
    host: string;
    ratePerSecond: number | null;
    settingPerSecond: number | null;
    inFlight: number;
    queued: number;
    pausedForMs: number;
  }>;
  embedding?: {
    phase: string;
    pages: number;
    embedded: number;
    complete: number;
    chunks: number;
    [key: string]: unknown;
  } | null;
  report: RunReport | null;
  error: string | null;
  startedAt: string;
  endedAt: string | null;
}

export interface NodeView {
  node: string;
  host: string;
  pid: number;
  version: string;
  nodeVersion: string;
  uptimeSeconds: number;
  cpus: number;
  loadAverage: number[];
  memory: {
    rss: number;
    heapUsed: number;
    heapTotal: number;
    external: number;
    total: number;
  };
  jobs: number;
}

export interface PagePicture {
  id: string;
  path: string;
  url: string;
  alt: string;
  caption?: string;
  width?: number | null;
  height?: number | null;
}

export interface PicturePage {
  id: string;
  url: string;
  title: string;
}

export interface ReportRow {
  catalogId: string;
  version: number;
  action: string;
  published: boolean;
  report: RunReport;
  [key: string]: unknown;
}

export interface ResourceImage {
  id: string;
  url: string;
  alt?: string;
  file: string;
  contentType: string;
  [key: string]: unknown;
}

export interface ResourceView {
  id: string;
  title: string;
  url: string;
  files: {
    html: string;
    text: string;
    markdown: string;
  };
  images: ResourceImage[];
  [key: string]: unknown;
}

/** The report of one run (docs/reports.md); the fields the page reads, the others are sent as well. */
export interface RunReport {
  node: string;
  catalogId: string;
  catalog: string;
  version: number;
  action: string;
  startedAt: string;
  endedAt: string;
  elapsedMs: number;
  produced: {
    saved: number;
    images: number;
    indexed: number;
    vectored: number;
  };
  urls: {
    dispatched: number;
    handled: number;
    filtered: number;
    unreachable: number;
    duplicateContent: number;
    failures: number;
    unmodified: number;
    redirected: number;
    [key: string]: unknown;
  };
  rejected: Record<string, number>;
  examples: Record<string, string>;
  ending: {
    reason: string;
    fullyCrawled?: boolean;
    published: boolean;
    note?: string;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** A catalog crawling now (as `status` prints it) and the job of this server that runs it, if any. */
export interface RunningCatalog {
  catalogId: string;
  catalog?: string;
  pid: number;
  since: string;
  where: string;
  job: string | null;
  counters?: Counters;
  queued?: number;
  pagesPerSecond?: number;
  [key: string]: unknown;
}

/** A catalog with a schedule: when its last run ended, when the schedule next runs it, what its last run changed. */
export interface ScheduledCatalog {
  catalogId: string;
  catalog: string;
  schedule: string;
  lastRunAt: string | null;
  nextRunAt: string | null;
  running: boolean;
  lastChanges?: {
    at: string;
    version: number;
    added: number;
    changed: number;
    removed: number;
  } | null;
}

export interface SearchHit {
  id: string;
  title: string;
  url: string;
  catalog: string;
  catalogId: string;
  version: number;
  score: number;
  highlights: string[];
  /** The pictures of the page, deduplicated by image id (page modes). */
  pictures?: PagePicture[];
  /** Pictures mode: the picture's own url. */
  pictureUrl?: string;
  /** Pictures mode: the stored file, under the data root's user/ (its bytes: GET /v2/resource/{pages[0].id}/image/{imageId}). */
  file?: string;
  width?: number | null;
  height?: number | null;
  alt?: string;
  /** Pictures mode: the caption or surrounding text; highlights holds what matched. */
  caption?: string;
  imageId?: string;
  /** Pictures mode: the pages that show it (the first 100). */
  pages?: PicturePage[];
  pageCount?: number;
  /** A blank query's listing (newest fetch first): when the page was fetched. */
  fetchedAt?: string;
}

export interface SearchPage {
  /** The mode that answered: hybrid, words, meaning or pictures. */
  mode: string;
  /** Words: how the pages matched: 'all' their words, 'any' (no page held them all, or match=any) or 'question' (a sentence: 4+ words, no quotes, one on half the pages: any of them and their pairs, the best page with all in the first three). */
  match?: string;
  results: SearchHit[];
  total: number;
  pageSize: number;
  nextCursor: string | null;
  elapsedMillis: number;
  /** Meaning search over vectors still being written: it answered from the pages embedded so far. */
  embedding?: {
    pages: number;
    embedded: number;
    complete: number;
    catalogs: string[];
  };
  /** Why an answer is empty or narrower than asked when the reason is not the query (no vectors). */
  note?: string;
  /** like=: what was compared: 'image' (image vectors) or 'caption meaning' (text vectors). */
  likeBy?: string;
  /** like=: the picture the results are like. */
  likeOf?: SearchHit;
  /** Pictures mode: the rankings fused: 'words', then 'caption meaning', 'image'. */
  rankings?: string[];
}

export interface SignedIn {
  token: string;
  username: string;
  roles: string[];
  expiresInSeconds: number;
}

export interface Storage {
  dataRoot: string;
  database: {
    kind: string;
  };
  files: {
    bytes: number;
    [key: string]: unknown;
  };
  system: {
    bytes: number;
    [key: string]: unknown;
  };
  index: {
    name: string;
    bytes: number;
    catalogs: Array<{
      catalogId: string;
      documents: number;
      bytes: number;
      versions: Array<{
        version: number;
        documents: number;
      }>;
    }>;
  };
  vectors: {
    name: string;
    bytes: number;
    collections: Array<{
      collection: string;
      dims: number;
      points: number;
      bytes: number;
    }>;
  };
}

export interface System {
  node: string;
  providers: {
    records: {
      provider: string;
    };
    index: {
      provider: string;
    };
    vectors: {
      provider: string;
      collection: string;
    };
    files: {
      provider: string;
    };
    embeddings: {
      provider: string;
      model: string;
      dims?: number;
    };
  };
  cluster: {
    records: string;
    index: string;
    vectors: string;
    files: string;
  };
}

export interface UrlList {
  catalog: {
    id: string;
    name: string;
  };
  version: number;
  items: UrlRow[];
  total: number;
}

export interface UrlRow {
  urlId: string;
  url: string;
  state: string;
  outcome: string;
  detail: string;
  status: number | null;
  reason: string;
  referrer: string | null;
  depth: number;
  /** The redirects that led to this url, first one first. */
  redirects: string[];
  /** The link as it was written when url normalisation changed it (a session id, a fragment, …); null when not. */
  foundAs: string | null;
  /** The priority it was queued with (docs/crawling.md): score 0 to 1, front queue 0 (first) to 7 and the parts; null for a start url, a redirect target, a refused url or one queued before priorities were kept. */
  priority: {
    score: number;
    queue: number;
    parts: {
      depth: number;
      type: number;
      freshness: number;
      quality: number;
      sitemap: number;
    };
  } | null;
  fetchedAt: string | null;
  /** When its page last changed in this version (saved new, its article changed, removed; docs/freshness.md); null when never. */
  changedAt: string | null;
  /** How many times its page changed in this version (0: never). */
  changeCount: number;
  catalogId: string;
  version: number;
}

export interface VersionDiff {
  catalog: {
    id: string;
    name: string;
  };
  from: number;
  to: number;
  added: string[];
  changed: Array<{
    url: string;
    diff: string;
  }>;
  removed: string[];
}

export interface VersionRow {
  version: number;
  /** serving, published, incomplete, running or empty */
  state: string;
  published: boolean;
  serving: boolean;
  saved: number;
  images: number;
  startedAt: string | null;
  endedAt: string | null;
  action: string | null;
  search: {
    words: boolean;
    meaning: boolean;
    embedding: {
      pages: number;
      embedded: number;
      complete: number;
    } | null;
  };
}

/** The `data` of each route's answer (inside {success, message, data}), by "METHOD /path". */
export interface ApiAnswers {
  /** Every catalog */
  'GET /v2/catalog': Catalog[];
  /** Create a catalog, or update the one with this name (else url): partial settings merge with what is stored */
  'POST /v2/catalog': Catalog;
  /** The categories, with how many catalogs each holds */
  'GET /v2/catalog/cats': Array<{
    cat: string;
    catalogs: number;
  }>;
  /** Catalogs crawling now, with their jobs */
  'GET /v2/catalog/running': RunningCatalog[];
  /** Catalogs with a schedule (--schedule): when each last ran, when it runs next, what its last run changed */
  'GET /v2/catalog/schedules': ScheduledCatalog[];
  /** One catalog, by id or name, as `catalog show --json` prints it */
  'GET /v2/catalog/{ref}': Catalog;
  /** Update one catalog: partial settings merge with what is stored */
  'PUT /v2/catalog/{ref}': Catalog;
  /** A catalog's saved searches (with when each last fired and what it matched) and its webhooks with the last delivery to each */
  'GET /v2/catalog/{ref}/alerts': Alerts;
  /** Save a search: it fires when a page a publishing run adds or changes matches it */
  'POST /v2/catalog/{ref}/alerts': Alert;
  /** Remove a saved search, by its id (or its name) */
  'DELETE /v2/catalog/{ref}/alerts/{alert}': Alert;
  /** Record urls as changed (a CMS webhook): the catalog's next merge fetches them whatever its change feeds say; urls outside the catalog are refused and listed */
  'POST /v2/catalog/{ref}/changed': {
    catalog: {
      id: string;
      name: string;
    };
    recorded: string[];
    refused: Array<{
      url: string;
      reason: string;
    }>;
  };
  /** The change set of the latest run that published (urls added, changed with a short diff, removed), or of every run since a version or a date, folded into one */
  'GET /v2/catalog/{ref}/changes': Changes;
  /** One publishing run of the change log (by the time it ended, as `changes/runs` lists it): its urls added, changed with a short diff, removed, each list cut to `limit` */
  'GET /v2/catalog/{ref}/changes/run': ChangeRun;
  /** The change log run by run, newest first: each publishing run with how many urls it added, changed and removed */
  'GET /v2/catalog/{ref}/changes/runs': ChangeRuns;
  /** One catalog with every setting, defaults applied */
  'GET /v2/catalog/{ref}/details': Catalog;
  /** Two kept versions compared: urls added, changed (with a short diff), removed */
  'GET /v2/catalog/{ref}/diff': VersionDiff;
  /** Create or reuse the catalog for this page and crawl it: 202 with a job id */
  'POST /v2/crawl/start': JobStarted;
  /** Every job of this server, newest first */
  'GET /v2/crawl/status': JobView[];
  /** Stop a job gracefully: no new fetches, in-flight pages finish, nothing is published; resume continues it */
  'POST /v2/crawl/stop': JobStarted;
  /** Crawl the current version (async): 202 with a job id; 409 while a run holds the catalog */
  'POST /v2/crawl/{ref}': JobStarted;
  /** The run report of each version */
  'GET /v2/crawl/{ref}/reports': ReportRow[];
  /** Each version: state, published, serving, counts */
  'GET /v2/crawl/{ref}/versions': VersionRow[];
  /** Delete versions layer by layer (vector → index → file → db). dryRun defaults to true: nothing is deleted without dryRun=false */
  'DELETE /v2/crawl/{ref}/versions': DeleteReport;
  /** update | merge | rebuild | resume | replay (async, 202 with a job id), or interrupt the running job */
  'POST /v2/crawl/{ref}/{verb}': JobStarted;
  /** Sign in: answers a token to send as Authorization: Bearer <token> */
  'POST /v2/login': SignedIn;
  /** This node: process, memory, cpu, running jobs */
  'GET /v2/node': NodeView;
  /** One saved page: its row, its pictures, and where its files are served */
  'GET /v2/resource/{id}': ResourceView;
  /** Search by words, meaning, both (hybrid, the default with vectors) or pictures; a blank q lists what was kept */
  'GET /v2/search': SearchPage;
  /** Search pictures (the same as mode=pictures): one result per kept picture, with pictureUrl, file, width, height, caption and the pages that show it; like=ID: the pictures like that one */
  'GET /v2/search/images': SearchPage;
  /** Search by meaning (the same as mode=meaning) */
  'GET /v2/search/semantic': SearchPage;
  /** This node's settings, secrets masked */
  'GET /v2/settings': Record<string, unknown>;
  /** One job: state queued | running | done | failed | stopped, live counters, and the run report once ended */
  'GET /v2/status/{jobId}': JobView;
  /** What each store holds, and its size on disk */
  'GET /v2/storage': Storage;
  /** Which store each layer uses (records, index, vectors, files, embeddings) and what a cluster copies */
  'GET /v2/system': System;
  /** The url ledger of a version: every url dispatched, its state and why it ended as it did */
  'GET /v2/urls': UrlList;
  /** One url of the ledger by its id (the resource id) */
  'GET /v2/urls/{id}': UrlRow & {
    /** Why it ended as it did, in one sentence. */
    explanation: string;
  };
}

/** The JSON body each route takes, by "METHOD /path". */
export interface ApiBodies {
  'POST /v2/catalog': {
    name?: string;
    url?: string;
    startUrl?: string;
    settings?: CatalogSettings;
    id?: string;
    indexVersion?: number;
    searchVersion?: number;
    runningState?: string;
    createdAt?: string;
    updatedAt?: string;
  };
  'PUT /v2/catalog/{ref}': {
    name?: string;
    url?: string;
    startUrl?: string;
    settings?: CatalogSettings;
    id?: string;
    indexVersion?: number;
    searchVersion?: number;
    runningState?: string;
    createdAt?: string;
    updatedAt?: string;
  };
  'POST /v2/catalog/{ref}/alerts': {
    /** the words (or question) to watch for */
    query: string;
    /** words (default), meaning or hybrid */
    mode?: 'words' | 'meaning' | 'hybrid';
    /** unique in the catalog (default: the query) */
    name?: string;
  };
  'POST /v2/catalog/{ref}/changed': {
    urls: string[];
  };
  'POST /v2/crawl/start': {
    crawlPage: string;
    maxDepth?: number;
    /** catalog id or name */
    name?: string;
  };
  'POST /v2/crawl/stop': {
    /** catalog id or name */
    catalog?: string;
    jobId?: string;
  } | null;
  'POST /v2/crawl/{ref}': {
    settings?: CatalogSettings;
    forcePublish?: boolean;
    version?: number;
    layers?: Array<'file' | 'index' | 'vector'>;
  } | null;
  'POST /v2/crawl/{ref}/{verb}': {
    settings?: CatalogSettings;
    forcePublish?: boolean;
    version?: number;
    layers?: Array<'file' | 'index' | 'vector'>;
  } | null;
  'POST /v2/limits': {
    /** catalog id or name */
    catalog: string;
    depthLimit: number;
  };
  'POST /v2/login': {
    username: string;
    password: string;
  };
  'POST /v2/seed/urls': {
    /** catalog id or name */
    catalog: string;
    urls: string[];
  };
}
