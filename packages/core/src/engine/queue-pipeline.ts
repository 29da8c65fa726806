import { defaultCatalogSettings } from '../config.js';
import type { FrontierEntry } from '../frontier/frontier.js';
import {
  createPrioritizer,
  frontierPriority,
  type Prioritizer,
  type ReferringPage,
  type SitemapFacts,
} from '../frontier/prioritizer.js';
import type { Outcome } from '../outcomes.js';
import { foundAs, writtenForm } from '../url/found-as.js';
import { normalizeUrl } from '../url/normalize.js';
import type { CrawlEngineDeps } from './engine-deps.js';
import { TrapBudget, trapRefusal } from './trap-budget.js';

/** A link an acceptor refused: counted once per run, at the commit of the page that offered it. */
export interface Refusal {
  url: string;
  outcome: Outcome;
  acceptor: string;
  reason: string;
  /** The depth it was offered at, and the page that linked to it (the url ledger records both). */
  depth?: number | undefined;
  referrer?: string | undefined;
  /** The link as written, when normalisation changed it (see FrontierEntry.foundAs). */
  foundAs?: string | undefined;
  /** A trap refusal: the pattern whose `trapPatternUrls` budget is spent (the run report names it). */
  pattern?: string | undefined;
}

/**
 * A link offered with the form it was written in, when normalisation changed it (an extracted link's `foundAs`);
 * a plain string is a url as written (or, offered `normalized`, a url already in its normal form).
 */
export interface OfferedLink {
  url: string;
  foundAs?: string | undefined;
  /** The link's text (the prioritizer reads it). */
  text?: string | undefined;
}

/** Links a page offers: the accepted ones go to the frontier at commit; refused ones are counted there. */
export interface Offer {
  accepted: FrontierEntry[];
  refused: Refusal[];
  /** Urls a sitemap listed: they do not trigger sitemap resolution of their host (seed 002). */
  fromSitemap?: boolean | undefined;
}

/** What a batch of offers comes to at commit: the urls to put on the frontier, and the refusals to count. */
export interface SettledOffers {
  puts: FrontierEntry[];
  refused: Refusal[];
}

/** A redirect target carries its chain (see FrontierEntry.redirects). */
export interface RedirectHop {
  redirects: number;
  redirectChain: string[];
}

const MAX_OFFERED = 2_000_000;
const MAX_REFUSED = 1_000_000;

/**
 * The queue pipeline (seed 002): a link earns its place in the queue here — normalise (unless the content extractor
 * already did; the catalog's own session parameters are dropped either way), collapse repeats, run the acceptors
 * (first refusal wins). Nothing is written and nothing is marked: at commit, {@link settle} runs the host's trap
 * budget over the urls offered for the first time, and the committer puts the accepted links and counts the refused
 * ones together with the page that offered them. An offer that is never settled (the links of a page dropped as a
 * duplicate) leaves no trace.
 */
export class QueuePipeline {
  readonly #d: QueueDeps;
  /** Scores each url accepted (seed 003): its frontier priority, and the parts the ledger keeps. */
  readonly #prioritizer: Prioritizer;
  /** What the sitemaps read in this run say of a url. */
  readonly #sitemapFacts: ((url: string) => SitemapFacts | undefined) | undefined;
  /** The host's trap budget (trap-budget.ts): checked at settle, and by the document pipeline's `trap` stage. */
  readonly traps: TrapBudget;
  /** The catalog's `sessionParams`, lower case; undefined when it names none. */
  readonly #sessionParams: ReadonlySet<string> | undefined;
  /**
   * Urls offered during this run (accepted ones): a cache in front of the frontier's own "queued during this run",
   * so a link that appears on every page (navigation) costs one Set lookup instead of acceptors and a store read.
   */
  readonly #offered = new Set<string>();
  /** Urls refused during this run: each is counted once. */
  readonly #refused = new Set<string>();

  /** First contact with a host (sitemap resolution): told of each url put, unless a sitemap listed it. */
  readonly #contact: ((url: string) => void) | undefined;

  constructor(
    deps: QueueDeps,
    contact?: (url: string) => void,
    sitemapFacts?: (url: string) => SitemapFacts | undefined,
  ) {
    this.#d = deps;
    this.#contact = contact;
    this.#sitemapFacts = sitemapFacts;
    this.#prioritizer =
      deps.prioritizer ??
      createPrioritizer(deps.catalog?.settings.priorityWeights ?? defaultCatalogSettings.priorityWeights);
    const s = deps.catalog?.settings;
    const extra = (s?.sessionParams ?? []).map((p) => p.trim().toLowerCase()).filter(Boolean);
    this.#sessionParams = extra.length > 0 ? new Set(extra) : undefined;
    this.traps = new TrapBudget(() => ({
      trapDuplicates: deps.catalog?.settings.trapDuplicates ?? defaultCatalogSettings.trapDuplicates,
      trapPatternUrls: deps.catalog?.settings.trapPatternUrls ?? defaultCatalogSettings.trapPatternUrls,
    }));
  }

