import type { Logger } from 'pino';
import { CrawlerError } from '../errors.js';
import type { Counters } from './counters.js';
import type { CrawlEngineDeps } from './engine-deps.js';
import { ledgerRows } from './ledger-rows.js';
import type { JournalChanges, OwedWrites } from './owed-writes.js';
import type { Completion } from './page.js';
import type { QueuePipeline, Refusal } from './queue-pipeline.js';
import type { StageClock } from './stage-clock.js';

type CommitterDeps = Pick<
  CrawlEngineDeps,
  'catalog' | 'version' | 'records' | 'coordinator' | 'urlFilter' | 'ledger' | 'events' | 'changes'
>;

const COMMIT_BATCH = 64;
const COMMIT_INTERVAL_MS = 200;

/** The stores the committer writes; a failure of any of them stops the run. */
const STORES = {
  records: 'the record database',
  frontier: "the frontier (the run's queue and journal)",
  urlFilter: 'the url filter',
} as const;

/**
 * The committer pipeline (seed 002), every 64 outcomes or 200 ms: rows first (with the url ledger's, so the ledger is
 * never behind the frontier); then one frontier batch holding the
 * offered links, the acks, the journal changes and the counters (the checkpoint a resume continues from); then the
 * urls are marked known. A crash between steps redoes a step — ids are deterministic — and never loses one.
 * A store failing here is the run's failure (`onFatal`), never a page's.
 */
export class Committer {
  readonly #d: CommitterDeps;
  readonly #counters: Counters;
  readonly #owed: OwedWrites;
  readonly #queue: QueuePipeline;
  readonly #clock: StageClock;
  readonly #log: Logger;
  readonly #onFatal: (err: CrawlerError) => void;
  readonly #onCommitted: () => void;
  #pending: Completion[] = [];
  #timer: NodeJS.Timeout | undefined;
  #committing: Promise<void> = Promise.resolve();

  constructor(options: {
    deps: CommitterDeps;
    counters: Counters;
    owed: OwedWrites;
    queue: QueuePipeline;
    clock: StageClock;
    log: Logger;
    /** A store could not be written: the run stops. */
    onFatal: (err: CrawlerError) => void;
    /** After every commit attempt (workers waiting for the frontier to drain look again). */
    onCommitted: () => void;
  }) {
    this.#d = options.deps;
    this.#counters = options.counters;
    this.#owed = options.owed;
    this.#queue = options.queue;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#onFatal = options.onFatal;
    this.#onCommitted = options.onCommitted;
  }

  /** Completions waiting for the next commit. */
  get pending(): number {
    return this.#pending.length;
  }

  /** Settles once every commit started so far has. */
  get settled(): Promise<void> {
    return this.#committing;
  }

  /** One handled url (or the seeds' offer): committed with the next batch. */
  add(c: Completion): void {
    this.#pending.push(c);
    if (this.#pending.length >= COMMIT_BATCH) void this.commit();
    else if (!this.#timer) this.#timer = setTimeout(() => void this.commit(), COMMIT_INTERVAL_MS);
  }

  /** Something besides completions waits to be journaled (a layer's durability report): commit within 200 ms. */
  soon(): void {
    if (!this.#timer && this.#pending.length === 0)
      this.#timer = setTimeout(() => void this.commit(), COMMIT_INTERVAL_MS);
  }

  /** Commit what is pending now; resolves (never rejects) when it is done, or has failed and stopped the run. */
  commit(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const batch = this.#pending;
    this.#pending = [];
    const durable = this.#owed.takeDurable();
    if (batch.length === 0 && durable.length === 0) return this.#committing;
    this.#committing = this.#committing.then(async () => {
      const started = performance.now();
      try {
        await this.#write(batch, durable);
      } catch (err) {
        const failure = named.has(err as object) ? (err as CrawlerError) : committerFailure(err);
        this.#log.error({ err }, 'cannot record crawled pages; stopping');
        this.#onFatal(failure);
      } finally {
        this.#clock.add('commit', performance.now() - started);
        this.#onCommitted();
      }
    });
    return this.#committing;
  }

  async #write(batch: Completion[], durable: ReturnType<OwedWrites['takeDurable']>): Promise<void> {
    const d = this.#d;
    const counters = this.#counters;
    const resources = batch.flatMap((c) => (c.resource ? [c.resource] : []));
    const images = batch.flatMap((c) => c.images ?? []);
    const links = batch.flatMap((c) => c.links ?? []);
    // The trap budget runs here, over the urls offered for the first time: only offers that are committed count.
    // In memory only: settled before the records, so the ledger rows of the puts and refusals go with them.
    const { puts, refused } = this.#queue.settle(batch.map((c) => c.offer));
    const ledger = d.ledger ? ledgerRows(d.catalog.id, d.version, batch, puts, refused) : [];
    // The run's change set so far, journaled before the rows that make it true (a resume restores it).
    if (d.changes) await writeTo('frontier', () => d.changes?.flushJournal() ?? Promise.resolve());
    await writeTo('records', async () => {
      if (resources.length > 0) await d.records.saveResources(resources);
      if (images.length > 0) await d.records.saveImages(images);
      if (links.length > 0) await d.records.saveResourceImages(links);
      if (ledger.length > 0) await d.ledger?.record(ledger);
    });

    const journal: JournalChanges = { put: [], del: [] };
    // Refused urls are counted once per run, and the trap budgets go on: a resumed run reads both back.
    for (const r of refused) journal.put.push([`refused:${r.url}`, '']);
    journal.put.push(...this.#queue.traps.drain());
    const leases = batch.flatMap((c) => (c.lease ? [c.lease] : []));
    const written = this.#owed.settle(
      resources.map((r) => r.id),
      durable,
      journal,
    );
    await writeTo('frontier', () =>
      d.coordinator.dispatch(puts, {
        acks: leases,
        journal,
        checkpoint: (enqueued) => {
          for (const w of written) {
            if (!w.ok) continue;
            if (w.layer === 'index') counters.indexed++;
            if (w.layer === 'vector') counters.vectored++;
          }
          for (const e of enqueued) if (e) counters.dispatched++;
          for (const r of refused) {
            counters.dispatched++;
            counters.handle(r.outcome, r.acceptor, `${r.url}: ${r.reason}`, true);
            if (r.pattern) noteTrapPattern(counters, r, d.catalog.settings.trapPatternUrls);
          }
          for (const c of batch) {
            if (c.outcome) counters.handle(c.outcome, c.detail, `${c.lease?.url ?? ''}${c.why ? `: ${c.why}` : ''}`);
            counters.images += c.newImages ?? 0;
          }
          return JSON.stringify(counters.snapshot());
        },
      }),
    );
    if (d.events?.listened) emitOutcomes(d, batch, refused);
    const hashes = batch.flatMap((c) => (c.hash && c.lease ? [c.hash] : []));
    if (hashes.length > 0) await writeTo('urlFilter', () => d.urlFilter.markAll(d.catalog.id, d.version, hashes));
  }
}

