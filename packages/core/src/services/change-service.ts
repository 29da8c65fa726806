import { existingVersions } from '../admin/version-eraser.js';
import type { ComponentFactory } from '../compose/component-factory.js';
import { shortTextDiff } from '../content/text-diff.js';
import { compareText } from '../content/volatile-text.js';
import { ChangeRecorder, type ChangeSet, emptyChangeSet } from '../engine/change-recorder.js';
import { CrawlerError } from '../errors.js';
import { keys } from '../layout.js';
import type { Catalog, ResourceRow } from '../model.js';
import type { CatalogRef, CatalogService } from './catalog-service.js';

export type { ChangedUrl, ChangeSet } from '../engine/change-recorder.js';

/** Resource rows read at a time while two versions are compared. */
const SCAN_BATCH = 500;

/** One run's entry of the change log: what the run changed, as it published. */
export interface ChangeLogEntry extends ChangeSet {
  catalogId: string;
  version: number;
  /** The verb that published (`crawl`, `update`, `merge`, `rebuild`, `resume`). */
  action: string;
  /** When the run ended (ISO). */
  at: string;
  /** A rebuild's set is its version compared with the version served before it (undefined: none was). */
  comparedWith?: number | undefined;
}

/** The answer of `changes`: the runs it covers, and what they changed together. */
export interface ChangesAnswer extends ChangeSet {
  catalog: { id: string; name: string };
  runs: Array<{ version: number; action: string; at: string }>;
}

/** The answer of `diff`: two kept versions of a catalog compared. */
export interface DiffAnswer extends ChangeSet {
  catalog: { id: string; name: string };
  from: number;
  to: number;
}

/** Which runs `changes` covers: the latest (neither), those after a version was first published, or since a date. */
export interface ChangesQuery {
  /** Every run after the first publishing run of this version (a merge on it included), or of later versions. */
  sinceVersion?: number | undefined;
  /** Every run that ended at or after this time. */
  sinceDate?: Date | undefined;
}

/**
 * The change log (issue 27 item 5). One service computes a change set between two kept versions ({@link between});
 * each run that publishes records its change set ({@link record}): a `crawl`, `update`, `merge` or `resume` the set
 * its pages told as they were handled (engine/change-recorder.ts), a `rebuild` its new version compared with the
 * one served before. Entries are JSON files beside the version's reports (`assets/{catalog}/v{n}/changes/`), so they
 * leave with their version.
 */
export class ChangeService {
  readonly #f: ComponentFactory;
  readonly #catalogs: () => Promise<CatalogService>;

  constructor(factory: ComponentFactory, catalogs: () => Promise<CatalogService>) {
    this.#f = factory;
    this.#catalogs = catalogs;
  }

  /** Write one run's change set to the change log; returns its key. */
  async record(entry: ChangeLogEntry): Promise<string> {
    const key = `${keys.version(entry.catalogId, entry.version)}/changes/${entry.at.replace(/[-:.]/g, '')}-${entry.action}-${this.#f.settings.node}.json`;
    await this.#f.blobs.put(key, `${JSON.stringify(entry, null, 2)}\n`);
    return key;
  }

