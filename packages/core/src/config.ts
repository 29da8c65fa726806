import { hostname } from 'node:os';
import { z } from 'zod';
import { patternProblem } from './engine/flow/regex-cache.js';
import { ConfigError } from './errors.js';
import type { OutputLayer } from './model.js';

/*
 * The one place that reads the environment. Node settings come from `loadSettings`; the few values needed before
 * settings can be loaded (V8 flags at process start, the log level of a logger made without settings, the FTS
 * extension file read when its module loads, the data root of the CLI's log file) come from the small functions
 * below, each taking `env` so a test can pass its own.
 */

/**
 * Every node setting with its environment variable and default. `.env.example` lists the same table.
 * Resolution order: flags > env > defaults. GF_* variables that name no setting are listed by `unknownEnv` (the
 * command line logs them as a warning), not ignored silently.
 */
export const settingsSchema = z.strictObject({
  /** GF_DATA_STORE: data root holding system/ and user/. @default ./data */
  dataStore: z.string().min(1).default('./data'),
  /** DATABASE_URL: empty = SQLite at data/system/greenfinger.db; postgres://… = PostgreSQL. */
  databaseUrl: z.string().default(''),
  /** GF_REDIS_URL: the Redis a cluster's members meet in (`--cluster`); unused by a node on its own. */
  redisUrl: z.string().min(1).default('redis://127.0.0.1:6379'),
  /** GF_NODE: node name in report file names. @default hostname */
  node: z
    .string()
    .min(1)
    .default(hostname().split('.')[0] || 'node'),
  /** GF_INDEX_PREFIX: prefix of index directories. @default greenfinger */
  indexPrefix: z
    .string()
    .regex(/^[a-z0-9_-]+$/)
    .default('greenfinger'),
  /** GF_VECTOR_COLLECTION: text collection name (width is appended). @default greenfinger_text */
  vectorCollection: z
    .string()
    .regex(/^[a-z0-9_-]+$/)
    .default('greenfinger_text'),
  /**
   * GF_INDEX_CHAMPION_MIN_DF: a term in at least this many documents of a version gets a champion list when the
   * version is published (words queries of such terms are ranked among the lists). @default 4000
   */
  championMinDf: z.coerce.number().int().min(1).default(4000),
  /** GF_INDEX_CHAMPION_SIZE: documents kept per champion list (the best by the term's own score). @default 1000 */
  championSize: z.coerce.number().int().min(10).max(100000).default(1000),
  /**
   * GF_INDEX_PAIRS_MIN_DOCS: a version of at least this many documents gets a word-pair table when it is published,
   * which answers quoted phrases without reading word positions; 0 = never. @default 10000
   */
  pairsMinDocs: z.coerce.number().int().min(0).default(10_000),
  /**
   * GF_VECTOR_ANN_MIN: points a catalog version needs before meaning search gets an approximate (HNSW) index;
   * smaller versions are searched exactly, 0 = never. @default 2000
   */
  annMinPoints: z.coerce.number().int().min(0).default(2000),
  /** GF_EMBEDDING_PROVIDER: local. @default local */
  embeddingProvider: z.enum(['local']).default('local'),
  /** GF_MODEL_DIR: directory holding ONNX models (transformers.js layout). @default ./models */
  modelDir: z.string().default('./models'),
  /** GF_TEXT_MODEL: model folder name under GF_MODEL_DIR. @default multilingual-e5-small */
  textModel: z.string().default('multilingual-e5-small'),
  /** GF_CHUNK_SIZE / GF_CHUNK_OVERLAP / GF_MAX_CHUNKS: text chunking for vectors. */
  chunkSize: z.coerce.number().int().min(100).max(8000).default(1000),
  chunkOverlap: z.coerce.number().int().min(0).max(4000).default(200),
  maxChunks: z.coerce.number().int().min(1).max(1000).default(20),
  /**
   * GF_EMBEDDING_WORKERS: worker threads embedding a crawl's chunks, each with its own copy of the model (the
   * bundled one is single-threaded). @default 2
   */
  embeddingWorkers: z.coerce.number().int().min(1).max(16).default(2),
  /**
   * GF_SEARCH_EARLY: true = a crawl publishes words search as soon as its fetch ends and meaning search as its vectors
   * are written (the first chunk of every page first); false = words and meaning together once every vector is
   * written, page by page (as before issue 18). @default true
   */
  searchEarly: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0'])], { error: 'must be true or false' })
    .default(true)
    .transform((v) => v === true || v === 'true' || v === '1'),
  /**
   * GF_MODEL_SOURCE: where `greenfinger models pull` downloads models from (a Hugging Face style host:
   * `<source>/<repo>/resolve/main/<file>`). @default https://huggingface.co
   */
  modelSource: z.string().url().default('https://huggingface.co'),
  /** GF_CONTENT_DEDUP: sha256 | simhash. @default sha256 */
  contentDedup: z.enum(['sha256', 'simhash']).default('sha256'),
  /** GF_SIMHASH_DISTANCE: max Hamming distance counted as duplicate. @default 3 */
  simhashDistance: z.coerce.number().int().min(0).max(3).default(3),
  /** GF_USER_AGENT */
  userAgent: z.string().default('Greenfinger/0.1 (+https://github.com/greenfinger)'),
  /**
   * GF_TIMEOUT_MS: one deadline per request, covering connect, headers and the whole body (redirects included);
   * a body still arriving at the deadline ends the request. @default 15000
   */
  timeoutMs: z.coerce.number().int().min(100).default(15000),
  /**
   * GF_MIN_BYTES_PER_SECOND: a body arriving slower than this on average, once GF_SLOW_BODY_GRACE_MS have passed
   * since its headers, is given up (a slow-loris server); 0 turns the check off. @default 1024
   */
  minBytesPerSecond: z.coerce.number().int().min(0).default(1024),
  /** GF_SLOW_BODY_GRACE_MS: how long a body may take before GF_MIN_BYTES_PER_SECOND applies. @default 3000 */
  slowBodyGraceMs: z.coerce.number().int().min(100).default(3000),
  /** GF_MAX_BODY_BYTES: body size cap for pages. @default 10485760 */
  maxBodyBytes: z.coerce
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024),
  /**
   * GF_DOCUMENT_MAX_MB: size cap of one document (PDF, Word, text), in MiB; a larger one is REJECTED_IMPORT:too-large
   * without being parsed. Held in bytes. @default 50
   */
  documentMaxBytes: z.coerce
    .number()
    .int()
    .min(1)
    .max(4096)
    .default(50)
    .transform((mb) => mb * 1024 * 1024),
  /**
   * GF_DOCUMENT_TIMEOUT_MS: time one document may take on the document worker; past it the worker is terminated
   * and replaced, and the document is REJECTED_IMPORT:timeout. @default 30000
   */
  documentTimeoutMs: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /**
   * GF_MAX_REDIRECTS: redirects followed from one url — inside a fetch for pictures, robots.txt and sitemaps, and
   * along a chain of page redirects (each target is a url of its own; past it REJECTED_TOO_MANY_REDIRECTS). @default 10
   */
  maxRedirects: z.coerce.number().int().min(0).max(50).default(10),
  /** GF_CHROMIUM_PATH: the Chromium the `browser` and `adaptive` extractors drive; none is ever downloaded. */
  chromiumPath: z.string().min(1).default('/usr/bin/chromium'),
  /** GF_BROWSER_PAGES: pages the browser of one run has open at once, over every host. @default 2 */
  browserPages: z.coerce.number().int().min(1).max(32).default(2),
  /** GF_BROWSER_RECYCLE_PAGES: pages one browser renders before a fresh one replaces it (memory). @default 100 */
  browserRecyclePages: z.coerce.number().int().min(1).default(100),
  /**
   * GF_BROWSER_MAX_MB: memory ceiling of one browser (proportional set size of its processes, MiB); above it a
   * fresh browser replaces it. 0 = none. @default 1024
   */
  browserMaxMb: z.coerce.number().int().min(0).default(1024),
  /** GF_RENDER_TIMEOUT_MS: a rendered page's navigation (its `load` event). @default 15000 */
  renderTimeoutMs: z.coerce.number().int().min(100).default(15000),
  /** GF_RENDER_IDLE_MS: the wait for the network to go quiet after `load`. @default 3000 */
  renderIdleMs: z.coerce.number().int().min(0).default(3000),
  /**
   * GF_RENDER_SETTLE_MS: the wait after network idle for the page's text to reach GF_RENDER_MIN_TEXT_CHARS; a page
   * still a shell then is REJECTED_UNRENDERED. @default 5000
   */
  renderSettleMs: z.coerce.number().int().min(0).default(5000),
  /** GF_RENDER_MAX_SCROLLS: scrolls to the bottom of a rendered page (infinite scroll, bounded). @default 3 */
  renderMaxScrolls: z.coerce.number().int().min(0).max(50).default(3),
  /** GF_RENDER_MIN_TEXT_CHARS: RenderingDetector — a page with this much visible text is never rendered. @default 200 */
  renderMinTextChars: z.coerce.number().int().min(0).default(200),
  /** GF_RENDER_MAX_SCRIPT_SHARE: RenderingDetector — a page more than this share script bytes is a shell. @default 0.6 */
  renderMaxScriptShare: z.coerce.number().gt(0).max(1).default(0.6),
  /**
   * GF_RENDER_MEMORY_RENDERS: render memory — after this many pages in a row of one host and url pattern needed the
   * browser, the rest of the pattern go straight to it (the detector not asked). 0 = never. @default 3
   */
  renderMemoryRenders: z.coerce.number().int().min(0).default(3),
  /**
   * GF_RENDER_MEMORY_STATIC: render memory — after this many pages in a row of a pattern needed no browser, the
   * detector is not asked about the rest of the pattern. 0 = always ask. @default 20
   */
  renderMemoryStatic: z.coerce.number().int().min(0).default(20),
  /** GF_RENDER_MEMORY_RECHECK: render memory — every this-many pages of a remembered pattern, one is checked again. @default 50 */
  renderMemoryRecheck: z.coerce.number().int().min(1).default(50),
  /** GF_IMAGE_MIN_SIZE: pictures smaller than this (px, both sides, when known) or bytes/10 are skipped. @default 100 */
  imageMinSize: z.coerce.number().int().min(0).default(100),
  /** GF_IMAGE_MAX_BYTES @default 10485760 */
  imageMaxBytes: z.coerce
    .number()
    .int()
    .min(1)
    .default(10 * 1024 * 1024),
  /** GF_IMAGE_MAX_SIDE: a picture whose header claims a longer side (px) is refused. @default 30000 */
  imageMaxSide: z.coerce.number().int().min(1).default(30_000),
  /** GF_IMAGE_MAX_PIXELS: a picture whose header claims more pixels (width × height) is refused. @default 100000000 */
  imageMaxPixels: z.coerce.number().int().min(1).default(100_000_000),
  /** GF_IMAGES_PER_PAGE @default 50 */
  imagesPerPage: z.coerce.number().int().min(0).default(50),
  /** GF_LOG_LEVEL @default info */
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** GF_WORKERS: extraction worker threads; 0 = extract on the main thread. @default cores − 1, at least 1 */
  workers: z.coerce.number().int().min(0).max(64).optional(),
  /** Milliseconds a crawl process waits after the first SIGTERM or Ctrl-C before it exits regardless. @default 5000 */
  stopDeadlineMs: z.coerce.number().int().min(100).max(600_000).default(5000),
  /** GF_SERVER_HOST: the address `greenfinger serve` listens on. @default 127.0.0.1 */
  serverHost: z.string().min(1).default('127.0.0.1'),
  /** GF_SERVER_PORT: the port `greenfinger serve` listens on (0 = any free port). @default 50080 */
  serverPort: z.coerce.number().int().min(0).max(65_535).default(50_080),
  /**
   * GF_TOKEN_SECRET: the key sign-in tokens are signed with (at least 32 characters). Unset: a random key kept in
   * system/token-secret, so a restart keeps sessions.
   */
  tokenSecret: z.string().min(32, 'must be at least 32 characters').optional(),
  /** GF_TOKEN_TTL: how long a sign-in lasts: seconds, or a number with s, m, h or d. @default 8h */
  tokenTtl: z
    .string()
    .regex(/^\d+[smhd]?$/, 'must be seconds or a number with s, m, h or d, e.g. 8h')
    .default('8h'),
  /** GF_CORS_ORIGINS: comma-separated origins allowed to call the REST API from a browser; empty = CORS off. */
  corsOrigins: z.string().default(''),
  /**
   * GF_DOCUMENTS: false = PDF, Word and text documents are not read on this node, whatever a catalog says (each is
   * REJECTED_NOT_MARKUP, as html-only crawls were). @default true
   */
  documents: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0'])], { error: 'must be true or false' })
    .default(true)
    .transform((v) => v === true || v === 'true' || v === '1'),
  /** GF_API_WEB: false = the server answers the REST API only (no search page). @default true */
  apiWeb: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0'])], { error: 'must be true or false' })
    .default(true)
    .transform((v) => v === true || v === 'true' || v === '1'),
});

