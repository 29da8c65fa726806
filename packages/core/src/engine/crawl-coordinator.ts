import type { CrawlFrontier, FrontierCommit, FrontierEntry } from '../frontier/frontier.js';

/** What a page's outcome commits along with the links it dispatches (see FrontierCommit). */
export type DispatchCommit = Omit<FrontierCommit, 'puts'>;

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
    return this.#frontier.commit({ ...commit, puts: entries });
  }
  async isFinished(local: { active: number }): Promise<boolean> {
    return local.active === 0 && this.#frontier.inFlight() === 0 && (await this.#frontier.size()) === 0;
  }
}
