import {
  type AdminWriter,
  type Catalog,
  CrawlerError,
  Greenfinger,
  type GreenfingerComponents,
  LocalAdminWriter,
  type Logger,
  loadSettings,
  type Settings,
} from '@greenfinger/core/internal';
import type { Redis } from 'ioredis';
import { catchUpCatalogs } from './admin/catalog-catch-up.js';
import type { AdminRouting } from './admin/cluster-admin-writer.js';
import { isPerNodeBlobStore } from './channels/blob-replica.js';
import { announcingWriter } from './channels/deletion-announcer.js';
import { DeletionFollower } from './channels/deletion-follower.js';
import { announceDeletion, type Deletion } from './channels/deletion-log.js';
import { RunReplicas } from './channels/run-replicas.js';
import { LeaderOps } from './leader-ops.js';
import { memberComponents } from './member-components.js';
import { LeaderGateway } from './membership/leader-gateway.js';
import { LeaderLease } from './membership/leader-lease.js';
import { LeaderSeat } from './membership/leader-seat.js';
import { Membership } from './membership/membership.js';
import { ControlChannel, type ControlMessage } from './plumbing/control-channel.js';
import { ClusterKeys, checkName } from './plumbing/keys.js';
import { closeRedis, connectRedis } from './plumbing/redis-connection.js';
import { ReplayMember } from './replay/replay-member.js';
import { LeaderSchedules } from './run/leader-schedules.js';
import { followRunChanges } from './run/run-changes.js';
import { decodeRunInfo, type PolitenessScope, politenessScope, type RunInfo } from './run/run-info.js';
import { postPart, takePart } from './run/run-member.js';
import { currentRun, supervise } from './run/run-supervisor.js';

export interface ClusterNodeOptions {
  cluster: string;
  /** @default GF_REDIS_URL, else redis://127.0.0.1:6379 */
  redisUrl?: string | undefined;
  /** This member's name (report file names, its stream). @default GF_NODE, else the host name */
  nodeName?: string | undefined;
  /** Its data root (system/ and user/). @default GF_DATA_STORE, else ./data */
  dataRoot?: string | undefined;
  /** Worker threads of its part of each run. @default the catalog's */
  threads?: number | undefined;
  /** More node settings (flags win over the environment). */
  settings?: Partial<Settings>;
  env?: NodeJS.ProcessEnv;
  log: Logger;
  /** Heartbeat expiry. @default 3000 */
  heartbeatMs?: number;
  /** Leader lease. @default 5000 */
  leaseMs?: number;
  /** Whose per-host budget the catalog's is, in the runs this member starts as leader. @default GF_CLUSTER_POLITENESS, else member */
  politeness?: PolitenessScope | undefined;
  /** Run the catalogs' schedules while this member leads (leader-schedules.ts). @default true */
  schedules?: boolean;
  /** Told each run this member's schedules started while it led. */
  onScheduled?: (run: { catalog: string; action: string; jobId: string }) => void;
}

/**
 * A long-lived cluster member (`greenfinger node --cluster NAME`): a Greenfinger on its own data root whose
 * administrative writes go to the leader (ClusterAdminWriter), whose exact content dedup is shared
 * (ClusterContentDedup) and whose crawl runs route through the cluster (ClusterCrawlCoordinator). It keeps a
 * heartbeat, competes for the leader lease, listens on the control channel, takes part in every run, and while it
 * leads serves the leader channel and watches the run (run-supervisor.ts). One process is a cluster of one: the same
 * code with one member.
 */