export type Settings = z.infer<typeof settingsSchema>;

/** Environment variable of every setting. */
export const settingsEnv: Record<keyof Settings, string> = {
  dataStore: 'GF_DATA_STORE',
  databaseUrl: 'DATABASE_URL',
  redisUrl: 'GF_REDIS_URL',
  node: 'GF_NODE',
  indexPrefix: 'GF_INDEX_PREFIX',
  vectorCollection: 'GF_VECTOR_COLLECTION',
  championMinDf: 'GF_INDEX_CHAMPION_MIN_DF',
  championSize: 'GF_INDEX_CHAMPION_SIZE',
  pairsMinDocs: 'GF_INDEX_PAIRS_MIN_DOCS',
  annMinPoints: 'GF_VECTOR_ANN_MIN',
  embeddingProvider: 'GF_EMBEDDING_PROVIDER',
  modelDir: 'GF_MODEL_DIR',
  textModel: 'GF_TEXT_MODEL',
  chunkSize: 'GF_CHUNK_SIZE',
  chunkOverlap: 'GF_CHUNK_OVERLAP',
  maxChunks: 'GF_MAX_CHUNKS',
  embeddingWorkers: 'GF_EMBEDDING_WORKERS',
  searchEarly: 'GF_SEARCH_EARLY',
  modelSource: 'GF_MODEL_SOURCE',
  contentDedup: 'GF_CONTENT_DEDUP',
  simhashDistance: 'GF_SIMHASH_DISTANCE',
  userAgent: 'GF_USER_AGENT',
  timeoutMs: 'GF_TIMEOUT_MS',
  minBytesPerSecond: 'GF_MIN_BYTES_PER_SECOND',
  slowBodyGraceMs: 'GF_SLOW_BODY_GRACE_MS',
  maxBodyBytes: 'GF_MAX_BODY_BYTES',
  documentMaxBytes: 'GF_DOCUMENT_MAX_MB',
  documentTimeoutMs: 'GF_DOCUMENT_TIMEOUT_MS',
  maxRedirects: 'GF_MAX_REDIRECTS',
  chromiumPath: 'GF_CHROMIUM_PATH',
  browserPages: 'GF_BROWSER_PAGES',
  browserRecyclePages: 'GF_BROWSER_RECYCLE_PAGES',
  browserMaxMb: 'GF_BROWSER_MAX_MB',
  renderTimeoutMs: 'GF_RENDER_TIMEOUT_MS',
  renderIdleMs: 'GF_RENDER_IDLE_MS',
  renderSettleMs: 'GF_RENDER_SETTLE_MS',
  renderMaxScrolls: 'GF_RENDER_MAX_SCROLLS',
  renderMinTextChars: 'GF_RENDER_MIN_TEXT_CHARS',
  renderMaxScriptShare: 'GF_RENDER_MAX_SCRIPT_SHARE',
  renderMemoryRenders: 'GF_RENDER_MEMORY_RENDERS',
  renderMemoryStatic: 'GF_RENDER_MEMORY_STATIC',
  renderMemoryRecheck: 'GF_RENDER_MEMORY_RECHECK',
  imageMinSize: 'GF_IMAGE_MIN_SIZE',
  imageMaxBytes: 'GF_IMAGE_MAX_BYTES',
  imageMaxSide: 'GF_IMAGE_MAX_SIDE',
  imageMaxPixels: 'GF_IMAGE_MAX_PIXELS',
  imagesPerPage: 'GF_IMAGES_PER_PAGE',
  logLevel: 'GF_LOG_LEVEL',
  workers: 'GF_WORKERS',
  stopDeadlineMs: 'GF_STOP_DEADLINE_MS',
  serverHost: 'GF_SERVER_HOST',
  serverPort: 'GF_SERVER_PORT',
  tokenSecret: 'GF_TOKEN_SECRET',
  tokenTtl: 'GF_TOKEN_TTL',
  corsOrigins: 'GF_CORS_ORIGINS',
  apiWeb: 'GF_API_WEB',
  documents: 'GF_DOCUMENTS',
};

