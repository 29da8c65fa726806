import type { CrawlFrontier, FrontierEntry } from '../frontier/frontier.js';

/**
 * The two questions distribution asks: where does the next hop go, and is the crawl finished.
 * One process is a cluster of one: the local answer is "the local frontier" and "when it is empty and
 * nothing is in flight", so a cluster plugs in here without a second code path.
 */
export interface CrawlCoordinator {
  /** Send urls to whichever frontier owns them; one boolean per entry: did it enqueue. */
  dispatch(entries: FrontierEntry[]): Promise<boolean[]>;
  /** Is the crawl finished? `active` = pages this node is handling now. */
  isFinished(local: { active: number }): Promise<boolean>;
}

export class LocalCrawlCoordinator implements CrawlCoordinator {
  readonly #frontier: CrawlFrontier;
  constructor(frontier: CrawlFrontier) {
    this.#frontier = frontier;
  }
  dispatch(entries: FrontierEntry[]): Promise<boolean[]> {
    return this.#frontier.putAll(entries);
  }
  async isFinished(local: { active: number }): Promise<boolean> {
    return local.active === 0 && this.#frontier.inFlight() === 0 && (await this.#frontier.size()) === 0;
  }
}