  /** Every entry of the catalog's change log, oldest first. */
  async log(catalog: Catalog): Promise<ChangeLogEntry[]> {
    const entries: ChangeLogEntry[] = [];
    for (const version of await existingVersions(this.#f, catalog)) {
      for await (const key of this.#f.blobs.list(`${keys.version(catalog.id, version)}/changes/`)) {
        if (!key.endsWith('.json')) continue;
        const text = await this.#f.blobs.getText(key);
        if (text) entries.push(JSON.parse(text) as ChangeLogEntry);
      }
    }
    return entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.version - b.version));
  }

  /**
   * What changed: the latest run's change set, or every run since a version or a date folded into one set (a url
   * added then removed is no change; changed twice, the last diff).
   * @throws CrawlerError NOT_FOUND when the catalog is unknown or nothing published a change set yet
   */
  async changes(ref: CatalogRef, query: ChangesQuery = {}): Promise<ChangesAnswer> {
    const catalog = await (await this.#catalogs()).get(ref);
    const log = await this.log(catalog);
    let runs: ChangeLogEntry[];
    if (query.sinceVersion !== undefined) {
      const v = query.sinceVersion;
      const first = log.findIndex((e) => e.version === v);
      runs = first >= 0 ? log.slice(first + 1) : log.filter((e) => e.version > v);
    } else if (query.sinceDate !== undefined) {
      const at = query.sinceDate.toISOString();
      runs = log.filter((e) => e.at >= at);
    } else {
      if (log.length === 0) {
        throw new CrawlerError('NOT_FOUND', `"${catalog.name}" has no change log yet: no run of it has published`, {
          fix: `crawl it first: greenfinger crawl --name ${catalog.name}`,
        });
      }
      runs = log.slice(-1);
    }
    return {
      catalog: { id: catalog.id, name: catalog.name },
      runs: runs.map((e) => ({ version: e.version, action: e.action, at: e.at })),
      ...fold(runs),
    };
  }

  /**
   * Compare two kept versions of a catalog the way a run's change set is made: urls only in `to` are added, only
   * in `from` removed, and a page in both is changed when its text changed beyond volatile parts (within the
   * catalog's `changeDistance`), with a short diff.
   * @throws CrawlerError NOT_FOUND naming a version the catalog does not keep
   */
  async diff(ref: CatalogRef, from: number, to: number): Promise<DiffAnswer> {
    const catalog = await (await this.#catalogs()).get(ref);
    const kept = await existingVersions(this.#f, catalog);
    for (const v of [from, to]) {
      if (!kept.includes(v)) {
        throw new CrawlerError(
          'NOT_FOUND',
          `"${catalog.name}" keeps no version ${v} (kept: ${kept.join(', ') || 'none'})`,
          {
            fix: `see greenfinger versions --name ${catalog.name}`,
          },
        );
      }
    }
    return { catalog: { id: catalog.id, name: catalog.name }, from, to, ...(await this.between(catalog, from, to)) };
  }

  /** The change set from version `from` to version `to` of a catalog (each list sorted by url). */
  async between(catalog: Catalog, from: number, to: number): Promise<ChangeSet> {
    const db = await this.#f.database();
    const before = new Map<string, Pick<ResourceRow, 'url' | 'contentHash' | 'textPath'>>();
    for await (const rows of db.resources.iterateResources(catalog.id, from, SCAN_BATCH)) {
      for (const r of rows) before.set(r.urlHash, { url: r.url, contentHash: r.contentHash, textPath: r.textPath });
    }
    const set = emptyChangeSet();
    for await (const rows of db.resources.iterateResources(catalog.id, to, SCAN_BATCH)) {
      for (const r of rows) {
        const old = before.get(r.urlHash);
        before.delete(r.urlHash);
        if (!old) set.added.push(r.url);
        else if (old.contentHash !== r.contentHash) {
          const a = (await this.#f.blobs.getText(old.textPath)) ?? '';
          const b = (await this.#f.blobs.getText(r.textPath)) ?? '';
          if (compareText(a, b, catalog.settings.changeDistance) === 'changed') {
            set.changed.push({ url: r.url, diff: shortTextDiff(a, b) });
          }
        }
      }
    }
    for (const old of before.values()) set.removed.push(old.url);
    set.added.sort();
    set.removed.sort();
    set.changed.sort((x, y) => (x.url < y.url ? -1 : x.url > y.url ? 1 : 0));
    return set;
  }
}

/** Several runs' change sets as one, oldest first (ChangeRecorder's rules: the last word, added then removed is none). */
function fold(runs: readonly ChangeSet[]): ChangeSet {
  if (runs.length === 1 && runs[0]) return { added: runs[0].added, changed: runs[0].changed, removed: runs[0].removed };
  const recorder = new ChangeRecorder();
  for (const run of runs) {
    for (const url of run.removed) recorder.removed(url);
    for (const url of run.added) recorder.saved(url, undefined);
    for (const c of run.changed) recorder.saved(c.url, c.diff);
  }
  return recorder.changeSet();
}
