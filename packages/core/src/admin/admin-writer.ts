import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AlertRow } from '../alerts/alert-store.js';
import { CrawlerError } from '../errors.js';
import { recordPush } from '../feeds/feed-state.js';
import { type EmbeddingState, meaningVersionOf } from '../index/catalog-registry.js';
import type { Catalog, RunningState } from '../model.js';
import type { LedgerRow, UserRow } from '../storage/record-store.js';
import type { NodeStores } from './node-stores.js';
import { eraseUrl, type UrlLayerCount } from './url-eraser.js';
import { DELETE_ORDER, type DeleteLayer, type DeleteResultRow, eraseVersions, pruneTargets } from './version-eraser.js';

/** What `deleteVersions` is asked to do. */
export interface VersionDeletion {
  versions: number[];
  layers: DeleteLayer[];
  dryRun: boolean;
  /** The served version is among them and search stops reading it (searchVersion = -1). */
  unserve: boolean;
  /** Also remove the catalog's index, its asset folder, its frontiers and its entry in catalogs.json. */
  purge: boolean;
  /**
   * Remove the versions' working state (frontiers; url marks unless `clearMarks` is false) even when `layers` lack
   * db: a deletion another writer made in a shared database, applied to this node's own layers.
   * @default layers.includes('db')
   */
  workingState?: boolean;
  /** @default true (a prune keeps them: a pruned version is never written again) */
  clearMarks?: boolean;
}

export interface VersionDeletionResult {
  results: DeleteResultRow[];
  searchVersion: number;
  purged: boolean;
}

/**
 * What meaning search reads of a catalog whose published version's vectors are still being written
 * (`AdminWriter.publishWords`): the previous complete version, or that version with the vectors written so far.
 */
export interface MeaningPublication {
  /** The version meaning search reads. */
  version: number;
  /** The progress of the vectors still being written (of the published version), absent when they are complete. */
  embedding?: EmbeddingState | undefined;
}

/** What a person defines of a catalog; its versions and running state are the crawls' to change. */
export type CatalogDefinitionFields = Pick<Catalog, 'name' | 'url' | 'startUrl' | 'settings'>;

/**
 * The single writer of administrative writes (seed 000, "One writer for administrative writes"): catalog rows,
 * running state, publishing a version, pruning and deleting versions, users and signed-out tokens. Every node holds
 * its own copy of these, so a cluster routes each call to its leader; on one node (and on the leader) it is a plain
 * method call. Crawl output never goes through here. Every operation takes plain data and is idempotent, so a
 * retried call is harmless.
 */
