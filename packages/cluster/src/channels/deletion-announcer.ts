import {
  type AdminWriter,
  type Catalog,
  DELETE_ORDER,
  existingVersions,
  type Greenfinger,
  type LedgerRow,
  type Logger,
  type VersionDeletion,
} from '@greenfinger/core/internal';
import type { Deletion } from './deletion-log.js';

export interface AnnouncerOptions {
  gf: () => Greenfinger;
  /** Log the deletion and send DELETED (deletion-log.ts, announceDeletion). */
  announce: (deletion: Deletion) => Promise<unknown>;
  log: Logger;
}

/** The deletion a prune made: all layers, url marks kept (as LocalAdminWriter.prune does). */
export function pruneDeletion(catalogId: string, versions: number[]): Deletion {
  return {
    what: 'versions',
    catalogId,
    versions,
    layers: [...DELETE_ORDER],
    unserve: false,
    purge: false,
    marks: false,
  };
}

/**
 * Run a write that may prune (publish, publishWords) and say which versions it removed: those that existed before
 * and no longer do (LocalAdminWriter prunes inside the publish and answers with the row only).
 */
export async function prunedBy<T>(
  gf: Greenfinger,
  catalogId: string,
  write: () => Promise<T>,
): Promise<{ value: T; pruned: number[] }> {
  const versions = async () => {
    const row = await (await gf.database()).catalogs.get(catalogId);
    return row ? existingVersions(gf.factory, row) : [];
  };
  const before = await versions();
  const value = await write();
  const after = new Set(await versions());
  return { value, pruned: before.filter((v) => !after.has(v)) };
}

/**
 * The leader's own writer, telling the members what it deleted: after a version deletion, a url deletion, a catalog
 * deletion or a prune (on its own or inside a publish) succeeded on the leader's stores, the deletion is announced
 * (logged and sent as DELETED) so that every member erases it from its own layers (deletion-follower.ts). A dry run,
 * or a version deletion that stopped at a failing layer, announces nothing. An announcement that fails is logged:
 * the write itself is done, and a member catches up only from what was logged.
 */
export function announcingWriter(inner: AdminWriter, o: AnnouncerOptions): AdminWriter {
  const announce = async (d: Deletion) => {
    try {
      await o.announce(d);
    } catch (err) {
      o.log.error({ err, catalogId: d.catalogId, what: d.what }, 'a deletion was not announced to the members');
    }
  };
  const overrides: Partial<AdminWriter> = {
    deleteVersions: async (catalogId: string, d: VersionDeletion) => {
      const done = await inner.deleteVersions(catalogId, d);
      if (!d.dryRun && d.versions.length > 0 && !done.results.some((r) => r.error)) {
        await announce({
          what: 'versions',
          catalogId,
          versions: d.versions,
          layers: d.layers,
          unserve: d.unserve,
          purge: d.purge,
          marks: d.clearMarks !== false,
        });
      }
      return done;
    },
    deleteUrl: async (row: LedgerRow, dryRun: boolean) => {
      // Its files' keys, read before the row goes: a member whose database no longer holds it still finds them.
      const resource = dryRun ? undefined : await (await o.gf().database()).resources.getResource(row.id);
      const layers = await inner.deleteUrl(row, dryRun);
      if (!dryRun) {
        const files = resource ? [resource.htmlPath, resource.textPath] : [];
        await announce({ what: 'url', catalogId: row.catalogId, row, files });
      }
      return layers;
    },
    deleteCatalog: async (catalogId: string) => {
      const deleted = await inner.deleteCatalog(catalogId);
      if (deleted) await announce({ what: 'catalog', catalogId });
      return deleted;
    },
    prune: async (catalog: Catalog) => {
      const done = await inner.prune(catalog);
      if (done.versions.length > 0) await announce(pruneDeletion(catalog.id, done.versions));
      return done;
    },
    publish: async (catalogId: string, version: number) => {
      const { value, pruned } = await prunedBy(o.gf(), catalogId, () => inner.publish(catalogId, version));
      if (pruned.length > 0) await announce(pruneDeletion(catalogId, pruned));
      return value;
    },
    publishWords: async (catalogId, version, meaning) => {
      const { value, pruned } = await prunedBy(o.gf(), catalogId, () =>
        inner.publishWords(catalogId, version, meaning),
      );
      if (pruned.length > 0) await announce(pruneDeletion(catalogId, pruned));
      return value;
    },
  };
  return new Proxy(inner, {
    get(target, prop) {
      const own = overrides[prop as keyof AdminWriter];
      if (own) return own;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}
