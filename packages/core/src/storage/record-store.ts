import type { AlertStore } from '../alerts/alert-store.js';
import type { Catalog, ImageRow, ReportRow, ResourceImageRow, ResourceRow } from '../model.js';

/** Catalog definitions (crawler_catalog). */
export interface CatalogStore {
  create(catalog: Catalog): Promise<void>;
  update(catalog: Catalog): Promise<void>;
  get(id: string): Promise<Catalog | undefined>;
  findByName(name: string): Promise<Catalog | undefined>;
  findByUrl(url: string): Promise<Catalog[]>;
  list(): Promise<Catalog[]>;
  delete(id: string): Promise<boolean>;
}

/** Crawl metadata (crawler_resource, crawler_image, crawler_resource_image, crawler_report). No page bodies. */
export interface ResourceRecordStore {
  /** Insert or replace (same id = same url in the same version), in one transaction. */
  saveResources(rows: ResourceRow[]): Promise<void>;
  saveImages(rows: ImageRow[]): Promise<void>;
  saveResourceImages(rows: ResourceImageRow[]): Promise<void>;
  getResource(id: string): Promise<ResourceRow | undefined>;
  findResourceByUrlHash(catalogId: string, version: number, urlHash: string): Promise<ResourceRow | undefined>;
  /** Stream a version's resources in id order, `batch` rows at a time. */
  iterateResources(catalogId: string, version: number, batch?: number): AsyncIterable<ResourceRow[]>;
  iterateImages(catalogId: string, version: number, batch?: number): AsyncIterable<ImageRow[]>;
  /** Every page id of a version, in id order (the order iterateResources walks): what a replay cuts into slices. */
  listResourceIds(catalogId: string, version: number): Promise<string[]>;
  /** The rows of these ids in one version, in id order; ids not in that version are left out. */
  resourcesByIds(catalogId: string, version: number, ids: readonly string[]): Promise<ResourceRow[]>;
  /**
   * A version's pages newest fetch first (fetched_at desc, then id), `limit` of them after `after` (the last row of
   * the previous page): what a blank search lists. A keyset, so a deep page costs what the first one does.
   */
  newestResources(
    catalogId: string,
    version: number,
    limit: number,
    after?: { fetchedAt: string; id: string } | undefined,
  ): Promise<ResourceRow[]>;
  imagesOfResource(resourceId: string): Promise<Array<ImageRow & { alt: string; surroundingText: string }>>;
  count(
    catalogId: string,
    version: number,
  ): Promise<{ resources: number; images: number; resourceImages: number; reports: number }>;
  /** Versions that have any rows, ascending. */
  versions(catalogId: string): Promise<number[]>;
  /**
   * Remove one page: its crawler_resource row and its crawler_resource_image links (its pictures' rows stay: other
   * pages may show them); returns rows removed per table, or with `dryRun` the rows that would be.
   */
  deleteResource(id: string, dryRun?: boolean): Promise<Record<string, number>>;
  /** delete from t where catalog_id = ? and version = ? — no join; returns rows removed per table. */
  deleteVersion(catalogId: string, version: number): Promise<Record<string, number>>;
  /** One crawler_report row per version (replaced by later runs of the same version). */
  saveReport(row: ReportRow): Promise<void>;
  getReport(catalogId: string, version: number): Promise<ReportRow | undefined>;
  listReports(catalogId: string): Promise<ReportRow[]>;
}

/**
 * Where a url stands in the ledger. `queued` and `crawling` are on their way; the three ends are
 * - `done`: fetched and handled (saved, duplicate, unmodified, noindex, redirected, …);
 * - `failed`: the fetch or the processing failed (not found, bad status, unreachable, too large, error);
 * - `rejected`: refused before any request (an acceptor, robots.txt, a trap budget);
 * and `deleted`: its page was removed by hand (DELETE /v2/urls/{id}); it is not queued again in this version.
 */
export type LedgerState = 'queued' | 'crawling' | 'done' | 'failed' | 'rejected' | 'deleted';
export const LEDGER_STATES: readonly LedgerState[] = ['queued', 'crawling', 'done', 'failed', 'rejected', 'deleted'];

