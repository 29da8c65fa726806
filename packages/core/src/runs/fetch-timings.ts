import { Histogram } from './metrics-format.js';

/** Upper bounds (seconds) of the fetch-latency buckets; +Inf is implied. */
export const FETCH_DURATION_BUCKETS: readonly number[] = Object.freeze([0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);

/** How long page fetches took, per catalog, for the life of the process (a scrape after a run still sees them). */
export class FetchTimings {
  readonly #byCatalog = new Map<string, Histogram>();

  observe(catalog: string, seconds: number): void {
    let h = this.#byCatalog.get(catalog);
    if (!h) {
      h = new Histogram(FETCH_DURATION_BUCKETS);
      this.#byCatalog.set(catalog, h);
    }
    h.observe(seconds);
  }

  /** Each catalog's histogram, by catalog name. */
  entries(): Array<[catalog: string, histogram: Histogram]> {
    return [...this.#byCatalog];
  }
}

const timings = new WeakMap<object, FetchTimings>();

/**
 * The fetch timings of one composition point (one `Greenfinger`): the run assembly feeds them, the metrics service
 * reads them. Kept beside the factory rather than on it, so two Greenfingers in one process do not mix.
 */
export function fetchTimings(owner: object): FetchTimings {
  let t = timings.get(owner);
  if (!t) {
    t = new FetchTimings();
    timings.set(owner, t);
  }
  return t;
}
