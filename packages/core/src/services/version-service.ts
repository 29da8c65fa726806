import {
  DELETE_ORDER,
  type DeleteLayer,
  type DeleteReport,
  existingVersions,
  pruneTargets,
} from '../admin/version-eraser.js';
import type { ComponentFactory } from '../compose/component-factory.js';
import { ConfigError, CrawlerError } from '../errors.js';
import { meaningVersionOf } from '../index/catalog-registry.js';
import type { Catalog, CrawlAction } from '../model.js';
import type { CatalogRef, CatalogService } from './catalog-service.js';

/**
 * serving: search reads it · published: a run of it ended normally, search reads another · incomplete: its last
 * run ended unpublished (or was killed) · running: a live process writes it now · empty: nothing stored yet.
 */
export type VersionState = 'serving' | 'published' | 'incomplete' | 'running' | 'empty';

/** One version of a catalog, from its report row, its row counts and the catalog. */
export interface VersionInfo {
  version: number;
  state: VersionState;
  /** Its last run ended normally and published it. */
  published: boolean;
  /** Search reads this version (the catalog's searchVersion). */
  serving: boolean;
  /** Pages (resource rows). */
  saved: number;
  /** Pictures (image rows). */
  images: number;
  startedAt: string | null;
  endedAt: string | null;
  /** The verb of its last run. */
  action: CrawlAction | null;
  /** What search reads of it (see {@link VersionSearch}). */
  search: VersionSearch;
}

/**
 * What search reads of a version: words search reads it (the served version), meaning search reads it (the served
 * one, or the previous complete one while a rebuilt version's vectors are written), and, while its vectors are
 * incomplete, how far they got — its pages, those with a vector, those with all of theirs (stopped or killed during
 * its vector phase, it stays so until `resume` writes the rest).
 */
export interface VersionSearch {
  words: boolean;
  meaning: boolean;
  embedding: { pages: number; embedded: number; complete: number } | null;
}

export { DELETE_ORDER, type DeleteLayer, type DeleteReport, type DeleteResultRow } from '../admin/version-eraser.js';

export interface DeleteOptions {
  /** Delete this one version. */
  version?: number | undefined;
  /** Keep the newest N versions (true = 1) and delete the rest; the serving version is always kept. */
  keepLatest?: number | boolean | undefined;
  /** Delete every version. */
  all?: boolean | undefined;
  /** @default ['vector','index','file','db'] */
  layers?: DeleteLayer[] | undefined;
  /** Walk exactly as a delete would, count, and write nothing. */
  dryRun?: boolean | undefined;
  /** Allow deleting the serving version (search then has nothing to read for this catalog). */
  force?: boolean | undefined;
  /** With `all`: also remove the catalog's index directory, its asset folder and its entry in catalogs.json. */
  purge?: boolean | undefined;
}

/**
 * Versions of a catalog: list them, delete them layer by layer (vector → index → file → db, so a half-finished
 * delete never leaves a searchable pointer to bytes already gone), and prune the oldest beyond maxVersions.
 * A dry run is the same walk stopping before each write.
 */
export class VersionService {
  readonly #f: ComponentFactory;
  readonly #catalogs: () => Promise<CatalogService>;

  constructor(factory: ComponentFactory, catalogs: () => Promise<CatalogService>) {
    this.#f = factory;
    this.#catalogs = catalogs;
  }