/** Settings as they may be shown or written: the database password and the token key masked. */
export function maskedSettings(settings: Readonly<Settings>): Record<string, unknown> {
  const { tokenSecret, ...rest } = settings;
  return {
    ...rest,
    databaseUrl: settings.databaseUrl.replace(/(\/\/[^:/@]*):[^@/]*@/, '$1:***@'),
    redisUrl: settings.redisUrl.replace(/(\/\/[^:/@]*):[^@/]*@/, '$1:***@'),
    tokenSecret: tokenSecret ? '***' : '',
  };
}

/** Resolve settings: flags > env > defaults. Throws ConfigError naming the variable and the fix. */
export function loadSettings(flags: Partial<Settings> = {}, env: NodeJS.ProcessEnv = process.env): Readonly<Settings> {
  const fromEnv: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(settingsEnv)) {
    const v = env[name];
    if (v !== undefined && v !== '') fromEnv[key] = v;
  }
  const merged = { ...fromEnv, ...Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) };
  const parsed = settingsSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = String(issue?.path[0] ?? '?') as keyof Settings;
    throw new ConfigError(
      settingsEnv[key] ?? key,
      issue?.message ?? 'invalid',
      'see .env.example for the allowed values',
    );
  }
  return Object.freeze(parsed.data);
}

