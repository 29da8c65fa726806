import type {
  ImageRow,
  LedgerRow,
  RecordDatabase,
  ResourceImageRow,
  ResourceRecordStore,
  ResourceRow,
  UrlLedgerStore,
} from '@greenfinger/core';
import { type FrameConsumer, type FrameSender, type ReplicaStream, replicaConsumer } from './multicast-frames.js';

const RESOURCE_WRITES = { saveResources: 'resources', saveImages: 'images', saveResourceImages: 'links' } as const;

function byCatalog<T extends { catalogId: string }>(rows: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const list = out.get(r.catalogId) ?? [];
    list.push(r);
    out.set(r.catalogId, list);
  }
  return out;
}

/**
 * The sending half of the `record` channel (seed 000: only when the record store is per node): the rows a crawl
 * writes — resources, images, their links, the url ledger — are written here, then sent to the other members in
 * batched frames, for the catalogs a cluster run writes now (`senderOf`). A shared PostgreSQL is returned as it is:
 * every member already writes to the same database.
 */
export function replicatedRecords(
  db: RecordDatabase,
  senderOf: (catalogId: string) => FrameSender | undefined,
): RecordDatabase {
  if (db.kind !== 'sqlite') return db;
  const send = async (kind: string, rows: ReadonlyArray<{ catalogId: string }>) => {
    for (const [catalogId, list] of byCatalog(rows)) await senderOf(catalogId)?.push(kind, list);
  };
  const resources = new Proxy(db.resources, {
    get(target, prop) {
      const kind = RESOURCE_WRITES[prop as keyof typeof RESOURCE_WRITES];
      if (kind) {
        return async (rows: Array<{ catalogId: string }>) => {
          await (target[prop as keyof typeof RESOURCE_WRITES] as (r: unknown[]) => Promise<void>).call(target, rows);
          await send(kind, rows);
        };
      }
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? v.bind(target) : v;
    },
  }) as ResourceRecordStore;
  const ledger = new Proxy(db.ledger, {
    get(target, prop) {
      if (prop === 'record') {
        return async (rows: LedgerRow[]) => {
          await target.record(rows);
          await send('ledger', rows);
        };
      }
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? v.bind(target) : v;
    },
  }) as UrlLedgerStore;
  return {
    kind: db.kind,
    catalogs: db.catalogs,
    resources,
    ledger,
    users: db.users,
    // Saved searches are administrative rows (written through the leader's writer), not a run's: not sent.
    alerts: db.alerts,
    migrate: () => db.migrate(),
    close: () => db.close(),
  };
}

/**
 * The receiving half: the other members' rows written into this member's own database (upserts by id, the ledger's
 * own replacement rules), so each member's SQLite holds every page of the run.
 */
export function recordReplicaConsumer(
  options: ReplicaStream & {
    /** The member's database itself (not the replicating wrapper: what arrives is not sent again). */
    db: RecordDatabase;
  },
): FrameConsumer {
  const { db } = options;
  return replicaConsumer(options, 'record-replica', async (kind, items) => {
    if (kind === 'resources') await db.resources.saveResources(items as ResourceRow[]);
    else if (kind === 'images') await db.resources.saveImages(items as ImageRow[]);
    else if (kind === 'links') await db.resources.saveResourceImages(items as ResourceImageRow[]);
    else if (kind === 'ledger') await db.ledger.record(items as LedgerRow[]);
  });
}
