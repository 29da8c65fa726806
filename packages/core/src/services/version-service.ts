import { existsSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createContentDedup } from '../dedup/content-dedup.js';
import { LevelUrlFilter } from '../dedup/level-url-filter.js';
import { ConfigError, CrawlerError, errorMessage } from '../errors.js';
import { keys } from '../layout.js';
import type { Catalog, CrawlAction } from '../model.js';
import { FileOutputChannel } from '../outputs/file-output-channel.js';
import { IndexOutputChannel } from '../outputs/index-output-channel.js';
import { SqliteVecStore } from '../vector/sqlite-vec-store.js';
import type { CatalogRef } from './catalog-service.js';
import type { Greenfinger } from './greenfinger.js';
import { RunLock } from './run-lock.js';

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
}

/** Layers in the order a delete walks them: the reverse of the write order, then the database. */
export type DeleteLayer = 'vector' | 'index' | 'file' | 'db';
export const DELETE_ORDER: readonly DeleteLayer[] = ['vector', 'index', 'file', 'db'];

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

/** What one layer of one version held (or, on a dry run, holds); `system` is the version's working state. */
export interface DeleteResultRow {
  version: number;
  layer: DeleteLayer | 'system';
  /** Objects removed: points, documents, files, rows, working-state files. */
  count: number;
  bytes: number;
  error?: string;
  note?: string;
}

export interface DeleteReport {
  catalogId: string;
  catalog: string;
  dryRun: boolean;
  /** The versions the walk covered. */
  versions: number[];
  layers: DeleteLayer[];
  results: DeleteResultRow[];
  /** The catalog's searchVersion after the delete (-1 = nothing served). */
  searchVersion: number;
  purged: boolean;
}

interface VersionEraser {
  readonly layer: DeleteLayer;
  deleteVersion(catalogId: string, version: number, dryRun: boolean): Promise<{ count: number; bytes: number }>;
}

/**
 * Versions of a catalog: list them, delete them layer by layer (vector → index → file → db, so a half-finished
 * delete never leaves a searchable pointer to bytes already gone), and prune the oldest beyond maxVersions.
 * A dry run is the same walk stopping before each write.
 */
export class VersionService {
  readonly #gf: Greenfinger;

  constructor(gf: Greenfinger) {
    this.#gf = gf;
  }

