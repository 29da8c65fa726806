import { DELETE_ORDER, type DeleteLayer, type LedgerRow } from '@greenfinger/core';
import type { Redis } from 'ioredis';
import type { ControlChannel } from '../plumbing/control-channel.js';
import type { ClusterKeys } from '../plumbing/keys.js';
import { parseObject, str } from '../plumbing/wire.js';

/**
 * What the leader deleted, as every member applies it to its own layers: versions of a catalog (a delete, or a prune
 * after a publish: `marks` false keeps their url marks), one url's page (its ledger row and its files' keys, so a
 * member whose database no longer holds the row still finds them), or a whole catalog.
 */
export type Deletion =
  | {
      what: 'versions';
      catalogId: string;
      versions: number[];
      layers: DeleteLayer[];
      /** The served version was among them (search stops reading it). */
      unserve: boolean;
      /** The catalog's index, asset folder, frontiers and registry entry went too. */
      purge: boolean;
      /** Their url marks and content fingerprints were cleared (false for a prune). */
      marks: boolean;
    }
  | { what: 'url'; catalogId: string; row: LedgerRow; files: string[] }
  | { what: 'catalog'; catalogId: string };

/** A deletion with the id of its entry in the log. */
export type LoggedDeletion = Deletion & { id: string; from: string };

/** Entries the log keeps (about: a url deletion's entry is ~600 bytes): a member away for more misses the oldest. */
export const DELETIONS_KEPT = 10_000;

const LAYERS = new Set<string>(DELETE_ORDER);

/** A deletion from its JSON fields; undefined for one this version does not understand (unknown fields ignored). */
export function decodeDeletion(o: Record<string, unknown>): Deletion | undefined {
  const catalogId = str(o, 'catalogId');
  if (!catalogId) return undefined;
  switch (o.what) {
    case 'versions': {
      const versions = Array.isArray(o.versions) ? o.versions.filter((v) => Number.isInteger(v) && v >= 0) : [];
      const layers = Array.isArray(o.layers) ? o.layers.filter((l): l is DeleteLayer => LAYERS.has(String(l))) : [];
      if (versions.length === 0 || layers.length === 0) return undefined;
      return {
        what: 'versions',
        catalogId,
        versions: versions as number[],
        layers,
        unserve: o.unserve === true,
        purge: o.purge === true,
        marks: o.marks !== false,
      };
    }
    case 'url': {
      const row = o.row as LedgerRow | undefined;
      if (!row || typeof row !== 'object' || typeof row.id !== 'string' || typeof row.version !== 'number') {
        return undefined;
      }
      const files = Array.isArray(o.files) ? o.files.filter((f): f is string => typeof f === 'string' && f !== '') : [];
      return { what: 'url', catalogId, row: { ...row, catalogId }, files };
    }
    case 'catalog':
      return { what: 'catalog', catalogId };
    default:
      return undefined;
  }
}

/**
 * On the leader, after its own write: the deletion goes into the log (`gf:<cluster>:deleted`, a stream capped at
 * about {@link DELETIONS_KEPT} entries) and then on the control channel as DELETED (with the entry's id), so every
 * member applies it now, and one that was away catches up from the log when it joins.
 */
export async function announceDeletion(
  redis: Redis,
  keys: ClusterKeys,
  control: ControlChannel,
  from: string,
  deletion: Deletion,
): Promise<string> {
  const body = JSON.stringify({ ...deletion, from });
  const id = (await redis.xadd(keys.deletions, 'MAXLEN', '~', String(DELETIONS_KEPT), '*', 'd', body)) as string;
  await control.publish({ type: 'DELETED', runId: '-', from, log: id, ...deletion });
  return id;
}

/** Up to `count` deletions of the log after entry `after` ('0' for all), oldest first. */
export async function readDeletions(
  redis: Redis,
  keys: ClusterKeys,
  after: string,
  count: number,
): Promise<{ entries: LoggedDeletion[]; last: string | undefined; skipped: number }> {
  const rows = (await redis.xrange(keys.deletions, `(${after}`, '+', 'COUNT', count)) as Array<[string, string[]]>;
  const entries: LoggedDeletion[] = [];
  let skipped = 0;
  for (const [id, fields] of rows) {
    const text = fields[fields.indexOf('d') + 1];
    const o = text ? parseObject(text) : undefined;
    const d = o ? decodeDeletion(o) : undefined;
    if (o && d) entries.push({ ...d, id, from: str(o, 'from') ?? '' });
    else skipped++;
  }
  return { entries, last: rows.at(-1)?.[0], skipped };
}

/** The id of the log's newest entry (undefined when the log is empty). */
export async function newestDeletion(redis: Redis, keys: ClusterKeys): Promise<string | undefined> {
  const rows = (await redis.xrevrange(keys.deletions, '+', '-', 'COUNT', 1)) as Array<[string, string[]]>;
  return rows[0]?.[0];
}

/** The id of the log's oldest entry still kept (undefined when the log is empty). */
export async function oldestDeletion(redis: Redis, keys: ClusterKeys): Promise<string | undefined> {
  const rows = (await redis.xrange(keys.deletions, '-', '+', 'COUNT', 1)) as Array<[string, string[]]>;
  return rows[0]?.[0];
}
