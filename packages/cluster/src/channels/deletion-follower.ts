import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  type AdminWriter,
  clusterSharing,
  type DeleteLayer,
  eraseUrl,
  type Greenfinger,
  type Logger,
} from '@greenfinger/core/internal';
import type { Redis } from 'ioredis';
import type { ClusterKeys } from '../plumbing/keys.js';
import { isPerNodeBlobStore } from './blob-replica.js';
import { type Deletion, newestDeletion, oldestDeletion, readDeletions } from './deletion-log.js';
import { isPerNodeVectorFamily } from './vector-replica.js';

/** Entries read from the log at a time, and reads per catch-up (a bound, not a limit met in practice). */
const READ_COUNT = 100;
const MAX_READS = 1_000;

export interface DeletionFollowerOptions {
  name: string;
  keys: ClusterKeys;
  redis: Redis;
  gf: () => Greenfinger;
  /** The member's own writer (LocalAdminWriter on its stores). */
  local: () => AdminWriter;
  log: Logger;
}

/**
 * A member's side of the leader's deletions (docs/cluster.md, "Deletions reach every member"): each entry of the
 * deletion log the member has not applied yet is applied to its **own per-node layers** — the index (embedded),
 * the files when the blob store is the local one, the vectors when they are embedded sqlite-vec, and the rows when
 * the database is its own SQLite (with a shared PostgreSQL the leader's write already removed them). Nothing here reads
 * rows to find what to delete: versions go by catalog and version, a url's files by the keys the entry carries.
 * Entries the member wrote itself as leader are passed (its write did them). Applying is idempotent, and one at a
 * time per member (with the caller's own mirror of the same write, through {@link serial}).
 */
/** The AdminWriter calls that delete (applied one at a time with the follower's own, {@link DeletionFollower.serialized}). */
const SERIAL_WRITES = new Set<string>(['deleteVersions', 'deleteUrl', 'deleteCatalog', 'prune']);

export class DeletionFollower {
  readonly #o: DeletionFollowerOptions;
  #chain: Promise<unknown> = Promise.resolve();

  constructor(options: DeletionFollowerOptions) {
    this.#o = options;
  }

