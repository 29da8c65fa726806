import { ConfigError } from '../errors.js';
import { type Settings, settingsSchema } from './node-settings.js';

/*
 * The one place that reads the environment. Node settings come from `loadSettings`; the few values needed before
 * settings can be loaded (V8 flags at process start, the log level of a logger made without settings, the FTS
 * extension file read when its module loads, the data root of the CLI's log file) come from the small functions
 * below, each taking `env` so a test can pass its own.
 */

/** Environment variable of every setting. */
export const settingsEnv: Record<keyof Settings, string> = {
  dataStore: 'GF_DATA_STORE',
  databaseUrl: 'DATABASE_URL',
  redisUrl: 'GF_REDIS_URL',
  node: 'GF_NODE',
  indexPrefix: 'GF_INDEX_PREFIX',
  indexProvider: 'GF_INDEX_PROVIDER',
  esUrl: 'GF_ES_URL',
  esUsername: 'GF_ES_USERNAME',
  esPassword: 'GF_ES_PASSWORD',
  esApiKey: 'GF_ES_API_KEY',
  esCaFile: 'GF_ES_CA_FILE',
  esTlsSkipVerify: 'GF_ES_TLS_SKIP_VERIFY',
  vectorCollection: 'GF_VECTOR_COLLECTION',
  championMinDf: 'GF_INDEX_CHAMPION_MIN_DF',
  championSize: 'GF_INDEX_CHAMPION_SIZE',
  pairsMinDocs: 'GF_INDEX_PAIRS_MIN_DOCS',
  annMinPoints: 'GF_VECTOR_ANN_MIN',
  vectorStore: 'GF_VECTOR_STORE',
  qdrantUrl: 'GF_QDRANT_URL',
  qdrantApiKey: 'GF_QDRANT_API_KEY',
  fileTarget: 'GF_FILE_TARGET',
  s3Endpoint: 'GF_S3_ENDPOINT',
  s3Bucket: 'GF_S3_BUCKET',
  s3Region: 'GF_S3_REGION',
  s3AccessKeyId: 'GF_S3_ACCESS_KEY_ID',
  s3SecretAccessKey: 'GF_S3_SECRET_ACCESS_KEY',
  s3ForcePathStyle: 'GF_S3_FORCE_PATH_STYLE',
  s3Prefix: 'GF_S3_PREFIX',
  embeddingProvider: 'GF_EMBEDDING_PROVIDER',
  embeddingUrl: 'GF_EMBEDDING_URL',
  embeddingModel: 'GF_EMBEDDING_MODEL',
  embeddingApiKey: 'GF_EMBEDDING_API_KEY',
  embeddingBatch: 'GF_EMBEDDING_BATCH',
  embeddingTimeoutMs: 'GF_EMBEDDING_TIMEOUT_MS',
  embeddingRetries: 'GF_EMBEDDING_RETRIES',
  preloadTextModel: 'GF_PRELOAD_TEXT_MODEL',
  modelDir: 'GF_MODEL_DIR',
  textModel: 'GF_TEXT_MODEL',
  imageModel: 'GF_IMAGE_MODEL',
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
  dnsTtlMinMs: 'GF_DNS_TTL_MIN_MS',
  dnsTtlMaxMs: 'GF_DNS_TTL_MAX_MS',
  dnsNegativeTtlMs: 'GF_DNS_NEGATIVE_TTL_MS',
  dnsCacheSize: 'GF_DNS_CACHE_SIZE',
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
  webhookSecret: 'GF_WEBHOOK_SECRET',
  webhookAllowPrivate: 'GF_WEBHOOK_ALLOW_PRIVATE',
};

/** Settings as they may be shown or written: the database password and the token key masked. */
export function maskedSettings(settings: Readonly<Settings>): Record<string, unknown> {
  const { tokenSecret, webhookSecret, embeddingApiKey, ...rest } = settings;
  return {
    ...rest,
    databaseUrl: settings.databaseUrl.replace(/(\/\/[^:/@]*):[^@/]*@/, '$1:***@'),
    redisUrl: settings.redisUrl.replace(/(\/\/[^:/@]*):[^@/]*@/, '$1:***@'),
    tokenSecret: tokenSecret ? '***' : '',
    esPassword: settings.esPassword ? '***' : undefined,
    esApiKey: settings.esApiKey ? '***' : undefined,
    qdrantApiKey: settings.qdrantApiKey ? '***' : '',
    s3SecretAccessKey: settings.s3SecretAccessKey ? '***' : '',
    webhookSecret: webhookSecret ? '***' : '',
    embeddingApiKey: embeddingApiKey ? '***' : '',
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
  /**
   * Whose per-host budget a catalog's is in the cluster runs a leader starts: `member` (each member its own) or
   * `cluster` (one shared by every member); `node --politeness` wins. Read by the cluster package. @default member
   */
  clusterPoliteness: 'GF_CLUSTER_POLITENESS',
} as const;

/** GF_* prefixes of the project's own scripts and tests (GF_TEST_PG_URL, GF_SCHEMA_DIR, …): not node settings. */
export const TOOL_ENV_PREFIXES: readonly string[] = ['GF_TEST_', 'GF_SCHEMA_', 'GF_BENCH_', 'GF_SHARED_'];

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

/**
 * GF_WEBHOOK_ALLOW_PRIVATE as a catalog setting's validation reads it (before settings are loaded): a webhook url
 * whose host is a private address is refused at setting time unless it is true.
 */
export function envWebhookAllowPrivate(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env[settingsEnv.webhookAllowPrivate];
  return value === 'true' || value === '1';
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