  /**
   * The normal form of a link (normalised unless `normalized`), without the catalog's own session parameters;
   * undefined when it is not crawlable.
   */
  canonical(raw: string, base: string | undefined, normalized = false): string | undefined {
    const url = normalized ? raw : this.#d.normalize(raw, base);
    // A file url has no query, and a `;` in a file name is part of the name: no session parameters to drop.
    if (!url || !this.#sessionParams || url.startsWith('file:') || (!url.includes('?') && !url.includes(';'))) {
      return url;
    }
    return normalizeUrl(url, undefined, { sessionParams: this.#sessionParams });
  }

  /**
   * Links found at `depth` on `referrer`; a negative priority queues them first (seeds, redirect targets: the
   * frontier's lane 0), any other is replaced by the prioritizer's score of each url (its front queue), read from the
   * url, the link's text, the referring page (`from`) and what the sitemaps say of it. A redirect target is offered
   * with its `hop`: how many redirects led to it and the chain's urls. A url written otherwise than its normal form
   * carries that form (`foundAs`, the first of the offer's links to it).
   */
  async offer(
    rawUrls: ReadonlyArray<string | OfferedLink>,
    depth: number,
    referrer: string | undefined,
    priority = 0,
    normalized = false,
    hop?: RedirectHop,
    from?: ReferringPage,
  ): Promise<Offer> {
    const d = this.#d;
    /** Each url once, with the form its first link was written in (undefined when that was its normal form). */
    const unique = new Map<string, { written: string | undefined; text: string | undefined }>();
    for (const link of rawUrls) {
      const raw = typeof link === 'string' ? link : link.url;
      const url = this.canonical(raw, referrer, normalized);
      if (!url || unique.has(url) || this.#offered.has(url) || this.#refused.has(url)) continue;
      const text = typeof link === 'string' ? undefined : link.text;
      unique.set(url, { written: foundAs(writtenAs(link, referrer, normalized), url), text });
    }
    const offer: Offer = { accepted: [], refused: [] };
    for (const [url, { written, text }] of unique) {
      const verdict = await d.acceptors.check({ url, depth, referrer });
      if (verdict.accept) {
        const entry: FrontierEntry = { url, depth, referrer, priority: 0 };
        if (priority >= 0) {
          const rank = this.#prioritizer.prioritize({
            url,
            depth,
            anchor: text,
            referrer: from,
            sitemap: this.#sitemapFacts?.(url),
          });
          entry.priority = frontierPriority(rank);
          entry.rank = rank;
        }
        if (hop) {
          entry.redirects = hop.redirects;
          entry.redirectChain = hop.redirectChain;
        }
        if (written !== undefined) entry.foundAs = written;
        offer.accepted.push(entry);
      } else {
        offer.refused.push({
          url,
          outcome: verdict.outcome as Outcome,
          acceptor: verdict.acceptor,
          reason: verdict.reason,
          depth,
          referrer,
          ...(written !== undefined ? { foundAs: written } : {}),
        });
      }
    }
    return offer;
  }

  /**
   * What this run made of a url so far: `offered` (accepted and put, or about to be), `refused` (an acceptor said
   * no), or undefined (not offered yet, or past the caches' size).
   */
  seen(url: string): 'offered' | 'refused' | undefined {
    if (this.#offered.has(url)) return 'offered';
    return this.#refused.has(url) ? 'refused' : undefined;
  }

  /** A url the interrupted run refused (resume reads them back from the journal); false once the cache is full. */
  rememberRefused(url: string): boolean {
    if (this.#refused.size >= MAX_REFUSED) return false;
    this.#refused.add(url);
    return true;
  }

  /**
   * The offers of one commit: each url offered for the first time this run goes through the trap budget, then is
   * marked offered (to be put) or refused (to be counted, once per run). A url already put or counted is left out
   * (past the cache's size the frontier, which does not enqueue a url twice in a run, collapses it).
   */
  settle(offers: ReadonlyArray<Offer | undefined>): SettledOffers {
    const puts: FrontierEntry[] = [];
    const refused: Refusal[] = [];
    const refuse = (r: Refusal) => {
      if (this.#refused.has(r.url) || this.#offered.has(r.url)) return;
      if (this.#refused.size < MAX_REFUSED) this.#refused.add(r.url);
      refused.push(r);
    };
    for (const offer of offers) {
      for (const entry of offer?.accepted ?? []) {
        // Put by an earlier offer (of this commit or before), or counted as refused.
        if (this.#offered.has(entry.url) || this.#refused.has(entry.url)) continue;
        const trap = this.traps.admit(entry);
        if (trap) {
          refuse({
            ...trapRefusal(entry.url, trap),
            depth: entry.depth,
            referrer: entry.referrer,
            foundAs: entry.foundAs,
          });
          continue;
        }
        if (this.#offered.size < MAX_OFFERED) this.#offered.add(entry.url);
        puts.push(entry);
        if (!offer?.fromSitemap) this.#contact?.(entry.url);
      }
      for (const r of offer?.refused ?? []) refuse(r);
    }
    return { puts, refused };
  }
}

/** What the queue pipeline works with: the acceptors, url normalisation, the catalog and its prioritizer. */
type QueueDeps = Pick<CrawlEngineDeps, 'acceptors' | 'normalize' | 'prioritizer'> & {
  catalog?: CrawlEngineDeps['catalog'];
};

/**
 * The form a link was written in: an extracted link's `foundAs` (else its url, in normal form but for the catalog's
 * own session parameters); a plain string offered `normalized` as it is, else made absolute against `referrer`.
 */
function writtenAs(link: string | OfferedLink, referrer: string | undefined, normalized: boolean): string | undefined {
  if (typeof link !== 'string') return link.foundAs ?? link.url;
  return normalized ? link : writtenForm(link, referrer);
}