  /** Run `work` after every deletion this member applies now (none overlaps another on the same stores). */
  serial<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#chain.then(work, work);
    this.#chain = result.catch(() => undefined);
    return result;
  }

  /**
   * `writer` with its deletions (versions, a url, a catalog, a prune) run one at a time with the ones this follower
   * applies: the caller's own mirror of a write and the leader's announcement of it never overlap on the same stores.
   */
  serialized(writer: AdminWriter): AdminWriter {
    const serial = (work: () => Promise<unknown>) => this.serial(work);
    return new Proxy(writer, {
      get(target, prop) {
        const v = Reflect.get(target, prop, target) as unknown;
        if (typeof v !== 'function') return v;
        const f = v as (...a: unknown[]) => Promise<unknown>;
        return SERIAL_WRITES.has(String(prop)) ? (...a: unknown[]) => serial(() => f.apply(target, a)) : f.bind(target);
      },
    });
  }

  /** Apply every logged deletion after this member's mark, oldest first (on DELETED, and when it joins). */
  catchUp(): Promise<{ applied: number; passed: number }> {
    return this.serial(() => this.#catchUp());
  }

  async #catchUp(): Promise<{ applied: number; passed: number }> {
    const { redis, keys, name, log } = this.#o;
    const markKey = keys.deletionsApplied(name);
    let mark = (await redis.get(markKey)) ?? undefined;
    if (!mark) {
      // A member new to the log holds nothing it names (or nothing newer than it): it follows from here on.
      await redis.set(markKey, (await newestDeletion(redis, keys)) ?? '0-0');
      return { applied: 0, passed: 0 };
    }
    const oldest = await oldestDeletion(redis, keys);
    // Entries after its mark were trimmed (more than DELETIONS_KEPT since it last read): some may be missed.
    if (oldest && mark !== '0-0' && compareIds(oldest, mark) > 0) {
      log.warn(
        { mark, oldest },
        'deletions may have been trimmed from the log before this member read them: delete those versions or urls again',
      );
    }
    const out = { applied: 0, passed: 0 };
    for (let reads = 0; reads < MAX_READS; reads++) {
      const { entries, last, skipped } = await readDeletions(redis, keys, mark, READ_COUNT);
      for (const entry of entries) {
        if (entry.from === name) out.passed++;
        else {
          await this.#apply(entry).catch((err: unknown) =>
            log.error(
              { err, entry: entry.id, catalogId: entry.catalogId, what: entry.what },
              'a deletion was not applied to this member; delete it again through the leader',
            ),
          );
          out.applied++;
        }
        await redis.set(markKey, entry.id);
      }
      if (!last) break;
      mark = last;
      await redis.set(markKey, last);
      if (entries.length + skipped < READ_COUNT) break;
    }
    if (out.applied > 0) log.info(out, 'deletions applied to this member');
    return out;
  }

  /** The layers of this member a deletion reaches: the per-node ones among `layers`. */
  async #own(layers: readonly DeleteLayer[]): Promise<DeleteLayer[]> {
    const gf = this.#o.gf();
    const db = await gf.database();
    return layers.filter((l) => {
      if (l === 'db') return db.kind === 'sqlite';
      if (l === 'file') return isPerNodeBlobStore(gf.factory.blobs);
      if (l === 'vector') return isPerNodeVectorFamily(gf.factory.vectorFamily());
      // a shared index (Elasticsearch): the leader's deletion reached it already (channel-plan.ts)
      if (l === 'index') return clusterSharing(gf.settings).index === 'replicated';
      return true;
    });
  }

  async #apply(d: Deletion): Promise<void> {
    const gf = this.#o.gf();
    const db = await gf.database();
    const mine = await db.catalogs.get(d.catalogId);
    switch (d.what) {
      case 'versions': {
        if (!mine) return; // a catalog this member never held rows of (per node), or deleted since (shared)
        const layers = await this.#own(d.layers);
        await this.#o.local().deleteVersions(d.catalogId, {
          versions: d.versions,
          layers,
          dryRun: false,
          // Its own row only, and only while it still serves one of them (a later publish may have moved it on).
          unserve: d.unserve && db.kind === 'sqlite' && d.versions.includes(mine.searchVersion),
          purge: d.purge,
          workingState: d.layers.includes('db'),
          clearMarks: d.marks,
        });
        return;
      }
      case 'url': {
        const [htmlPath = '', textPath = ''] = d.files;
        await eraseUrl(gf.factory, d.row, false, undefined, {
          layers: await this.#own(['vector', 'index', 'file', 'db']),
          resource: { htmlPath, textPath },
        });
        return;
      }
      case 'catalog':
        await this.#purgeCatalog(d.catalogId, mine !== undefined && db.kind === 'sqlite');
        return;
    }
  }

  /** Everything of a deleted catalog this member holds: index, vectors and files (per node), frontiers, its rows. */
  async #purgeCatalog(catalogId: string, ownRow: boolean): Promise<void> {
    const f = this.#o.gf().factory;
    if (clusterSharing(f.settings).index === 'replicated') await f.index().purge(catalogId);
    if (isPerNodeVectorFamily(f.vectorFamily())) await f.vectorFamily().purge(catalogId);
    if (isPerNodeBlobStore(f.blobs)) await f.blobs.deletePrefix(`assets/${catalogId}`);
    await rm(dirname(f.layout.frontierDir(catalogId, 0)), { recursive: true, force: true });
    await f.published.remove(catalogId);
    if (!ownRow) return;
    const db = await f.database();
    for (const v of await db.resources.versions(catalogId)) await db.resources.deleteVersion(catalogId, v);
    await db.catalogs.delete(catalogId);
  }
}

/** Stream ids compared as `<ms>-<seq>`. */
function compareIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am === bm ? as - bs : am - bm;
}