  /** Every version of the catalog, ascending. */
  async list(ref: CatalogRef): Promise<VersionInfo[]> {
    const catalog = await (await this.#gf.catalogs()).get(ref);
    return this.#list(catalog);
  }

  async #list(catalog: Catalog): Promise<VersionInfo[]> {
    const db = await this.#gf.database();
    const reports = new Map((await db.resources.listReports(catalog.id)).map((r) => [r.version, r]));
    const versions = await this.existing(catalog);
    const crawling = catalog.runningState !== 'none' && (await crawlHolder(this.#gf, catalog)) !== undefined;
    const out: VersionInfo[] = [];
    for (const version of versions) {
      const report = reports.get(version);
      const counts = await db.resources.count(catalog.id, version);
      const serving = catalog.searchVersion === version;
      const running = crawling && catalog.indexVersion === version;
      const published = report?.published ?? false;
      const state: VersionState = running
        ? 'running'
        : serving
          ? 'serving'
          : published
            ? 'published'
            : report || counts.resources > 0
              ? 'incomplete'
              : 'empty';
      out.push({
        version,
        state,
        published,
        serving,
        saved: counts.resources,
        images: counts.images,
        startedAt: report?.report.startedAt ?? null,
        endedAt: report?.report.endedAt ?? null,
        action: report?.action ?? null,
      });
    }
    return out;
  }

  /**
   * Versions that exist in any form: rows in the database, a settings.json in the file layer, the one being
   * written and the one served. Ascending.
   */
  async existing(catalog: Catalog): Promise<number[]> {
    const db = await this.#gf.database();
    const found = new Set(await db.resources.versions(catalog.id));
    for (let v = 0; v <= catalog.indexVersion; v++) {
      if (!found.has(v) && (await this.#gf.blobs.exists(keys.settings(catalog.id, v)))) found.add(v);
    }
    if (catalog.runningState !== 'none') found.add(catalog.indexVersion);
    if (catalog.searchVersion >= 0) found.add(catalog.searchVersion);
    return [...found].sort((a, b) => a - b);
  }

  /** Delete versions of a catalog, layer by layer. A dry run counts exactly what a delete would remove. */
  async delete(ref: CatalogRef, options: DeleteOptions): Promise<DeleteReport> {
    const gf = this.#gf;
    const catalogs = await gf.catalogs();
    const catalog = await catalogs.get(ref);
    const dryRun = options.dryRun ?? false;
    const layers = normalizeLayers(options.layers);
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
    await assertNotCrawling(gf, catalog);
    const existing = await this.existing(catalog);
    const targets = this.#targets(catalog, existing, options);
    const servingTargeted = catalog.searchVersion >= 0 && targets.includes(catalog.searchVersion);
    if (servingTargeted && !options.force) {
      throw new CrawlerError(
        'CONFLICT',
        `version ${catalog.searchVersion} of catalog "${catalog.name}" is the one search reads`,
        {
          fix: 'add --force to delete it anyway (search then has nothing to read for this catalog until a crawl publishes again)',
        },
      );
    }

    const lock = dryRun ? undefined : await RunLock.acquire(gf.layout.system, catalog.id);
    try {
      const results = await this.#walk(catalog, targets, layers, dryRun);
      const failed = results.some((r) => r.error);
      let searchVersion = catalog.searchVersion;
      let purged = false;
      if (!dryRun && !failed) {
        const unserve = servingTargeted && (layers.includes('file') || layers.includes('db'));
        if (unserve) {
          searchVersion = -1;
          const latest = (await catalogs.find({ id: catalog.id })) ?? catalog;
          await catalogs.save({ ...latest, searchVersion: -1 });
        }
        if (options.purge) {
          await gf.index().purge(catalog.id);
          await gf.blobs.deletePrefix(`assets/${catalog.id}`);
          await rm(join(gf.layout.system, 'frontier', catalog.id), { recursive: true, force: true });
          await gf.published.remove(catalog.id);
          purged = true;
        } else {
          await this.#republish(catalog, searchVersion);
        }
      }
      return {
        catalogId: catalog.id,
        catalog: catalog.name,
        dryRun,
        versions: targets,
        layers,
        results,
        searchVersion,
        purged,
      };
    } finally {
      await lock?.release();
    }
  }

  /**
   * Remove the oldest versions beyond `catalog.settings.maxVersions`, all layers; never the serving version and
   * never the one being written. Call it while holding the catalog's run lock (e.g. right after a publish): it
   * takes no lock of its own. The url marks and content fingerprints of a pruned version stay in system/dedup
   * (a pruned version is never written again).
   */
  /** The versions prune() removes: the oldest beyond `maxVersions`, never the served one or the one being written. */
  async pruneTargets(catalog: Catalog): Promise<number[]> {
    const existing = await this.existing(catalog);
    const protectedVersions = new Set([catalog.searchVersion, catalog.indexVersion]);
    const excess = existing.length - catalog.settings.maxVersions;
    return existing.filter((v) => !protectedVersions.has(v)).slice(0, Math.max(0, excess));
  }

  async prune(catalog: Catalog): Promise<DeleteReport> {
    const targets = await this.pruneTargets(catalog);
    const layers = [...DELETE_ORDER];
    const results = await this.#walk(catalog, targets, layers, false, { markStores: false });
    if (targets.length > 0) await this.#republish(catalog, catalog.searchVersion);
    return {
      catalogId: catalog.id,
      catalog: catalog.name,
      dryRun: false,
      versions: targets,
      layers,
      results,
      searchVersion: catalog.searchVersion,
      purged: false,
    };
  }

  #targets(catalog: Catalog, existing: number[], options: DeleteOptions): number[] {
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

  async #walk(
    catalog: Catalog,
    versions: number[],
    layers: DeleteLayer[],
    dryRun: boolean,
    options: { markStores?: boolean } = {},
  ): Promise<DeleteResultRow[]> {
    const gf = this.#gf;
    const erasers = await this.#erasers(layers);
    const results: DeleteResultRow[] = [];
    try {
      for (const version of versions) {
        for (const eraser of erasers) {
          try {
            const { count, bytes } = await eraser.deleteVersion(catalog.id, version, dryRun);
            results.push({ version, layer: eraser.layer, count, bytes });
          } catch (err) {
            results.push({ version, layer: eraser.layer, count: 0, bytes: 0, error: errorMessage(err) });
            gf.log.warn({ err, catalogId: catalog.id, version, layer: eraser.layer }, 'delete stopped');
            return results;
          }
        }
        if (layers.includes('db')) results.push(await this.#workingState(catalog.id, version, dryRun, options));
      }
    } finally {
      for (const e of erasers) if (e instanceof VectorEraser) await e.close();
    }
    return results;
  }

  async #erasers(layers: DeleteLayer[]): Promise<VersionEraser[]> {
    const gf = this.#gf;
    const out: VersionEraser[] = [];
    for (const layer of DELETE_ORDER) {
      if (!layers.includes(layer)) continue;
      if (layer === 'vector')
        out.push(await VectorEraser.open(join(gf.layout.user, 'vector'), gf.settings.vectorCollection));
      else if (layer === 'index') out.push(new IndexOutputChannel(gf.index()));
      else if (layer === 'file') out.push(new FileOutputChannel(gf.blobs));
      else {
        const db = await gf.database();
        out.push({
          layer: 'db',
          async deleteVersion(catalogId, version, dry) {
            if (dry) {
              const c = await db.resources.count(catalogId, version);
              return { count: c.resources + c.images + c.resourceImages + c.reports, bytes: 0 };
            }
            const removed = await db.resources.deleteVersion(catalogId, version);
            return { count: Object.values(removed).reduce((a, b) => a + b, 0), bytes: 0 };
          },
        });
      }
    }
    return out;
  }

  /** The version's frontier directory, and (outside a dry run) its url marks and content fingerprints. */
  async #workingState(
    catalogId: string,
    version: number,
    dryRun: boolean,
    options: { markStores?: boolean },
  ): Promise<DeleteResultRow> {
    const gf = this.#gf;
    const dir = gf.layout.frontierDir(catalogId, version);
    const row: DeleteResultRow = { version, layer: 'system', ...(await dirStat(dir)) };
    if (dryRun) return row;
    try {
      await rm(dir, { recursive: true, force: true });
      if (options.markStores === false) return row;
      const note = await this.#clearMarks(catalogId, version);
      if (note) row.note = note;
    } catch (err) {
      row.error = errorMessage(err);
    }
    return row;
  }

  /** Url marks and content fingerprints live in LevelDB stores shared by every catalog of the data store. */
  async #clearMarks(catalogId: string, version: number): Promise<string | undefined> {
    const gf = this.#gf;
    const { layout, settings } = gf;
    if (gf.crawler.running().length > 0) {
      return 'a crawl runs in this process: the url marks of this version stay in system/dedup';
    }
    // The crawl service keeps the shared stores open between crawls; closing releases them (they reopen lazily).
    await gf.crawler.close();
    if (existsSync(layout.urlDedupDir)) {
      const urls = await LevelUrlFilter.open(layout.urlDedupDir);
      try {
        await urls.clearVersion(catalogId, version);
      } finally {
        await urls.close();
      }
    }
    if (existsSync(layout.contentDedupDir)) {
      const content = await createContentDedup(settings.contentDedup, layout.contentDedupDir, {
        maxDistance: settings.simhashDistance,
      });
      try {
        await content.clearVersion(catalogId, version);
      } finally {
        await content.close();
      }
    }
    return undefined;
  }

  /** Rewrite the catalog's entry in catalogs.json: the versions left, and what search reads. */
  async #republish(catalog: Catalog, searchVersion: number): Promise<void> {
    const gf = this.#gf;
    const entry = await gf.published.resolve(catalog.id);
    if (!entry) return;
    const versions = await (await gf.database()).resources.versions(catalog.id);
    await gf.published.publish({
      catalogId: catalog.id,
      name: catalog.name,
      url: catalog.url,
      searchVersion,
      versions,
    });
  }
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

/** Text vectors of every embedding width under user/vector, so a version goes whatever model wrote it. */
class VectorEraser implements VersionEraser {
  readonly layer = 'vector' as const;
  readonly #stores: SqliteVecStore[];