export interface AdminWriter {
  createCatalog(catalog: Catalog): Promise<Catalog>;
  /** Store a whole catalog row: its definition or its state (versions, running state). */
  saveCatalog(catalog: Catalog): Promise<Catalog>;
  /**
   * Store a catalog's definition (name, url, start url, settings) onto its latest row, leaving its versions and running
   * state as they are now: an edit made while a crawl runs never undoes the crawl's publish.
   */
  updateDefinition(catalogId: string, definition: CatalogDefinitionFields): Promise<Catalog>;
  deleteCatalog(catalogId: string): Promise<boolean>;
  /** Mark a catalog running (with the version it writes) or idle. */
  setRunningState(catalogId: string, state: RunningState, indexVersion?: number): Promise<Catalog>;
  /**
   * Publish a finished version: search reads it from now on (the served version only moves forward), catalogs.json
   * says so, and the oldest versions beyond maxVersions are pruned (never the served one).
   */
  publish(catalogId: string, version: number): Promise<Catalog>;
  /**
   * Publish a version for words search while its vectors are still being written (docs/verbs.md, "Words first, then
   * meaning"): words search reads `version` from now on, as after `publish` (forward only, catalogs.json says so, and
   * when the served version moved the prune runs, never taking the one meaning search reads); meaning search reads
   * `meaning.version` — the previous complete version, or this one with the vectors written so far, whose progress
   * `meaning.embedding` gives. Called again as the vectors are written; `publish` completes the version.
   */
  publishWords(catalogId: string, version: number, meaning: MeaningPublication): Promise<Catalog>;
  /**
   * Write the catalog's entry in catalogs.json again from its row (after a replay of the served version, or when
   * user/index lost it); `version` is the one just rebuilt. Returns whether search answers for the catalog.
   * `meaning` says what meaning search reads: by default what the entry says now (`keep`); a copy of another node's
   * publish passes what that publish wrote (`complete`: the version itself, or its MeaningPublication).
   */
  restorePublished(catalogId: string, version: number, meaning?: PublishedMeaning): Promise<boolean>;
  /** Remove the oldest versions of `catalog` beyond its maxVersions, all layers; never the served one. */
  prune(catalog: Catalog): Promise<{ versions: number[]; results: DeleteResultRow[] }>;
  /** Delete versions layer by layer (vector → index → file → db); a dry run counts and writes nothing. */
  deleteVersions(catalogId: string, deletion: VersionDeletion): Promise<VersionDeletionResult>;
  /**
   * Remove one url's page from its version layer by layer (vector → index → file → db), then mark its ledger row
   * `deleted` so it is not queued again in that version; `row` is the url's ledger row. A dry run counts only.
   */
  deleteUrl(row: LedgerRow, dryRun: boolean): Promise<UrlLayerCount[]>;
  /**
   * Store a new user (the row carries the password hash, never the password). Storing the very row already there
   * again does nothing, so a retried call is harmless.
   * @throws CrawlerError CONFLICT when another user holds the name
   */
  createUser(user: UserRow): Promise<void>;
  /** Store a whole user row (password hash, role, times); false when there is no such user. */
  updateUser(user: UserRow): Promise<boolean>;
  /** false when there was no such user. */
  deleteUser(name: string): Promise<boolean>;
  /** Sign a token out until `expiresAt` (ISO), when it would have expired anyway; idempotent. */
  revokeToken(tokenId: string, expiresAt: string): Promise<void>;
  /**
   * Store a saved search (`alert add`, docs/freshness.md#saved-searches). Storing the very row already there again
   * does nothing. @throws CrawlerError CONFLICT when the catalog has another of that name
   */
  createAlert(row: AlertRow): Promise<void>;
  /** Remove a saved search of a catalog; false when it was not there. */
  deleteAlert(catalogId: string, alertId: string): Promise<boolean>;
  /**
   * Record urls pushed as changed (`POST /v2/catalog/{ref}/changed`, already normalised and in the catalog's scope)
   * where the catalog's next merge reads them: the file store of the node that reads the change feeds (a cluster's
   * leader). Returns the push's key.
   */
  recordPush(catalogId: string, urls: string[]): Promise<string>;
}

/** What meaning search reads in a written catalogs.json entry: as it says now, the version itself, or as published. */
export type PublishedMeaning = MeaningPublication | 'complete' | 'keep';

/** The administrative writer of one node: every write is a method call on this node's stores. */
export class LocalAdminWriter implements AdminWriter {
  readonly #f: NodeStores;
  /** The read-then-write operations of each catalog, one after the other (the last one queued, by catalog id). */
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(stores: NodeStores) {
    this.#f = stores;
  }

  async #store() {
    return (await this.#f.database()).catalogs;
  }

  async #get(catalogId: string): Promise<Catalog> {
    const found = await (await this.#store()).get(catalogId);
    if (!found) {
      throw new CrawlerError('NOT_FOUND', `no catalog with id ${catalogId}`, {
        fix: 'run `greenfinger catalogs` to list them',
      });
    }
    return found;
  }

