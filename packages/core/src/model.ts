/**
 * The data model of the design's "Data model and ids": catalog → resource → image.
 * Every child row carries catalogId and version. The database holds no page bodies.
 */

export type OutputLayer = 'file' | 'index' | 'vector';
export type ContentDedupKind = 'sha256' | 'simhash';
export type CrawlAction = 'crawl' | 'update' | 'merge' | 'rebuild' | 'resume' | 'replay' | 'delete';
export type RunningState = 'none' | CrawlAction;

/** The rules for crawling one site. Stored as JSON on the catalog row and in settings.json. */
export interface CatalogSettings {
  /** Link depth from the start url; -1 = unlimited. @default -1 */
  depth: number;
  /** Saved pages after which the crawl ends normally (and publishes). @default 10000 */
  maxPages: number;
  /** Minutes after which the crawl ends normally (and publishes). @default 30 */
  durationMinutes: number;
  /** Minimum milliseconds between two request starts to one host. @default 100 */
  intervalMs: number;
  /** Pages in flight at once across all hosts. @default 16 */
  threads: number;
  /** Requests in flight at once to one host. @default 2 */
  hostConcurrency: number;
  /** Path patterns (globs, `*` and `**`) a url must match when any are given. */
  include: string[];
  /** Path patterns (globs) that refuse a url. */
  exclude: string[];
  /** Output layers; `file` is always on. @default ['file','index','vector'] */
  outputs: OutputLayer[];
  /** Keep pictures the pages reference. @default true */
  images: boolean;
  /** Versions kept; the oldest unpublished-and-not-serving go first. @default 10 */
  maxVersions: number;
  /** Retries after a retryable fetch failure. @default 1 */
  maxRetries: number;
  /** Obey robots.txt. @default true */
  robots: boolean;
  /** Read the sitemap named by robots.txt or at /sitemap.xml. @default true */
  sitemap: boolean;
  /** Consecutive failures after which the crawl ends unpublished. @default 20 */
  maxConsecutiveFailures: number;
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
  runningState: RunningState;
  createdAt: string;
  updatedAt: string;
}

export interface ResourceRow {
  id: string;
  catalogId: string;
  version: number;
  url: string;
  urlHash: string;
  title: string;
  contentType: string;
  charset: string;
  status: number;
  depth: number;
  contentHash: string;
  etag: string | null;
  lastModified: string | null;
  htmlPath: string;
  textPath: string;
  htmlBytes: number;
  textChars: number;
  linkDensity: number;
  fetchedAt: string;
}

export interface ImageRow {
  id: string;
  catalogId: string;
  version: number;
  url: string;
  contentHash: string;
  contentType: string;
  path: string;
  bytes: number;
  width: number | null;
  height: number | null;
  createdAt: string;
}

export interface ResourceImageRow {
  id: string;
  catalogId: string;
  version: number;
  resourceId: string;
  imageId: string;
  alt: string;
  surroundingText: string;
}

export interface ReportRow {
  catalogId: string;
  version: number;
  action: CrawlAction;
  published: boolean;
  /** The run report, as JSON. */
  report: RunReport;
  createdAt: string;
}

/** The run report, shaped like Greenfinger's. */
export interface RunReport {
  node: string;
  catalogId: string;
  catalog: string;
  url: string;
  startUrl: string;
  version: number;
  action: CrawlAction;
  refresh: boolean;
  startedAt: string;
  endedAt: string;
  elapsedMs: number;
  produced: { saved: number; images: number; indexed: number; vectored: number };
  urls: {
    dispatched: number;
    handled: number;
    outstanding: number;
    alreadySeen: number;
    filtered: number;
    unreachable: number;
    duplicateContent: number;
    failures: number;
    abandoned: number;
    unmodified: number;
    redirected: number;
  };
  /** `filtered` broken down by acceptor, and every other drop by its REJECTED_* name. */
  rejected: Record<string, number>;
  /** The first url of each rejected key and why. */
  examples: Record<string, string>;
  outputs: Record<string, { written: number; failed: number; lastError?: string }>;
  embedding?: { provider: string; model: string; dims: number; chunks: number; msPerPage: number };
  /** Wall milliseconds per pipeline stage, summed over the pages handled concurrently (fetch, extract, …). */
  stages?: Record<string, number>;
  ending: { reason: string; fullyCrawled: boolean; published: boolean; note?: string };
  /** Where this report was written. */
  path?: string;
}
