import { hostname } from 'node:os';
import { z } from 'zod';

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
  /**
   * GF_INDEX_PROVIDER: where the full-text index lives: sqlite (FTS5 files under user/index) or elasticsearch (one
   * index per catalog, `{GF_INDEX_PREFIX}-{catalogId}`, on the server at GF_ES_URL, shared by a cluster). @default sqlite
   */
  indexProvider: z.enum(['sqlite', 'elasticsearch']).default('sqlite'),
  /** GF_ES_URL: the Elasticsearch server (`https://host:9200`); used by GF_INDEX_PROVIDER / GF_VECTOR_STORE elasticsearch. */
  esUrl: z.string().url().default('http://127.0.0.1:9200'),
  /** GF_ES_USERNAME / GF_ES_PASSWORD: basic authentication to Elasticsearch; unset = none. */
  esUsername: z.string().min(1).optional(),
  esPassword: z.string().optional(),
  /** GF_ES_API_KEY: an Elasticsearch api key (base64 `id:key`), used instead of user and password. */
  esApiKey: z.string().min(1).optional(),
  /** GF_ES_CA_FILE: PEM file of the authority that signed the server's certificate (a self-signed cluster). */
  esCaFile: z.string().min(1).optional(),
  /** GF_ES_TLS_SKIP_VERIFY: true = accept any certificate from the server (tests only). @default false */
  esTlsSkipVerify: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0'])], { error: 'must be true or false' })
    .default(false)
    .transform((v) => v === true || v === 'true' || v === '1'),
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
  /**
   * GF_VECTOR_STORE: where meaning-search vectors live: sqlite (sqlite-vec files under user/vector) or qdrant (a
   * Qdrant server at GF_QDRANT_URL, shared by every member of a cluster) or elasticsearch (`dense_vector` indices on
   * GF_ES_URL, shared too). @default sqlite
   */
  vectorStore: z.enum(['sqlite', 'qdrant', 'elasticsearch']).default('sqlite'),
  /** GF_QDRANT_URL: the Qdrant server's REST url, port included (`http://127.0.0.1:6333`); needed with qdrant. */
  qdrantUrl: z.string().url().optional(),
  /** GF_QDRANT_API_KEY: sent as `api-key` to Qdrant, when set. */
  qdrantApiKey: z.string().min(1).optional(),
  /**
   * GF_FILE_TARGET: where the file layer (pages, text, pictures, reports) lives: local (user/ on this disk) or s3 (an
   * S3-compatible bucket: MinIO, AWS S3, R2…, keys identical to the paths under user/). @default local
   */
  fileTarget: z.enum(['local', 's3']).default('local'),
  /** GF_S3_ENDPOINT: the S3-compatible server (`http://127.0.0.1:9000` for MinIO); unset = AWS S3 of GF_S3_REGION. */
  s3Endpoint: z.string().url().optional(),
  /** GF_S3_BUCKET: the bucket holding the files; needed with s3. */
  s3Bucket: z.string().min(1).optional(),
  /** GF_S3_REGION @default us-east-1 */
  s3Region: z.string().min(1).default('us-east-1'),
  /** GF_S3_ACCESS_KEY_ID / GF_S3_SECRET_ACCESS_KEY; unset = the AWS SDK's own chain (AWS_* variables, profile). */
  s3AccessKeyId: z.string().min(1).optional(),
  s3SecretAccessKey: z.string().min(1).optional(),
  /** GF_S3_FORCE_PATH_STYLE: true = `endpoint/bucket/key` urls (MinIO and most self-hosted servers). @default false */
  s3ForcePathStyle: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0'])], { error: 'must be true or false' })
    .default(false)
    .transform((v) => v === true || v === 'true' || v === '1'),
  /** GF_S3_PREFIX: object keys begin with it (`greenfinger/user/…`); empty = the bucket's root. */
  s3Prefix: z.string().default(''),
  /**
   * GF_EMBEDDING_PROVIDER: local (the bundled or GF_TEXT_MODEL model, in process), ollama (`POST {url}/api/embed`) or
   * openai (any OpenAI-compatible `POST {url}/embeddings`). @default local
   */
  embeddingProvider: z.enum(['local', 'ollama', 'openai']).default('local'),
  /** GF_EMBEDDING_URL: the base url of ollama (`http://host:11434`) or of an OpenAI-compatible api (`http://host/v1`). */
  embeddingUrl: z.string().url().optional(),
  /** GF_EMBEDDING_MODEL: the model an ollama or OpenAI-compatible endpoint embeds with (its name there). */
  embeddingModel: z.string().min(1).optional(),
  /** GF_EMBEDDING_API_KEY: sent as `Authorization: Bearer …` to the embedding endpoint, when set. */
  embeddingApiKey: z.string().min(1).optional(),
  /** GF_EMBEDDING_BATCH: texts per request to an embedding endpoint. @default 32 */
  embeddingBatch: z.coerce.number().int().min(1).max(2048).default(32),
  /** GF_EMBEDDING_TIMEOUT_MS: one request to an embedding endpoint, retries apart. @default 30000 */
  embeddingTimeoutMs: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /**
   * GF_EMBEDDING_RETRIES: retries of a request an embedding endpoint answered 429 or 5xx (or that timed out), with
   * exponential backoff from 500 ms, or its Retry-After, at most 30 s a wait. @default 4
   */
  embeddingRetries: z.coerce.number().int().min(0).max(10).default(4),
  /**
   * GF_PRELOAD_TEXT_MODEL: true = `serve` loads the local text model (or asks the endpoint its width) right after it
   * starts listening, so the first meaning search does not wait for it. @default false
   */
  preloadTextModel: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0'])], { error: 'must be true or false' })
    .default(false)
    .transform((v) => v === true || v === 'true' || v === '1'),
  /** GF_MODEL_DIR: directory holding ONNX models (transformers.js layout). @default ./models */
  modelDir: z.string().default('./models'),
  /** GF_TEXT_MODEL: model folder name under GF_MODEL_DIR. @default multilingual-e5-small */
  textModel: z.string().default('multilingual-e5-small'),
  /**
   * GF_IMAGE_MODEL: the image model's folder name under GF_MODEL_DIR (CLIP or SigLIP, transformers.js layout), for
   * catalogs whose `contentMode` is `text+image`: it embeds their pictures and a pictures query's text. The default
   * is the first of IMAGE_MODELS (embeddings/transformers-image-embedding-client.ts). @default clip-vit-base-patch32
   */
  imageModel: z.string().min(1).default('clip-vit-base-patch32'),
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
   * GF_DNS_TTL_MIN_MS: the floor of how long the node's DNS cache keeps an answer (pages, pictures, documents and
   * robots.txt share it); an answer without a TTL (the system resolver's) is kept this long. @default 30000
   */
  dnsTtlMinMs: z.coerce.number().int().min(0).max(86_400_000).default(30_000),
  /** GF_DNS_TTL_MAX_MS: the ceiling of how long the DNS cache keeps an answer, whatever its TTL. @default 600000 */
  dnsTtlMaxMs: z.coerce.number().int().min(0).max(86_400_000).default(600_000),
  /**
   * GF_DNS_NEGATIVE_TTL_MS: how long a host name that did not resolve is answered as failed without a new lookup, so
   * its urls end REJECTED_UNREACHABLE after one lookup; 0 = failures are not kept. @default 10000
   */
  dnsNegativeTtlMs: z.coerce.number().int().min(0).max(3_600_000).default(10_000),
  /** GF_DNS_CACHE_SIZE: host names the DNS cache holds at most (least recently used first out). @default 10000 */
  dnsCacheSize: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
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
  /**
   * GF_WEBHOOK_SECRET: the key of the HMAC-SHA256 each webhook POST is signed with (`X-Greenfinger-Signature`,
   * docs/freshness.md#alerts). Unset: webhooks go unsigned (a warning is logged at each delivery).
   */
  webhookSecret: z.string().min(1).optional(),
  /**
   * GF_WEBHOOK_ALLOW_PRIVATE: true = webhooks may go to loopback, link-local and private addresses (a trusted
   * network, tests); otherwise such an address is refused, at setting time and at each send (SSRF). @default false
   */
  webhookAllowPrivate: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0'])], { error: 'must be true or false' })
    .default(false)
    .transform((v) => v === true || v === 'true' || v === '1'),
  /** GF_API_WEB: false = the server answers the REST API only (no search page). @default true */
  apiWeb: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0'])], { error: 'must be true or false' })
    .default(true)
    .transform((v) => v === true || v === 'true' || v === '1'),
});

export type Settings = z.infer<typeof settingsSchema>;
