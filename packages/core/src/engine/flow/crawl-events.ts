import type { Logger } from 'pino';
import type { Outcome } from '../../outcomes.js';

/** The seed's events: every outcome a url ends with, and the two import milestones of a document. */
export type CrawlEventName = Outcome | 'DOCUMENT_PREIMPORTED' | 'DOCUMENT_POSTIMPORTED';

/** One event: the url, where it happened, and the stage or filter responsible. */
export interface CrawlEvent {
  readonly name: CrawlEventName;
  readonly catalogId: string;
  readonly catalog: string;
  readonly version: number;
  readonly url: string;
  /** The acceptor, filter or stage responsible (the detail of the report key `OUTCOME:detail`). */
  readonly detail?: string | undefined;
  /** Why, in words. */
  readonly why?: string | undefined;
  /** The page that linked to it, for a url refused before it was queued. */
  readonly referrer?: string | undefined;
  /** DOCUMENT_PREIMPORTED / DOCUMENT_POSTIMPORTED: the document's type, and once imported its title and size. */
  readonly contentType?: string | undefined;
  readonly title?: string | undefined;
  readonly textChars?: number | undefined;
}

/** A listener: what it returns is not waited for; what it throws is logged and never fails the crawl. */
export type CrawlListener = (event: CrawlEvent) => void | Promise<void>;

/** Listen to one event by name, or to every event with `*`. */
export type CrawlEventFilter = CrawlEventName | '*';

const MAX_LISTENERS = 1000;

/**
 * The crawl's events (seed 002: "every rejection above fires an event you can listen for"). Node-wide: a library
 * user subscribes once (`gf.on(…)`, or listeners given as a component) and hears every run of the node. Emitting
 * with no listener costs one map lookup.
 */
export class CrawlEvents {
  readonly #listeners = new Map<CrawlEventFilter, Set<CrawlListener>>();
  readonly #log: Logger;
  #count = 0;

  constructor(log: Logger) {
    this.#log = log;
  }

  /** Subscribe; returns the unsubscribe. */
  on(name: CrawlEventFilter, listener: CrawlListener): () => void {
    if (this.#count >= MAX_LISTENERS) throw new Error(`more than ${MAX_LISTENERS} crawl listeners: one leaks`);
    let set = this.#listeners.get(name);
    if (!set) {
      set = new Set();
      this.#listeners.set(name, set);
    }
    if (!set.has(listener)) {
      set.add(listener);
      this.#count++;
    }
    return () => {
      if (set.delete(listener)) this.#count--;
    };
  }

  /** Whether anyone listens at all (callers skip building events otherwise). */
  get listened(): boolean {
    return this.#count > 0;
  }

  emit(event: CrawlEvent): void {
    if (this.#count === 0) return;
    for (const key of [event.name, '*'] as const) {
      for (const listener of this.#listeners.get(key) ?? []) this.#call(listener, event);
    }
  }

  #call(listener: CrawlListener, event: CrawlEvent): void {
    try {
      const r = listener(event);
      if (r && typeof (r as Promise<void>).then === 'function') {
        (r as Promise<void>).catch((err: unknown) => this.#failed(err, event));
      }
    } catch (err) {
      this.#failed(err, event);
    }
  }

  #failed(err: unknown, event: CrawlEvent): void {
    this.#log.warn({ err, event: event.name, url: event.url }, 'a crawl listener failed; the crawl goes on');
  }
}
