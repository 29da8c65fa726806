import type { Verdict } from '../acceptors/acceptor.js';
import { domainScope } from '../acceptors/domain-scope.js';
import { startUrlPrefix } from '../acceptors/start-url-prefix.js';
import type { UrlLayerCount } from '../admin/url-eraser.js';
import type { ComponentFactory } from '../compose/component-factory.js';
import type { CrawlEngine, InFlightUrl } from '../engine/crawl-engine.js';
import { recrawlNote } from '../engine/flow/recrawl-interval.js';
import { ConfigError, CrawlerError } from '../errors.js';
import { ids, isUuid, urlHash } from '../ids.js';
import type { Catalog } from '../model.js';
import { Outcome } from '../outcomes.js';
import { DEFAULT_LEDGER_LIMIT, MAX_LEDGER_LIMIT } from '../storage/ledger-rules.js';
import { LEDGER_STATES, type LedgerRow, type LedgerState } from '../storage/record-store.js';
import { normalizeUrl } from '../url/normalize.js';
import { parseUserUrl } from '../url/parse-user-url.js';
import type { CatalogRef, CatalogService } from './catalog-service.js';
import { assertNotRunning } from './version-service.js';

/** A catalog as the ledger's answers name it. */
export interface LedgerCatalog {
  id: string;
  name: string;
}

/** What became of one url in one version of a catalog (`why`). */
export interface UrlFate {
  catalog: LedgerCatalog;
  version: number;
  /** The url in its normal form, as the ledger keys it. */
  url: string;
  /** Its ledger row; `crawling` while a worker handles it now; undefined when no run of the version dispatched it. */
  row: LedgerRow | undefined;
  /** One sentence for a person. */
  explanation: string;
  /** Other catalogs whose current version also holds the url. */
  others?: LedgerCatalog[];
}

export interface LedgerListQuery {
  catalog: CatalogRef;
  /** @default the catalog's current version (indexVersion) */
  version?: number | undefined;
  state?: LedgerState | undefined;
  /** An outcome name, e.g. REJECTED_NOTFOUND. */
  outcome?: string | undefined;
  /** A substring of the url. */
  text?: string | undefined;
  /** 1..1000. @default 100 */
  limit?: number | undefined;
  /** @default 0 */
  offset?: number | undefined;
}

export interface LedgerList {
  catalog: LedgerCatalog;
  version: number;
  items: LedgerRow[];
  total: number;
}

export interface LedgerCounts {
  catalog: LedgerCatalog;
  version: number;
  /** Rows per state; `crawling` are the urls handled right now (counted out of `queued`). */
  counts: Record<LedgerState, number>;
}

export interface UrlDeletion {
  urlId: string;
  url: string;
  catalog: LedgerCatalog;
  version: number;
  dryRun: boolean;
  /** In the order they were walked: vector, index, file, db. */
  layers: UrlLayerCount[];
}

/** The engines running in this process, by catalog id (CrawlService.running). */
export type RunningEngines = () => Array<{ catalogId: string; engine: Pick<CrawlEngine, 'inFlight'> }>;

/**
 * The url ledger as a service: why a url is (not) indexed, every url of a version by state, one url by id, and
 * deleting one url's page. `crawling` is never stored: it is read from the engine running the catalog.
 */
export class LedgerService {
  readonly #f: ComponentFactory;
  readonly #catalogs: () => Promise<CatalogService>;
  readonly #running: RunningEngines;

  /** `running` gives this process's running engines (the `crawling` state); without it nothing is crawling. */
  constructor(factory: ComponentFactory, catalogs: () => Promise<CatalogService>, running?: RunningEngines) {
    this.#f = factory;
    this.#catalogs = catalogs;
    this.#running = running ?? (() => []);
  }

