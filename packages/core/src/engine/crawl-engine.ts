import type { Logger } from 'pino';
import { errorMessage } from '../errors.js';
import type { HostRate } from '../fetch/host-pace.js';
import { BackQueues } from '../frontier/back-queues.js';
import type { LeasedEntry } from '../frontier/frontier.js';
import type { ChannelStats } from '../outputs/composite-output-channel.js';
import { Committer } from './committer.js';
import { type CounterSnapshot, Counters } from './counters.js';
import type { CrawlEngineDeps } from './engine-deps.js';
import { LlmsTxtIndex } from './flow/llms-txt.js';
import { SitemapResolver } from './flow/sitemap-resolver.js';
import { OwedWrites } from './owed-writes.js';
import type { PageLimit, PipelineContext } from './page.js';
import { PageImages } from './page-images.js';
import { handlePage } from './page-pipeline.js';
import { QueuePipeline } from './queue-pipeline.js';
import {
  type CrawlResult,
  type EndReason,
  type InFlightUrl,
  PUBLISHING_ENDS,
  SESSION_END_ROUNDS,
  type SeedOffer,
  type SessionEndEntry,
} from './run-result.js';
import { StageClock } from './stage-clock.js';
import { TRAP_JOURNAL_PREFIX } from './trap-budget.js';

export type { CrawlEngineDeps, KnownUrlPolicy, Politeness } from './engine-deps.js';
export type { CrawlResult, EndReason, InFlightUrl, SeedOffer, SessionEnd, SessionEndEntry } from './run-result.js';
export { PUBLISHING_ENDS, SESSION_END_ROUNDS } from './run-result.js';

/**
 * The crawl of one catalog version: the worker loop. Workers poll the frontier and run each url through the
 * document pipeline (`page-pipeline.ts`, a table of the stages in `stages/`); the committer (`committer.ts`) commits what each url
 * changes — its outcome, its counters, the links it offers, its lease — in one frontier batch, so every url
 * dispatched is handled exactly once, under a named outcome, even across a crash. Acceptors run when a link is
 * offered (`queue-pipeline.ts`), so the frontier holds only urls worth fetching.
 *
 * A page fails alone (REJECTED_ERROR, detail the stage); only a store of the committer failing stops the run.
 */
