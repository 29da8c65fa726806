import type { Candidate, UrlPathAcceptor, Verdict } from '../acceptors/acceptor.js';
import { domainScope } from '../acceptors/domain-scope.js';
import { startUrlPrefix } from '../acceptors/start-url-prefix.js';
import type { ComponentFactory } from '../compose/component-factory.js';
import type { AcceptorCheck, RunContext } from '../compose/components.js';
import {
  assembleExtract,
  assembleFetchers,
  assembleRobots,
  assembleUrlCheck,
  openExtractPool,
} from '../compose/run-assembly.js';
import type { ExtractedContent } from '../content/content-extractor.js';
import { fetchFailureOutcome } from '../engine/page-pipeline.js';
import { QueuePipeline } from '../engine/queue-pipeline.js';
import { errorMessage } from '../errors.js';
import { isPageType, looksBinary } from '../fetch/content-type.js';
import type { FetchResult } from '../fetch/extractor.js';
import { ids, sha256Hex, urlHash } from '../ids.js';
import type { Catalog } from '../model.js';
import { Outcome } from '../outcomes.js';
import { isFileUrl } from '../url/file-url.js';
import { normalizeUrl } from '../url/normalize.js';
import { parseUserUrl } from '../url/parse-user-url.js';
import type { CatalogRef, CatalogService } from './catalog-service.js';

/** What one stage of the pipeline would decide about the url. */
export interface TestStage {
  /** `acceptor domain-scope`, `known-url`, `fetch`, `status`, `markup`, `extract`, `noindex`, `dedup`, `output`. */
  stage: string;
  /** `pass`: on to the next stage; `refuse`/`fail`: the url would end here; `skip`: not reached; `note`: for information. */
  verdict: 'pass' | 'refuse' | 'fail' | 'skip' | 'note';
  detail: string;
}

/** Where a link found on the page would go. */
export interface TestLink {
  url: string;
  text: string;
  /** `queued`: it passes the acceptors and would be put on the frontier; `refused`: an acceptor refuses it. */
  fate: 'queued' | 'refused' | 'not-followed';
  acceptor?: string | undefined;
  outcome?: string | undefined;
  reason?: string | undefined;
}

export interface TestUrlRequest {
  url: string;
  /** The catalog whose rules apply. @default the one whose scope holds the url, else the only one, else a new one made for the url (not stored) */
  catalog?: CatalogRef | undefined;
  /** Lines of article text to return. @default 8 */
  textLines?: number | undefined;
}

/** Every stage's verdict on one url, and what the page holds: nothing is stored, queued or counted. */
export interface TestUrlReport {
  url: string;
  catalog: { id: string; name: string; stored: boolean; why: string };
  version: number;
  depth: number;
  stages: TestStage[];
  /** What the crawl would end the url with: SAVED, or the outcome of the stage that stops it. */
  outcome: string;
  fetch: { status: number; contentType: string; bytes: number; elapsedMs: number; location?: string } | null;
  title: string | null;
  /** The first lines of the article text. */
  text: string[];
  textChars: number;
  pictures: Array<{ url: string; alt: string; source: string }>;
  links: TestLink[];
}

/**
 * `test-url`: one url through the whole pipeline of a catalog — acceptors, the known-url check, fetch, status,
 * markup, extraction, noindex, content dedup — built by the composition point as a crawl builds it, but with no output
 * channel and no frontier: nothing is saved, queued, recorded or counted. A url an acceptor refuses is not fetched
 * (as in a crawl), so a link off the site never leaves the machine.
 */
export class TestUrlService {
  readonly #f: ComponentFactory;
  readonly #catalogs: () => Promise<CatalogService>;

  constructor(factory: ComponentFactory, catalogs: () => Promise<CatalogService>) {
    this.#f = factory;
    this.#catalogs = catalogs;
  }