/** Variables read outside `loadSettings`, by the functions below. */
export const processEnv = {
  /** V8 young-generation semi-space size of the command line, in MB. @default 4 */
  semiSpaceMb: 'GF_NODE_SEMI_SPACE_MB',
  /** How far V8's old generation may grow beyond its live size between collections, in percent. @default 50 */
  heapGrowingPercent: 'GF_NODE_HEAP_GROWING_PERCENT',
  /** Another build of the SQLite FTS extension (a packaged build). @default native/build/gf_fts.so */
  ftsExtension: 'GF_FTS_EXTENSION',
  /**
   * `false` runs the bundled Universal Sentence Encoder on TF.js even when the build converted its ONNX graph.
   * @default the ONNX graph when it is there
   */
  useLiteOnnx: 'GF_USE_LITE_ONNX',
} as const;

/** GF_* prefixes of the project's own scripts and tests (GF_TEST_PG_URL, GF_SCHEMA_DIR, …): not node settings. */
const TOOL_ENV_PREFIXES = ['GF_TEST_', 'GF_SCHEMA_', 'GF_BENCH_', 'GF_SHARED_'];

/**
 * The V8 flags the command line sets before anything else loads (bin.ts). Memory over speed, a little: a 4 MB
 * young generation (instead of 16) and an old generation allowed to grow by half its live size between collections
 * (docs/performance.md). GF_NODE_SEMI_SPACE_MB and GF_NODE_HEAP_GROWING_PERCENT override them; a value that is not
 * a positive number keeps the default.
 */
