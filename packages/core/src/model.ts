/**
 * The data model of the design's "Data model and ids": catalog → resource → image.
 * Every child row carries catalogId and version. The database holds no page bodies.
 */

import type { CatalogSettings } from './settings/catalog-settings.js';

export type { OutputLayer } from './settings/catalog-settings.js';
export type ContentDedupKind = 'sha256' | 'simhash';
export type CrawlAction = 'crawl' | 'update' | 'merge' | 'rebuild' | 'resume' | 'replay' | 'delete';
export type RunningState = 'none' | CrawlAction;

/**
 * The rules for crawling one site. Stored as JSON on the catalog row and in settings.json. Defined once, as the zod
 * schema `catalogSettingsSchema` in settings/catalog-settings.ts (with each field's doc and default); this is its type.
 */
export type { CatalogSettings } from './settings/catalog-settings.js';

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

/** How a command names a catalog: exactly one of id, name or url. */
export interface CatalogRef {
  id?: string | undefined;
  name?: string | undefined;
  url?: string | undefined;
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
  /**
   * The HTTP answer the page was saved from: status line and headers as they arrived (a WARC export writes them
   * back as the real exchange). Absent on pages saved before it was kept (migration 0005) and on `file:` sources.
   */
  response?: StoredResponse | null | undefined;
}

