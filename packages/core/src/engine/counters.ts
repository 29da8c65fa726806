import { Outcome } from '../outcomes.js';

/** Which report bucket each outcome falls into. */
const BUCKET: Record<
  Outcome,
  | 'saved'
  | 'alreadySeen'
  | 'filtered'
  | 'unreachable'
  | 'duplicateContent'
  | 'failures'
  | 'abandoned'
  | 'unmodified'
  | 'redirected'
> = {
  SAVED: 'saved',
  REJECTED_FILTER: 'filtered',
  REJECTED_ROBOTS_TXT: 'filtered',
  REJECTED_TOO_DEEP: 'filtered',
  REJECTED_OUT_OF_SCOPE: 'filtered',
  REJECTED_ASSET: 'filtered',
  REJECTED_NOT_MARKUP: 'filtered',
  REJECTED_ROBOTS_META_NOINDEX: 'filtered',
  REJECTED_REDIRECT: 'redirected',
  REJECTED_KNOWN: 'alreadySeen',
  REJECTED_DUPLICATE: 'duplicateContent',
  REJECTED_NOTFOUND: 'unreachable',
  REJECTED_UNREACHABLE: 'unreachable',
  REJECTED_BAD_STATUS: 'failures',
  REJECTED_TOO_LARGE: 'failures',
  REJECTED_UNRENDERED: 'failures',
  REJECTED_ERROR: 'failures',
  REJECTED_NONCANONICAL: 'duplicateContent',
  REJECTED_PREMATURE: 'unmodified',
  REJECTED_IMPORT: 'failures',
  LISTED: 'redirected',
  REJECTED_TRAP: 'filtered',
  REJECTED_TOO_MANY_REDIRECTS: 'failures',
  REJECTED_REDIRECT_LOOP: 'redirected',
  REJECTED_BAD_IMAGE: 'failures',
  REJECTED_UNMODIFIED: 'unmodified',
  REJECTED_ABANDONED: 'abandoned',
  // Never a url of the run's frontier (an orphan is removed at the session's end): counted in report.orphans.
  REJECTED_ORPHAN: 'filtered',
};

export interface CounterSnapshot {
  dispatched: number;
  handled: number;
  saved: number;
  images: number;
  indexed: number;
  vectored: number;
  alreadySeen: number;
  filtered: number;
  unreachable: number;
  duplicateContent: number;
  failures: number;
  abandoned: number;
  unmodified: number;
  redirected: number;
  consecutiveFailures: number;
  /** Each REJECTED_* (and filtered by acceptor, as `REJECTED_FILTER:<acceptor>`) with its count. */
  rejected: Record<string, number>;
  /** The first url of each rejected key and why, so a report says where urls went, not only how many. */
  examples: Record<string, string>;
  /**
   * Pictures are not urls of the frontier: the ones not kept are counted here, never in the url counters (kept
   * pictures are `images`). Keys as for urls: `REJECTED_BAD_IMAGE:truncated`, `REJECTED_TOO_LARGE`, …
   */
  pictures: { rejected: Record<string, number>; examples: Record<string, string> };
  /** Pages whose bytes were not valid in their charset and were decoded with another (windows-1252 or utf-8). */
  charsetFallbacks: number;
  /** Pages the browser rendered, by the reason each was rendered for (`empty-mount`, `noscript`, `mostly-scripts`, `always`). */
  rendered: Record<string, number>;
  /**
   * What the flow noticed besides outcomes, by key: `documents:<parser>` (documents saved), `canonical-outside` (a
   * page naming a canonical url outside the catalog: recorded, not followed, the page kept), … with a first example.
   */
  noted: Record<string, number>;
  notedExamples: Record<string, string>;
  elapsedMs: number;
}

/** Where the pictures that are not kept are counted (see {@link Counters.pictureRejected}). */
export interface PictureTally {
  pictureRejected(outcome: Outcome, detail: string | undefined, example: string): void;
}

const BUCKET_NAMES = [
  'saved',
  'alreadySeen',
  'filtered',
  'unreachable',
  'duplicateContent',
  'failures',
  'abandoned',
  'unmodified',
  'redirected',
] as const;

