import type { Candidate, UrlPathAcceptor, Verdict } from '../acceptors/acceptor.js';
import { domainScope } from '../acceptors/domain-scope.js';
import { startUrlPrefix } from '../acceptors/start-url-prefix.js';
import type { ComponentFactory } from '../compose/component-factory.js';
import type { AcceptorCheck, RunContext } from '../compose/components.js';
import { assembleDocuments } from '../compose/document-assembly.js';
import {
  assembleExtract,
  assembleFetchers,
  assembleRobots,
  assembleUrlCheck,
  openExtractPool,
} from '../compose/run-assembly.js';
import { dryPipeline } from '../engine/dry-run.js';
import { NEXT, type PageInProgress, type Stage, type StageVerdict } from '../engine/page.js';
import { DOCUMENT_PIPELINE, handlePage } from '../engine/page-pipeline.js';
import { decodeBody } from '../fetch/charset.js';
import { ids, urlHash } from '../ids.js';
import type { Catalog } from '../model.js';
import { Outcome } from '../outcomes.js';
import { isFileUrl } from '../url/file-url.js';
import { normalizeUrl } from '../url/normalize.js';
import { parseUserUrl } from '../url/parse-user-url.js';
import type { CatalogRef, CatalogService } from './catalog-service.js';
import { describeStage, linksOf, type TestLink, type TestStage } from './test-url-report.js';

export type { TestLink, TestStage } from './test-url-report.js';

export interface TestUrlRequest {
  url: string;
  /** The catalog whose rules apply. @default the one whose scope holds the url, else the only one, else a new one made for the url (not stored) */
  catalog?: CatalogRef | undefined;
  /** Lines of article text to return. @default 8 */
  textLines?: number | undefined;
  /** Also return what was fetched and extracted, whole ({@link TestUrlPage}): the Firecrawl-compatible scrape. */
  keepPage?: boolean | undefined;
}

/** What a dry run fetched and extracted of a url, whole (`keepPage`). */
export interface TestUrlPage {
  /** The answer's body, decoded ('' when nothing was fetched). */
  body: string;
  contentType: string;
  /** The headers the answer came with. */
  headers: Record<string, string>;
  /** Empty when the page was not extracted. */
  description: string;
  lang: string;
  canonical: string | null;
  /** Every link of the page, absolute, in page order (the links stage's input, before any acceptor). */
  links: string[];
  /** The pictures' urls. */
  images: string[];
}

/** Every stage's verdict on one url, and what the page holds: nothing is stored, queued or counted. */
export interface TestUrlReport {
  url: string;
  catalog: { id: string; name: string; stored: boolean; why: string };
  version: number;
  depth: number;
  stages: TestStage[];
  /** What the crawl would end the url with: SAVED, or the report key (`OUTCOME:detail`) of the stage that stops it. */
  outcome: string;
  /** Why, as the url ledger would say it (the `why` of the stage that stopped it). */
  why?: string | undefined;
  fetch: { status: number; contentType: string; bytes: number; elapsedMs: number; location?: string } | null;
  title: string | null;
  /** The first lines of the article text. */
  text: string[];
  textChars: number;
  pictures: Array<{ url: string; alt: string; source: string }>;
  links: TestLink[];
  /** With `keepPage`: the page whole. */
  page?: TestUrlPage | undefined;
}

