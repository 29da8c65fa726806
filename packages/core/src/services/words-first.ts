import type { Logger } from 'pino';
import type { MeaningPublication } from '../admin/admin-writer.js';
import { optimizeVersion } from '../admin/optimize-version.js';
import { pruneTargets } from '../admin/version-eraser.js';
import type { ComponentFactory } from '../compose/component-factory.js';
import type { CrawlParts } from '../compose/run-assembly.js';
import { LocalCrawlCoordinator } from '../engine/crawl-coordinator.js';
import type { CrawlResult } from '../engine/crawl-engine.js';
import { type EmbeddingState, meaningVersionOf } from '../index/catalog-registry.js';
import type { Catalog, CrawlAction, RunReport } from '../model.js';
import type { EmbeddingProgress } from '../runs/crawl-runner.js';
import { withheldPublish } from './publish-decision.js';

export type { EmbeddingProgress } from '../runs/crawl-runner.js';

/** How often the registry's embedding counts are brought up to date while the vectors are written. */
const UPDATE_MS = 1000;

/** When a run's version became searchable, in ms from the run's start (`RunReport.searchable`); null = not (yet). */
export type SearchableTimes = NonNullable<RunReport['searchable']>;

export interface WordsFirstOptions {
  factory: ComponentFactory;
  parts: CrawlParts;
  catalog: Catalog;
  version: number;
  action: CrawlAction;
  served: { version: number; pages: number } | undefined;
  force: boolean;
  log: Logger;
}

/**
 * Words before meaning (issue 18): once a run's fetch has ended normally, with every page's file and index entry
 * durable (CrawlEngineDeps.onFetched), the version is published for words search — if it earned it, by the same
 * decision as the end of the run — while the vectors are still written. Meaning search never gets worse: a version
 * replacing another (a rebuild) leaves meaning search on the previous complete version until its own vectors are
 * complete; a first version, or the version already served (crawl, update, merge, resume), answers by meaning from
 * the vectors written so far, and says how many pages those cover. The counts in the registry follow the vectors
 * about once a second; the run's final publish completes the version. Nothing happens on a distributed run (its
 * members' fetches end apart: the version publishes once, at the end), without the vector layer, or when
 * GF_SEARCH_EARLY is false.
 */
export class WordsFirstPublisher {
  readonly #o: WordsFirstOptions;
  #fetchedAt: number | undefined;
  #wordsAt: number | undefined;
  #meaningAt: number | undefined;
  #completeAt: number | undefined;
  /** The version meaning search reads while the vectors are written; undefined until words are published. */
  #meaningVersion: number | undefined;
  #pages = 0;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #written = '';
  #lastChunks = 0;
  #lastAt = Date.now();
  #rate = 0;

  constructor(options: WordsFirstOptions) {
    this.#o = options;
  }

  /** Whether words search reads the version already (published when the fetch ended). */
  get wordsPublished(): boolean {
    return this.#wordsAt !== undefined;
  }

