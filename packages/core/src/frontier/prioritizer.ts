/** The parts a url's priority is weighed from (seed 003's prioritizer), in the order the setting names them. */
export const PRIORITY_PARTS = ['depth', 'type', 'freshness', 'quality', 'sitemap'] as const;
export type PriorityPart = (typeof PRIORITY_PARTS)[number];

/** The weight of each part (the catalog setting `priorityWeights`, `--priority-weights depth=1,type=1,…`). */
export type PriorityWeights = Record<PriorityPart, number>;

/** Every part weighed alike. */
export const DEFAULT_PRIORITY_WEIGHTS: Readonly<PriorityWeights> = Object.freeze({
  depth: 1,
  type: 1,
  freshness: 1,
  quality: 1,
  sitemap: 1,
});

/** The front queues of the frontier: queue 0 is served most often (see front-queues.ts). */
export const FRONT_QUEUES = 8;

/** The page a link was found on, as far as the crawl measured it. */
export interface ReferringPage {
  /** Characters of its article text (navigation left out). */
  textLength: number;
  /** Anchor text over all text of the page, 0 to 1. */
  linkDensity: number;
}

/** What the sitemaps of its host say of a url. */
export interface SitemapFacts {
  /** `<priority>`, 0 to 1. */
  priority?: number | undefined;
  lastmod?: string | undefined;
  changefreq?: string | undefined;
}

/** What is known of a url when it is offered to the frontier. */
export interface PriorityInput {
  url: string;
  /** Links from the start url. */
  depth: number;
  /** The link's text; undefined when it was not found through a link (a sitemap). */
  anchor?: string | undefined;
  /** The page that linked it; undefined for a sitemap's url. */
  referrer?: ReferringPage | undefined;
  /** What its host's sitemaps say of it, when they list it. */
  sitemap?: SitemapFacts | undefined;
}

/** A url's priority: the score, the front queue it goes to, and the parts it was weighed from. */
export interface UrlPriority {
  /** 0 (last) to 1 (first): the weighted mean of the parts. */
  score: number;
  /** The front queue, 0 (the highest) to FRONT_QUEUES - 1. */
  queue: number;
  /** Each part from 0 to 1. */
  parts: Record<PriorityPart, number>;
}

/** The Prioritizer seam: a pure score per url. Replace it with `components.prioritizer`. */
export interface Prioritizer {
  readonly name: string;
  prioritize(input: PriorityInput): UrlPriority;
}

/** Options of {@link createPrioritizer}. */
export interface PrioritizerOptions {
  /** The clock a sitemap `lastmod` is aged against. @default Date.now */
  now?: (() => number) | undefined;
}

/** What a part is when nothing is known of it: the middle, so it neither lifts nor lowers a url. */
const UNKNOWN = 0.5;
const DAY = 86_400_000;

/** Path segments of listings, pagination, tags, archives and searches. */
const LISTING_SEGMENT =
  /^(?:tags?|categor(?:y|ies)|archives?|search|page|pages|label|labels|authors?|topics?|feeds?|index|genindex(?:-.*)?|py-modindex|modindex|contents|toc|sitemap|list|all)$/;
/** Query parameters of listings: pagination, sorting, filters, searches. */
const LISTING_PARAM =
  /[?&](?:page|p|paged|offset|start|sort|order|orderby|filter|q|query|s|search|tag|category|cat|archive)=/i;
/** Anchors of pagination and navigation: next, older, page 3, a lone number or arrow. */
const PAGING_ANCHOR =
  /^(?:[«‹<←]\s*)?(?:next|previous|prev|older|newer|more|first|last|back|up|home|top|page\s*\d+|\d+|[«»‹›<>←→↑]+|.{1})(?:\s*(?:page|posts|entries|»|›|→))?$/i;
const CHANGEFREQ: Record<string, number> = {
  always: 1,
  hourly: 0.95,
  daily: 0.85,
  weekly: 0.7,
  monthly: 0.5,
  yearly: 0.3,
  never: 0.1,
};

const clamp01 = (n: number) => (Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : UNKNOWN);

/**
 * Depth: 1 at the start url, halving by the first link and falling slowly after: 1 / (1 + depth).
 */
export function depthPart(depth: number): number {
  return 1 / (1 + Math.max(0, depth));
}

/** The url's shape: 0.1 a listing (tag, archive, search, pagination, an index), 0.3 a folder, 0.9 a named page. */
export function shapeOf(url: string): number {
  let path: string;
  try {
    const u = new URL(url);
    if (LISTING_PARAM.test(u.search)) return 0.1;
    path = u.pathname;
  } catch {
    return UNKNOWN;
  }
  const segments = path.split('/').filter(Boolean);
  const names = segments.map((s) =>
    decodeSafe(s)
      .toLowerCase()
      .replace(/\.[a-z0-9]{1,5}$/, ''),
  );
  if (names.some((n) => LISTING_SEGMENT.test(n))) return 0.1;
  // A date archive (/2024/ or /2024/05/) and a page number (/page/3, /blog/2).
  const last = names.at(-1);
  if (last !== undefined && /^\d{1,4}$/.test(last)) return 0.1;
  if (path.endsWith('/') || last === undefined) return 0.3;
  return 0.9;
}

