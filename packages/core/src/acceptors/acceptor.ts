import type { Catalog } from '../model.js';

/** A url offered to the crawl, already normalised. */
export interface Candidate {
  url: string;
  depth: number;
  referrer?: string | undefined;
}

export type Verdict = { accept: true } | { accept: false; acceptor: string; outcome: string; reason: string };

/**
 * One UrlPathAcceptor. The chain runs them in order; the first refusal wins.
 * Rejections are verdicts, never exceptions.
 */
export interface UrlPathAcceptor {
  readonly name: string;
  /** Domain scope and start-url prefix are mandatory and cannot be switched off. */
  readonly mandatory?: boolean;
  check(candidate: Candidate): Verdict | Promise<Verdict>;
}

/**
 * Limits of one run that may change while it runs (JobService.setDepthLimit): acceptors read them at each check
 * instead of copying them from the catalog once.
 */
export interface RunLimits {
  /** Link depth from the start url; -1 = unlimited (the catalog's `depth` when the run began). */
  depth: number;
}

export interface AcceptorContext {
  catalog: Catalog;
  /** The run's live limits; without them the catalog's settings hold for the whole run. */
  limits?: RunLimits;
  /** Fetches robots.txt (through the same HTTP client as pages). */
  robots?: RobotsProvider;
  /** Overrides for the asset check; see AssetCheckOptions in asset-check.ts. */
  assets?: { extensions?: readonly string[]; documents?: boolean };
}

export interface RobotsProvider {
  /** true when robots.txt of url's origin allows it for our user agent. */
  isAllowed(url: string): Promise<boolean>;
  /** Crawl-delay in ms for url's origin, if robots.txt gives one. */
  crawlDelayMs(url: string): Promise<number | undefined>;
  /** Sitemap urls robots.txt names for url's origin. */
  sitemaps(url: string): Promise<string[]>;
  /** Why url is refused (e.g. robots.txt itself could not be fetched), for reports. */
  reason?(url: string): Promise<string>;
  /** true when url's origin did not answer for its robots.txt at all (no HTTP answer): the site is unreachable. */
  unreachable?(url: string): Promise<boolean>;
}

export type AcceptorFactory = (ctx: AcceptorContext) => UrlPathAcceptor;
