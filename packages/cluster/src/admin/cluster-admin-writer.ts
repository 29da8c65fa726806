import type {
  AdminWriter,
  AlertRow,
  Catalog,
  CatalogDefinitionFields,
  DeleteResultRow,
  LedgerRow,
  Logger,
  MeaningPublication,
  PublishedMeaning,
  RecordDatabase,
  RunningState,
  UserRow,
  VersionDeletion,
  VersionDeletionResult,
} from '@greenfinger/core/internal';
import type { LeaderGateway } from '../membership/leader-gateway.js';
import { mirrorWrite } from './admin-mirror.js';
import type { AdminOp } from './admin-ops.js';

type UrlLayerCount = Awaited<ReturnType<AdminWriter['deleteUrl']>>[number];

/** What the writer asks of the member it runs on. */
export interface AdminRouting {
  /** This member holds the leader lease now. */
  isLeader(): boolean;
  readonly gateway: LeaderGateway;
  /** The member's own writer: on the leader every write is a plain call to it. */
  local(): AdminWriter;
  /** On the leader, the writer its calls go to when it is not `local()` (one that announces deletions). */
  leading?(): AdminWriter;
  /** The catalog a cluster run writes now on this member: its version and action, if any. */
  runOf(catalogId: string): { version: number; action: RunningState } | undefined;
  /** The catalog's row in this member's own database. */
  row(catalogId: string): Promise<Catalog>;
  /** On the leader: publish a version once per run, fenced by the lease's token (see ClusterNode.publishOnce). */
  publishOnce(catalogId: string, version: number): Promise<Catalog>;
  /**
   * This caller's own record database when it is per node (SQLite): a write the leader made is then applied to it
   * too (admin-mirror.ts). Absent, or undefined (a shared PostgreSQL): nothing is written here.
   */
  ownRecords?(): Promise<RecordDatabase | undefined>;
  log?: Logger;
}

/**
 * The single writer of a cluster (seed 000, "One writer for administrative writes"): every catalog save and delete,
 * running state, publish, prune and version deletion goes to the leader, where it is a plain method call on the
 * leader's own writer; on the leader itself no message is sent. Publishing is done once per run, under the lease's
 * fencing token, so two members finishing a run, or a stale leader, cannot publish twice or backwards. The running
 * state of a catalog a cluster run writes belongs to the run (the leader sets it at the start and clears it at the
 * end), so a member finishing its part does not mark the catalog idle under the others.
 */
export class ClusterAdminWriter implements AdminWriter {
  readonly #r: AdminRouting;

  constructor(routing: AdminRouting) {
    this.#r = routing;
  }

  #route<T>(op: AdminOp, args: unknown[], here: (w: AdminWriter) => Promise<T>): Promise<T> {
    return this.#r.isLeader() ? here(this.#r.leading?.() ?? this.#r.local()) : this.#remote<T>(op, args);
  }

  /** Through the leader; with a database of its own, the write is then applied here too. */
  async #remote<T>(op: AdminOp, args: unknown[]): Promise<T> {
    const value = await this.#r.gateway.call<T>(`admin.${op}`, args);
    const own = await this.#r.ownRecords?.();
    if (own) await mirrorWrite(op, args, value, { db: own, local: this.#r.local(), log: this.#r.log });
    return value;
  }

  createCatalog(catalog: Catalog): Promise<Catalog> {
    return this.#route('createCatalog', [catalog], (w) => w.createCatalog(catalog));
  }
  saveCatalog(catalog: Catalog): Promise<Catalog> {
    return this.#route('saveCatalog', [catalog], (w) => w.saveCatalog(catalog));
  }
  updateDefinition(catalogId: string, definition: CatalogDefinitionFields): Promise<Catalog> {
    return this.#route('updateDefinition', [catalogId, definition], (w) => w.updateDefinition(catalogId, definition));
  }
  deleteCatalog(catalogId: string): Promise<boolean> {
    return this.#route('deleteCatalog', [catalogId], (w) => w.deleteCatalog(catalogId));
  }
  async setRunningState(catalogId: string, state: RunningState, indexVersion?: number): Promise<Catalog> {
    const run = this.#r.runOf(catalogId);
    if (run) {
      // The run's: answer with the row as the run has it, and write nothing.
      const row = await this.#r.row(catalogId);
      return { ...row, runningState: run.action, indexVersion: run.version };
    }
    return this.#route('setRunningState', [catalogId, state, indexVersion], (w) =>
      w.setRunningState(catalogId, state, indexVersion),
    );
  }
  publish(catalogId: string, version: number): Promise<Catalog> {
    return this.#r.isLeader()
      ? this.#r.publishOnce(catalogId, version)
      : this.#remote<Catalog>('publish', [catalogId, version]);
  }
  /** Words before meaning, on the leader like every other write (its final `publish` is the one fenced once per run). */
  publishWords(catalogId: string, version: number, meaning: MeaningPublication): Promise<Catalog> {
    return this.#route('publishWords', [catalogId, version, meaning], (w) =>
      w.publishWords(catalogId, version, meaning),
    );
  }
  restorePublished(catalogId: string, version: number, meaning?: PublishedMeaning): Promise<boolean> {
    const args = meaning === undefined ? [catalogId, version] : [catalogId, version, meaning];
    return this.#route('restorePublished', args, (w) => w.restorePublished(catalogId, version, meaning));
  }
  prune(catalog: Catalog): Promise<{ versions: number[]; results: DeleteResultRow[] }> {
    return this.#route('prune', [catalog], (w) => w.prune(catalog));
  }
  deleteVersions(catalogId: string, deletion: VersionDeletion): Promise<VersionDeletionResult> {
    return this.#route('deleteVersions', [catalogId, deletion], (w) => w.deleteVersions(catalogId, deletion));
  }
  deleteUrl(row: LedgerRow, dryRun: boolean): Promise<UrlLayerCount[]> {
    return this.#route('deleteUrl', [row, dryRun], (w) => w.deleteUrl(row, dryRun));
  }
  createUser(user: UserRow): Promise<void> {
    return this.#route('createUser', [user], (w) => w.createUser(user));
  }
  updateUser(user: UserRow): Promise<boolean> {
    return this.#route('updateUser', [user], (w) => w.updateUser(user));
  }
  deleteUser(name: string): Promise<boolean> {
    return this.#route('deleteUser', [name], (w) => w.deleteUser(name));
  }
  revokeToken(tokenId: string, expiresAt: string): Promise<void> {
    return this.#route('revokeToken', [tokenId, expiresAt], (w) => w.revokeToken(tokenId, expiresAt));
  }
  /** A saved search: stored by the leader (and, with a database of its own, here too), so the leader matches it. */
  createAlert(row: AlertRow): Promise<void> {
    return this.#route('createAlert', [row], (w) => w.createAlert(row));
  }
  deleteAlert(catalogId: string, alertId: string): Promise<boolean> {
    return this.#route('deleteAlert', [catalogId, alertId], (w) => w.deleteAlert(catalogId, alertId));
  }
  /** A push of changed urls: recorded in the leader's files, where the run's feeds are read (not here too). */
  recordPush(catalogId: string, urls: string[]): Promise<string> {
    return this.#route('recordPush', [catalogId, urls], (w) => w.recordPush(catalogId, urls));
  }
}