  /** @throws CrawlerError BAD_INPUT for a url that is not one, NOT_FOUND for an unknown catalog */
  async test(req: TestUrlRequest): Promise<TestUrlReport> {
    const f = this.#f;
    const url = parseUserUrl(req.url, '--url');
    const { catalog, stored, why } = await this.#catalogFor(url, req.catalog);
    const version = catalog.indexVersion;
    const hash = urlHash(url);
    const db = stored ? await f.database() : undefined;
    const row = db ? await db.ledger.get(ids.resource(catalog.id, version, hash)) : undefined;
    const depth = row?.depth ?? 0;
    const ctx: RunContext = { settings: f.settings, layout: f.layout, log: f.log, catalog, version, action: 'crawl' };
    const fetchers = assembleFetchers(f, ctx);
    const pool = openExtractPool(f, { inline: true });
    const report: TestUrlReport = {
      url,
      catalog: { id: catalog.id, name: catalog.name, stored, why },
      version,
      depth,
      stages: [],
      outcome: Outcome.SAVED,
      fetch: null,
      title: null,
      text: [],
      textChars: 0,
      pictures: [],
      links: [],
    };
    const stages = report.stages;
    const stop = (outcome: string) => {
      report.outcome = outcome;
      return report;
    };
    try {
      const deleted = db ? new Set(await db.ledger.deletedUrlHashes(catalog.id, version)) : new Set<string>();
      const robots = assembleRobots(f, ctx, fetchers.text);
      const { check, steps } = assembleUrlCheck(f, ctx, { robots, limits: { depth: catalog.settings.depth }, deleted });
      // Acceptors one by one (the chain stops at the first refusal; so does this).
      const refusal = await eachAcceptor(check, steps, { url, depth }, stages);
      if (refusal) return stop(refusal.outcome);

      const held = db ? await db.resources.findResourceByUrlHash(catalog.id, version, hash) : undefined;
      if (held) {
        stages.push({
          stage: 'known-url',
          verdict: 'refuse',
          detail: `version ${version} holds it (fetched ${held.fetchedAt}): a crawl follows its stored links, an update does not fetch it, a merge revisits it`,
        });
        return stop(Outcome.REJECTED_KNOWN);
      }
      stages.push({ stage: 'known-url', verdict: 'pass', detail: `not held by version ${version}` });

      let result: FetchResult;
      try {
        result = await fetchers.page.fetch(url, { decode: false, pagesOnly: true });
      } catch (err) {
        stages.push({ stage: 'fetch', verdict: 'fail', detail: errorMessage(err) });
        return stop(fetchFailureOutcome(err));
      }
      const { status, contentType, headers } = result;
      report.fetch = {
        status,
        contentType,
        bytes: result.body.length,
        elapsedMs: Math.round(result.elapsedMs),
        ...(headers.location ? { location: headers.location } : {}),
      };
      stages.push({
        stage: 'fetch',
        verdict: 'pass',
        detail: `HTTP ${status} ${contentType || '(no type)'}, ${result.body.length} bytes in ${Math.round(result.elapsedMs)} ms`,
      });

      const statusOutcome = statusVerdict(result);
      if (statusOutcome) {
        stages.push({ stage: 'status', verdict: 'refuse', detail: statusOutcome.detail });
        if (statusOutcome.target) report.links = await linkFates(check, catalog, [statusOutcome.target], depth, url);
        return stop(statusOutcome.outcome);
      }
      stages.push({ stage: 'status', verdict: 'pass', detail: `HTTP ${status}` });

      if (result.children) {
        // A folder of a catalog of a folder: its entries are offered one level deeper, as the crawl would.
        const n = result.children.length;
        stages.push({
          stage: 'children',
          verdict: 'note',
          detail: `a folder of ${n} entries, offered one level deeper`,
        });
        report.links = await linkFates(check, catalog, result.children, depth + 1, url);
        return stop(Outcome.LISTED);
      }

      if (!isPageType(contentType) || looksBinary(result.body)) {
        stages.push({ stage: 'markup', verdict: 'refuse', detail: `not an html page (${contentType || 'binary'})` });
        return stop(Outcome.REJECTED_NOT_MARKUP);
      }
      stages.push({ stage: 'markup', verdict: 'pass', detail: contentType.split(';')[0] ?? contentType });

      let content: ExtractedContent;
      try {
        content = await assembleExtract(f, catalog, pool)(result.body, url, contentType);
      } catch (err) {
        stages.push({ stage: 'extract', verdict: 'fail', detail: errorMessage(err) });
        return stop(`${Outcome.REJECTED_ERROR}:extract`);
      }
      report.title = content.title || null;
      report.textChars = content.text.length;
      report.text = content.text
        .split(/\n+/)
        .map((l) => l.trim())
        .filter(Boolean)
        .slice(0, req.textLines ?? 8);
      report.pictures = content.images.map((i) => ({ url: i.url, alt: i.alt, source: i.source }));
      stages.push({
        stage: 'extract',
        verdict: 'pass',
        detail: `"${content.title}": ${content.text.length} characters of text, ${content.links.length} links, ${content.images.length} pictures (${catalog.settings.contentExtractor})`,
      });
      report.links = content.robots.nofollow
        ? content.links.map((l) => ({ url: l.url, text: l.text, fate: 'not-followed', reason: 'meta robots nofollow' }))
        : await linkFates(
            check,
            catalog,
            content.links.map((l) => l.url),
            depth + 1,
            url,
            content,
          );

      if (content.robots.noindex) {
        stages.push({ stage: 'noindex', verdict: 'refuse', detail: '<meta name="robots" content="noindex">' });
        return stop(Outcome.REJECTED_ROBOTS_META_NOINDEX);
      }
      stages.push({ stage: 'noindex', verdict: 'pass', detail: 'no noindex' });
      // Read-only: the crawl's dedup records a fingerprint as it checks it, so this names the fingerprint only.
      const kind = catalog.settings.contentDedup || f.settings.contentDedup;
      stages.push({
        stage: 'dedup',
        verdict: 'note',
        detail: `${kind} of the text: sha256 ${sha256Hex(content.text).slice(0, 16)}…; a crawl refuses it as REJECTED_DUPLICATE when a page saved before in version ${version} has the same text (not checked here: checking records)`,
      });
      stages.push({
        stage: 'output',
        verdict: 'note',
        detail: `would be saved to ${catalog.settings.outputs.join(' → ')}; nothing is written by test-url`,
      });
      return stop(Outcome.SAVED);
    } finally {
      await fetchers.close().catch(() => undefined);
      await pool.close().catch(() => undefined);
    }
  }

