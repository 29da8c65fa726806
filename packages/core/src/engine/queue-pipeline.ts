import type { FrontierEntry } from '../frontier/frontier.js';
import type { Outcome } from '../outcomes.js';
import type { CrawlEngineDeps } from './engine-deps.js';

/** A link an acceptor refused: counted once per run, at the commit of the page that offered it. */
export interface Refusal {
  url: string;
  outcome: Outcome;
  acceptor: string;
  reason: string;
}

/** Links a page offers: the accepted ones go to the frontier at commit; refused ones are counted there. */
export interface Offer {
  accepted: FrontierEntry[];
  refused: Refusal[];
}

const MAX_OFFERED = 2_000_000;
const MAX_REFUSED = 1_000_000;

/**
 * The queue pipeline (seed 002): a link earns its place in the queue here — normalise (unless the content extractor
 * already did), collapse repeats, run the acceptors (first refusal wins). Nothing is written: the committer puts the
 * accepted links and counts the refused ones together with the page that offered them.
 */
export class QueuePipeline {
  readonly #d: Pick<CrawlEngineDeps, 'acceptors' | 'normalize'>;
  /**
   * Urls offered during this run (accepted ones): a cache in front of the frontier's own "queued during this run",
   * so a link that appears on every page (navigation) costs one Set lookup instead of acceptors and a store read.
   */
  readonly #offered = new Set<string>();
  /** Urls refused during this run: each is counted once. */
  readonly #refused = new Set<string>();

  constructor(deps: Pick<CrawlEngineDeps, 'acceptors' | 'normalize'>) {
    this.#d = deps;
  }

  /** Links found at `depth` on `referrer`; a negative priority queues them first (seeds, redirect targets). */
  async offer(
    rawUrls: string[],
    depth: number,
    referrer: string | undefined,
    priority = 0,
    normalized = false,
  ): Promise<Offer> {
    const d = this.#d;
    const unique = new Set<string>();
    for (const raw of rawUrls) {
      const url = normalized ? raw : d.normalize(raw, referrer);
      if (url && !this.#offered.has(url) && !this.#refused.has(url)) unique.add(url);
    }
    const offer: Offer = { accepted: [], refused: [] };
    for (const url of unique) {
      const verdict = await d.acceptors.check({ url, depth, referrer });
      if (verdict.accept) {
        if (this.#offered.size < MAX_OFFERED) this.#offered.add(url);
        offer.accepted.push({ url, depth, referrer, priority: priority < 0 ? 0 : priority + Math.min(depth, 100) });
      } else {
        offer.refused.push({
          url,
          outcome: verdict.outcome as Outcome,
          acceptor: verdict.acceptor,
          reason: verdict.reason,
        });
      }
    }
    return offer;
  }

  /** A url the interrupted run refused (resume reads them back from the journal); false once the cache is full. */
  rememberRefused(url: string): boolean {
    if (this.#refused.size >= MAX_REFUSED) return false;
    this.#refused.add(url);
    return true;
  }

  /** The refusals among `offers` not yet counted in this run, now marked counted. */
  firstRefusals(offers: ReadonlyArray<Offer | undefined>): Refusal[] {
    const first: Refusal[] = [];
    for (const offer of offers) {
      for (const r of offer?.refused ?? []) {
        if (this.#refused.has(r.url)) continue;
        if (this.#refused.size < MAX_REFUSED) this.#refused.add(r.url);
        first.push(r);
      }
    }
    return first;
  }
}
