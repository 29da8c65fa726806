import type { Logger } from 'pino';
import type { PageRemoval } from '../admin/page-removal.js';
import type { OrphanStrategy } from '../config.js';
import type { ExistingUrlPathFilter } from '../dedup/url-filter.js';
import type { SessionEnd, SessionEndEntry } from '../engine/crawl-engine.js';
import type { CrawlFrontier } from '../frontier/frontier.js';
import type { Catalog, CrawlAction, OrphanReport } from '../model.js';
import { Outcome } from '../outcomes.js';
import type { ResourceRecordStore, UrlLedgerStore } from '../storage/record-store.js';
import { UrlHashSet } from './url-hash-set.js';

/** Resource rows read at a time while the version is compared with the urls the session reached. */
const SCAN_BATCH = 500;
/** Ledger rows read at a time while looking for duplicates of removed pages. */
const LEDGER_PAGE = 1000;
/** At most this many duplicate rows are read at one session's end (every loop bounded). */
const MAX_DUPLICATE_ROWS = 1_000_000;
/** The reason the document pipeline gives a duplicate: `same content as resource <id>`. */
const HOLDER = /same content as resource ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/;

/** What the orphan step of one run works with. */
export interface OrphanStepDeps {
  catalog: Catalog;
  version: number;
  action: CrawlAction;
  frontier: CrawlFrontier;
  records: ResourceRecordStore;
  ledger: UrlLedgerStore;
  urlFilter: ExistingUrlPathFilter;
  removal: PageRemoval;
  log: Logger;
  /**
   * Why this session must not judge what the site no longer has, or undefined when it may: a store refused a write,
   * the site did not answer (robots.txt unreadable, only errors), a distributed run (this node's frontier knows only
   * its own urls). Asked once, when the session reaches its end.
   */
  holdBack: () => Promise<string | undefined>;
  /** Delete even more orphans than `minPublishRatio` allows (`--force-publish`). */
  force: boolean;
}

/**
 * The orphan step of a crawl session (seed 002, "Orphan handling"). An orphan is a page the version holds, written
 * by an earlier session, whose url this session did not reach — nothing links to it any more, or the acceptors now
 * refuse it. At the session's end (CrawlEngineDeps.sessionEnd: never after an early stop) the version's resource rows
 * are streamed against the urls the frontier marked handled during the session (a resumed run continues its
 * session, so what it handled before the stop counts), held in a {@link UrlHashSet}; then the catalog's `orphans`
 * setting decides:
 * - `ignore`: they are counted and left as they are;
 * - `delete`: each leaves every layer (vector → index → file → db, {@link PageRemoval}), so it stops being
 *   searchable; its url is not refused later — a link to it found again queues it as a new url. When deleting them
 *   would leave fewer than `minPublishRatio` × the version's pages (a start page that moved, a site that answers a
 *   login page), nothing is deleted and the report says why (`--force-publish` deletes anyway);
 * - `process`: they are queued again through the queue pipeline and fetched as revisits (conditional GET): a page
 *   still there is kept (304, or rewritten when changed), one that answers 404/410 is removed as gone; an orphan the
 *   acceptors now refuse is left as it is.
 * A `rebuild` writes a new version in full: none of its pages is from an earlier session, so it has no orphans.
 * Greenfinger has no source-delta mode (a source that names only what changed, where the absence of a url proves
 * nothing); when one exists, its sessions skip this step.
 *
 * After pages were removed (orphans, or held pages gone when revisited), urls the session refused as duplicates of
 * one of them are fetched again in one more round (the page moved: its copy is saved instead), and the url filter
 * forgets the removed urls so a later link to one is fetched.
 */
export class OrphanStep {
  readonly #d: OrphanStepDeps;
  readonly #report: OrphanReport;
  /** Whether the orphans were judged (once, at the first call). */
  #judged = false;
  /** Duplicates already queued again by this run. */
  readonly #released = new Set<string>();
  #refetched = 0;

  constructor(deps: OrphanStepDeps) {
    this.#d = deps;
    this.#report = { strategy: deps.catalog.settings.orphans, found: 0, deleted: 0, processed: 0, gone: 0 };
  }

  get strategy(): OrphanStrategy {
    return this.#report.strategy;
  }

