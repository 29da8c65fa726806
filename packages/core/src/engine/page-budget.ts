/**
 * The page limit of a run that other processes save pages of too (a cluster): every member takes a place from one
 * shared count before a page is saved, so the members together save at most `maxPages`. Without one, a run counts
 * its own pages against `maxPages`.
 */
export interface PageBudget {
  /** Take one place under the run's limit; false when none is left (the page is abandoned, as at the local limit). */
  take(): Promise<boolean>;
  /** Give a place back: the page that took it was not saved after all. */
  giveBack(): void;
}
