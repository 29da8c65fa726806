import { randomBytes } from 'node:crypto';
import {
  addReplayLayers,
  type CatalogRef,
  CrawlerError,
  type Greenfinger,
  type Logger,
  keys as layoutKeys,
  normalizeLayers,
  type ReplayLayer,
  type ReplayReport,
  reportStamp,
} from '@greenfinger/core/internal';
import type { Redis } from 'ioredis';
import { framesCaughtUp } from '../channels/multicast-frames.js';
import type { Membership } from '../membership/membership.js';
import type { ClusterKeys } from '../plumbing/keys.js';
import { closeRedis, connectRedis } from '../plumbing/redis-connection.js';
import { parseObject } from '../plumbing/wire.js';
import { CrawlStreams, GROUP } from '../run/crawl-stream.js';
import { currentRun, expireRun } from '../run/run-supervisor.js';
import {
  activeReplay,
  type ClusterReplayReport,
  currentReplayKey,
  decodeAnswer,
  REPLAY_TTL_SECONDS,
  type ReplayInfo,
  ReplayKeys,
  type ReplayStarted,
  SLICE_PAGES,
  type SliceAnswer,
  type SliceTask,
} from './replay-protocol.js';

/** What `replay --cluster` sends to the leader. */
export interface ClusterReplayRequest extends CatalogRef {
  version?: number | undefined;
  layers: ReplayLayer[];
  /** Pages per slice (1–10,000). @default 200 */
  slicePages?: number | undefined;
}

export interface ScatterContext {
  name: string;
  keys: ClusterKeys;
  redis: Redis;
  redisUrl: string;
  gf: Greenfinger;
  membership: Membership;
  log: Logger;
  /** A slice delivered this long ago and not answered is done again by the asker. @default 300000 */
  sliceTimeoutMs?: number | undefined;
}

/** How long members get to open their sessions, to apply the others' documents, and to end their parts. */
const READY_MS = 15_000;
const CATCH_UP_MS = 120_000;
const ENDED_MS = 120_000;

/**
 * On the leader (asked by `replay --cluster`): the one scatter and gather of seed 000. Cut the version's pages into
 * slices of 200 (by id), put them on one stream with one consumer group that every member pulls from, and gather the
 * answers. A member rebuilds the pages of its slice whose files its data root holds and names the others absent; those
 * go on to a member that has not looked yet, and to the last one with `refetch` (then they are lost: the file layer
 * fetches them again, the index counts them failed). A slice whose member died, failed or did not answer in time is
 * done again by the asker itself. When every slice is settled and every member applied the others' index documents,
 * each member optimizes once and rewrites its own registry, and the asker republishes through the admin writer.
 * Answers at once; the merged report comes to the replay's `report` key (ClusterClient.replay waits for it).
 */
