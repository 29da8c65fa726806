import {
  type AdminWriter,
  CrawlerError,
  type Greenfinger,
  type GreenfingerComponents,
  LocalAdminWriter,
  type Logger,
} from '@greenfinger/core/internal';
import type { Redis } from 'ioredis';
import { LeaderGateway } from '../membership/leader-gateway.js';
import { ClusterKeys } from '../plumbing/keys.js';
import { closeRedis, connectRedis } from '../plumbing/redis-connection.js';
import { ClusterAdminWriter } from './cluster-admin-writer.js';

/** What a process that is not a member opens its Greenfinger with to write through a cluster's leader. */
export interface RemoteAdmin {
  /** `adminWriter`: every write goes to the leader (and, with a database of its own, is applied here after). */
  readonly components: GreenfingerComponents;
  /** The Greenfinger opened with `components` (its own stores take the leader's answers). */
  attach(gf: Greenfinger): void;
  close(): Promise<void>;
}

/**
 * The one-line CLI's administrative verbs with `--cluster NAME` (catalog create/update/delete, delete, user …): the
 * process is not a member (it never leads), so every AdminWriter call is a request to the leader through the leader
 * channel; with a per-node database the leader's answer is then written into this process's own (admin-mirror.ts).
 * Reads stay on this process's own stores.
 */
export async function openRemoteAdmin(options: {
  cluster: string;
  redisUrl: string;
  log: Logger;
}): Promise<RemoteAdmin> {
  const keys = new ClusterKeys(options.cluster);
  const redis: Redis = await connectRedis(options.redisUrl, { role: 'admin-client', log: options.log });
  const gateway = new LeaderGateway(redis, keys, {
    redisUrl: options.redisUrl,
    from: `client-${process.pid}`,
    log: options.log,
  });
  let gf: Greenfinger | undefined;
  let local: AdminWriter | undefined;
  const opened = (): Greenfinger => {
    if (!gf) throw new Error('openRemoteAdmin: attach the Greenfinger first');
    return gf;
  };
  const components: GreenfingerComponents = {
    adminWriter: () =>
      new ClusterAdminWriter({
        isLeader: () => false,
        gateway,
        local: () => {
          local ??= new LocalAdminWriter(opened().factory);
          return local;
        },
        runOf: () => undefined,
        row: async (catalogId) => {
          const row = await (await opened().database()).catalogs.get(catalogId);
          if (!row) throw new CrawlerError('NOT_FOUND', `no catalog with id ${catalogId}`);
          return row;
        },
        publishOnce: () => {
          throw new CrawlerError('CLUSTER', 'a process that is not a member never publishes as the leader');
        },
        ownRecords: async () => {
          const db = await opened().database();
          return db.kind === 'sqlite' ? db : undefined;
        },
        log: options.log,
      }),
  };
  return {
    components,
    attach: (g) => {
      gf = g;
    },
    close: () => closeRedis(redis),
  };
}
