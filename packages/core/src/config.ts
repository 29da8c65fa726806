import { hostname } from 'node:os';
import { z } from 'zod';
import { ConfigError } from './errors.js';
import type { CatalogSettings } from './model.js';

/**
 * Every node setting with its environment variable and default. `.env.example` lists the same table.
 * Resolution order: flags > env > defaults. Unknown GF_* variables are reported, not ignored silently.
 */
export const settingsSchema = z.strictObject({
  /** GF_DATA_STORE: data root holding system/ and user/. @default ./data */
  dataStore: z.string().min(1).default('./data'),
  /** DATABASE_URL: empty = SQLite at data/system/greenfinger.db; postgres://… = PostgreSQL. */
  databaseUrl: z.string().default(''),
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
  /** GF_CONTENT_DEDUP: sha256 | simhash. @default sha256 */
  contentDedup: z.enum(['sha256', 'simhash']).default('sha256'),
  /** GF_SIMHASH_DISTANCE: max Hamming distance counted as duplicate. @default 3 */
  simhashDistance: z.coerce.number().int().min(0).max(3).default(3),
  /** GF_USER_AGENT */
  userAgent: z.string().default('Greenfinger/0.1 (+https://github.com/greenfinger)'),
  /** GF_TIMEOUT_MS: connect+headers+body timeout per request. @default 15000 */
  timeoutMs: z.coerce.number().int().min(100).default(15000),
  /** GF_MAX_BODY_BYTES: body size cap for pages. @default 10485760 */
  maxBodyBytes: z.coerce
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024),
  /** GF_MAX_REDIRECTS @default 10 */
  maxRedirects: z.coerce.number().int().min(0).max(50).default(10),
  /** GF_IMAGE_MIN_SIZE: pictures smaller than this (px, both sides, when known) or bytes/10 are skipped. @default 100 */
  imageMinSize: z.coerce.number().int().min(0).default(100),
  /** GF_IMAGE_MAX_BYTES @default 10485760 */
  imageMaxBytes: z.coerce
    .number()
    .int()
    .min(1)
    .default(10 * 1024 * 1024),
  /** GF_IMAGES_PER_PAGE @default 50 */
  imagesPerPage: z.coerce.number().int().min(0).default(50),
  /** GF_LOG_LEVEL @default info */
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** GF_WORKERS: extraction worker threads; 0 = extract on the main thread. @default cores − 1, at least 1 */
  workers: z.coerce.number().int().min(0).max(64).optional(),
});

export type Settings = z.infer<typeof settingsSchema>;

/** Environment variable of every setting. */
export const settingsEnv: Record<keyof Settings, string> = {
  dataStore: 'GF_DATA_STORE',
  databaseUrl: 'DATABASE_URL',
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
  contentDedup: 'GF_CONTENT_DEDUP',
  simhashDistance: 'GF_SIMHASH_DISTANCE',
  userAgent: 'GF_USER_AGENT',
  timeoutMs: 'GF_TIMEOUT_MS',
  maxBodyBytes: 'GF_MAX_BODY_BYTES',
  maxRedirects: 'GF_MAX_REDIRECTS',
  imageMinSize: 'GF_IMAGE_MIN_SIZE',
  imageMaxBytes: 'GF_IMAGE_MAX_BYTES',
  imagesPerPage: 'GF_IMAGES_PER_PAGE',
  logLevel: 'GF_LOG_LEVEL',
  workers: 'GF_WORKERS',
};

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

export const defaultCatalogSettings: Readonly<CatalogSettings> = Object.freeze<CatalogSettings>({
  depth: -1,
  maxPages: 10000,
  durationMinutes: 30,
  intervalMs: 100,
  threads: 16,
  hostConcurrency: 2,
  include: [],
  exclude: [],
  outputs: ['file', 'index', 'vector'],
  images: true,
  maxVersions: 10,
  maxRetries: 1,
  robots: true,
  sitemap: true,
  maxConsecutiveFailures: 20,
});

export const catalogSettingsSchema = z.strictObject({
  depth: z.number().int().min(-1),
  maxPages: z.number().int().min(1),
  durationMinutes: z.number().min(0.01),
  intervalMs: z.number().int().min(0),
  threads: z.number().int().min(1).max(512),
  hostConcurrency: z.number().int().min(1).max(256),
  include: z.array(z.string().min(1)),
  exclude: z.array(z.string().min(1)),
  outputs: z.array(z.enum(['file', 'index', 'vector'])).min(1),
  images: z.boolean(),
  maxVersions: z.number().int().min(1),
  maxRetries: z.number().int().min(0).max(10),
  robots: z.boolean(),
  sitemap: z.boolean(),
  maxConsecutiveFailures: z.number().int().min(1),
});

/** Merge a partial over defaults and validate; `file` is always on and always first. */
export function resolveCatalogSettings(partial: Partial<CatalogSettings> = {}): CatalogSettings {
  const merged = {
    ...defaultCatalogSettings,
    ...Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined)),
  };
  const parsed = catalogSettingsSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(
      `--${String(issue?.path[0] ?? '?').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
      issue?.message ?? 'invalid',
    );
  }
  const layers = new Set(parsed.data.outputs);
  layers.add('file');
  const outputs = (['file', 'index', 'vector'] as const).filter((l) => layers.has(l));
  return { ...parsed.data, outputs };
}