  /**
   * Why a url is (or is not) indexed: its catalog (the one given; else every catalog whose current version's ledger
   * holds it, the first by name; else the catalog whose scope contains it), the version (given, else the current
   * one), its ledger row and a sentence.
   * @throws CrawlerError NOT_FOUND when no catalog holds or contains the url; ConfigError for a url that is not one
   */
  async why(url: string, options: { catalog?: CatalogRef; version?: number } = {}): Promise<UrlFate> {
    const plain = parseUserUrl(url, 'url');
    const catalogs = await this.#catalogs();
    const db = await this.#f.database();
    let catalog: Catalog | undefined;
    let others: Catalog[] = [];
    if (options.catalog) catalog = await catalogs.get(options.catalog);
    else {
      const all = await catalogs.list();
      const holding: Catalog[] = [];
      for (const c of all) {
        const row = await db.ledger.get(ids.resource(c.id, c.indexVersion, urlHash(canonical(c, plain))));
        if (row) holding.push(c);
      }
      [catalog, ...others] = holding;
      if (!catalog) catalog = containing(all, plain);
    }
    if (!catalog) {
      throw new CrawlerError('NOT_FOUND', `no catalog holds or contains ${plain}`, {
        fix: 'name the catalog with --catalog (run `greenfinger catalogs` to list them), or crawl the site first',
      });
    }
    const version = checkVersion(options.version) ?? catalog.indexVersion;
    const key = canonical(catalog, plain);
    const id = ids.resource(catalog.id, version, urlHash(key));
    const row = this.#overlay(catalog, version, await db.ledger.get(id), key);
    const empty = row ? false : sum(await db.ledger.counts(catalog.id, version)) === 0;
    const fate: UrlFate = {
      catalog: named(catalog),
      version,
      url: key,
      row,
      explanation: explainFate(row, { catalog, version, url: key, emptyVersion: empty }),
    };
    if (others.length > 0) fate.others = others.map(named);
    return fate;
  }