export function nodeFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  return [
    `--max-semi-space-size=${Number(env[processEnv.semiSpaceMb]) || 4}`,
    `--heap-growing-percent=${Number(env[processEnv.heapGrowingPercent]) || 50}`,
  ];
}

/** GF_FTS_EXTENSION: the file of the SQLite FTS extension, when another build is wanted; undefined = the built one. */
export function ftsExtensionFile(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env[processEnv.ftsExtension] || undefined;
}

/**
 * GF_LOG_LEVEL for a logger made without loaded settings; undefined when unset.
 * @throws ConfigError naming GF_LOG_LEVEL when it is not a pino level
 */
export function envLogLevel(env: NodeJS.ProcessEnv = process.env): Settings['logLevel'] | undefined {
  const value = env[settingsEnv.logLevel];
  if (value === undefined || value === '') return undefined;
  const parsed = settingsSchema.shape.logLevel.safeParse(value);
  if (!parsed.success) {
    throw new ConfigError(
      settingsEnv.logLevel,
      `"${value}" is not a log level`,
      'use fatal, error, warn, info, debug, trace or silent',
    );
  }
  return parsed.data;
}

/** The data root when no flag names one: GF_DATA_STORE, else the setting's default (`./data`). */
export function envDataStore(env: NodeJS.ProcessEnv = process.env): string {
  return env[settingsEnv.dataStore] || settingsSchema.shape.dataStore.parse(undefined);
}

/**
 * GF_* variables in `env` that no setting reads: most likely a typo (GF_TIMEOUT for GF_TIMEOUT_MS). The prefixes
 * of the project's scripts and tests (GF_TEST_*, GF_SCHEMA_*, GF_BENCH_*, GF_SHARED_*) are not listed.
 */