export class CrawlEngine {
  readonly counters: Counters;
  readonly #d: CrawlEngineDeps;
  readonly #log: Logger;
  readonly #clock = new StageClock();
  readonly #queue: QueuePipeline;
  readonly #sitemaps: SitemapResolver;
  readonly #images: PageImages;
  readonly #owed: OwedWrites;
  readonly #committer: Committer;
  /** Per-host back queues between the frontier's selector and the workers (seed 003; frontier/back-queues.ts). */
  readonly #back: BackQueues;
  readonly #pipeline: PipelineContext;
  #active = 0;
  /** Pages saved or about to be: the limit is checked against it, so in-flight pages cannot overshoot. */
  #reserved = 0;
  /** The run's shared page budget (a cluster's) said no: the limit is reached over every process of the run. */
  #budgetSpent = false;
  #stopReason: EndReason | undefined;
  /** The fetch is over: the run writes the vectors left (a stop now ends that, see #writeVectors). */
  #vectorPhase = false;
  /** A stop or failure during the vector phase. */
  #vectorStop: EndReason | undefined;
  #wake: Array<() => void> = [];
  #fatal: unknown;
  #recovered = 0;
  /** The entries workers are handling now, with the time each was taken (the ledger's `crawling`, never stored). */
  readonly #handling = new Map<LeasedEntry, number>();
  /** Workers polling the frontier: while any is, seeds offered are crawled by this run. */
  #live = 0;
  #markWorking!: () => void;
  /** Settles once the workers start, or the run ended before they did. */
  readonly #workingOrEnded = new Promise<void>((resolve) => {
    this.#markWorking = resolve;
  });

  constructor(deps: CrawlEngineDeps) {
    this.#d = deps;
    this.#log = deps.log.child({ component: 'engine', catalogId: deps.catalog.id, version: deps.version });
    this.counters = new Counters(Date.now());
    this.#back = BackQueues.over(deps.politeness, () => deps.frontier.poll(), deps.catalog.settings.threads * 4);
    this.#sitemaps = new SitemapResolver({
      discover: deps.catalog.settings.sitemap ? deps.sitemaps : undefined,
      offer: async (urls) => {
        if (this.#stopReason) return;
        const offer = await this.#queue.offer(urls, 1, undefined, 1);
        this.#committer.add({ offer: { ...offer, fromSitemap: true } });
        this.#committer.soon();
      },
      log: this.#log,
    });
    this.#queue = new QueuePipeline(
      deps,
      (url) => this.#sitemaps.contact(url),
      (url) => this.#sitemaps.hint(url),
    );
    this.#images = new PageImages(deps, this.#log);
    this.#owed = new OwedWrites(() => this.#committer.soon());
    this.#committer = new Committer({
      deps,
      counters: this.counters,
      owed: this.#owed,
      queue: this.#queue,
      clock: this.#clock,
      log: this.#log,
      onFatal: (err) => {
        this.#fatal ??= err;
        this.stop('error');
      },
      onCommitted: () => this.#notify(),
    });
    const limit: PageLimit = {
      reached: () => this.#limitReached(),
      reserve: async () => {
        if (this.#limitReached()) return false;
        this.#reserved++;
        if (deps.pageBudget && !(await deps.pageBudget.take())) {
          this.#reserved--;
          this.#budgetSpent = true;
          return false;
        }
        return true;
      },
      release: () => {
        this.#reserved--;
        deps.pageBudget?.giveBack();
      },
    };
    this.#pipeline = {
      deps,
      log: this.#log,
      counters: this.counters,
      clock: this.#clock,
      queue: this.#queue,
      sitemaps: this.#sitemaps,
      llmsTxt: new LlmsTxtIndex(deps, this.#log),
      images: this.#images,
      owed: this.#owed,
      limit,
    };
    deps.outputs.onDurable((layer, id, ok) => this.#owed.onDurable(layer, id, ok));
  }

  #limitReached(): boolean {
    return this.#budgetSpent || this.#reserved >= this.#d.catalog.settings.maxPages;
  }

  /** Pages being handled right now. */
  get active(): number {
    return this.#active;
  }

  /** The busy hosts' pace now (rate, setting, in flight, waiting, paused). */
  readonly hostRates = (): HostRate[] => this.#d.politeness.rates?.() ?? [];

  /** Per output channel: pages made durable and failures so far. */
  outputStats(): Record<string, ChannelStats> {
    return this.#d.outputs.stats();
  }

  /**
   * Change the link depth limit of this run at once (-1 = unlimited): links offered from now on are judged by it.
   * Urls already queued stay queued, and links refused as too deep earlier in this run are not offered again.
   * @returns false when the run has no live limits (its acceptors were given as a component that ignores them)
   */
  setDepthLimit(depth: number): boolean {
    if (!this.#d.limits) return false;
    this.#d.limits.depth = depth;
    this.#log.info({ depth }, 'depth limit changed');
    return true;
  }

  /**
   * Offer more start references to the running crawl: through the queue pipeline at depth 0 like the start url
   * (normalised, acceptors, queued first), committed before this resolves. Waits until the run has seeded.
   * @returns undefined when the run no longer takes urls (stopping, or its workers are done): keep them for the next
   */
  async addSeeds(urls: string[]): Promise<SeedOffer | undefined> {
    await this.#workingOrEnded;
    if (this.#live === 0 || this.#stopReason) return undefined;
    const offer = await this.#queue.offer(urls, 0, undefined, -1);
    // The workers may have drained the frontier and ended while the acceptors ran.
    if (this.#live === 0 || this.#stopReason) return undefined;
    this.#committer.add({ offer });
    await this.#committer.commit();
    const accepted = offer.accepted.map((e) => e.url);
    const refused = offer.refused.map((r) => ({ url: r.url, reason: `${r.outcome}: ${r.reason}` }));
    const answered = new Set([...accepted, ...refused.map((r) => r.url)]);
    for (const raw of urls) {
      const url = this.#queue.canonical(raw, undefined);
      if (url === undefined) refused.push({ url: raw, reason: 'not a crawlable url' });
      else if (!answered.has(url)) {
        answered.add(url);
        refused.push({ url, reason: 'already queued or handled in this run' });
      }
    }
    return { accepted, refused };
  }

  /** The urls being handled right now, oldest first: a copy, costing nothing until it is asked for. */
  inFlight(): InFlightUrl[] {
    return [...this.#handling].map(([e, since]) => ({
      url: e.url,
      depth: e.depth,
      referrer: e.referrer,
      since: new Date(since).toISOString(),
    }));
  }

  /**
   * External stop: in-flight pages finish, the frontier is kept, nothing is published. During the vector phase (the
   * fetch ended, words may be published) the vectors not written yet stay owed: resume writes them.
   */
  stop(reason: EndReason = 'interrupted'): void {
    if (this.#vectorPhase) {
      if (!this.#vectorStop && !PUBLISHING_ENDS.has(reason)) {
        this.#vectorStop = reason;
        this.#log.info({ reason }, 'stopping the vector phase');
      }
    } else if (!this.#stopReason) {
      this.#stopReason = reason;
      this.#log.info({ reason }, 'stopping');
    }
    this.#notify();
  }

  async run(): Promise<CrawlResult> {
    try {
      return await this.#run();
    } finally {
      this.#markWorking();
    }
  }

  async #run(): Promise<CrawlResult> {
    const startedAt = new Date();
    const d = this.#d;
    const s = d.catalog.settings;
    this.#recovered = await d.frontier.recover({ keepRun: d.resume === true });
    await this.#images.loadKnown();
    if (d.resume) await this.#resumeState();
    // The interrupted run read the start host's sitemaps (resume continues its session).
    if (d.resume) this.#sitemaps.readBefore(d.catalog.startUrl);
    await this.#owed.repair(d, this.#log);
    this.#reserved = this.counters.saved;
    if (!d.resume && (await d.frontier.size()) === 0) await this.#seed();
    else
      this.#log.info({ recovered: this.#recovered, queued: await d.frontier.size() }, 'continuing from the frontier');

    const durationTimer = setTimeout(() => this.stop('duration'), s.durationMinutes * 60_000);
    durationTimer.unref();
    const workers = Array.from({ length: s.threads }, (_, i) => this.#worker(i));
    this.#markWorking();
    await Promise.all(workers);
    await this.#sessionEnd();
    clearTimeout(durationTimer);
    await this.#committer.commit();
    // Files and index entries first: every page's words are durable and committed before the fetch is said to end.
    await d.outputs.flush((layer) => layer !== 'vector');
    await this.#committer.commit();
    const fetched = this.#endReason();
    this.#vectorPhase = true;
    if (d.onFetched && PUBLISHING_ENDS.has(fetched)) await this.#fetched(await this.#result(startedAt, fetched));
    await this.#writeVectors();
    await this.#committer.commit();
    return { ...(await this.#result(startedAt, this.#endReason())), fetchEnded: fetched };
  }

  #endReason(): EndReason {
    return this.#fatal ? 'error' : (this.#vectorStop ?? this.#stopReason ?? 'frontier-drained');
  }

  /** The fetch ended normally: the composition point is told (it publishes words search). */
  async #fetched(interim: CrawlResult): Promise<void> {
    try {
      await this.#d.onFetched?.(interim);
    } catch (err) {
      this.#fatal ??= err;
      this.#log.error({ err }, 'the end of the fetch could not be handled; stopping');
      this.stop('error');
    }
  }

  /**
   * The vector phase: the run waits for the vectors of every page it saved. A stop or a failure — now, or one that
   * ended the fetch — drops the rest unwritten: those pages stay owed in the journal, and the next run (resume)
   * writes them from their files without fetching anything.
   */
  async #writeVectors(): Promise<void> {
    const d = this.#d;
    if (!PUBLISHING_ENDS.has(this.#endReason())) {
      await d.outputs.abandon('vector');
      return;
    }
    let flushed = false;
    const flushing = d.outputs
      .flush((layer) => layer === 'vector')
      .finally(() => {
        flushed = true;
      });
    let guard = 0;
    while (!flushed && PUBLISHING_ENDS.has(this.#endReason()) && guard++ < 10_000_000) {
      await Promise.race([flushing, this.#idle(1000)]);
    }
    if (!flushed) await d.outputs.abandon('vector');
    await flushing;
  }

  async #result(startedAt: Date, reason: EndReason): Promise<CrawlResult> {
    const d = this.#d;
    const outstanding = (await d.frontier.size()) + d.frontier.inFlight();
    return {
      reason,
      published: PUBLISHING_ENDS.has(reason),
      fullyCrawled: reason === 'frontier-drained' && outstanding === 0,
      counters: this.counters.snapshot(),
      outstanding,
      recovered: this.#recovered,
      startedAt,
      endedAt: new Date(),
      stages: this.#clock.snapshot(),
      ...(this.#fatal ? { error: errorMessage(this.#fatal).replace(/\s*\n\s*/g, ' ') } : {}),
    };
  }

  /**
   * The session reached its end — the frontier drained, nothing in flight, no stop asked, every write committed — and
   * `sessionEnd` (the orphan step) is told. Urls it queues are handled by the workers in one more round, with the
   * known-url policy `revisit`; it is told again after each round, at most {@link SESSION_END_ROUNDS} rounds, the
   * last time with nothing left to queue. Never after an early stop.
   */
  async #sessionEnd(): Promise<void> {
    const d = this.#d;
    const end = d.sessionEnd;
    if (!end) return;
    for (let round = 0; round <= SESSION_END_ROUNDS; round++) {
      await this.#committer.commit();
      // Not the vectors: they may take long, and the vector phase after the session's end waits for them.
      await d.outputs.flush((layer) => layer !== 'vector');
      await this.#committer.commit();
      if (this.#stopReason || this.#fatal) return;
      // Workers also end at their deadline: only an empty frontier is the session's end.
      if ((await d.frontier.size()) + d.frontier.inFlight() > 0) return;
      const canQueue = round < SESSION_END_ROUNDS;
      let queued = 0;
      try {
        await end({
          round,
          canQueue,
          requeue: async (entries) => {
            const n = canQueue ? await this.#requeue(entries) : 0;
            queued += n;
            return n;
          },
          again: async (entries) => {
            const n = canQueue ? await this.#again(entries) : 0;
            queued += n;
            return n;
          },
        });
      } catch (err) {
        this.#fatal ??= err;
        this.#log.error({ err }, 'the session end failed; stopping');
        this.stop('error');
        return;
      }
      if (queued === 0) return;
      this.#log.info({ round, queued }, 'the session end queued urls; handling them');
      d.known = 'revisit';
      await Promise.all(Array.from({ length: d.catalog.settings.threads }, (_, i) => this.#worker(i)));
    }
  }

  /**
   * Urls through the queue pipeline at their own depth (acceptors, trap budget), committed; how many were queued. A
   * url the acceptors refuse now is left out without a trace: not counted, its ledger row as it was.
   */
  async #requeue(entries: ReadonlyArray<SessionEndEntry>): Promise<number> {
    const before = await this.#d.frontier.size();
    const byDepth = new Map<number, string[]>();
    for (const e of entries) byDepth.set(e.depth, [...(byDepth.get(e.depth) ?? []), e.url]);
    for (const [depth, urls] of byDepth) {
      const { accepted } = await this.#queue.offer(urls, depth, undefined, 0, true);
      this.#committer.add({ offer: { accepted, refused: [] } });
    }
    await this.#committer.commit();
    return (await this.#d.frontier.size()) - before;
  }

  /**
   * Urls this session already handled, queued once more as they are: their "handled during this run" mark is
   * reopened on the frontier, and they are put with the counters that count them dispatched.
   */
  async #again(entries: ReadonlyArray<SessionEndEntry>): Promise<number> {
    const d = this.#d;
    await d.frontier.reopen(entries.map((e) => e.url));
    const puts = entries.map((e) => ({ url: e.url, depth: e.depth, referrer: e.referrer }));
    const enqueued = await d.frontier.commit({
      puts,
      acks: [],
      checkpoint: (done) => {
        for (const e of done) if (e) this.counters.dispatched++;
        return JSON.stringify(this.counters.snapshot());
      },
    });
    return enqueued.filter(Boolean).length;
  }

  /** A resumed run continues its counters and re-marks the urls it handled (the mark may not have landed). */
  async #resumeState(): Promise<void> {
    const d = this.#d;
    const saved = await d.frontier.checkpoint();
    if (saved) this.counters.restore(JSON.parse(saved) as Partial<CounterSnapshot>);
    for await (const hashes of d.frontier.doneUrlHashes()) await d.urlFilter.markAll(d.catalog.id, d.version, hashes);
    for await (const [key] of d.frontier.journal('refused:')) {
      if (!this.#queue.rememberRefused(key.slice('refused:'.length))) break;
    }
    for await (const [key, value] of d.frontier.journal(TRAP_JOURNAL_PREFIX)) this.#queue.traps.restore(key, value);
  }

  /** The start urls (and the sitemap's), committed before any worker polls. */
  async #seed(): Promise<void> {
    const d = this.#d;
    const seeds = d.seeds ?? [d.catalog.startUrl];
    const offer = await this.#queue.offer(seeds, 0, undefined, -1);
    // The start url's host is read before any worker polls (an incremental run's recrawl hints come from it).
    const urls = await this.#sitemaps.resolve(d.catalog.startUrl);
    const more = await this.#queue.offer(urls, 1, undefined, 1);
    this.#committer.add({ offer });
    this.#committer.add({ offer: { ...more, fromSitemap: true } });
    await this.#committer.commit();
  }

  #notify(): void {
    const waiters = this.#wake;
    this.#wake = [];
    for (const w of waiters) w();
  }

  #idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.#wake.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  async #worker(n: number): Promise<void> {
    const d = this.#d;
    const committer = this.#committer;
    const deadline = Date.now() + d.catalog.settings.durationMinutes * 60_000 + 60_000;
    this.#live++;
    while (!this.#stopReason && Date.now() < deadline) {
      if (this.#limitReached()) {
        this.stop('max-pages');
        break;
      }
      const taken = await this.#back.take();
      const entry = taken?.entry;
      if (!entry) {
        // A host's sitemap being read may still offer urls.
        const reading = this.#sitemaps.pending > 0;
        const active = this.#active + this.#back.buffered; // the back queues' urls are this run's work too
        if (!reading && committer.pending === 0 && (await d.coordinator.isFinished({ active }))) {
          await committer.settled;
          if ((await d.frontier.size()) === 0 && this.#active + this.#back.buffered === 0 && committer.pending === 0) {
            this.#notify();
            break;
          }
        }
        if (committer.pending > 0) void committer.commit();
        await this.#idle(n === 0 ? 50 : 200);
        continue;
      }
      this.#active++;
      this.#handling.set(entry, Date.now());
      try {
        const c = await handlePage(entry, this.#pipeline);
        if (c) committer.add(c);
      } catch (err) {
        // handlePage ends a failing page as REJECTED_ERROR; reaching here is a bug of the engine itself.
        this.#fatal ??= err;
        this.#log.error({ err, url: entry.url }, 'unexpected failure; stopping');
        this.stop('error');
      } finally {
        this.#back.done(taken);
        this.#handling.delete(entry);
        this.#active--;
        this.#notify();
      }
      if (this.counters.consecutiveFailures >= d.catalog.settings.maxConsecutiveFailures)
        this.stop('consecutive-failures');
    }
    // Synchronously with the last check: a seed offered after this goes to the next run (see addSeeds).
    this.#live--;
  }
}
