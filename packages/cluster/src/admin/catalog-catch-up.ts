import { type AdminWriter, type Catalog, clusterSharing, type Greenfinger, type Logger } from '@greenfinger/core';
import type { LeaderGateway } from '../membership/leader-gateway.js';
import { upsertCatalog } from './admin-mirror.js';

/** The leader operation a joining member asks: every catalog row of the leader's database. */
export const CATALOG_ROWS_OP = 'catalogs.rows';

/** How long a joining member waits for the leader's rows before it joins without them. */
const CATCH_UP_TIMEOUT_MS = 10_000;

/** On the leader: its catalog rows (a few hundred bytes each; installations hold tens, not millions). */
export async function catalogRows(gf: Greenfinger): Promise<Catalog[]> {
  return (await gf.database()).catalogs.list();
}

/** What a catch-up changed in the member's own database, by catalog id. */
export interface CatchUp {
  created: string[];
  updated: string[];
  /** Catalogs whose published version moved: the member's search registry (catalogs.json) was written again. */
  republished: string[];
  /** Rows this member holds that the leader does not (kept: deleting them is a person's decision). */
  onlyHere: string[];
}

/** The leader's row is one this member lacks or holds an older state of. */
function newer(leader: Catalog, mine: Catalog): boolean {
  return (
    leader.searchVersion > mine.searchVersion ||
    leader.indexVersion > mine.indexVersion ||
    Date.parse(leader.updatedAt) > Date.parse(mine.updatedAt)
  );
}

/**
 * CatalogCatchUp (seed 000): a member joining with a database of its own (per-node SQLite) asks the leader for the
 * catalog rows and writes those it lacks or holds older states of, so a catalog created, changed or published while
 * it was away is known before urls of it are routed here. Where search reads moved, its search registry is written
 * again from the row. With a shared database (PostgreSQL) there is nothing to do. A leader that does not answer
 * (none yet, an older version) is logged and the member joins without: a run's STARTED still carries its row.
 */
export async function catchUpCatalogs(options: {
  gf: Greenfinger;
  gateway: LeaderGateway;
  local: () => AdminWriter;
  log: Logger;
  timeoutMs?: number;
}): Promise<CatchUp | undefined> {
  const { gf, log } = options;
  const db = await gf.database();
  if (db.kind !== 'sqlite') {
    // A shared database holds the rows already; with a shared index too, a member added later serves search at once.
    if (clusterSharing(gf.settings).index === 'shared') await publishSharedSearch(gf, options.local, log);
    return undefined;
  }
  let rows: Catalog[];
  try {
    rows = await options.gateway.call<Catalog[]>(CATALOG_ROWS_OP, [], {
      timeoutMs: options.timeoutMs ?? CATCH_UP_TIMEOUT_MS,
    });
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'catalog rows not caught up from the leader; joining without');
    return undefined;
  }
  const mine = new Map((await db.catalogs.list()).map((c) => [c.id, c]));
  const out: CatchUp = { created: [], updated: [], republished: [], onlyHere: [] };
  for (const row of Array.isArray(rows) ? rows : []) {
    const have = mine.get(row.id);
    mine.delete(row.id);
    if (have && !newer(row, have)) continue;
    try {
      out[have ? 'updated' : 'created'].push(row.id);
      await upsertCatalog(db.catalogs, row);
      if (row.searchVersion >= 0 && row.searchVersion !== (have?.searchVersion ?? -1)) {
        if (await options.local().restorePublished(row.id, row.searchVersion)) out.republished.push(row.id);
      }
    } catch (err) {
      log.warn({ err, catalogId: row.id }, 'catalog row not caught up');
    }
  }
  out.onlyHere = [...mine.keys()];
  log.info(
    {
      created: out.created.length,
      updated: out.updated.length,
      republished: out.republished.length,
      onlyHere: out.onlyHere,
    },
    'catalog rows caught up from the leader',
  );
  return out;
}

/**
 * With the database and the index shared by every member (PostgreSQL and Elasticsearch), the search registry of a
 * member (user/index/catalogs.json) is the only thing it lacks to answer searches: written here from the rows, for
 * every catalog with a published version it does not list yet. Returns the catalogs it made searchable.
 */
export async function publishSharedSearch(gf: Greenfinger, local: () => AdminWriter, log: Logger): Promise<string[]> {
  const listed = new Set((await gf.published.list()).map((p) => p.catalogId));
  const out: string[] = [];
  for (const row of await (await gf.database()).catalogs.list()) {
    if (row.searchVersion < 0 || listed.has(row.id)) continue;
    try {
      if (await local().restorePublished(row.id, row.searchVersion)) out.push(row.id);
    } catch (err) {
      log.warn({ err, catalogId: row.id }, 'published version not written from the shared rows');
    }
  }
  if (out.length > 0) log.info({ catalogs: out }, 'search answers here from the shared index');
  return out;
}