  async createCatalog(catalog: Catalog): Promise<Catalog> {
    await (await this.#store()).create(catalog);
    return catalog;
  }

  saveCatalog(catalog: Catalog): Promise<Catalog> {
    return this.#serial(catalog.id, () => this.#save(catalog));
  }

  /** Saves a catalog's definition; a published one's search entry follows its name, url and category. */
  async updateDefinition(catalogId: string, definition: CatalogDefinitionFields): Promise<Catalog> {
    const saved = await this.#serial(catalogId, async () => {
      const { name, url, startUrl, settings } = definition;
      return this.#save({ ...(await this.#get(catalogId)), name, url, startUrl, settings });
    });
    const entry = await this.#f.published.resolve(catalogId);
    if (entry && (entry.name !== saved.name || entry.url !== saved.url || entry.cat !== saved.settings.cat)) {
      await this.#f.published.publish({
        ...entry,
        name: saved.name,
        url: saved.url,
        cat: saved.settings.cat,
        updatedAt: undefined,
      });
    }
    return saved;
  }

  async #save(catalog: Catalog): Promise<Catalog> {
    const saved = { ...catalog, updatedAt: new Date().toISOString() };
    await (await this.#store()).update(saved);
    return saved;
  }

  /** Run `work` after every earlier read-then-write of the catalog has settled, so none overwrites another's field. */
  #serial<T>(catalogId: string, work: () => Promise<T>): Promise<T> {
    const before = this.#queues.get(catalogId) ?? Promise.resolve();
    const result = before.then(work, work);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.#queues.set(catalogId, settled);
    void settled.then(() => {
      if (this.#queues.get(catalogId) === settled) this.#queues.delete(catalogId);
    });
    return result;
  }

  async deleteCatalog(catalogId: string): Promise<boolean> {
    return (await this.#store()).delete(catalogId);
  }

  setRunningState(catalogId: string, state: RunningState, indexVersion?: number): Promise<Catalog> {
    return this.#serial(catalogId, async () => {
      const latest = await this.#get(catalogId);
      return this.#save({ ...latest, runningState: state, indexVersion: indexVersion ?? latest.indexVersion });
    });
  }

  async publish(catalogId: string, version: number): Promise<Catalog> {
    const after = await this.#serial(catalogId, async () => {
      const latest = await this.#get(catalogId);
      return this.#save({ ...latest, searchVersion: Math.max(latest.searchVersion, version) });
    });
    // The version is complete: words and meaning read it (a publish of an older version changes nothing of that).
    await this.#writeEntry(after, after.searchVersion, version === after.searchVersion ? 'complete' : 'keep');
    await this.prune(after);
    return after;
  }

  async publishWords(catalogId: string, version: number, meaning: MeaningPublication): Promise<Catalog> {
    let moved = false;
    const after = await this.#serial(catalogId, async () => {
      const latest = await this.#get(catalogId);
      if (version <= latest.searchVersion) return latest;
      moved = true;
      return this.#save({ ...latest, searchVersion: version });
    });
    if (version < after.searchVersion) return after;
    await this.#writeEntry(after, after.searchVersion, meaning);
    if (moved) await this.prune(after);
    return after;
  }

  async prune(catalog: Catalog): Promise<{ versions: number[]; results: DeleteResultRow[] }> {
    const versions = await pruneTargets(this.#f, catalog);
    if (versions.length === 0) return { versions, results: [] };
    // The url marks of a pruned version stay in system/dedup: a pruned version is never written again.
    const results = await eraseVersions(this.#f, catalog, versions, DELETE_ORDER, false, { clearMarks: false });
    if (await this.#f.published.resolve(catalog.id)) await this.#writeEntry(catalog, catalog.searchVersion);
    return { versions, results };
  }

  async restorePublished(catalogId: string, version: number, meaning: PublishedMeaning = 'keep'): Promise<boolean> {
    const latest = await this.#get(catalogId);
    const entry = (await this.#f.published.list()).find((c) => c.catalogId === catalogId);
    const searchVersion = Math.max(latest.searchVersion, entry?.searchVersion ?? -1);
    if (searchVersion < 0) return false;
    if (entry && version !== searchVersion) return false;
    await this.#writeEntry(latest, searchVersion, meaning);
    return true;
  }

  async deleteVersions(catalogId: string, deletion: VersionDeletion): Promise<VersionDeletionResult> {
    const catalog = await this.#get(catalogId);
    const results = await eraseVersions(this.#f, catalog, deletion.versions, deletion.layers, deletion.dryRun, {
      ...(deletion.workingState !== undefined ? { workingState: deletion.workingState } : {}),
      ...(deletion.clearMarks !== undefined ? { clearMarks: deletion.clearMarks } : {}),
    });
    let searchVersion = catalog.searchVersion;
    if (deletion.dryRun || results.some((r) => r.error)) return { results, searchVersion, purged: false };
    if (deletion.unserve) {
      searchVersion = -1;
      await this.#serial(catalogId, async () => this.#save({ ...(await this.#get(catalogId)), searchVersion: -1 }));
    }
    if (deletion.purge) {
      await this.#purge(catalogId);
      return { results, searchVersion, purged: true };
    }
    if (await this.#f.published.resolve(catalogId)) await this.#writeEntry(catalog, searchVersion);
    return { results, searchVersion, purged: false };
  }

  async #users() {
    return (await this.#f.database()).users;
  }

  async createUser(user: UserRow): Promise<void> {
    const users = await this.#users();
    try {
      await users.create(user);
    } catch (err) {
      if (!(err instanceof CrawlerError && err.code === 'CONFLICT') || !sameUser(await users.get(user.name), user))
        throw err;
    }
  }

  async updateUser(user: UserRow): Promise<boolean> {
    return (await this.#users()).update(user);
  }

  async deleteUser(name: string): Promise<boolean> {
    return (await this.#users()).delete(name);
  }

  async revokeToken(tokenId: string, expiresAt: string): Promise<void> {
    await (await this.#users()).revoke(tokenId, expiresAt);
  }

  async deleteUrl(row: LedgerRow, dryRun: boolean): Promise<UrlLayerCount[]> {
    return eraseUrl(this.#f, row, dryRun);
  }

  async createAlert(row: AlertRow): Promise<void> {
    const alerts = await this.#alerts();
    try {
      await alerts.create(row);
    } catch (err) {
      const held = err instanceof CrawlerError && err.code === 'CONFLICT' ? await alerts.list(row.catalogId) : [];
      if (!held.some((a) => a.id === row.id && a.name === row.name && a.query === row.query)) throw err;
    }
  }

  async deleteAlert(catalogId: string, alertId: string): Promise<boolean> {
    return (await this.#alerts()).delete(catalogId, alertId);
  }

  recordPush(catalogId: string, urls: string[]): Promise<string> {
    return recordPush(this.#f.blobs, catalogId, urls);
  }

  async #alerts() {
    const store = (await this.#f.database()).alerts;
    if (!store) {
      throw new CrawlerError('CONFIG', 'this record database keeps no saved searches', {
        fix: 'use the embedded SQLite database or PostgreSQL (DATABASE_URL)',
      });
    }
    return store;
  }

  /** The catalog's whole index, its asset folder, its frontiers and its entry in catalogs.json. */
  async #purge(catalogId: string): Promise<void> {
    const f = this.#f;
    await f.index().purge(catalogId);
    await f.vectorFamily().purge(catalogId);
    await f.blobs.deletePrefix(`assets/${catalogId}`);
    await rm(join(f.layout.system, 'frontier', catalogId), { recursive: true, force: true });
    await f.published.remove(catalogId);
  }

  /**
   * The catalog's entry in catalogs.json: what search reads, and the versions left. What meaning search reads is
   * given (publishWords), `complete` (publish: the served version's vectors are all written), or `keep`: as the entry
   * says, while that version still exists and something is served.
   */
  async #writeEntry(catalog: Catalog, searchVersion: number, meaning: PublishedMeaning = 'keep'): Promise<void> {
    const versions = await (await this.#f.database()).resources.versions(catalog.id);
    let reads: MeaningPublication | undefined = meaning === 'keep' || meaning === 'complete' ? undefined : meaning;
    if (meaning === 'keep') {
      const entry = (await this.#f.published.list()).find((c) => c.catalogId === catalog.id);
      const kept = entry ? meaningVersionOf(entry) : searchVersion;
      const stillThere = kept === searchVersion || versions.includes(kept);
      if (entry && searchVersion >= 0 && stillThere) {
        const embedding = entry.embedding?.version === searchVersion ? entry.embedding : undefined;
        reads = { version: kept, ...(embedding ? { embedding } : {}) };
      }
    }
    await this.#f.published.publish({
      catalogId: catalog.id,
      name: catalog.name,
      url: catalog.url,
      cat: catalog.settings.cat,
      searchVersion,
      ...(reads && reads.version !== searchVersion ? { meaningVersion: reads.version } : {}),
      ...(reads?.embedding ? { embedding: reads.embedding } : {}),
      versions,
    });
  }
}

/** The same row, times compared as instants (a database gives them back in its own form). */
function sameUser(a: UserRow | undefined, b: UserRow): boolean {
  const at = (iso: string) => new Date(iso).getTime();
  return (
    a !== undefined &&
    a.name === b.name &&
    a.passwordHash === b.passwordHash &&
    a.role === b.role &&
    at(a.createdAt) === at(b.createdAt) &&
    at(a.updatedAt) === at(b.updatedAt)
  );
}