export function unknownEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const known = new Set<string>([...Object.values(settingsEnv), ...Object.values(processEnv)]);
  return Object.keys(env)
    .filter((name) => name.startsWith('GF_') && !known.has(name))
    .filter((name) => !TOOL_ENV_PREFIXES.some((prefix) => name.startsWith(prefix)))
    .sort();
}

/** A name in one of the component registries (acceptors, fetchers, content extractors, content dedup). */
const componentName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'use a name of lower-case letters, digits, dots and dashes');

/** A regular expression a setting holds: it must compile. */
const pattern = z.string().refine((p) => patternProblem(p) === undefined, {
  message: 'not a regular expression the linear-time engine (RE2 syntax: no look-around, no back-references) runs',
});

/**
 * A metadata filter (seed 002): judged on a document's headers, from the HEAD pass when it is on, else from the
 * GET's, before its body is read. `exclude` (the default): a document it matches is REJECTED_FILTER:metadata;
 * `include`: when any include filter is given, a document must match one of them. A filter matches when the header
 * is present and every condition given holds.
 */
export const metadataFilterSchema = z.strictObject({
  /** The header's name, any case: `content-type`, `content-length`, `last-modified`, or any other. */
  header: z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'a header name'),
  /** A regular expression (case-insensitive) the header's value matches. */
  match: pattern.optional(),
  /** The header's value as a number is at least this (content-length in bytes). */
  min: z.number().optional(),
  /** The header's value as a number is at most this. */
  max: z.number().optional(),
  /** The header's value as a date (last-modified) is before this date (ISO, `2024-01-31`). */
  before: z.iso.date().or(z.iso.datetime()).optional(),
  /** The header's value as a date is after this date. */
  after: z.iso.date().or(z.iso.datetime()).optional(),
  onMatch: z.enum(['exclude', 'include']).default('exclude'),
});
export type MetadataFilter = z.infer<typeof metadataFilterSchema>;

/**
 * A document filter (seed 002): judged on what a document holds once it is read — its text, title, url or type.
 * `exclude`: a document whose field matches is REJECTED_FILTER:document; `include`: when any include filter is
 * given, a document must match one.
 */
export const documentFilterSchema = z.strictObject({
  field: z.enum(['text', 'title', 'url', 'contentType']).default('text'),
  /** A regular expression (case-insensitive, RE2 syntax: run in linear time, no look-around). */
  match: pattern,
  onMatch: z.enum(['exclude', 'include']).default('exclude'),
});
export type DocumentFilter = z.infer<typeof documentFilterSchema>;

/** How often a page may be fetched again: a sitemap `changefreq` word, or a number with ms, s, m, h, d or w. */
export const RECRAWL_EVERY = /^(?:always|hourly|daily|weekly|monthly|yearly|never|\d+(?:ms|s|m|h|d|w))$/;

/**
 * A minimum recrawl frequency (seed 002, the recrawlable resolver): on an incremental run (`merge`), a page held
 * whose url (or content type) matches is not fetched again until `every` has passed since it was fetched; before
 * that it is REJECTED_PREMATURE. The first rule that matches decides.
 */
export const recrawlFrequencySchema = z.strictObject({
  field: z.enum(['url', 'contentType']).default('url'),
  /** A regular expression (case-insensitive, RE2 syntax: run in linear time, no look-around). */
  match: pattern,
  every: z.string().regex(RECRAWL_EVERY, 'always, hourly, daily, weekly, monthly, yearly, never, or e.g. 12h, 7d'),
});
export type RecrawlFrequency = z.infer<typeof recrawlFrequencySchema>;

/** The catalog setting `orphans`: what a session that reaches its end does with the pages it did not reach. */
export const ORPHAN_STRATEGIES = ['ignore', 'delete', 'process'] as const;
export type OrphanStrategy = (typeof ORPHAN_STRATEGIES)[number];

/** The categories a catalog can be filed under (`catalog cats`, `GET /v2/catalog/cats`). */
export const CATALOG_CATS = [
  'news',
  'tech',
  'business',
  'food',
  'travel',
  'health',
  'education',
  'entertainment',
  'other',
] as const;

/**
 * The rules for crawling one site, defined once: the type (`CatalogSettings`), the defaults
 * (`defaultCatalogSettings`) and the validation (`resolveCatalogSettings`) all come from this schema. Stored as
 * JSON on the catalog row and in each version's settings.json; a stored catalog written before a field existed
 * gets the field's default when it is resolved again.
 */
