/** The shapes the page reads from the API (the fields it uses; see /v2/openapi.json for all). */

export interface CatalogSettings {
  cat?: string;
  depth?: number;
  maxPages?: number;
  intervalMs?: number;
  outputs?: string[];
  images?: boolean;
  /** What a crawl that reaches its end does with the pages it no longer reaches. */
  orphans?: 'ignore' | 'delete' | 'process';
  [k: string]: unknown;
}

export interface Catalog {
  id: string;
  name: string;
  url: string;
  startUrl: string;
  settings: CatalogSettings;
  indexVersion: number;
  searchVersion: number;
  runningState: string;
  updatedAt: string;
}

export interface Counters {
  dispatched?: number;
  handled?: number;
  saved?: number;
  indexed?: number;
  vectored?: number;
  images?: number;
  filtered?: number;
  failures?: number;
  unreachable?: number;
  duplicateContent?: number;
  unmodified?: number;
  redirected?: number;
  rejected?: Record<string, number>;
  examples?: Record<string, string>;
  elapsedMs?: number;
  [k: string]: unknown;
}

export interface JobView {
  jobId: string;
  catalog: string;
  catalogId: string;
  version: number;
  action: string;
  state: string;
  counters: Counters | null;
  queued: number;
  pagesPerSecond: number;
  report: RunReport | null;
  error: string | null;
  startedAt: string;
  endedAt: string | null;
}

export interface RunReport {
  node: string;
  version: number;
  action: string;
  startedAt: string;
  endedAt: string;
  elapsedMs: number;
  produced: { saved: number; images: number; indexed: number; vectored: number };
  urls: Counters;
  rejected: Record<string, number>;
  ending: { reason: string; published: boolean; note: string };
}

export interface ReportRow {
  version: number;
  action: string;
  published: boolean;
  report: RunReport;
}

export interface VersionRow {
  version: number;
  state: string;
  published: boolean;
  serving: boolean;
  saved: number;
  images: number;
  startedAt: string | null;
  endedAt: string | null;
  action: string | null;
}

export interface DeleteRow {
  version: number;
  layer: string;
  count: number;
  bytes: number;
  error?: string | null;
}

export interface SearchHit {
  id: string;
  title: string;
  url: string;
  catalog: string;
  version: number;
  score: number;
  highlights: string[];
}

export interface SearchPage {
  mode: string;
  results: SearchHit[];
  total: number;
  pageSize: number;
  nextCursor: string | null;
  elapsedMillis: number;
  /** Meaning search over vectors still being written: it answered from the pages embedded so far. */
  embedding?: { pages: number; embedded: number; complete: number; catalogs: string[] };
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
  fetchedAt: string | null;
  catalogId: string;
  version: number;
  explanation?: string;
}

export interface UrlList {
  catalog: { id: string; name: string };
  version: number;
  items: UrlRow[];
  total: number;
}

export interface ResourceView {
  id: string;
  title: string;
  url: string;
  images: Array<{ id: string; url?: string; alt?: string; file: string; contentType: string }>;
}
