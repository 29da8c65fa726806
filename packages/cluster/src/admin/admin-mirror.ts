import type { AdminWriter, Catalog, CatalogStore, Logger, MeaningPublication, RecordDatabase } from '@greenfinger/core';
import type { AdminOp } from './admin-ops.js';

/** The operations whose answer is the catalog row as the leader wrote it. */
const ROW_OPS: ReadonlySet<AdminOp> = new Set(['createCatalog', 'saveCatalog', 'updateDefinition', 'setRunningState']);
/** The ones that also move what search reads. */
const PUBLISH_OPS: ReadonlySet<AdminOp> = new Set(['publish', 'publishWords']);

/** Store the leader's row as it is: created when this database lacks it, replaced otherwise. */
export async function upsertCatalog(store: CatalogStore, row: Catalog): Promise<'created' | 'updated'> {
  if (await store.get(row.id)) {
    await store.update(row);
    return 'updated';
  }
  try {
    await store.create(row);
    return 'created';
  } catch (err) {
    // Written meanwhile by another path (a run's STARTED): replace it.
    if (!(await store.get(row.id))) throw err;
    await store.update(row);
    return 'updated';
  }
}

/**
 * The rule for a database of its own (per-node SQLite; docs/cluster.md, "One writer"): after the leader carried out an
 * administrative write, the caller applies it to its own stores too — a catalog row exactly as the leader's answer
 * has it (so versions and times match the leader's), a deleted catalog deleted, and every other write (publishing
 * into its search registry, version and url deletion, prune, users, tokens, saved searches) repeated on its own
 * writer, except a push of changed urls (the leader's files alone hold it). With a shared
 * database (PostgreSQL) the leader's write is already everyone's and nothing is written here. A failure here is
 * logged, not thrown: the write itself is done.
 */
export async function mirrorWrite(
  op: AdminOp,
  args: unknown[],
  value: unknown,
  ctx: { db: RecordDatabase; local: AdminWriter; log?: Logger | undefined },
): Promise<void> {
  try {
    if (ROW_OPS.has(op) || PUBLISH_OPS.has(op)) {
      const row = value as Catalog;
      await upsertCatalog(ctx.db.catalogs, row);
      // What meaning search reads is what the leader's publish wrote: the version itself, or words first.
      const meaning = op === 'publishWords' ? (args[2] as MeaningPublication) : 'complete';
      if (PUBLISH_OPS.has(op) && row.searchVersion >= 0)
        await ctx.local.restorePublished(row.id, row.searchVersion, meaning);
      return;
    }
    if (op === 'deleteCatalog') {
      if (value === true) await ctx.db.catalogs.delete(String(args[0]));
      return;
    }
    // A push is the leader's to read (it reads the run's feeds): a copy here would be fetched a second time.
    if (op === 'recordPush') return;
    const write = ctx.local[op] as (...a: unknown[]) => Promise<unknown>;
    await write.apply(ctx.local, args);
  } catch (err) {
    ctx.log?.warn({ err, op }, 'the leader made the write; applying it to this database failed');
  }
}