export async function startReplay(ctx: ScatterContext, req: ClusterReplayRequest): Promise<ReplayStarted> {
  const layers = normalizeLayers(req.layers);
  const busy = await currentRun(ctx.redis, ctx.keys);
  if (busy) {
    throw new CrawlerError(
      'CONFLICT',
      `cluster "${ctx.keys.cluster}" is running ${busy.action} of "${busy.catalog.name}" (run ${busy.runId})`,
      { fix: 'replay once it has completed, or stop it with `greenfinger pause --cluster`' },
    );
  }
  const catalog = await (await ctx.gf.catalogs()).get(req);
  const version = req.version ?? (catalog.searchVersion >= 0 ? catalog.searchVersion : catalog.indexVersion);
  const db = await ctx.gf.database();
  const versions = await db.resources.versions(catalog.id);
  if (!versions.includes(version)) {
    throw new CrawlerError('NOT_FOUND', `catalog "${catalog.name}" has no stored version ${version}`, {
      fix: versions.length
        ? `stored versions: ${versions.join(', ')}`
        : 'crawl it first: replay rebuilds what a crawl stored',
    });
  }
  const ids = await ctx.gf.replay.resourceIds(catalog.id, version);
  const slicePages = Math.max(1, Math.min(10_000, Math.trunc(req.slicePages ?? SLICE_PAGES)));
  const replayId = `${reportStamp(new Date())}-${randomBytes(3).toString('hex')}`;
  const info: ReplayInfo = {
    replayId,
    catalogId: catalog.id,
    catalog: catalog.name,
    version,
    layers,
    pages: ids.length,
    slices: Math.ceil(ids.length / slicePages),
    slicePages,
    from: ctx.name,
    startedAt: new Date().toISOString(),
  };
  await activeReplay(ctx.redis, ctx.keys); // clears one whose asker died
  const claimed = await ctx.redis.set(currentReplayKey(ctx.keys), JSON.stringify(info), 'EX', 24 * 3600, 'NX');
  if (claimed !== 'OK') {
    throw new CrawlerError('CONFLICT', `cluster "${ctx.keys.cluster}" is replaying already`, {
      fix: 'wait for that replay to end (`greenfinger status --cluster` shows the members)',
    });
  }
  const gather = new Gather(ctx, info, ids);
  void gather.run().catch((err: unknown) => ctx.log.error({ err, replayId }, 'the replay could not be gathered'));
  return info;
}

interface Outstanding {
  task: SliceTask;
  key: string;
  /** Its stream entry (the pending list names the member that pulled it). */
  entryId: string;
  /** Set for a slice sent to one member (the shared ones: whoever pulled it, from the pending list). */
  to?: string;
}

/** The asker's side of one replay: send, gather, redo, end, merge. */
class Gather {
  readonly #ctx: ScatterContext;
  readonly #info: ReplayInfo;
  readonly #ids: string[];
  readonly #rk: ReplayKeys;
  readonly #streams: CrawlStreams;
  readonly #log: Logger;
  readonly #open = new Map<string, Outstanding>();
  /** Members not to send to any more (died, failed a slice, could not open their session), with why. */
  readonly #excluded = new Map<string, string>();
  readonly #byNode: ClusterReplayReport['byNode'] = {};
  readonly #redone: ClusterReplayReport['redone'] = [];
  readonly #layers: ReplayReport['layers'] = {};
  #requests = 0;
  #settled = 0;
  #unrebuilt = 0;
  #next = 0;

  constructor(ctx: ScatterContext, info: ReplayInfo, ids: string[]) {
    this.#ctx = ctx;
    this.#info = info;
    this.#ids = ids;
    this.#rk = new ReplayKeys(ctx.keys, info.replayId);
    this.#streams = new CrawlStreams(ctx.redis);
    this.#log = ctx.log.child({ component: 'replay-scatter', replayId: info.replayId });
  }