export class ClusterNode {
  readonly name: string;
  readonly keys: ClusterKeys;
  readonly membership: Membership;
  readonly lease: LeaderLease;
  readonly gateway: LeaderGateway;
  readonly control: ControlChannel;
  readonly redisUrl: string;
  readonly #redis: Redis;
  readonly #subscriber: Redis;
  readonly #log: Logger;
  readonly #threads: number | undefined;
  #gf: Greenfinger | undefined;
  #local: AdminWriter | undefined;
  #member: AdminWriter | undefined;
  #leading: AdminWriter | undefined;
  /** The leader's deletions applied to this member's own layers (deletion-follower.ts). */
  #follower: DeletionFollower | undefined;
  /** Runs this member takes part in now, by catalog id. */
  readonly #runs = new Map<string, RunInfo>();
  readonly #parts = new Map<string, Promise<void>>();
  /** Catalog versions whose frontier is cleared when a run opens it (a cluster run starts from the streams). */
  readonly #fresh = new Set<string>();
  readonly #completed = new Set<string>();
  /** The replicated channels of this member's runs: wrappers around its own stores, senders, receiving halves. */
  readonly #replicas: RunReplicas;
  /** What the leader channel serves while this member leads (leader-ops.ts). */
  readonly #leaderOps: LeaderOps;
  readonly #onCompleted: Array<(m: ControlMessage) => void> = [];
  /** Its part in a replay scattered over the cluster (replay-member.ts). */
  #replay: ReplayMember | undefined;
  /** Its seat at the leader lease: renewing or trying it, and while leading, serving and watching (leader-seat.ts). */
  readonly #seat: LeaderSeat;
  #leaving: Promise<void> | undefined;
  /** The catalogs' schedules, run while this member leads. */
  #schedules: LeaderSchedules | undefined;
  #politeness: PolitenessScope = 'member';