/** One url's fate in one version (crawler_url). */
export interface LedgerRow {
  /** The url's resource id: uuid v5 under the catalog id of `{version}|{urlHash}` (`ids.resource` in ids.ts). */
  id: string;
  catalogId: string;
  version: number;
  url: string;
  urlHash: string;
  state: LedgerState;
  /** SAVED or a REJECTED_* name; '' while queued. */
  outcome: string;
  /** The stage or acceptor that decided (`domain-scope`, `status`, `dedup`, …); '' when none. */
  detail: string;
  /** The HTTP status of the last fetch; null when no request was made. */
  status: number | null;
  reason: string;
  referrer: string | null;
  depth: number;
  /** The redirects that led to this url, first one first; [] when it was linked directly. */
  redirects: string[];
  /**
   * The link as it was written when url normalisation changed it (a session id, a fragment, letter case, a default
   * port, …): the first such form that queued the url in its run, at most 2048 characters (MAX_FOUND_AS); null when
   * the url was found in its normal form.
   */
  foundAs: string | null;
  /**
   * The url's priority when it was queued (frontier/prioritizer.ts): its score, its front queue and the parts the
   * score was weighed from. Null (or absent) for a url queued first (a start url, a redirect target), refused, or
   * queued before priorities were recorded; a row written without one keeps the one held.
   */
  priority?: LedgerPriority | null | undefined;
  /** ISO time of the fetch; null when no request was made. */
  fetchedAt: string | null;
  /**
   * ISO time the url's page last changed in this version (docs/freshness.md): saved new, rewritten because its article
   * changed, or removed (gone, an orphan). A row written with one is a change; a row without one keeps the one held.
   */
  changedAt?: string | null | undefined;
  /** How many times the url's page changed in this version (read back: 0 when never); the store counts them. */
  changeCount?: number | null | undefined;
  /**
   * The url's adaptive recrawl interval in seconds (docs/freshness.md#the-recrawl-interval): halved when a revisit
   * found its page changed, doubled when not, within the catalog's recrawlMin and recrawlMax. A row written without
   * one keeps the one held, with its `dueAt` and `unchangedVisits`.
   */
  recrawlEvery?: number | null | undefined;
  /** ISO time the url is due again: its last fetch plus `recrawlEvery`; a merge before it does not fetch it. */
  dueAt?: string | null | undefined;
  /** Revisits in a row that found the page unchanged (0 after a change). */
  unchangedVisits?: number | null | undefined;
  /** ISO time this row was written. */
  updatedAt: string;
}

/** A url's priority as the ledger keeps it (the prioritizer's `UrlPriority`). */
export interface LedgerPriority {
  /** 0 (last) to 1 (first): the weighted mean of the parts. */
  score: number;
  /** The front queue it went to: 0 is the highest of the frontier's priority queues. */
  queue: number;
  /** Each part from 0 to 1, by name (depth, type, freshness, quality, sitemap). */
  parts: Record<string, number>;
}

export interface LedgerQuery {
  catalogId: string;
  version: number;
  state?: LedgerState | undefined;
  /** An outcome name, e.g. REJECTED_NOTFOUND. */
  outcome?: string | undefined;
  /** A substring of the url. */
  text?: string | undefined;
  /** @default 100 */
  limit?: number | undefined;
  /** @default 0 */
  offset?: number | undefined;
}

/**
 * The url ledger (crawler_url): every url a run of a version dispatched, with its state and its last outcome. Written
 * by the committer in the batches it already makes; read by `why`, `GET /v2/urls` and the page.
 */
export interface UrlLedgerStore {
  /**
   * Insert or replace by id, in one transaction. A `queued` (or `crawling`) row never replaces a row already in an
   * end state (done, failed, rejected, deleted), nor does a known page handled again without a request
   * (REJECTED_KNOWN: the fate it was fetched with says more), and nothing but `deleted` replaces a `deleted` row
   * (ledger-rules.ts, `ledgerReplaces`). Rows of one batch are applied in order.
   */
  record(rows: LedgerRow[]): Promise<void>;
  get(id: string): Promise<LedgerRow | undefined>;
  /** Rows of a version in url order, filtered; `total` counts every row the filter matches. */
  list(query: LedgerQuery): Promise<{ items: LedgerRow[]; total: number }>;
  /** Rows of a version per state (every state present, 0 when none). */
  counts(catalogId: string, version: number): Promise<Record<LedgerState, number>>;
  /** The url hashes of a version's `deleted` rows (kept from being queued again). */
  deletedUrlHashes(catalogId: string, version: number): Promise<string[]>;
}

export type UserRole = 'admin' | 'support';

/** A person who may sign in to the REST API (gf_user). */
export interface UserRow {
  name: string;
  /** `scrypt$N$r$p$salt$hash` (base64url), never the password. */
  passwordHash: string;
  role: UserRole;
  createdAt: string;
  updatedAt: string;
}

/** Users and signed-out tokens (gf_user, gf_revoked_token). */
export interface UserStore {
  /** @throws CrawlerError CONFLICT when the name is taken */
  create(user: UserRow): Promise<void>;
  /** @returns false when there is no such user */
  update(user: UserRow): Promise<boolean>;
  get(name: string): Promise<UserRow | undefined>;
  /** In name order. */
  list(): Promise<UserRow[]>;
  delete(name: string): Promise<boolean>;
  count(): Promise<number>;
  /** Sign a token out until `expiresAt` (ISO); idempotent. */
  revoke(tokenId: string, expiresAt: string): Promise<void>;
  isRevoked(tokenId: string): Promise<boolean>;
  /** Forget revocations that expired before `now` (ISO); returns how many. */
  purgeRevoked(now: string): Promise<number>;
}

/** The stores on one database, with its lifecycle. */
export interface RecordDatabase {
  readonly kind: 'sqlite' | 'postgresql';
  readonly catalogs: CatalogStore;
  readonly resources: ResourceRecordStore;
  readonly ledger: UrlLedgerStore;
  readonly users: UserStore;
  /** Saved searches (alerts/); absent on a database wrapper that does not carry them. */
  readonly alerts?: AlertStore | undefined;
  /** Apply `schema/` migrations not applied yet. Idempotent. */
  migrate(): Promise<{ applied: string[] }>;
  close(): Promise<void>;
}