  /** Rows of a catalog version, filtered, in url order; `state=crawling` lists the urls being handled now. */
  async list(query: LedgerListQuery): Promise<LedgerList> {
    const catalog = await (await this.#catalogs()).get(query.catalog);
    const version = checkVersion(query.version) ?? catalog.indexVersion;
    const state = checkState(query.state);
    const limit = checkLimit(query.limit);
    const offset = Math.max(0, Math.trunc(query.offset ?? 0));
    const db = await this.#f.database();
    if (state === 'crawling') {
      const rows: LedgerRow[] = [];
      for (const u of this.#inFlight(catalog, version)) {
        if (query.text && !u.url.includes(query.text)) continue;
        const held = await db.ledger.get(ids.resource(catalog.id, version, urlHash(u.url)));
        const row = crawlingRow(catalog.id, version, u, held);
        if (!query.outcome || row.outcome === query.outcome) rows.push(row);
      }
      rows.sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
      return { catalog: named(catalog), version, items: rows.slice(offset, offset + limit), total: rows.length };
    }
    const { items, total } = await db.ledger.list({
      catalogId: catalog.id,
      version,
      state,
      outcome: query.outcome || undefined,
      text: query.text || undefined,
      limit,
      offset,
    });
    const rows = items.map((r) => this.#overlay(catalog, version, r, r.url) as LedgerRow);
    return { catalog: named(catalog), version, items: rows, total };
  }

  /**
   * One url's row by its id (the url's resource id).
   * @throws CrawlerError BAD_INPUT when `urlId` is not a uuid, NOT_FOUND when no ledger row has it
   */
  async get(urlId: string): Promise<LedgerRow> {
    const row = await this.#row(urlId);
    if (row.state !== 'queued') return row;
    const catalog = await (await this.#catalogs()).find({ id: row.catalogId });
    return catalog ? (this.#overlay(catalog, row.version, row, row.url) as LedgerRow) : row;
  }

  /** Rows of a catalog version per state; `crawling` from the running engine. */
  async counts(catalog: CatalogRef, version?: number): Promise<LedgerCounts> {
    const found = await (await this.#catalogs()).get(catalog);
    const v = checkVersion(version) ?? found.indexVersion;
    const counts = await (await this.#f.database()).ledger.counts(found.id, v);
    const crawling = this.#inFlight(found, v).length;
    counts.crawling += crawling;
    counts.queued = Math.max(0, counts.queued - crawling);
    return { catalog: named(found), version: v, counts };
  }

  /**
   * Remove one url's page from every layer of its version (vector → index → file → db) through the administrative
   * writer, then mark its row `deleted`: a later run of the version does not queue it again.
   * @throws CrawlerError BAD_INPUT / NOT_FOUND as {@link get}; CONFLICT while the catalog is crawled (or busy)
   */
  async deleteUrl(urlId: string, options: { dryRun?: boolean } = {}): Promise<UrlDeletion> {
    const row = await this.#row(urlId);
    const catalog = await (await this.#catalogs()).get({ id: row.catalogId });
    const dryRun = options.dryRun === true;
    if (!dryRun) {
      try {
        await assertNotRunning(this.#f, catalog);
      } catch (err) {
        if (!(err instanceof CrawlerError) || err.code !== 'CONFLICT') throw err;
        throw new CrawlerError('CONFLICT', `cannot delete ${row.url} now: ${err.message}`, {
          fix: 'wait for the run to finish, or pause it, then delete the url again',
        });
      }
    }
    const layers = await this.#f.writer.deleteUrl(row, dryRun);
    return { urlId: row.id, url: row.url, catalog: named(catalog), version: row.version, dryRun, layers };
  }

  async #row(urlId: string): Promise<LedgerRow> {
    const id = urlId.trim().toLowerCase();
    if (!isUuid(id)) {
      throw new CrawlerError('BAD_INPUT', `"${urlId}" is not a url id (a 36-character UUID)`, {
        fix: 'take the id from `greenfinger why <url> --json` or GET /v2/urls',
      });
    }
    const row = await (await this.#f.database()).ledger.get(id);
    if (!row) {
      throw new CrawlerError('NOT_FOUND', `no url with id ${id} in the ledger`, {
        fix: 'list the urls of a catalog version (GET /v2/urls) or ask `greenfinger why <url>`',
      });
    }
    return row;
  }

  /** The urls the engine running the catalog handles now, when it writes `version` (a run writes indexVersion). */
  #inFlight(catalog: Catalog, version: number): InFlightUrl[] {
    if (catalog.runningState === 'none' || catalog.indexVersion !== version) return [];
    return (
      this.#running()
        .find((r) => r.catalogId === catalog.id)
        ?.engine.inFlight() ?? []
    );
  }

  /** A queued row (or none) whose url a worker handles right now reads `crawling`. */
  #overlay(catalog: Catalog, version: number, row: LedgerRow | undefined, url: string): LedgerRow | undefined {
    if (row && row.state !== 'queued') return row;
    const now = this.#inFlight(catalog, version).find((u) => u.url === url);
    return now ? crawlingRow(catalog.id, version, now, row) : row;
  }
}

function named(c: Catalog): LedgerCatalog {
  return { id: c.id, name: c.name };
}

function sum(counts: Record<string, number>): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

/** The url as the engine keys it in this catalog: normalised, without the catalog's own session parameters. */
function canonical(catalog: Catalog, url: string): string {
  const extra = (catalog.settings.sessionParams ?? []).map((p) => p.trim().toLowerCase()).filter(Boolean);
  if (extra.length === 0) return url;
  return normalizeUrl(url, undefined, { sessionParams: new Set(extra) }) ?? url;
}

/** Whether the url is inside a catalog's scope (the two mandatory acceptors), and why not. */
function scopeVerdict(catalog: Catalog, url: string): Verdict {
  for (const acceptor of [domainScope({ catalog }), startUrlPrefix({ catalog })]) {
    const verdict = acceptor.check({ url, depth: 0 }) as Verdict;
    if (!verdict.accept) return verdict;
  }
  return { accept: true };
}

/** The catalog whose scope contains the url; the most specific (longest url) when several do. */
function containing(catalogs: readonly Catalog[], url: string): Catalog | undefined {
  return catalogs
    .filter((c) => scopeVerdict(c, url).accept)
    .sort((a, b) => b.url.length - a.url.length || a.name.localeCompare(b.name))[0];
}

function crawlingRow(catalogId: string, version: number, u: InFlightUrl, held: LedgerRow | undefined): LedgerRow {
  const hash = urlHash(u.url);
  return {
    id: ids.resource(catalogId, version, hash),
    catalogId,
    version,
    url: u.url,
    urlHash: hash,
    state: 'crawling',
    outcome: '',
    detail: '',
    status: null,
    reason: '',
    referrer: u.referrer ?? held?.referrer ?? null,
    depth: u.depth,
    redirects: held?.redirects ?? [],
    foundAs: held?.foundAs ?? null,
    fetchedAt: null,
    updatedAt: u.since,
  };
}

function checkVersion(version: number | undefined): number | undefined {
  if (version === undefined) return undefined;
  if (!Number.isInteger(version) || version < 0) {
    throw new ConfigError('--version', `${version} is not a version`, 'versions are whole numbers from 0');
  }
  return version;
}

function checkState(state: string | undefined): LedgerState | undefined {
  if (state === undefined || state === '') return undefined;
  if (!(LEDGER_STATES as readonly string[]).includes(state)) {
    throw new CrawlerError('BAD_INPUT', `"${state}" is not a url state`, {
      fix: `use one of ${LEDGER_STATES.join(', ')}`,
    });
  }
  return state as LedgerState;
}

function checkLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LEDGER_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LEDGER_LIMIT) {
    throw new CrawlerError('BAD_INPUT', `limit ${limit} is out of range`, {
      fix: `give a whole number from 1 to ${MAX_LEDGER_LIMIT}`,
    });
  }
  return limit;
}

/** What an outcome did to a fetched url, in words. */
const FETCHED: Partial<Record<string, string>> = {
  SAVED: 'saved',
  REJECTED_DUPLICATE: 'fetched but not saved: the same content as another page of this version',
  REJECTED_UNMODIFIED: 'fetched again and unchanged since it was saved',
  REJECTED_ROBOTS_META_NOINDEX: 'fetched but not saved: the page asks not to be indexed (robots noindex)',
  REJECTED_REDIRECT: 'a redirect, not a page: its target is a url of its own',
  REJECTED_REDIRECT_LOOP: 'a redirect back onto its own chain (a loop): not followed',
  REJECTED_NOT_MARKUP: 'fetched but not saved: not an html page',
  REJECTED_NOTFOUND: 'not found',
  REJECTED_BAD_STATUS: 'not saved: the site answered with an unusable status',
  REJECTED_UNREACHABLE: 'could not be fetched',
  REJECTED_TOO_LARGE: 'not saved: the response is larger than the limit',
  REJECTED_TOO_MANY_REDIRECTS: 'not followed: too many redirects in a row',
  REJECTED_UNRENDERED: 'not saved: rendered in the browser and still an empty shell when the wait ran out',
  REJECTED_NONCANONICAL: 'fetched but not saved: it names another url of the catalog as canonical, which was queued',
  REJECTED_PREMATURE:
    'not fetched again: not due yet on this incremental run (sitemap lastmod, recrawl frequency, its recrawl schedule, or no change feed named it)',
  REJECTED_IMPORT: 'fetched but not saved: the document could not be read',
  LISTED: 'a folder: its files and folders were queued',
  REJECTED_ERROR: 'failed while it was handled',
  REJECTED_ABANDONED: 'abandoned: the run ended before it was handled',
};

/** Everything {@link explainFate} needs besides the row. */
export interface FateContext {
  catalog: Pick<Catalog, 'name' | 'url' | 'startUrl' | 'settings' | 'indexVersion'> & Partial<Pick<Catalog, 'id'>>;
  version: number;
  url: string;
  /** The version has no ledger rows at all (never crawled, or crawled before the ledger existed). */
  emptyVersion?: boolean;
}

/** One sentence for a person: what became of the url in that version, and from which page it was reached. */
export function explainFate(row: LedgerRow | undefined, ctx: FateContext): string {
  const where = `version ${ctx.version} of "${ctx.catalog.name}"`;
  if (!row) {
    if (ctx.emptyVersion) {
      return `${where} has no url ledger: it has not been crawled since the ledger exists; crawl or update it`;
    }
    const scope = scopeVerdict(ctx.catalog as Catalog, ctx.url);
    const outside = scope.accept ? '' : ` (and it is outside ${ctx.catalog.url}, so a link to it would be refused)`;
    return `never dispatched in ${where}: no page of that run linked to it${outside}`;
  }
  const from = linkedFrom(row);
  const http = row.status !== null ? ` (HTTP ${row.status})` : '';
  const at = row.fetchedAt ? ` on ${row.fetchedAt}` : '';
  const reason = row.reason ? `: ${row.reason}` : '';
  switch (row.state) {
    case 'queued':
      return `queued in ${where} since ${row.updatedAt}, not handled yet${from}; a resume or update of the version fetches it`;
    case 'crawling':
      return `being handled now (since ${row.updatedAt}) by the run of ${where}${from}`;
    case 'deleted':
      return `deleted by hand from ${where} (${row.reason || 'its page was removed'}); it is not queued again in this version`;
    case 'rejected':
      if (row.outcome === Outcome.REJECTED_ORPHAN) {
        return `removed from ${where} as an orphan: ${row.reason || 'no page of its session linked to it'}${from}; a link to it found again queues it as a new url`;
      }
      return `${refusedBy(row)} before any request: ${refusal(row, ctx)}${from}`;
    default: {
      if (row.outcome === Outcome.REJECTED_KNOWN) {
        return `already known in ${where}: not fetched again, its stored links were followed${from}`;
      }
      const what = FETCHED[row.outcome] ?? `ended as ${row.outcome}`;
      const detail = row.detail && row.outcome !== Outcome.REJECTED_BAD_STATUS ? ` [${row.detail}]` : '';
      const why = row.outcome === Outcome.SAVED || row.outcome === Outcome.REJECTED_NOTFOUND ? '' : reason;
      const schedule = recrawlNote(row);
      const due = schedule && row.detail !== 'schedule' ? `; recrawl: ${schedule}` : '';
      return `${what}${detail}${http}${at}${from}${why}${due}`;
    }
  }
}

function linkedFrom(row: LedgerRow): string {
  const chain = row.redirects ?? [];
  const redirected =
    chain.length > 0 ? `, reached by ${chain.length} redirect${chain.length > 1 ? 's' : ''} from ${chain[0]}` : '';
  const found = row.foundAs ? `, found as ${row.foundAs}` : '';
  if (row.referrer) return `, depth ${row.depth}${redirected}${found}, linked from ${row.referrer}`;
  return row.depth === 0 ? `, a start url${redirected}${found}` : `, depth ${row.depth}${redirected}${found}`;
}

function refusedBy(row: LedgerRow): string {
  if (row.outcome === Outcome.REJECTED_TRAP) return `refused by the trap budget (${row.detail || 'trap'})`;
  return row.detail ? `refused by the ${row.detail} acceptor` : `refused (${row.outcome})`;
}

function refusal(row: LedgerRow, ctx: FateContext): string {
  if (row.outcome === Outcome.REJECTED_OUT_OF_SCOPE) {
    return `${row.url} is outside ${ctx.catalog.url}${row.reason ? ` (${row.reason})` : ''}`;
  }
  return row.reason || row.outcome;
}