  private constructor(init: {
    name: string;
    keys: ClusterKeys;
    redis: Redis;
    subscriber: Redis;
    redisUrl: string;
    log: Logger;
    threads: number | undefined;
    heartbeatMs: number;
    leaseMs: number;
    info: Record<string, unknown>;
  }) {
    this.name = init.name;
    this.keys = init.keys;
    this.#redis = init.redis;
    this.#subscriber = init.subscriber;
    this.redisUrl = init.redisUrl;
    this.#log = init.log.child({ component: 'cluster-node', cluster: init.keys.cluster, node: init.name });
    this.#threads = init.threads;
    this.membership = new Membership(init.redis, init.keys, {
      name: init.name,
      ttlMs: init.heartbeatMs,
      info: init.info,
      log: init.log,
    });
    this.lease = new LeaderLease(init.redis, init.keys, {
      name: init.name,
      instance: this.membership.info.instance,
      ttlMs: init.leaseMs,
      log: init.log,
    });
    this.gateway = new LeaderGateway(init.redis, init.keys, {
      redisUrl: init.redisUrl,
      from: init.name,
      log: init.log,
    });
    this.control = new ControlChannel(init.redis, init.keys, init.log);
    this.#replicas = new RunReplicas({
      name: init.name,
      keys: init.keys,
      redis: init.redis,
      redisUrl: init.redisUrl,
      gf: () => this.gf,
      runOf: (catalogId) => this.#runs.get(catalogId),
      replaySender: (channel, catalogId, version) => this.#replay?.sender(channel, catalogId, version),
      log: this.#log,
    });
    this.#leaderOps = new LeaderOps({
      name: init.name,
      keys: init.keys,
      redis: init.redis,
      redisUrl: init.redisUrl,
      control: this.control,
      lease: this.lease,
      membership: this.membership,
      gf: () => this.gf,
      localWriter: () => this.#localWriter(),
      leaderWriter: () => this.#leaderWriter(),
      announce: (d) => this.#announce(d),
      politeness: () => this.#politeness,
      log: this.#log,
    });
    this.#seat = new LeaderSeat({
      lease: this.lease,
      gateway: this.gateway,
      handlers: () => this.#leaderOps.handlers(),
      supervise: () =>
        supervise({
          name: this.name,
          keys: this.keys,
          redis: this.#redis,
          gf: this.gf,
          membership: this.membership,
          control: this.control,
          local: () => this.#localWriter(),
          log: this.#log,
        }),
      leaving: () => this.#leaving !== undefined,
      log: this.#log,
    });
  }

  /** Join the cluster: connect, open the Greenfinger, write the heartbeat, listen, take part in a run in progress. */
  static async start(options: ClusterNodeOptions): Promise<ClusterNode> {
    const keys = new ClusterKeys(options.cluster);
    const base = loadSettings(
      { ...options.settings, dataStore: options.dataRoot ?? options.settings?.dataStore, node: options.nodeName },
      options.env,
    );
    const name = checkName('--node-name', base.node);
    const redisUrl = options.redisUrl ?? base.redisUrl;
    const redis = await connectRedis(redisUrl, { role: `node-${name}`, log: options.log });
    const subscriber = await connectRedis(redisUrl, { role: `control-${name}`, log: options.log });
    const node = new ClusterNode({
      name,
      keys,
      redis,
      subscriber,
      redisUrl,
      log: options.log,
      threads: options.threads,
      heartbeatMs: options.heartbeatMs ?? 3000,
      leaseMs: options.leaseMs ?? 5000,
      info: { dataRoot: base.dataStore, threads: options.threads ?? null },
    });
    node.#politeness = politenessScope(options.politeness, options.env);
    try {
      await node.membership.join();
      node.#gf = await Greenfinger.open({
        settings: { ...options.settings, dataStore: base.dataStore, node: name },
        env: options.env,
        log: options.log,
        components: node.#components(redis),
      });
      node.#follower = new DeletionFollower({
        name,
        keys,
        redis,
        gf: () => node.gf,
        local: () => node.#localWriter(),
        log: node.#log,
      });
      await node.control.subscribe(subscriber, (m) => node.#onControl(m));
      await node.#seat.start();
      node.#replay = new ReplayMember({
        name,
        keys,
        redisUrl,
        gf: node.gf,
        local: () => node.#localWriter(),
        ownBlobs: () => node.#replicas.ownBlobs,
        ownVectors: () => node.#replicas.ownVectors,
        log: options.log,
      });
      await node.#replay.start();
      // CatalogCatchUp: rows created, changed or published while this member was away (per-node databases only).
      if (!node.isLeader())
        await catchUpCatalogs({ gf: node.gf, gateway: node.gateway, local: () => node.#localWriter(), log: node.#log });
      // Deletions the leader made while this member was away, from the deletion log (files, index, vectors, rows).
      await node.#follower.catchUp().catch((err: unknown) => {
        node.#log.warn({ err }, 'deletions not caught up from the log; the next DELETED does it');
      });
      const running = await currentRun(redis, keys);
      if (running) node.#join(running);
      if (options.schedules !== false) {
        node.#schedules = new LeaderSchedules({
          name,
          keys,
          redis,
          gf: () => node.gf,
          isLeader: () => node.isLeader() && node.#leaving === undefined,
          onStart: options.onScheduled,
          log: node.#log,
        });
        node.#schedules.start();
      }
    } catch (err) {
      await node.close().catch(() => undefined);
      throw err;
    }
    node.#log.info({ dataRoot: base.dataStore, leader: node.isLeader() }, 'member joined the cluster');
    return node;
  }

  get gf(): Greenfinger {
    if (!this.#gf) throw new Error('the node is not started');
    return this.#gf;
  }

  isLeader(): boolean {
    return this.#seat.isLeader();
  }

  /** Called once per run on COMPLETED, on every member (those that took no part too). */
  onCompleted(listener: (message: ControlMessage) => void): void {
    this.#onCompleted.push(listener);
  }

  /** The runs this member is crawling now. */
  runs(): RunInfo[] {
    return [...this.#runs.values()];
  }

  #components(redis: Redis): GreenfingerComponents {
    return memberComponents({
      name: this.name,
      keys: this.keys,
      redis,
      redisUrl: this.redisUrl,
      log: this.#log,
      routing: this.#routing(),
      replicas: this.#replicas,
      runOf: (catalogId) => this.#runs.get(catalogId),
      leaving: () => this.#leaving !== undefined,
      takeFresh: (catalogId, version) => this.#fresh.delete(`${catalogId}|${version}`),
      checkLapse: () => this.membership.checkLapse(),
    });
  }

  /** Where this member's administrative writes go: the leader's writer, or its own while it leads. */
  #routing(): AdminRouting {
    return {
      isLeader: () => this.isLeader(),
      gateway: this.gateway,
      local: () => this.#memberWriter(),
      leading: () => this.#leaderWriter(),
      runOf: (catalogId: string) => {
        const run = this.#runs.get(catalogId);
        return run ? { version: run.version, action: run.action } : undefined;
      },
      row: async (catalogId: string) => {
        const row = await (await this.gf.database()).catalogs.get(catalogId);
        if (!row) throw new CrawlerError('NOT_FOUND', `no catalog with id ${catalogId} on member ${this.name}`);
        return row;
      },
      publishOnce: (catalogId: string, version: number) => this.#leaderOps.publishOnce(catalogId, version),
      // With a database of its own, a write the leader made is applied here too (admin-mirror.ts).
      ownRecords: async () => {
        const db = await this.gf.database();
        return db.kind === 'sqlite' ? db : undefined;
      },
      log: this.#log,
    };
  }

  #localWriter(): AdminWriter {
    this.#local ??= new LocalAdminWriter(this.gf.factory);
    return this.#local;
  }

  /** Its own writer with its deletions one at a time with those the leader announces (the caller's mirror). */
  #memberWriter(): AdminWriter {
    const local = this.#localWriter();
    this.#member ??= this.#follower ? this.#follower.serialized(local) : local;
    return this.#member;
  }

  /** On the leader: its writes, each deletion then announced to every member (deletion-announcer.ts). */
  #leaderWriter(): AdminWriter {
    this.#leading ??= announcingWriter(this.#memberWriter(), {
      gf: () => this.gf,
      announce: (d) => this.#announce(d),
      log: this.#log,
    });
    return this.#leading;
  }

  #announce(deletion: Deletion): Promise<string> {
    return announceDeletion(this.#redis, this.keys, this.control, this.name, deletion);
  }

  // ── the control channel ──────────────────────────────────────────────────────────────────────────────────

  async #onControl(m: ControlMessage): Promise<void> {
    switch (m.type) {
      case 'STARTED': {
        const info = decodeRunInfo(m);
        if (info) this.#join(info);
        return;
      }
      case 'STOP':
      case 'PAUSE': {
        const info = [...this.#runs.values()].find((r) => r.runId === m.runId);
        if (!info) return;
        const reason = m.reason === 'max-pages' ? 'max-pages' : 'interrupted';
        for (const r of this.gf.crawler.running()) if (r.catalogId === info.catalog.id) r.engine.stop(reason);
        return;
      }
      case 'PUBLISHED':
        // In order with the deletions (a prune's DELETED follows its PUBLISHED).
        if (m.from !== this.name) await this.#follower?.serial(() => this.#published(m));
        return;
      case 'DELETED':
        // The log is what is applied (in order, each entry once): this message says there is more of it.
        await this.#follower?.catchUp();
        return;
      case 'COMPLETED':
        if (this.#completed.has(m.runId)) return;
        this.#completed.add(m.runId);
        await this.#replicas.stopRun(m.runId);
        // The run's change set, recorded by the leader: into this member's change log too when its files are its own.
        if (
          m.published &&
          m.from !== this.name &&
          this.#replicas.ownBlobs &&
          isPerNodeBlobStore(this.#replicas.ownBlobs)
        )
          await followRunChanges({ keys: this.keys, redis: this.#redis, gf: this.gf, log: this.#log }, m.runId).catch(
            (err: unknown) => this.#log.warn({ err, runId: m.runId }, 'the run’s change set was not copied here'),
          );
        for (const l of this.#onCompleted) {
          try {
            l(m);
          } catch (err) {
            this.#log.warn({ err }, 'a completion listener failed');
          }
        }
        return;
    }
  }

  /** Another member published: this member's search registry (catalogs.json) is its own to write. */
  async #published(m: ControlMessage): Promise<void> {
    const catalogId = String(m.catalogId ?? '');
    const version = Number(m.version);
    const row = m.catalog as Catalog | undefined;
    const db = await this.gf.database();
    const mine = await db.catalogs.get(catalogId);
    // A database of its own has not seen the publish: take the leader's row (a shared one already holds it).
    if (row && mine && mine.searchVersion < row.searchVersion) await db.catalogs.update(row);
    // The leader's publish is complete: meaning search reads the version itself, as on the leader.
    await this.#localWriter()
      .restorePublished(catalogId, version, 'complete')
      .catch((err: unknown) => this.#log.warn({ err, catalogId }, 'the search registry was not updated'));
  }

  /** Take part in a run (once), and post the part when it ends. */
  #join(info: RunInfo): void {
    if (this.#leaving || this.#parts.has(info.runId)) return;
    const catalogId = info.catalog.id;
    if (this.#runs.has(catalogId)) return;
    this.#runs.set(catalogId, info);
    const part = (async () => {
      try {
        await this.#replicas.start(info);
        const result = await takePart(
          {
            name: this.name,
            keys: this.keys,
            redis: this.#redis,
            redisUrl: this.redisUrl,
            gf: this.gf,
            log: this.#log,
            threads: this.#threads,
            onLapse: (handler) => this.membership.onLapse(handler),
          },
          info,
          { beforeCrawl: () => this.#fresh.add(`${catalogId}|${info.version}`) },
        );
        // Everything this member wrote is on the replicated channels before it says its part is over.
        await this.#replicas.flush(catalogId);
        if (result) await postPart(this.#redis, this.keys, info.runId, this.name, result);
      } catch (err) {
        this.#log.error({ err, runId: info.runId }, 'could not take part in the run');
        await postPart(this.#redis, this.keys, info.runId, this.name, {
          error: err instanceof Error ? err.message : String(err),
        }).catch(() => undefined);
      } finally {
        this.#runs.delete(catalogId);
        this.#replicas.endPart(catalogId);
      }
    })();
    this.#parts.set(info.runId, part);
  }

  /** Wait until this member's part of a run has ended (and been posted). */
  async partOf(runId: string): Promise<void> {
    await this.#parts.get(runId);
  }

  /**
   * Leave gracefully (SIGTERM): the pages in flight finish, this member's part ends as stopped, its heartbeat is
   * removed so the leader re-homes what is left in its stream at once, and the lease is given up.
   */
  leave(): Promise<void> {
    this.#leaving ??= (async () => {
      this.#log.info('leaving the cluster');
      // Another member leads from now on (the lease is given up, not left to expire).
      await this.#seat.stopLeading();
      // A scheduled run this member follows is let go (it goes on on the others), and no new one starts here.
      await this.#schedules?.stop();
      await this.lease.release().catch(() => undefined);
      for (const r of this.#gf?.crawler.running() ?? []) r.engine.stop('interrupted');
      await Promise.all([...this.#parts.values()]);
      await this.close();
    })();
    return this.#leaving;
  }

  /** Stop everything (without waiting for a run to end): heartbeat removed, lease given up, connections closed. */
  async close(): Promise<void> {
    await this.#schedules?.stop();
    await this.#seat.close();
    await this.#replicas.close();
    await this.#replay?.stop();
    await this.membership.leave().catch(() => undefined);
    await this.lease.release().catch(() => undefined);
    await this.#gf?.close();
    await closeRedis(this.#subscriber);
    await closeRedis(this.#redis);
  }
}