/** A response's status line and headers, kept with its page (crawler_resource.response, JSON). */
export interface StoredResponse {
  /** `HTTP/1.1` (the client speaks HTTP/1.1 to every server). */
  protocol: string;
  status: number;
  /** The reason phrase, e.g. `OK` (the standard one for the status: the client does not hand over the server's). */
  reason: string;
  /** Header names lower case, in the order they arrived; a repeated header (Set-Cookie) is one pair per value. */
  headers: Array<[string, string]>;
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

/**
 * Why a run that ended normally kept its version unpublished: the site did not answer, its robots.txt could not be
 * read, it answered only errors, nothing was saved, the version holds far fewer pages than the one serving
 * (`minPublishRatio`, overridden by `--force-publish`), or a store could not be written.
 */
export interface PublishWithheld {
  cause: 'site-unreachable' | 'robots-unreadable' | 'site-failing' | 'nothing-saved' | 'too-few-pages' | 'store-failed';
  /** One line saying what happened and what to do. */
  line: string;
  /** With too-few-pages: the pages of this version, and of the version that keeps serving. */
  pages?: number;
  servedVersion?: number;
  servedPages?: number;
  minPublishRatio?: number;
}

/** What a run did with its orphans and with the held pages it found gone (RunReport.orphans). */
export interface OrphanReport {
  /** The catalog's `orphans` setting. */
  strategy: 'ignore' | 'delete' | 'process';
  /** Pages held from an earlier session that this session did not reach (0 when the step did not run). */
  found: number;
  /** Orphans removed from every layer (`delete`). */
  deleted: number;
  /** Orphans queued again and fetched as revisits (`process`). */
  processed: number;
  /** Held pages that answered 404 or 410 when revisited, removed from every layer (any strategy). */
  gone: number;
  /** Urls refused as duplicates of a page this run removed, fetched again (the page moved). Absent when none. */
  refetched?: number;
  /** Why the orphans were left alone: the run stopped early, the site did not answer, too many to delete, … */
  skipped?: string;
}

/** An output layer that holds fewer pages than the run saved. */
export interface LayerGap {
  layer: 'index' | 'vector';
  saved: number;
  held: number;
  why: string;
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
  /**
   * The pictures the pages showed (they are not urls of the frontier, so not in `urls`): `kept` equals
   * `produced.images`; `rejected` counts the ones fetched and not kept by outcome (`REJECTED_BAD_IMAGE:truncated`,
   * `REJECTED_BAD_IMAGE:not-an-image`, `REJECTED_TOO_LARGE`, …), `examples` the first of each and why.
   * Absent from reports written before it existed.
   */
  pictures?: { kept: number; rejected: Record<string, number>; examples: Record<string, string> };
  /** Pages whose bytes were not valid in their charset, decoded as windows-1252 (or utf-8) instead. */
  content?: { charsetFallbacks: number };
  /**
   * Pages the browser rendered (the `browser` and `adaptive` extractors): how many, and for which reason — the
   * RenderingDetector's `empty-mount`, `noscript`, `mostly-scripts`, `always` (the `browser` extractor), or
   * `remembered` (the render memory's word). `memory`: what the adaptive extractor's render memory did this run
   * (`detected` pages put to the detector, `toBrowser` rendered on the memory's word, `overHttp` kept on http on
   * its word, `rechecked` remembered pages checked again, `staticAfterAll` renders that found nothing more). Absent
   * when nothing was rendered and the memory did nothing (the `http` extractor).
   */
  rendered?: {
    pages: number;
    reasons: Record<string, number>;
    memory?: { detected: number; toBrowser: number; overHttp: number; rechecked: number; staticAfterAll: number };
  };
  /**
   * What the crawl flow noticed besides the outcomes (seed 002): `documents:<parser>` documents saved by each parser,
   * `canonical-outside` pages naming a canonical url outside the catalog (kept, the canonical recorded and not
   * followed), `sitemap-hosts` hosts whose sitemaps were read, `site-markdown:<kept|status-N|not-markdown|empty|
   * other-host|robots-txt|failed>` pages naming their own Markdown and what became of it, with the first example of
   * each. Absent when nothing.
   */
  flow?: { noted: Record<string, number>; examples: Record<string, string> };
  outputs: Record<string, { written: number; failed: number; lastError?: string }>;
  /**
   * Orphans — pages the version held from an earlier session that this session did not reach — and held pages that
   * answered 404/410 when revisited (docs/verbs.md#orphans). Absent when there was nothing to tell.
   */
  orphans?: OrphanReport;
  /**
   * What the run changed, when it published (docs/freshness.md): how many urls it added, changed and removed; the
   * urls and diffs are in the catalog's change log (`greenfinger changes`).
   */
  changes?: { added: number; changed: number; removed: number };
  /**
   * What a merge's change feeds said (docs/freshness.md#change-feeds): urls named changed and deleted, pushes read,
   * whether the feed is the default sitemap one, and each feed read (changes, requests, a bound reached, an error).
   * Absent when no feed applied.
   */
  changeFeeds?: {
    changed: number;
    deleted: number;
    pushes: number;
    byDefault?: boolean | undefined;
    feeds: Array<{ feed: string; changes: number; requests: number; truncated?: boolean; error?: string }>;
  };
  /**
   * The embedding of this run: the model, chunks embedded and their cost; with words published before the vectors
   * (GF_SEARCH_EARLY), how far the version's vectors got: its pages, those with a vector, those with all of theirs.
   */
  embedding?: {
    provider: string;
    model: string;
    dims: number;
    chunks: number;
    msPerPage: number;
    pages?: number;
    embedded?: number;
    complete?: number;
  };
  /**
   * When the version became searchable, in ms from the run's start: by words, by meaning for every page (from its
   * own vectors), and complete (every vector written, published). null = not reached by this run.
   */
  searchable?: { wordsAfterMs: number | null; meaningAfterMs: number | null; completeAfterMs: number | null };
  /** Wall milliseconds per pipeline stage, summed over the pages handled concurrently (fetch, extract, …). */
  stages?: Record<string, number>;
  ending: {
    reason: string;
    fullyCrawled: boolean;
    published: boolean;
    note?: string;
    /** Why a run that ended normally did not publish (docs/reliability.md, "Publishing"). */
    withheld?: PublishWithheld;
    /** Output layers holding fewer pages of this version than were saved, and why. */
    gaps?: LayerGap[];
  };
  /** Where this report was written. */
  path?: string;
}