/**
 * `test-url`: one url through a catalog's whole pipeline — its acceptors, then the crawl's own document pipeline
 * (page-pipeline.ts) in a dry run (engine/dry-run.ts): every stage a crawl runs, judged by the crawl's code, with
 * nothing saved, queued, recorded or counted. The url is judged as the first visit of it in the version. A url an
 * acceptor refuses is not fetched (as in a crawl), so a link off the site never leaves the machine.
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
    const db = await f.database();
    const row = stored ? await db.ledger.get(ids.resource(catalog.id, version, urlHash(url))) : undefined;
    const depth = row?.depth ?? 0;
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
    const ctx: RunContext = { settings: f.settings, layout: f.layout, log: f.log, catalog, version, action: 'crawl' };
    const fetchers = assembleFetchers(f, ctx);
    const pool = openExtractPool(f, { inline: true });
    const documents = assembleDocuments(f, catalog);
    try {
      const deleted = stored ? new Set(await db.ledger.deletedUrlHashes(catalog.id, version)) : new Set<string>();
      const robots = assembleRobots(f, ctx, fetchers.text);
      const { check, steps } = assembleUrlCheck(f, ctx, { robots, limits: { depth: catalog.settings.depth }, deleted });
      // Acceptors one by one (the chain stops at the first refusal; so does this).
      const refusal = await eachAcceptor(check, steps, { url, depth }, report.stages);
      if (refusal) {
        report.outcome = refusal.outcome;
        report.why = refusal.reason;
        for (const stage of DOCUMENT_PIPELINE)
          report.stages.push({ stage: stage.name, verdict: 'skip', detail: 'not reached' });
        return report;
      }
      const dry = dryPipeline(
        {
          catalog,
          version,
          settings: f.settings,
          known: 'follow-stored',
          records: db.resources,
          ledger: db.ledger,
          blobs: f.blobs,
          politeness: { acquire: async () => () => undefined },
          pageFetcher: fetchers.page,
          imageFetcher: fetchers.image,
          robots,
          log: f.log,
          extract: assembleExtract(f, catalog, pool),
          contentDedup: await f.contentDedup(catalog.settings.contentDedup),
          acceptors: check,
          normalize: isFileUrl(url)
            ? (raw, base) => normalizeUrl(raw, base, { file: true })
            : (raw, base) => normalizeUrl(raw, base),
          ...documents.deps,
        },
        f.log,
      );
      let last: PageInProgress | undefined;
      const ran: Array<{ stage: Stage; verdict: StageVerdict }> = [];
      const held = row?.outcome ? `version ${version} holds it (${row.outcome}): judged as a first visit` : undefined;
      // The entry as the crawl polled it: its depth, referrer and the redirects that led to it (a loop is judged on them).
      const chain = row?.redirects ?? [];
      const entry = { url, depth, referrer: row?.referrer ?? undefined, redirects: chain.length, redirectChain: chain };
      const completion = await handlePage({ ...entry, leaseKey: 'test-url' }, dry.ctx, {
        onVerdict: (stage, verdict, page) => {
          last = page;
          ran.push({ stage, verdict });
          report.stages.push(describeStage(stage, verdict, page, dry.writes, catalog, held));
        },
      });
      for (const stage of DOCUMENT_PIPELINE.slice(ran.length)) {
        report.stages.push({ stage: stage.name, verdict: 'skip', detail: 'not reached' });
      }
      const end = ran.at(-1)?.verdict;
      if (completion?.outcome) {
        report.outcome = completion.detail ? `${completion.outcome}:${completion.detail}` : completion.outcome;
        report.why = completion.why;
      } else if (end !== NEXT) report.outcome = 'ABANDONED';
      if (last) this.#fill(report, last, req.textLines ?? 8);
      if (last && req.keepPage) report.page = pageOf(last);
      return report;
    } finally {
      await fetchers.close().catch(() => undefined);
      await pool.close().catch(() => undefined);
      await documents.close().catch(() => undefined);
    }
  }

  /** What the page holds, as far as the pipeline got: the answer, the text, the pictures, the links' fates. */
  #fill(report: TestUrlReport, page: PageInProgress, textLines: number): void {
    if (page.fetched) {
      const r = page.result;
      report.fetch = {
        status: r.status,
        contentType: r.contentType,
        bytes: r.body.length,
        elapsedMs: Math.round(r.elapsedMs),
        ...(r.headers.location ? { location: r.headers.location } : {}),
      };
    }
    if (page.extracted) {
      const content = page.content;
      report.title = content.title || null;
      report.textChars = content.text.length;
      report.text = content.text
        .split(/\n+/)
        .map((l) => l.trim())
        .filter(Boolean)
        .slice(0, textLines);
      report.pictures = (content.images ?? []).map((i) => ({ url: i.url, alt: i.alt, source: i.source }));
    }
    report.links = linksOf(page);
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

/** The page whole, as far as the pipeline got. */
function pageOf(page: PageInProgress): TestUrlPage {
  const r = page.fetched ? page.result : undefined;
  const c = page.extracted ? page.content : undefined;
  return {
    body: r ? (r.text ?? decodeBody(r.body, r.contentType).text) : '',
    contentType: r?.contentType ?? '',
    headers: r ? { ...r.headers } : {},
    description: c?.description ?? '',
    lang: c?.lang ?? '',
    canonical: c?.canonical ?? null,
    links: c ? [...new Set(c.links.map((l) => l.url))] : [],
    images: c ? [...new Set((c.images ?? []).map((i) => i.url))] : [],
  };
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