/**
 * The link's text: 0.1 for pagination and navigation (next, a number, an arrow), 0.4 when there is none (a picture),
 * then by words: one 0.5, two or three 0.7, four or more 0.9.
 */
export function anchorOf(anchor: string | undefined): number {
  if (anchor === undefined) return UNKNOWN;
  const text = anchor.replace(/\s+/g, ' ').trim();
  if (text === '') return 0.4;
  if (PAGING_ANCHOR.test(text)) return 0.1;
  const words = text.split(' ').filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
  return words >= 4 ? 0.9 : words >= 2 ? 0.7 : 0.5;
}

/**
 * Page type: detail pages above listings, pagination, tag, archive and search pages. The url's shape counts 0.6,
 * the anchor 0.4; a link with a title for its text (two words or more) on a page that is mostly links (a listing's
 * entries) gains 0.1.
 */
export function typePart(url: string, anchor: string | undefined, referrer: ReferringPage | undefined): number {
  const a = anchorOf(anchor);
  const entry = referrer !== undefined && referrer.linkDensity > 0.5 && a >= 0.7 ? 0.1 : 0;
  return clamp01(0.6 * shapeOf(url) + 0.4 * a + entry);
}

/**
 * Freshness from the sitemap: a `lastmod` ages from 1 (today) over a month to 0.5 and on (1 / (1 + days / 30)); else
 * `changefreq` (always 1 … never 0.1); else unknown (0.5). How often a page held changed is not known here yet.
 */
export function freshnessPart(sitemap: SitemapFacts | undefined, now: number): number {
  const lastmod = sitemap?.lastmod ? Date.parse(sitemap.lastmod) : Number.NaN;
  if (!Number.isNaN(lastmod)) return clamp01(1 / (1 + Math.max(0, now - lastmod) / DAY / 30));
  const freq = sitemap?.changefreq ? CHANGEFREQ[sitemap.changefreq.toLowerCase()] : undefined;
  return freq ?? UNKNOWN;
}

/**
 * Quality of the page that linked it: half its article's length (full at 4,000 characters), half its prose share
 * (1 − link density). Unknown (0.5) without a referring page.
 */
export function qualityPart(referrer: ReferringPage | undefined): number {
  if (!referrer) return UNKNOWN;
  return clamp01(0.5 * Math.min(1, referrer.textLength / 4000) + 0.5 * (1 - clamp01(referrer.linkDensity)));
}

/** The sitemap's `<priority>` (0 to 1); 0.5, the protocol's default, when the sitemap gives none. */
export function sitemapPart(sitemap: SitemapFacts | undefined): number {
  const p = sitemap?.priority;
  return p === undefined || !Number.isFinite(p) ? UNKNOWN : clamp01(p);
}

/** The front queue of a score: the best eighth goes to queue 0, the worst to the last. */
export function queueOf(score: number): number {
  return Math.min(FRONT_QUEUES - 1, Math.max(0, Math.floor((1 - clamp01(score)) * FRONT_QUEUES)));
}

/**
 * The frontier's number for a priority (lower is sooner): 1 + (1 − score) × FRONT_QUEUES, so its whole part is the
 * front queue's lane (1 + queue; 0 is the lane of start urls and redirect targets) and, within a queue, a better
 * score comes first.
 */
export function frontierPriority(p: Pick<UrlPriority, 'score' | 'queue'>): number {
  const n = 1 + (1 - clamp01(p.score)) * FRONT_QUEUES;
  // A score of exactly 0 stays in the last queue's lane.
  return Math.min(n, 1 + p.queue + 0.999_999);
}

/** The weighted mean of the parts; with every weight 0 each url scores the middle (the queue is first in, first out). */
export function weigh(parts: Record<PriorityPart, number>, weights: PriorityWeights): number {
  let sum = 0;
  let total = 0;
  for (const name of PRIORITY_PARTS) {
    const w = weights[name];
    sum += w * parts[name];
    total += w;
  }
  return total > 0 ? sum / total : UNKNOWN;
}

/** The default Prioritizer: the five parts above, weighed by the catalog's `priorityWeights`. */
export function createPrioritizer(
  weights: Readonly<PriorityWeights> = DEFAULT_PRIORITY_WEIGHTS,
  options: PrioritizerOptions = {},
): Prioritizer {
  const now = options.now ?? Date.now;
  const w = { ...DEFAULT_PRIORITY_WEIGHTS, ...weights };
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return {
    name: 'weighted',
    prioritize(input) {
      const parts: Record<PriorityPart, number> = {
        depth: round(depthPart(input.depth)),
        type: round(typePart(input.url, input.anchor, input.referrer)),
        freshness: round(freshnessPart(input.sitemap, now())),
        quality: round(qualityPart(input.referrer)),
        sitemap: round(sitemapPart(input.sitemap)),
      };
      const score = round(weigh(parts, w));
      return { score, queue: queueOf(score), parts };
    },
  };
}

function decodeSafe(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
