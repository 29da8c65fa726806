import type { Logger } from 'pino';
import type { ChangeSet } from '../engine/change-recorder.js';
import type { Catalog } from '../model.js';

/** A run that published, as the crawl service tells it once its change set is recorded. */
export interface PublishedRun {
  /** The catalog as the run ended (its settings: the webhooks to send to). */
  catalog: Catalog;
  version: number;
  /** The verb that published (`crawl`, `update`, `merge`, `rebuild`, `resume`). */
  action: string;
  /** The run's id: the name of its report (`<stamp>-<action>-<node>`). */
  runId: string;
  /** When the run ended (ISO). */
  publishedAt: string;
  changes: ChangeSet;
  /** A rebuild's set is its version compared with the one served before it (undefined: none was). */
  comparedWith?: number | undefined;
}

/** Told of each publishing run; must return at once (work of its own runs in the background). */
export interface PublicationListener {
  published(run: PublishedRun): void;
}

/**
 * The narrow seam between the runs and what follows a publish (alerts/webhooks): the crawl service tells it, the
 * composition point's owner (services/greenfinger.ts) adds listeners. A listener that throws is logged; the run's
 * end is never held up.
 */
export class Publications {
  readonly #listeners = new Set<PublicationListener>();
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  /** @returns the removal */
  add(listener: PublicationListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  notify(run: PublishedRun): void {
    for (const l of this.#listeners) {
      try {
        l.published(run);
      } catch (err) {
        this.#log.warn({ err, catalogId: run.catalog.id }, 'a publication listener failed');
      }
    }
  }
}