  async run(): Promise<void> {
    const { redis } = this.#ctx;
    const rk = this.#rk;
    const started = Date.now();
    const waiter = await connectRedis(this.#ctx.redisUrl, { role: 'replay-answers', log: this.#log });
    let report: ClusterReplayReport | undefined;
    try {
      await this.#streams.create(rk.slices);
      const live = await this.#live();
      // Every live member opens its session first (bounded), so the first slices know how many may hold files.
      const readyBy = Date.now() + READY_MS;
      while (Date.now() < readyBy) {
        const posted = await redis.hkeys(rk.ready);
        if (live.every((n) => posted.includes(n))) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const ready = await this.#ready();
      if (ready.length === 0) {
        const why = Object.entries(await redis.hgetall(rk.ready)).map(([n, v]) => `${n}: ${parseObject(v)?.error}`);
        throw new CrawlerError(
          'CLUSTER',
          `no member could take part in the replay (${why.join('; ') || 'none answered'})`,
          {
            fix: 'see the members’ logs; a member busy with the catalog (a crawl, a delete) refuses it until that is over',
          },
        );
      }
      const missing = ready.length <= 1 ? 'refetch' : 'absent';
      const size = this.#info.slicePages;
      for (let i = 0; i < this.#ids.length; i += size) {
        await this.#send({ id: this.#taskId(), ids: this.#ids.slice(i, i + size), tried: [], missing }, undefined);
      }
      await this.#progress();
      this.#log.info({ pages: this.#ids.length, slices: this.#open.size, members: ready }, 'replay scattered');
      const timeoutMs = this.#ctx.sliceTimeoutMs ?? 300_000;
      // Bounded: every slice is answered, redone or given up within its timeout, and is passed on at most once per
      // member; the overall bound is far above that.
      const deadline = started + Math.max(30 * 60_000, (this.#info.slices + 1) * timeoutMs);
      let lastCheck = 0;
      while (this.#open.size > 0 && Date.now() < deadline) {
        const popped = await waiter.blpop(rk.answers, 1);
        if (popped) {
          const answer = decodeAnswer(popped[1]);
          if (answer) await this.#answered(answer);
        }
        if (Date.now() - lastCheck >= 1000) {
          lastCheck = Date.now();
          await this.#check(timeoutMs);
        }
      }
      for (const o of this.#open.values()) this.#giveUp(o.task.ids.length, 'the replay ran out of time');
      const members = await this.#parts();
      report = await this.#end(members, started);
    } catch (err) {
      this.#log.error({ err }, 'the replay failed');
      report = undefined;
      await redis
        .set(rk.report, JSON.stringify({ error: (err as Error).message }), 'EX', REPLAY_TTL_SECONDS)
        .catch(() => undefined);
    } finally {
      await closeRedis(waiter);
      const key = currentReplayKey(this.#ctx.keys);
      const current = await redis.get(key).catch(() => null);
      if (current?.includes(`"replayId":"${this.#info.replayId}"`)) await redis.del(key).catch(() => undefined);
      await expireRun(redis, rk.base, REPLAY_TTL_SECONDS).catch(() => undefined);
    }
    if (report) this.#log.info({ elapsedMs: report.elapsedMs, byNode: report.byNode }, 'replay gathered');
  }

  #taskId(): string {
    return `t${this.#next++}`;
  }

  /** Members with a heartbeat now. */
  async #live(): Promise<string[]> {
    return (await this.#ctx.membership.live()).map((m) => m.name).sort();
  }

  /** Members that opened their session (`ready` ok), live, and not excluded. */
  async #ready(): Promise<string[]> {
    const ready = await this.#ctx.redis.hgetall(this.#rk.ready);
    const live = new Set(await this.#live());
    return Object.entries(ready)
      .filter(([n, v]) => live.has(n) && !this.#excluded.has(n) && parseObject(v)?.ok === true)
      .map(([n]) => n)
      .sort();
  }

  async #send(task: SliceTask, to: string | undefined): Promise<void> {
    const key = to ? this.#rk.to(to) : this.#rk.slices;
    if (to) await this.#streams.create(key);
    const [entryId] = await this.#streams.add(key, [JSON.stringify(task)]);
    this.#open.set(task.id, { task, key, entryId: entryId ?? '', ...(to ? { to } : {}) });
  }

  /**
   * Send pages on: to a member that has not looked for their files (the asker first when `local`: a failed slice is
   * done again here), `refetch` when it is the last; with nobody left, the pages are given up.
   */
  async #route(ids: string[], tried: string[], local: boolean): Promise<void> {
    if (ids.length === 0) return;
    const ready = await this.#ready();
    const untried = ready.filter((n) => !tried.includes(n));
    const me = this.#ctx.name;
    let to = local && untried.includes(me) ? me : untried.sort((a, b) => this.#load(a) - this.#load(b))[0];
    // Everyone looked (or only the asker is left): the asker does them with refetch, as the last member asked.
    if (!to && ready.includes(me)) to = me;
    if (!to) {
      this.#giveUp(ids.length, 'no member left to rebuild them');
      return;
    }
    const others = untried.filter((n) => n !== to);
    await this.#send({ id: this.#taskId(), ids, tried, missing: others.length === 0 ? 'refetch' : 'absent' }, to);
  }

  #load(node: string): number {
    let n = 0;
    for (const o of this.#open.values()) if (o.to === node) n++;
    return n;
  }

  #giveUp(pages: number, why: string): void {
    this.#unrebuilt += pages;
    this.#settled += pages;
    this.#log.warn({ pages, why }, 'pages not rebuilt');
  }

  async #answered(a: SliceAnswer): Promise<void> {
    const open = this.#open.get(a.task);
    if (!open) return; // done again meanwhile: the late answer changes nothing (replay is idempotent)
    this.#open.delete(a.task);
    if (a.error !== undefined) {
      await this.#failed(open, a.node, a.error);
      return;
    }
    const absent = (a.absent ?? []).filter((id) => open.task.ids.includes(id));
    const rebuilt = Math.max(0, open.task.ids.length - absent.length);
    const node = this.#byNode[a.node] ?? { slices: 0, pages: 0, requests: 0 };
    this.#byNode[a.node] = node;
    node.slices++;
    node.pages += rebuilt;
    node.requests += a.requests ?? 0;
    this.#requests += a.requests ?? 0;
    if (a.layers) addReplayLayers(this.#layers, a.layers);
    this.#settled += rebuilt;
    await this.#route(absent, [...open.task.tried, a.node], false);
    await this.#progress();
  }

  /** A slice that failed on `node` (an error, its death, no answer in time) is done again, here first. */
  async #failed(open: Outstanding, node: string, why: string): Promise<void> {
    this.#open.delete(open.task.id);
    if (!this.#excluded.has(node)) this.#excluded.set(node, why);
    this.#redone.push({ task: open.task.id, node, why, pages: open.task.ids.length });
    this.#log.warn({ task: open.task.id, node, why }, 'a slice is done again by the asker');
    await this.#route(open.task.ids, [...open.task.tried, node], true);
  }

  /** Slices delivered to a member that died, or pending longer than the timeout: taken back and done again. */
  async #check(timeoutMs: number): Promise<void> {
    const live = new Set(await this.#live());
    const ready = await this.#ctx.redis.hgetall(this.#rk.ready);
    for (const [n, v] of Object.entries(ready)) {
      const o = parseObject(v);
      if (o?.error !== undefined && !this.#excluded.has(n)) this.#excluded.set(n, `no session: ${String(o.error)}`);
    }
    const keys = new Set([...this.#open.values()].map((o) => o.key));
    for (const key of keys) {
      const pending = (await this.#ctx.redis.xpending(key, GROUP, '-', '+', 1000)) as Array<
        [string, string, number, number]
      >;
      const byEntry = new Map(pending.map(([id, consumer, idle]) => [id, { consumer, idle: Number(idle) }]));
      for (const o of [...this.#open.values()].filter((x) => x.key === key)) {
        const p = byEntry.get(o.entryId);
        if (!p || p.consumer === this.#ctx.name) continue;
        const dead = !live.has(p.consumer);
        if (!dead && p.idle < timeoutMs) continue;
        // Taken back from the dead member's pending list (XCLAIM), acknowledged, and done again.
        await this.#ctx.redis.xclaim(key, GROUP, this.#ctx.name, 0, o.entryId).catch(() => undefined);
        await this.#streams.ack(key, [o.entryId]);
        await this.#failed(o, p.consumer, dead ? 'its member died' : `no answer within ${timeoutMs / 1000} s`);
      }
    }
    // A slice sent to one member that died before reading it.
    for (const o of [...this.#open.values()]) {
      if (o.to && (!live.has(o.to) || this.#excluded.has(o.to)) && o.to !== this.#ctx.name) {
        if (!this.#open.has(o.task.id)) continue;
        await this.#failed(o, o.to, this.#excluded.get(o.to) ?? 'its member died');
      }
    }
  }

  async #progress(): Promise<void> {
    const body = {
      settled: this.#settled,
      total: this.#ids.length,
      layers: this.#layers,
      requests: this.#requests,
      byNode: this.#byNode,
    };
    await this.#ctx.redis.set(this.#rk.progress, JSON.stringify(body), 'EX', REPLAY_TTL_SECONDS);
  }

  /**
   * Every slice settled: wait (bounded) until every member applied what the others rebuilt (index documents, files
   * fetched again, vectors), say it is over, and
   * wait (bounded) for each member to end its part (optimize once, rewrite its registry).
   */
  async #parts(): Promise<Record<string, Record<string, unknown>>> {
    const { redis } = this.#ctx;
    const rk = this.#rk;
    const members = await this.#ready();
    const caughtUpBy = Date.now() + CATCH_UP_MS;
    const caughtUp = async (ready: string[]) => {
      for (const key of [rk.search, rk.blob, rk.vectors]) if (!(await framesCaughtUp(redis, key, ready))) return false;
      return true;
    };
    while (Date.now() < caughtUpBy && !(await caughtUp(await this.#ready()))) {
      await new Promise((r) => setTimeout(r, 200));
    }
    await redis.set(rk.end, '1', 'EX', REPLAY_TTL_SECONDS);
    const until = Date.now() + ENDED_MS;
    let ended: Record<string, string> = {};
    while (Date.now() < until) {
      ended = await redis.hgetall(rk.ended);
      const live = new Set(await this.#live());
      if (members.every((m) => ended[m] !== undefined || !live.has(m))) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const out: Record<string, Record<string, unknown>> = {};
    for (const [n, v] of Object.entries(ended)) out[n] = parseObject(v) ?? {};
    return out;
  }

  async #end(ended: Record<string, Record<string, unknown>>, startedMs: number): Promise<ClusterReplayReport> {
    const { gf, redis } = this.#ctx;
    const info = this.#info;
    const republished = await gf.writer.restorePublished(info.catalogId, info.version);
    const ready = await redis.hgetall(this.#rk.ready);
    const nodes = Object.keys(ready)
      .filter((n) => parseObject(ready[n] ?? '')?.ok === true)
      .sort();
    const missing: Record<string, string> = {};
    for (const [n, why] of this.#excluded) missing[n] = why;
    for (const n of nodes) {
      if (!ended[n] && !missing[n]) missing[n] = 'did not end its part (its heartbeat expired or it left)';
      else if (ended[n]?.error !== undefined && !missing[n]) missing[n] = String(ended[n]?.error);
    }
    for (const n of nodes) this.#byNode[n] ??= { slices: 0, pages: 0, requests: 0 };
    if (this.#unrebuilt > 0) {
      for (const layer of ['index', 'vector'] as const) {
        const l = this.#layers[layer];
        if (l) l.failed += this.#unrebuilt;
      }
    }
    const ended_ = new Date();
    const report: ClusterReplayReport = {
      catalogId: info.catalogId,
      catalog: info.catalog,
      version: info.version,
      layers: this.#layers,
      requests: this.#requests,
      republished,
      startedAt: new Date(startedMs).toISOString(),
      endedAt: ended_.toISOString(),
      elapsedMs: ended_.getTime() - startedMs,
      cluster: this.#ctx.keys.cluster,
      replayId: info.replayId,
      nodes,
      byNode: this.#byNode,
      redone: this.#redone,
      ...(Object.keys(missing).length > 0 ? { missing } : {}),
      unrebuilt: this.#unrebuilt,
    };
    report.path = layoutKeys.report(info.catalogId, info.version, reportStamp(ended_), 'replay', 'cluster');
    await gf.blobs
      .put(report.path, `${JSON.stringify(report, null, 2)}\n`)
      .catch((err: unknown) => this.#log.warn({ err }, 'the merged replay report could not be written'));
    await this.#progress();
    await redis.set(this.#rk.report, JSON.stringify(report), 'EX', REPLAY_TTL_SECONDS);
    return report;
  }
}
