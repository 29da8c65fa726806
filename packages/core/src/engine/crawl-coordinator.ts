import type { CrawlFrontier, FrontierEntry, LeasedEntry } from '../frontier/frontier.js';

/** What a page's outcome commits along with the links it dispatches. */
export interface DispatchCommit {
  /** Leases of the urls handled, acknowledged in the same write as the links. */
  acks: LeasedEntry[];
  /** The run's counters after this batch, given which entries were enqueued. */
  checkpoint?: (enqueued: boolean[]) => string;
}

/**
 * The two questions distribution asks: where does the next hop go, and is the crawl finished.
 * One process is a cluster of one: the local answer is "the local frontier" and "when it is empty and
 * nothing is in flight", so a cluster plugs in here without a second code path.
 */
export interface CrawlCoordinator {
  /** Send urls to whichever frontier owns them; one boolean per entry: did it enqueue. */
  dispatch(entries: FrontierEntry[], commit?: DispatchCommit): Promise<boolean[]>;
  /** Is the crawl finished? `active` = pages this node is handling now. */
  isFinished(local: { active: number }): Promise<boolean>;
}

export class LocalCrawlCoordinator implements CrawlCoordinator {
  readonly #frontier: CrawlFrontier;
  constructor(frontier: CrawlFrontier) {
    this.#frontier = frontier;
  }
  dispatch(entries: FrontierEntry[], commit: DispatchCommit = { acks: [] }): Promise<boolean[]> {
    return this.#frontier.commit({ puts: entries, acks: commit.acks, checkpoint: commit.checkpoint });
  }
  async isFinished(local: { active: number }): Promise<boolean> {
    return local.active === 0 && this.#frontier.inFlight() === 0 && (await this.#frontier.size()) === 0;
  }
}