/** The run's counters: every url dispatched is handled exactly once, under one outcome. */
export class Counters implements PictureTally {
  dispatched = 0;
  handled = 0;
  images = 0;
  indexed = 0;
  vectored = 0;
  consecutiveFailures = 0;
  readonly #buckets = {
    saved: 0,
    alreadySeen: 0,
    filtered: 0,
    unreachable: 0,
    duplicateContent: 0,
    failures: 0,
    abandoned: 0,
    unmodified: 0,
    redirected: 0,
  };
  readonly rejected: Record<string, number> = {};
  readonly examples: Record<string, string> = {};
  readonly pictures = { rejected: {} as Record<string, number>, examples: {} as Record<string, string> };
  charsetFallbacks = 0;
  readonly rendered: Record<string, number> = {};
  readonly noted: Record<string, number> = {};
  readonly notedExamples: Record<string, string> = {};
  readonly #start: number;

  constructor(start = Date.now(), base?: Partial<CounterSnapshot>) {
    this.#start = start;
    if (base) this.restore(base);
  }

  get saved(): number {
    return this.#buckets.saved;
  }

  /**
   * One url reached its outcome. `detail` names the acceptor for REJECTED_FILTER-like drops; `refused`: an acceptor
   * refused it, no request was made, so it is never a failure in a row of the site.
   */
  handle(outcome: Outcome, detail?: string, example?: string, refused = false): void {
    this.handled++;
    const bucket = BUCKET[outcome];
    this.#buckets[bucket]++;
    if (outcome !== Outcome.SAVED) {
      const key = detail ? `${outcome}:${detail}` : outcome;
      this.rejected[key] = (this.rejected[key] ?? 0) + 1;
      if (example !== undefined && this.examples[key] === undefined) this.examples[key] = example.slice(0, 500);
    }
    if (refused) return;
    if (bucket === 'failures' || outcome === Outcome.REJECTED_UNREACHABLE) this.consecutiveFailures++;
    else if (outcome === Outcome.SAVED || bucket === 'unmodified' || bucket === 'duplicateContent')
      this.consecutiveFailures = 0;
  }

  /** A picture fetched for a page and not kept: counted apart from the urls (dispatched = handled still holds). */
  pictureRejected(outcome: Outcome, detail: string | undefined, example: string): void {
    const key = detail ? `${outcome}:${detail}` : outcome;
    const p = this.pictures;
    p.rejected[key] = (p.rejected[key] ?? 0) + 1;
    if (p.examples[key] === undefined) p.examples[key] = example.slice(0, 500);
  }

  /** A page's bytes were not valid in its charset; it was decoded with `charsetFallback` instead. */
  charsetFallback(): void {
    this.charsetFallbacks++;
  }

  /** The browser rendered a page, for `reason` (whether it then rendered or stayed a shell). */
  render(reason: string): void {
    this.rendered[reason] = (this.rendered[reason] ?? 0) + 1;
  }

  /** Something the flow noticed (see CounterSnapshot.noted). */
  note(key: string, example?: string): void {
    this.noted[key] = (this.noted[key] ?? 0) + 1;
    if (example !== undefined && this.notedExamples[key] === undefined) this.notedExamples[key] = example.slice(0, 500);
  }

  /**
   * The run ended before this url could be handled (a limit was reached while it was in flight). It is not
   * handled: its lease stays on the frontier and it counts as outstanding.
   */
  abandon(): void {
    this.#buckets.abandoned++;
  }

  /** Continue the counters of an interrupted run (resume). */
  restore(base: Partial<CounterSnapshot>): void {
    this.dispatched = base.dispatched ?? 0;
    this.handled = base.handled ?? 0;
    this.images = base.images ?? 0;
    this.indexed = base.indexed ?? 0;
    this.vectored = base.vectored ?? 0;
    for (const k of BUCKET_NAMES) this.#buckets[k] = base[k] ?? 0;
    Object.assign(this.rejected, base.rejected ?? {});
    Object.assign(this.examples, base.examples ?? {});
    Object.assign(this.pictures.rejected, base.pictures?.rejected ?? {});
    Object.assign(this.pictures.examples, base.pictures?.examples ?? {});
    this.charsetFallbacks = base.charsetFallbacks ?? 0;
    Object.assign(this.rendered, base.rendered ?? {});
    Object.assign(this.noted, base.noted ?? {});
    Object.assign(this.notedExamples, base.notedExamples ?? {});
  }

  snapshot(): CounterSnapshot {
    return {
      dispatched: this.dispatched,
      handled: this.handled,
      images: this.images,
      indexed: this.indexed,
      vectored: this.vectored,
      ...this.#buckets,
      consecutiveFailures: this.consecutiveFailures,
      rejected: { ...this.rejected },
      examples: { ...this.examples },
      pictures: { rejected: { ...this.pictures.rejected }, examples: { ...this.pictures.examples } },
      charsetFallbacks: this.charsetFallbacks,
      rendered: { ...this.rendered },
      noted: { ...this.noted },
      notedExamples: { ...this.notedExamples },
      elapsedMs: Date.now() - this.#start,
    };
  }
}