export const catalogSettingsSchema = z.strictObject({
  /** The category the catalog is filed under. @default other */
  cat: z.enum(CATALOG_CATS).default('other'),
  /** Link depth from the start url; -1 = unlimited. @default -1 */
  depth: z.number().int().min(-1).default(-1),
  /**
   * More start references besides the start url, seeded with it at depth 0 when a run begins on an empty frontier;
   * each must sit under the catalog's url (JobService.addSeeds checks and normalises them). @default []
   */
  seedUrls: z.array(z.string().min(1)).default(() => []),
  /** Saved pages after which the crawl ends normally (and publishes). @default 10000 */
  maxPages: z.number().int().min(1).default(10000),
  /** Minutes after which the crawl ends normally (and publishes). @default 30 */
  durationMinutes: z.number().min(0.01).default(30),
  /** Minimum milliseconds between two request starts to one host. @default 100 */
  intervalMs: z.number().int().min(0).default(100),
  /** Pages in flight at once across all hosts. @default 16 */
  threads: z.number().int().min(1).max(512).default(16),
  /** Requests in flight at once to one host. @default 2 */
  hostConcurrency: z.number().int().min(1).max(256).default(2),
  /** Path patterns (globs, `*` and `**`) a url must match when any are given. @default [] */
  include: z.array(z.string().min(1)).default(() => []),
  /** Path patterns (globs) that refuse a url. @default [] */
  exclude: z.array(z.string().min(1)).default(() => []),
  /** Output layers; `file` is always on (and first). @default ['file','index','vector'] */
  outputs: z
    .array(z.enum(['file', 'index', 'vector']))
    .min(1)
    .default((): OutputLayer[] => ['file', 'index', 'vector']),
  /** Keep pictures the pages reference. @default true */
  images: z.boolean().default(true),
  /** Versions kept; the oldest unpublished-and-not-serving go first. @default 10 */
  maxVersions: z.number().int().min(1).default(10),
  /**
   * A rebuild, merge or resume publishes only when its version holds at least this share of the pages of the
   * version serving now; otherwise the served version keeps serving (`--force-publish` overrides). 0 = always.
   * @default 0.5
   */
  minPublishRatio: z.number().min(0).max(1).default(0.5),
  /**
   * What a session that reaches its end does with its orphans — pages the version holds from an earlier session
   * that this session did not reach (services/orphans.ts, docs/verbs.md#orphans): `ignore` leaves them, `delete`
   * removes them from every layer (vector → index → file → db), `process` fetches them again as revisits. Any case
   * is accepted (`DELETE`). @default 'ignore'
   */
  orphans: z
    .preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), z.enum(ORPHAN_STRATEGIES))
    .default('ignore'),
  /** Retries after a retryable fetch failure. @default 1 */
  maxRetries: z.number().int().min(0).max(10).default(1),
  /** Obey robots.txt. @default true */
  robots: z.boolean().default(true),
  /** Read the sitemap named by robots.txt or at /sitemap.xml. @default true */
  sitemap: z.boolean().default(true),
  /** Consecutive failures after which the crawl ends unpublished. @default 20 */
  maxConsecutiveFailures: z.number().int().min(1).default(20),
  /**
   * Trap budget: duplicate (or near-duplicate) pages of one host in a row after which the url shapes of those pages
   * are refused on that host as REJECTED_TRAP:duplicates-in-a-row (docs/reliability.md). @default 20
   */
  trapDuplicates: z.number().int().min(1).default(20),
  /**
   * Trap budget: urls dispatched at most per path pattern with repeating segments (`/a/b/a/b/…`) and per numeric
   * sequence of urls each found on the one before (`?month=2025-01` → `?month=2025-02`, `?page=N`); past it
   * REJECTED_TRAP:repeating-segments / growing-query / growing-path (docs/reliability.md). @default 100
   */
  trapPatternUrls: z.number().int().min(1).default(100),
  /**
   * Session-id parameter names of this site, dropped from its urls besides the built-in list (`sid`, `PHPSESSID`,
   * `jsessionid`, `ASPSESSIONID…`, `zenid`, `osCsid`, …; docs/reliability.md). @default []
   */
  sessionParams: z.array(z.string().regex(/^[^\s&=;/?#]+$/, 'a parameter name')).default(() => []),
  /**
   * The optional acceptors to run, by name in the acceptor registry (`robots-txt`, `path-patterns`, … or a
   * registered one); the mandatory ones (`domain-scope`, `start-url-prefix`) always run. Empty = all six built-in
   * acceptors. @default []
   */
  acceptors: z.array(componentName).default(() => []),
  /** The fetcher, by name in the fetcher registry. @default 'http' */
  fetcher: componentName.default('http'),
  /**
   * How pages are fetched, by name in the extractor registry: `adaptive` (over http, rendered in Chromium only when
   * the RenderingDetector sees a shell; a site that needs none never starts a browser), `http` (the fetcher alone)
   * or `browser` (every html page rendered in Chromium). @default 'adaptive'
   */
  extractor: componentName.default('adaptive'),
  /** Hosts (host:port) besides the page's own a rendered page may request; everything else is refused. @default [] */
  renderHosts: z.array(z.string().regex(/^[^\s/?#]+$/, 'a host or host:port')).default(() => []),
  /** The content extractor, by name in the content-extractor registry: `html` or `readability`. @default 'html' */
  contentExtractor: componentName.default('html'),
  /**
   * The content dedup, by name in the content-dedup registry: `sha256`, `simhash` or a registered one;
   * empty = the node setting GF_CONTENT_DEDUP. @default ''
   */
  contentDedup: z.union([z.literal(''), componentName]).default(''),
  /**
   * Read PDF, Word (.docx), plain text, Markdown and CSV documents into resources, searchable like pages (the node
   * setting GF_DOCUMENTS=false turns them off everywhere). Off: they are REJECTED_NOT_MARKUP. @default true
   */
  documents: z.boolean().default(true),
  /**
   * The metadata pass: a HEAD request before each GET, so metadata filters, the canonical Link header and the
   * metadata checksum can refuse a document before its body is fetched. @default false
   */
  headPass: z.boolean().default(false),
  /** Filters on a document's headers (see MetadataFilter). @default [] */
  metadataFilters: z.array(metadataFilterSchema).default(() => []),
  /** Filters on a document's text, title, url or type once it is read (see DocumentFilter). @default [] */
  documentFilters: z.array(documentFilterSchema).default(() => []),
  /**
   * Honour canonical urls (`<link rel=canonical>`, `Link: rel=canonical`): a copy naming another url of the catalog
   * is REJECTED_NONCANONICAL and the canonical url is queued instead. @default true
   */
  canonical: z.boolean().default(true),
  /** On an incremental run (`merge`), skip pages whose sitemap `lastmod`/`changefreq` says they are not due. @default true */
  recrawlSitemap: z.boolean().default(true),
  /** Minimum recrawl frequencies of an incremental run (see RecrawlFrequency). @default [] */
  recrawlFrequencies: z.array(recrawlFrequencySchema).default(() => []),
  /** Queue the links found inside documents (a PDF's link annotations, a Word file's hyperlinks). @default true */
  postImportLinks: z.boolean().default(true),
});

/** The rules for crawling one site (every field present: defaults applied). */
export type CatalogSettings = z.infer<typeof catalogSettingsSchema>;

/** Every catalog setting at its default. */
export const defaultCatalogSettings: Readonly<CatalogSettings> = Object.freeze(catalogSettingsSchema.parse({}));

/** The command-line flag of each catalog setting whose flag is not its name in kebab case. */
const CATALOG_FLAGS: Partial<Record<keyof CatalogSettings, string>> = {
  durationMinutes: '--duration',
  intervalMs: '--interval',
};

function catalogFlag(key: string): string {
  return CATALOG_FLAGS[key as keyof CatalogSettings] ?? `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/**
 * Fill a partial (a stored catalog's settings, or only the flags given) with the defaults and validate; `file` is
 * always on and always first. Absent and `undefined` fields take their default.
 * @throws ConfigError naming the command-line flag (`--max-pages`) and what is wrong
 */
export function resolveCatalogSettings(partial: Partial<CatalogSettings> = {}): CatalogSettings {
  const given = Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined));
  const parsed = catalogSettingsSchema.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue?.code === 'unrecognized_keys') {
      throw new ConfigError(
        issue.keys.map(catalogFlag).join(', '),
        'not a catalog setting',
        `use the settings of \`greenfinger help crawl\``,
      );
    }
    throw new ConfigError(catalogFlag(String(issue?.path[0] ?? '?')), issue?.message ?? 'invalid');
  }
  const layers = new Set(parsed.data.outputs);
  layers.add('file');
  const outputs = (['file', 'index', 'vector'] as const).filter((l) => layers.has(l));
  return { ...parsed.data, outputs };
}
