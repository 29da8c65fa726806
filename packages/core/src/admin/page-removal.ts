import type { ContentDedupFilter, ExistingUrlPathFilter } from '../dedup/url-filter.js';
import type { ChangeRecorder } from '../engine/change-recorder.js';
import type { Catalog, ResourceRow } from '../model.js';
import { Outcome } from '../outcomes.js';
import type { LedgerRow } from '../storage/record-store.js';
import type { NodeStores } from './node-stores.js';
import { erasePage } from './url-eraser.js';

/**
 * Why a run removes a page its version holds:
 * - `gone`: revisited (merge, orphans `process`), it answered 404 or 410;
 * - `orphan`: held from an earlier session and not reached by this one, removed at its end (orphans `delete`).
 */
export type RemovalCause = 'gone' | 'orphan';

/** What {@link PageRemoval} works with: the run's catalog version and its dedup stores. */
export interface PageRemovalDeps {
  stores: NodeStores;
  catalog: Catalog;
  version: number;
  urlFilter: ExistingUrlPathFilter;
  contentDedup: ContentDedupFilter;
  /** The run's change set: each page removed is a url removed. */
  changes?: ChangeRecorder | undefined;
}

/**
 * Removes pages of a run's version the site no longer has (a held page gone, an orphan), by the walk a url deleted
 * by hand takes (url-eraser.ts: vector → index → file → db, so it stops being searchable first). Unlike a deletion by
 * hand, the url is not refused later: a link to it found again queues it as a new url. Its text's fingerprint is
 * forgotten by the content dedup, so a page with the same text (the page moved) is saved instead of being refused as
 * a duplicate of one that is gone. Counts what it removed, by cause.
 *
 * The ledger: a gone page's row is the pipeline's (REJECTED_NOTFOUND, with its status); an orphan's becomes
 * `rejected` / REJECTED_ORPHAN, saying when and why. The url filter's marks are forgotten at the session's end
 * ({@link forgetRemoved}): during the session a gone url was handled, and stays so.
 */
export class PageRemoval {
  readonly #d: PageRemovalDeps;
  readonly #counts: Record<RemovalCause, number> = { gone: 0, orphan: 0 };
  /** Url hashes removed by this run and not yet forgotten by the url filter. */
  #removed: string[] = [];

  constructor(deps: PageRemovalDeps) {
    this.#d = deps;
  }

  /** Pages removed by this run, by cause. */
  get counts(): Readonly<Record<RemovalCause, number>> {
    return { ...this.#counts };
  }

  /**
   * Remove one held page from every layer of its version.
   * @throws CrawlerError STORAGE naming the layer that failed (the layers before it are done; run again to finish)
   */
  async remove(resource: ResourceRow, cause: RemovalCause, now = new Date().toISOString()): Promise<void> {
    const { stores: f, catalog, version } = this.#d;
    const text = resource.textPath ? await f.blobs.getText(resource.textPath).catch(() => undefined) : undefined;
    // Told (and journaled) before the erase: a run resumed after a crash in between still counts it removed.
    this.#d.changes?.removed(resource.url);
    await this.#d.changes?.flushJournal();
    await erasePage(f, { catalogId: catalog.id, version, id: resource.id, url: resource.url, resource }, false);
    if (text !== undefined) await this.#d.contentDedup.forget(catalog.id, version, text);
    if (cause === 'orphan') {
      const db = await f.database();
      await db.ledger.record([orphanRow(resource, await db.ledger.get(resource.id), now)]);
    }
    this.#removed.push(resource.urlHash);
    this.#counts[cause]++;
    f.log.info({ catalogId: catalog.id, version, url: resource.url, cause }, 'page removed');
  }

  /**
   * The url filter forgets the urls removed so far, so a later run that finds a link to one fetches it as a new url
   * (a page the site brings back is saved again). Called at the session's end, after the last commit.
   */
  async forgetRemoved(): Promise<void> {
    const hashes = this.#removed;
    this.#removed = [];
    const { catalog, version, urlFilter } = this.#d;
    for (let i = 0; i < hashes.length; i += 1000) {
      await urlFilter.forgetAll(catalog.id, version, hashes.slice(i, i + 1000));
    }
  }
}

/** The ledger row of an orphan removed at the session's end: what it held, with the new fate. */
function orphanRow(resource: ResourceRow, held: LedgerRow | undefined, now: string): LedgerRow {
  return {
    id: resource.id,
    catalogId: resource.catalogId,
    version: resource.version,
    url: resource.url,
    urlHash: resource.urlHash,
    state: 'rejected',
    outcome: Outcome.REJECTED_ORPHAN,
    detail: 'orphans',
    status: held?.status ?? resource.status,
    reason: `no page of the session that ended on ${now} linked to it; its page was removed (orphans: delete)`,
    referrer: held?.referrer ?? null,
    depth: held?.depth ?? resource.depth,
    redirects: held?.redirects ?? [],
    foundAs: held?.foundAs ?? null,
    fetchedAt: held?.fetchedAt ?? resource.fetchedAt,
    changedAt: now,
    changeCount: 1,
    updatedAt: now,
  };
}