  /** The catalog given; else the one whose scope holds the url; else the only one; else one made for the url. */
  async #catalogFor(
    url: string,
    ref: CatalogRef | undefined,
  ): Promise<{ catalog: Catalog; stored: boolean; why: string }> {
    const catalogs = await this.#catalogs();
    if (ref) return { catalog: await catalogs.get(ref), stored: true, why: 'named' };
    const all = await catalogs.list();
    const holding = all.find((c) => inScope(c, url));
    if (holding) return { catalog: holding, stored: true, why: 'its scope holds the url' };
    if (all.length === 1 && all[0]) return { catalog: all[0], stored: true, why: 'the only catalog' };
    // A file's catalog would be its folder's; a page's, its site's.
    const origin = isFileUrl(url) ? url.slice(0, url.lastIndexOf('/') + 1) : `${new URL(url).origin}/`;
    return {
      catalog: catalogs.build({ url: origin, startUrl: url }),
      stored: false,
      why: `no catalog holds the url: a new one for ${origin}, as crawl --url would make it (not stored)`,
    };
  }
}

function inScope(catalog: Catalog, url: string): boolean {
  const candidate = { url, depth: 0 };
  const a = domainScope({ catalog }).check(candidate) as Verdict;
  const b = startUrlPrefix({ catalog }).check(candidate) as Verdict;
  return a.accept && b.accept;
}

/** Each acceptor's verdict in order, until the first refusal (the ones after it are not reached). */
async function eachAcceptor(
  check: AcceptorCheck,
  steps: readonly UrlPathAcceptor[] | undefined,
  candidate: { url: string; depth: number },
  stages: TestStage[],
): Promise<Extract<Verdict, { accept: false }> | undefined> {
  const list = steps ?? [{ name: 'acceptors', check: (c: Candidate) => check.check(c) }];
  let refused: Extract<Verdict, { accept: false }> | undefined;
  for (const acceptor of list) {
    const stage = `acceptor ${acceptor.name}`;
    if (refused) {
      stages.push({ stage, verdict: 'skip', detail: 'not reached' });
      continue;
    }
    const verdict = await acceptor.check(candidate);
    if (verdict.accept) stages.push({ stage, verdict: 'pass', detail: 'accepted' });
    else {
      refused = verdict;
      stages.push({ stage, verdict: 'refuse', detail: `${verdict.outcome} (${verdict.acceptor}): ${verdict.reason}` });
    }
  }
  return refused;
}

/** A status that ends the url: 3xx (its target is offered as a url of its own), 304, 404/410, other ≥ 400. */
function statusVerdict(r: FetchResult): { outcome: string; detail: string; target?: string } | undefined {
  const { status, headers } = r;
  if (status >= 300 && status < 400 && status !== 304) {
    const target = headers.location ? normalizeUrl(headers.location, r.finalUrl) : undefined;
    return {
      outcome: Outcome.REJECTED_REDIRECT,
      detail: `HTTP ${status} to ${headers.location ?? '(no Location)'}: the target is offered as a url of its own`,
      ...(target ? { target } : {}),
    };
  }
  if (status === 304) return { outcome: Outcome.REJECTED_UNMODIFIED, detail: 'HTTP 304' };
  if (status === 404 || status === 410) return { outcome: Outcome.REJECTED_NOTFOUND, detail: `HTTP ${status}` };
  if (status >= 400) return { outcome: `${Outcome.REJECTED_BAD_STATUS}:${status}`, detail: `HTTP ${status}` };
  return undefined;
}

/** Each link's fate through the queue pipeline's normalisation and the acceptors (nothing is put anywhere). */
async function linkFates(
  check: AcceptorCheck,
  catalog: Catalog,
  urls: string[],
  depth: number,
  referrer: string,
  content?: ExtractedContent,
): Promise<TestLink[]> {
  const queue = new QueuePipeline({ acceptors: check, normalize: (raw, base) => normalizeUrl(raw, base), catalog });
  const offer = await queue.offer(urls, depth, referrer, 0, true);
  const text = new Map((content?.links ?? []).map((l) => [l.url, l.text]));
  return [
    ...offer.accepted.map((e): TestLink => ({ url: e.url, text: text.get(e.url) ?? '', fate: 'queued' })),
    ...offer.refused.map(
      (r): TestLink => ({
        url: r.url,
        text: text.get(r.url) ?? '',
        fate: 'refused',
        acceptor: r.acceptor,
        outcome: r.outcome,
        reason: r.reason,
      }),
    ),
  ];
}