  /** The engine's `onFetched`: publish words search, and from now on keep the registry's embedding counts. */
  async fetched(interim: CrawlResult): Promise<void> {
    this.#fetchedAt = Date.now();
    const { factory: f, parts, catalog, version, action } = this.#o;
    const channel = parts.vectorChannel;
    if (!channel || !f.settings.searchEarly || !(parts.deps.coordinator instanceof LocalCrawlCoordinator)) return;
    const withheld = await withheldPublish(f, parts, catalog, version, action, interim, this.#o.served, this.#o.force);
    if (withheld) return;
    const next: Catalog = {
      ...catalog,
      indexVersion: version,
      searchVersion: Math.max(catalog.searchVersion, version),
    };
    // The versions the publish's prune removes leave the index before it is optimized (see CrawlService #optimize);
    // the one meaning search keeps reading keeps its vectors, not its words.
    const leaving = (await pruneTargets(f, next, { keepMeaning: false })).filter((v) => v !== catalog.searchVersion);
    await optimizeVersion(f.log, catalog.id, version, { index: parts.indexWriter, leaving });
    const entry = (await f.published.list()).find((c) => c.catalogId === catalog.id);
    const reading = entry && entry.searchVersion >= 0 ? meaningVersionOf(entry) : -1;
    this.#meaningVersion = reading >= 0 && reading !== version ? reading : version;
    this.#pages = (await (await f.database()).resources.count(catalog.id, version)).resources;
    await this.#publish();
    this.#wordsAt = Date.now();
    this.#o.log.info(
      { catalogId: catalog.id, version, meaningVersion: this.#meaningVersion, ...this.state() },
      'published for words search; the vectors are still being written',
    );
    if (this.#meaningVersion === version) {
      void channel.firstChunksWritten().then((through) => {
        if (through && this.#completeAt === undefined) this.#meaningAt ??= Date.now();
        this.#update();
      });
    }
    this.#timer = setInterval(() => this.#update(), UPDATE_MS);
    this.#timer.unref();
  }

  /**
   * The version's vectors as they stand: its pages, those with a vector and those with all of theirs. Pages this run
   * still owes a vector are counted out of the version's pages (the others had theirs before).
   */
  state(): EmbeddingState | undefined {
    const p = this.#o.parts.vectorChannel?.progress();
    if (!p || this.#meaningVersion === undefined) return undefined;
    const pages = this.#pages;
    return {
      version: this.#o.version,
      pages,
      embedded: Math.max(0, pages - (p.pages - p.embedded)),
      complete: Math.max(0, pages - (p.pages - p.complete)),
    };
  }

  /** The progress line's share: the vector layer's counts and its rate. Undefined without the vector layer. */
  progress(): EmbeddingProgress | undefined {
    const p = this.#o.parts.vectorChannel?.progress();
    if (!p) return undefined;
    const now = Date.now();
    const inst = ((p.chunks - this.#lastChunks) * 1000) / Math.max(1, now - this.#lastAt);
    this.#rate = this.#rate === 0 ? inst : this.#rate * 0.7 + inst * 0.3;
    this.#lastChunks = p.chunks;
    this.#lastAt = now;
    return {
      phase: this.#fetchedAt === undefined ? 'fetching' : 'vectors',
      pages: p.pages,
      embedded: p.embedded,
      complete: p.complete,
      chunks: p.chunks,
      chunksPerSecond: this.#rate,
    };
  }

  #meaning(): MeaningPublication {
    const state = this.state();
    const incomplete = state !== undefined && state.complete < state.pages;
    return { version: this.#meaningVersion ?? this.#o.version, ...(incomplete ? { embedding: state } : {}) };
  }

  async #publish(): Promise<void> {
    const meaning = this.#meaning();
    this.#written = JSON.stringify(meaning);
    await this.#o.factory.writer.publishWords(this.#o.catalog.id, this.#o.version, meaning);
  }

  /** The counts moved: write them (one write at a time, never after `settle`). */
  #update(): void {
    if (this.#timer === undefined) return;
    if (JSON.stringify(this.#meaning()) === this.#written) return;
    this.#writing = this.#writing
      .then(() => this.#publish())
      .catch((err: unknown) => this.#o.log.warn({ err }, 'the embedding counts could not be written to the registry'));
  }

  /** The vector phase is over: no more count updates (the last one written before this resolves). */
  async settle(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#writing;
  }

  /**
   * The run is about to publish its complete version (`published`), or ends without: then words stay published and
   * the registry keeps the counts the vectors reached, for `versions` and for the notice meaning search gives.
   */
  async ending(published: boolean): Promise<void> {
    await this.settle();
    if (published) {
      this.#completeAt = Date.now();
      this.#wordsAt ??= this.#completeAt;
      // A rebuild's meaning switched only now; so did everything when words were not published early.
      if (this.#o.parts.vectorChannel) this.#meaningAt ??= this.#completeAt;
      return;
    }
    if (this.#wordsAt !== undefined) await this.#publish();
  }

  /** When words, meaning (every page) and the complete version became searchable, from the run's start. */
  times(startedAt: Date): SearchableTimes {
    const since = (t: number | undefined) => (t === undefined ? null : t - startedAt.getTime());
    return {
      wordsAfterMs: since(this.#wordsAt),
      meaningAfterMs: since(this.#meaningAt),
      completeAfterMs: since(this.#completeAt),
    };
  }
}