  /**
   * The report's part: undefined when there is nothing to tell (orphans ignored, none found, nothing gone). A run that
   * never reached its end says so when its catalog deletes or processes orphans.
   */
  report(ended: { reason: string; fullyCrawled: boolean }): OrphanReport | undefined {
    const r: OrphanReport = { ...this.#report, gone: this.#d.removal.counts.gone };
    if (this.#refetched > 0) r.refetched = this.#refetched;
    if (!this.#judged && r.skipped === undefined && r.strategy !== 'ignore' && this.#d.action !== 'rebuild') {
      r.skipped =
        ended.reason === 'frontier-drained' && !ended.fullyCrawled
          ? 'the run ended with urls left on the frontier: orphans are handled when a session reaches its end'
          : `the run ended early (${ended.reason}): orphans are handled when a session reaches its end — resume it to get there`;
    }
    const said = r.found > 0 || r.gone > 0 || r.refetched !== undefined || r.skipped !== undefined;
    return r.strategy !== 'ignore' || said ? r : undefined;
  }

  /** CrawlEngineDeps.sessionEnd: judge the orphans (the first time), then queue the duplicates of removed pages. */
  async atSessionEnd(end: SessionEnd): Promise<void> {
    if (!this.#judged) {
      this.#judged = true;
      await this.#judge(end);
    }
    if (end.canQueue && this.#removedAny()) await this.#releaseDuplicates(end);
    await this.#d.removal.forgetRemoved();
  }

  #removedAny(): boolean {
    const c = this.#d.removal.counts;
    return c.gone + c.orphan > 0;
  }

  async #judge(end: SessionEnd): Promise<void> {
    const d = this.#d;
    const r = this.#report;
    if (d.action === 'rebuild') return;
    const why = await d.holdBack();
    if (why) {
      // Ignored orphans are only counted: a session that cannot be judged by has nothing to count.
      if (r.strategy !== 'ignore') r.skipped = why;
      d.log.warn({ why }, 'orphans not judged');
      return;
    }
    const started = performance.now();
    const reached = await UrlHashSet.from(d.frontier.doneUrlHashes());
    let held = 0;
    for await (const rows of d.records.iterateResources(d.catalog.id, d.version, SCAN_BATCH)) {
      held += rows.length;
      for (const row of rows) if (!reached.has(row.urlHash)) r.found++;
    }
    d.log.info(
      {
        found: r.found,
        held,
        reached: reached.size,
        ms: Math.round(performance.now() - started),
        strategy: r.strategy,
      },
      'orphans found',
    );
    if (r.found === 0 || r.strategy === 'ignore') return;
    if (r.strategy === 'delete') await this.#delete(reached, held);
    else if (end.canQueue) await this.#process(reached, end);
  }

  async #delete(reached: UrlHashSet, held: number): Promise<void> {
    const d = this.#d;
    const r = this.#report;
    const ratio = d.catalog.settings.minPublishRatio;
    if (!d.force && ratio > 0 && held - r.found < ratio * held) {
      r.skipped =
        `${r.found} of the ${held} pages of v${d.version} were not reached: deleting them would leave fewer than ` +
        `${ratio} × them (minPublishRatio) — check the site (a start page that moved?), or delete them anyway with --force-publish`;
      d.log.warn({ found: r.found, held, ratio }, 'orphans not deleted: too many');
      return;
    }
    for await (const rows of d.records.iterateResources(d.catalog.id, d.version, SCAN_BATCH)) {
      for (const row of rows) {
        if (reached.has(row.urlHash)) continue;
        try {
          await d.removal.remove(row, 'orphan');
          r.deleted++;
        } catch (err) {
          // The layers before the failing one are done; the next session that reaches its end finishes the job.
          r.skipped = `deleting orphans stopped after ${r.deleted}: ${err instanceof Error ? err.message : String(err)}`;
          d.log.warn({ err, url: row.url }, 'orphans: a delete failed');
          return;
        }
      }
    }
  }

  async #process(reached: UrlHashSet, end: SessionEnd): Promise<void> {
    const d = this.#d;
    for await (const rows of d.records.iterateResources(d.catalog.id, d.version, SCAN_BATCH)) {
      const orphans = rows
        .filter((row) => !reached.has(row.urlHash))
        .map((row) => ({ url: row.url, depth: row.depth }));
      if (orphans.length > 0) this.#report.processed += await end.requeue(orphans);
    }
  }

  /**
   * Urls refused as duplicates of a page no longer held: forgotten by the url filter (a later link fetches them) and,
   * when this session reached them, queued once more — the page moved, its copy is saved now.
   */
  async #releaseDuplicates(end: SessionEnd): Promise<void> {
    const d = this.#d;
    const holders = new Map<string, boolean>();
    const candidates: Array<SessionEndEntry & { hash: string }> = [];
    for (let offset = 0; offset < MAX_DUPLICATE_ROWS; offset += LEDGER_PAGE) {
      const { items } = await d.ledger.list({
        catalogId: d.catalog.id,
        version: d.version,
        outcome: Outcome.REJECTED_DUPLICATE,
        limit: LEDGER_PAGE,
        offset,
      });
      for (const row of items) {
        const holder = HOLDER.exec(row.reason)?.[1];
        if (!holder || this.#released.has(row.urlHash)) continue;
        let removed = holders.get(holder);
        if (removed === undefined) {
          removed = (await d.records.getResource(holder)) === undefined;
          holders.set(holder, removed);
        }
        if (!removed) continue;
        this.#released.add(row.urlHash);
        candidates.push({ url: row.url, depth: row.depth, referrer: row.referrer ?? undefined, hash: row.urlHash });
      }
      if (items.length < LEDGER_PAGE) break;
    }
    if (candidates.length === 0) return;
    for (let i = 0; i < candidates.length; i += LEDGER_PAGE) {
      const slice = candidates.slice(i, i + LEDGER_PAGE).map((c) => c.hash);
      await d.urlFilter.forgetAll(d.catalog.id, d.version, slice);
    }
    const reached = await UrlHashSet.from(d.frontier.doneUrlHashes());
    const again = candidates.filter((c) => reached.has(c.hash)).map(({ hash: _, ...entry }) => entry);
    for (let i = 0; i < again.length; i += LEDGER_PAGE) {
      this.#refetched += await end.again(again.slice(i, i + LEDGER_PAGE));
    }
    d.log.info({ duplicates: candidates.length, refetched: this.#refetched }, 'duplicates of removed pages released');
  }
}

/**
 * The report's orphans in one line for a person (the CLI summary, the report's note):
 * `orphans (delete): 1 found, 1 deleted, 2 gone (404/410) removed`; undefined when there is nothing to tell.
 */
export function orphansLine(o: OrphanReport | undefined): string | undefined {
  if (!o) return undefined;
  const parts = [`orphans (${o.strategy}): ${o.found} found`];
  if (o.deleted > 0) parts.push(`${o.deleted} deleted`);
  if (o.processed > 0) parts.push(`${o.processed} fetched again`);
  if (o.gone > 0) parts.push(`${o.gone} gone (404/410) removed`);
  if (o.refetched) parts.push(`${o.refetched} duplicates of removed pages fetched again`);
  const line = parts.join(', ');
  return o.skipped ? `${line} — left alone: ${o.skipped}` : line;
}