  /** Every version of the catalog, ascending. */
  async list(ref: CatalogRef): Promise<VersionInfo[]> {
    const catalog = await (await this.#catalogs()).get(ref);
    const db = await this.#f.database();
    const reports = new Map((await db.resources.listReports(catalog.id)).map((r) => [r.version, r]));
    const crawling = catalog.runningState !== 'none' && (await this.#f.runs.holder(catalog.id)) !== undefined;
    const entry = (await this.#f.published.list()).find((c) => c.catalogId === catalog.id);
    const out: VersionInfo[] = [];
    for (const version of await existingVersions(this.#f, catalog)) {
      const report = reports.get(version);
      const counts = await db.resources.count(catalog.id, version);
      const serving = catalog.searchVersion === version;
      const published = report?.published ?? false;
      out.push({
        version,
        state: versionState({
          running: crawling && catalog.indexVersion === version,
          serving,
          published,
          stored: report !== undefined || counts.resources > 0,
        }),
        published,
        serving,
        saved: counts.resources,
        images: counts.images,
        startedAt: report?.report.startedAt ?? null,
        endedAt: report?.report.endedAt ?? null,
        action: report?.action ?? null,
        search: {
          words: entry !== undefined && entry.searchVersion === version,
          meaning: entry !== undefined && entry.searchVersion >= 0 && meaningVersionOf(entry) === version,
          embedding:
            entry?.embedding?.version === version
              ? {
                  pages: entry.embedding.pages,
                  embedded: entry.embedding.embedded,
                  complete: entry.embedding.complete,
                }
              : null,
        },
      });
    }
    return out;
  }

  /** Versions that exist in any form (rows, a settings.json, the one being written, the one served). Ascending. */
  existing(catalog: Catalog): Promise<number[]> {
    return existingVersions(this.#f, catalog);
  }

  /** Delete versions of a catalog, layer by layer. A dry run counts exactly what a delete would remove. */
  async delete(ref: CatalogRef, options: DeleteOptions): Promise<DeleteReport> {
    const f = this.#f;
    const catalog = await (await this.#catalogs()).get(ref);
    const dryRun = options.dryRun ?? false;
    const layers = normalizeLayers(options.layers);
    assertOneSelection(options);
    await assertNotRunning(f, catalog);
    const targets = selectVersions(catalog, await existingVersions(f, catalog), options);
    const servingTargeted = catalog.searchVersion >= 0 && targets.includes(catalog.searchVersion);
    const entry = (await f.published.list()).find((c) => c.catalogId === catalog.id);
    const meaning = entry?.meaningVersion;
    if (meaning !== undefined && targets.includes(meaning) && !options.force && !dryRun) {
      throw new CrawlerError(
        'CONFLICT',
        `version ${meaning} of catalog "${catalog.name}" is the one meaning search reads until version ${catalog.searchVersion}'s vectors are complete`,
        {
          fix: `resume the catalog to complete them (greenfinger resume --id ${catalog.id}), or add --force (meaning search then reads the vectors of version ${catalog.searchVersion} written so far)`,
        },
      );
    }
    if (servingTargeted && !options.force) {
      throw new CrawlerError(
        'CONFLICT',
        `version ${catalog.searchVersion} of catalog "${catalog.name}" is the one search reads`,
        {
          fix: 'add --force to delete it anyway (search then has nothing to read for this catalog until a crawl publishes again)',
        },
      );
    }
    const handle = dryRun ? undefined : await f.runs.acquire(catalog.id, 'delete');
    try {
      const done = await f.writer.deleteVersions(catalog.id, {
        versions: targets,
        layers,
        dryRun,
        unserve: servingTargeted && (layers.includes('file') || layers.includes('db')),
        purge: options.purge === true,
      });
      return {
        catalogId: catalog.id,
        catalog: catalog.name,
        dryRun,
        versions: targets,
        layers,
        results: done.results,
        searchVersion: done.searchVersion,
        purged: done.purged,
      };
    } finally {
      await handle?.release();
    }
  }

  /**
   * Remove the oldest versions beyond `catalog.settings.maxVersions`, all layers; never the serving version and
   * never the one being written. Call it while the catalog is held (e.g. right after a publish).
   */
  async prune(catalog: Catalog): Promise<DeleteReport> {
    const { versions, results } = await this.#f.writer.prune(catalog);
    return {
      catalogId: catalog.id,
      catalog: catalog.name,
      dryRun: false,
      versions,
      layers: [...DELETE_ORDER],
      results,
      searchVersion: catalog.searchVersion,
      purged: false,
    };
  }

  /** The versions a prune after the next publish removes: the oldest beyond `maxVersions`, never the served one. */
  pruneTargets(catalog: Catalog): Promise<number[]> {
    return pruneTargets(this.#f, catalog);
  }
}

/**
 * serving: search reads it · running: a live process writes it · published: a run of it ended normally · incomplete:
 * its last run ended unpublished · empty: nothing stored.
 */
function versionState(v: { running: boolean; serving: boolean; published: boolean; stored: boolean }): VersionState {
  if (v.running) return 'running';
  if (v.serving) return 'serving';
  if (v.published) return 'published';
  return v.stored ? 'incomplete' : 'empty';
}

function assertOneSelection(options: DeleteOptions): void {
  const chosen = [
    options.version !== undefined,
    options.keepLatest !== undefined && options.keepLatest !== false,
    options.all === true,
  ].filter(Boolean).length;
  if (chosen !== 1) {
    throw new ConfigError(
      '--version/--keep-latest/--all',
      'say which versions to delete',
      'give exactly one of --version N, --keep-latest [N] or --all',
    );
  }
  if (options.purge && !options.all) {
    throw new ConfigError('--purge', 'purge removes the whole index of the catalog', 'use it together with --all');
  }
}

function selectVersions(catalog: Catalog, existing: number[], options: DeleteOptions): number[] {
  if (options.all) return existing;
  if (options.version !== undefined) {
    if (!existing.includes(options.version)) {
      throw new CrawlerError('NOT_FOUND', `catalog "${catalog.name}" has no version ${options.version}`, {
        fix: existing.length
          ? `existing versions: ${existing.join(', ')} (greenfinger versions --id ${catalog.id})`
          : 'it has no versions at all',
      });
    }
    return [options.version];
  }
  const keep = options.keepLatest === true ? 1 : Number(options.keepLatest);
  if (!Number.isInteger(keep) || keep < 0) {
    throw new ConfigError(
      '--keep-latest',
      `must be a whole number ≥ 0, got ${String(options.keepLatest)}`,
      'e.g. --keep-latest 2',
    );
  }
  const newest = new Set(existing.slice(Math.max(0, existing.length - keep)));
  return existing.filter((v) => !newest.has(v) && v !== catalog.searchVersion);
}

function normalizeLayers(layers: DeleteLayer[] | undefined): DeleteLayer[] {
  if (!layers || layers.length === 0) return [...DELETE_ORDER];
  const bad = layers.filter((l) => !DELETE_ORDER.includes(l));
  if (bad.length > 0) {
    throw new ConfigError(
      '--layers',
      `unknown layer "${bad.join(', ')}"`,
      'use vector, index, file and db joined by +',
    );
  }
  return DELETE_ORDER.filter((l) => layers.includes(l));
}

/** Refuse (CONFLICT) while anything runs the catalog (a crawl, a replay, a delete). Writes nothing. */
export async function assertNotRunning(f: ComponentFactory, catalog: Catalog): Promise<void> {
  const holder = await f.runs.holder(catalog.id);
  if (holder) {
    const what = ['replay', 'delete'].includes(holder.action)
      ? `busy: a ${holder.action} runs in ${holder.where}`
      : `being crawled by ${holder.where}`;
    throw new CrawlerError('CONFLICT', `catalog "${catalog.name}" is ${what} since ${holder.since}`, {
      fix: 'wait for it to finish, or stop it (Ctrl-C / pause) first',
    });
  }
}
