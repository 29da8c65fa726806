import { existsSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../errors.js';
import { keys } from '../layout.js';
import type { Catalog } from '../model.js';
import type { NodeStores } from './node-stores.js';

/** Layers in the order a delete walks them: the reverse of the write order, then the database. */
export type DeleteLayer = 'vector' | 'index' | 'file' | 'db';
export const DELETE_ORDER: readonly DeleteLayer[] = ['vector', 'index', 'file', 'db'];

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

/** What a deletion of versions did (or, on a dry run, would do), layer by layer. */
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

type Erase = (catalogId: string, version: number, dryRun: boolean) => Promise<{ count: number; bytes: number }>;

/**
 * Versions that exist in any form: rows in the database, a settings.json in the file layer, the one being written
 * and the one served. Ascending.
 */
export async function existingVersions(f: NodeStores, catalog: Catalog): Promise<number[]> {
  const db = await f.database();
  const found = new Set(await db.resources.versions(catalog.id));
  for (let v = 0; v <= catalog.indexVersion; v++) {
    if (!found.has(v) && (await f.blobs.exists(keys.settings(catalog.id, v)))) found.add(v);
  }
  if (catalog.runningState !== 'none') found.add(catalog.indexVersion);
  if (catalog.searchVersion >= 0) found.add(catalog.searchVersion);
  return [...found].sort((a, b) => a - b);
}

/**
 * The versions a prune removes: the oldest beyond `maxVersions`, never the served one, the one being written, or
 * (unless `keepMeaning` is false) the one meaning search reads while the served version's vectors are incomplete.
 */
export async function pruneTargets(
  f: NodeStores,
  catalog: Catalog,
  options: { keepMeaning?: boolean } = {},
): Promise<number[]> {
  const existing = await existingVersions(f, catalog);
  const kept = new Set([catalog.searchVersion, catalog.indexVersion]);
  if (options.keepMeaning !== false) {
    const meaning = (await f.published.list()).find((c) => c.catalogId === catalog.id)?.meaningVersion;
    if (meaning !== undefined) kept.add(meaning);
  }
  const excess = existing.length - catalog.settings.maxVersions;
  return existing.filter((v) => !kept.has(v)).slice(0, Math.max(0, excess));
}

/** Each layer's eraser, through its store family: the vector family, the index, the blob store, the records. */
function erasers(f: NodeStores, layers: readonly DeleteLayer[]): Array<[DeleteLayer, Erase]> {
  const byLayer: Record<DeleteLayer, Erase> = {
    vector: async (catalogId, version, dryRun) => ({
      count: await f.vectorFamily().deleteVersion(catalogId, version, dryRun),
      bytes: 0,
    }),
    index: async (catalogId, version, dryRun) => {
      const index = f.index();
      const count = dryRun
        ? await index.countVersion(catalogId, version)
        : await index.deleteVersion(catalogId, version);
      return { count, bytes: 0 };
    },
    file: async (catalogId, version, dryRun) => {
      const prefix = keys.version(catalogId, version);
      const { objects, bytes } = dryRun ? await f.blobs.stat(prefix) : await f.blobs.deletePrefix(prefix);
      return { count: objects, bytes };
    },
    db: async (catalogId, version, dryRun) => {
      const db = await f.database();
      if (dryRun) {
        const c = await db.resources.count(catalogId, version);
        // The url ledger's rows go with the version too (VERSIONED_TABLES).
        const urls = Object.values(await db.ledger.counts(catalogId, version)).reduce((a, b) => a + b, 0);
        return { count: c.resources + c.images + c.resourceImages + c.reports + urls, bytes: 0 };
      }
      const removed = await db.resources.deleteVersion(catalogId, version);
      return { count: Object.values(removed).reduce((a, b) => a + b, 0), bytes: 0 };
    },
  };
  return DELETE_ORDER.filter((l) => layers.includes(l)).map((l) => [l, byLayer[l]]);
}

/**
 * Delete versions layer by layer, vector → index → file → db, so a half-finished delete never leaves a searchable
 * pointer to bytes already gone; a dry run is the same walk, counting instead of writing. The first failing layer
 * stops the walk (what follows it is kept, so the delete can be run again).
 */
export async function eraseVersions(
  f: NodeStores,
  catalog: Catalog,
  versions: readonly number[],
  layers: readonly DeleteLayer[],
  dryRun: boolean,
  options: {
    clearMarks?: boolean;
    /** Remove the version's working state even without the db layer (another writer deleted the shared rows). @default layers.includes('db') */
    workingState?: boolean;
  } = {},
): Promise<DeleteResultRow[]> {
  const results: DeleteResultRow[] = [];
  const walk = erasers(f, layers);
  for (const version of versions) {
    for (const [layer, erase] of walk) {
      try {
        const { count, bytes } = await erase(catalog.id, version, dryRun);
        results.push({ version, layer, count, bytes });
      } catch (err) {
        results.push({ version, layer, count: 0, bytes: 0, error: errorMessage(err) });
        f.log.warn({ err, catalogId: catalog.id, version, layer }, 'delete stopped');
        return results;
      }
    }
    if (options.workingState ?? layers.includes('db')) {
      results.push(await workingState(f, catalog, version, dryRun, options));
    }
  }
  return results;
}

/** The version's frontier directory, and (outside a dry run) its url marks and content fingerprints. */
async function workingState(
  f: NodeStores,
  catalog: Catalog,
  version: number,
  dryRun: boolean,
  options: { clearMarks?: boolean },
): Promise<DeleteResultRow> {
  const dir = f.layout.frontierDir(catalog.id, version);
  const row: DeleteResultRow = { version, layer: 'system', ...(await dirStat(dir)) };
  if (dryRun) return row;
  try {
    await rm(dir, { recursive: true, force: true });
    if (options.clearMarks === false) return row;
    const note = await clearMarks(f, catalog, version);
    if (note) row.note = note;
  } catch (err) {
    row.error = errorMessage(err);
  }
  return row;
}

/** Url marks and content fingerprints live in stores shared by every catalog of the data store. */
async function clearMarks(f: NodeStores, catalog: Catalog, version: number): Promise<string | undefined> {
  if (f.runs.local().some((r) => r.catalogId !== catalog.id)) {
    return 'a crawl runs in this process: the url marks of this version stay in system/dedup';
  }
  const custom = f.components.urlFilter !== undefined || f.components.contentDedup !== undefined;
  if (custom || existsSync(f.layout.urlDedupDir)) await (await f.urlFilter()).clearVersion(catalog.id, version);
  const kind = catalog.settings.contentDedup || f.settings.contentDedup;
  if (custom || existsSync(f.layout.contentDedupDirOf(kind))) {
    await (await f.contentDedup(catalog.settings.contentDedup)).clearVersion(catalog.id, version);
  }
  // Their LevelDB locks are let go, so another process can crawl right after a delete (they reopen on next use).
  if (f.runs.local().every((r) => r.catalogId === catalog.id)) await f.releaseDedup();
  return undefined;
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