  private constructor(stores: SqliteVecStore[]) {
    this.#stores = stores;
  }

  static async open(root: string, collection: string): Promise<VectorEraser> {
    const stores: SqliteVecStore[] = [];
    let names: string[] = [];
    try {
      names = await readdir(root);
    } catch {
      return new VectorEraser([]);
    }
    const pattern = new RegExp(`^${collection}_(\\d+)$`);
    for (const name of names.sort()) {
      const m = pattern.exec(name);
      if (!m || !existsSync(join(root, name, 'vectors.db'))) continue;
      stores.push(new SqliteVecStore({ root, collection, dims: Number(m[1]) }));
    }
    return new VectorEraser(stores);
  }

  async deleteVersion(catalogId: string, version: number, dryRun: boolean): Promise<{ count: number; bytes: number }> {
    let count = 0;
    for (const store of this.#stores) {
      count += dryRun ? await store.countVersion(catalogId, version) : await store.deleteVersion(catalogId, version);
    }
    return { count, bytes: 0 };
  }

  async close(): Promise<void> {
    for (const s of this.#stores) await s.close();
  }
}

async function dirStat(dir: string): Promise<{ count: number; bytes: number }> {
  let count = 0;
  let bytes = 0;
  const stack = [dir];
  let guard = 0;
  while (stack.length > 0 && guard++ < 1_000_000) {
    const current = stack.pop() as string;
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const full = join(current, e.name);
      if (e.isDirectory()) stack.push(full);
      else if (e.isFile()) {
        count++;
        bytes += (await stat(full)).size;
      }
    }
  }
  return { count, bytes };
}

/**
 * Who crawls the catalog now, in this process or another one on this host (its `system/locks/{catalogId}.lock`
 * names a live pid); undefined when nobody does. Reads only.
 */
async function crawlHolder(gf: Greenfinger, catalog: Catalog): Promise<string | undefined> {
  if (gf.crawler.running().some((r) => r.catalogId === catalog.id)) return 'this process';
  let holder: { pid?: number; host?: string; since?: string } | undefined;
  try {
    holder = JSON.parse(await readFile(join(gf.layout.system, 'locks', `${catalog.id}.lock`), 'utf8'));
  } catch {
    return undefined;
  }
  if (!holder?.pid || holder.host !== hostname() || holder.pid === process.pid) return undefined;
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return `process ${holder.pid} since ${holder.since ?? '?'}`;
}

/** Refuse (CONFLICT) while a crawl of the catalog runs. Writes nothing. */
export async function assertNotCrawling(gf: Greenfinger, catalog: Catalog): Promise<void> {
  const holder = await crawlHolder(gf, catalog);
  if (holder) {
    throw new CrawlerError('CONFLICT', `catalog "${catalog.name}" is being crawled by ${holder}`, {
      fix: 'wait for the crawl to finish, or stop it (Ctrl-C / pause) first',
    });
  }
}