/** Trap patterns the run report names one by one; past it they are counted together. */
const NAMED_TRAP_PATTERNS = 20;

/**
 * A pattern whose `trapPatternUrls` budget is spent (a pagination longer than the budget, or a real trap): the run
 * report's `flow.noted` names it, with the urls refused and the setting to raise when they are real pages.
 */
function noteTrapPattern(counters: Counters, r: Refusal, budget: number): void {
  let key = `trap-pattern ${r.pattern}`;
  if (counters.noted[key] === undefined) {
    const named = Object.keys(counters.noted).filter((k) => k.startsWith('trap-pattern ')).length;
    if (named >= NAMED_TRAP_PATTERNS) key = 'trap-pattern (others)';
  }
  counters.note(
    key,
    `${r.acceptor}: ${budget} urls of it were taken and the rest refused, first ${r.url} — if they are real pages ` +
      `(a long pagination), raise --trap-pattern-urls (the catalog's trapPatternUrls, now ${budget})`,
  );
}

/** Every url's outcome, once it is committed: the events a listener hears (seed 002, "Rejection outcomes"). */
function emitOutcomes(d: CommitterDeps, batch: readonly Completion[], refused: readonly Refusal[]): void {
  const where = { catalogId: d.catalog.id, catalog: d.catalog.name, version: d.version };
  for (const r of refused) {
    d.events?.emit({ name: r.outcome, ...where, url: r.url, detail: r.acceptor, why: r.reason, referrer: r.referrer });
  }
  for (const c of batch) {
    if (!c.outcome || !c.lease) continue;
    d.events?.emit({
      name: c.outcome,
      ...where,
      url: c.lease.url,
      detail: c.detail,
      why: c.why,
      referrer: c.lease.referrer,
    });
  }
}

/** Failures already named after their store by {@link writeTo}. */
const named = new WeakSet<object>();

async function writeTo<T>(store: keyof typeof STORES, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const failure = storageFailure(store, err);
    named.add(failure);
    throw failure;
  }
}

/** Not a store: the committer itself failed between writes (a bug). The run still stops, and says so. */
function committerFailure(err: unknown): CrawlerError {
  return new CrawlerError('STORAGE', `the committer failed between two writes: ${oneLine(err)}`, {
    cause: err,
    fix: 'see the log, then run resume',
  });
}

function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, ' ').trim();
}

/** The first string `code` along an error's cause chain (SQLITE_FULL, ENOSPC, …), skipping CrawlerError codes. */
function causeCode(err: unknown): string {
  let e: unknown = err;
  for (let i = 0; i < 5 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && !(e instanceof CrawlerError)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return '';
}

const DISK_FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT', '53100']);

/**
 * A store of the committer failed: one line naming the store, what it said, and the fix. The run ends unpublished
 * and its frontier is kept, so the fix is always followed by `resume`.
 */
export function storageFailure(store: keyof typeof STORES, err: unknown): CrawlerError {
  const name = STORES[store];
  const said = oneLine(err);
  const code = causeCode(err);
  const detail = code && !said.includes(code) ? `${said} (${code})` : said;
  const full = DISK_FULL_CODES.has(code) || /disk is full|no space left/i.test(said);
  const fix =
    err instanceof CrawlerError && err.fix
      ? err.fix
      : full
        ? 'free disk space, then run resume'
        : `check that ${name} is reachable and writable, then run resume`;
  return new CrawlerError('STORAGE', `${name} could not be written: ${detail}`, { cause: err, fix });
}
