import { type ChildProcess, spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { ClusterClient, ClusterNode, ClusterRunReport, ClusterStatus } from '@greenfinger/cluster';
import { checkName } from '@greenfinger/cluster/names';
import {
  type Catalog,
  CrawlerError,
  type CrawlRunner,
  createLogger,
  envDataStore,
  loadSettings,
  makeDirs,
  probeDataRoot,
  silentLogger,
  unknownEnv,
} from '@greenfinger/core/internal';
import { intArg } from '../args.js';
import { type CommandSpec, defineCommand, type OptionSpec } from '../command-spec.js';
import { EXIT, type Io, reportError } from '../io.js';
import { onStopSignals } from '../stop-signals.js';
import { dataOption, verboseOption } from './options.js';
import { formatSchedules } from './watch.js';

/** `--cluster NAME` on the one-line CLI: the verb is sent to the cluster's leader instead of run here. */
export function clusterOption(
  what = 'send it to the leader of this cluster (GF_REDIS_URL names the Redis)',
): OptionSpec {
  return {
    flags: '--cluster <name>',
    description: what,
    cliOnly: true,
    parse: (v: string) => checkName('--cluster', v),
  };
}

/** `--nodes N` on a crawl verb with `--cluster`: local members started for this run when none is running. */
export function nodesOption(): OptionSpec {
  return {
    flags: '--nodes <n>',
    description: 'with --cluster: start N local members for this run when none is running (data roots DATA/node-1…)',
    parse: intArg('--nodes', 1),
    cliOnly: true,
  };
}

/** The Redis url: GF_REDIS_URL, else the default. */
export function redisUrl(): string {
  return loadSettings({ dataStore: envDataStore() }).redisUrl;
}

interface NodeOptions {
  cluster: string;
  data?: string;
  threads?: number;
  nodeName?: string;
  verbose?: boolean;
}

/** `node`: a long-lived cluster member, until SIGTERM or Ctrl-C (then it leaves gracefully, its work re-homed). */
export const NODE_COMMAND = defineCommand<NodeOptions>({
  cli: 'node',
  summary: 'Run a long-lived crawler member of a cluster (Redis at GF_REDIS_URL); it crawls whatever the cluster runs.',
  options: [
    { ...clusterOption('the cluster to join (every key under gf:NAME: in Redis)'), required: true },
    dataOption('this member’s own data root (default ./data or GF_DATA_STORE)'),
    {
      flags: '--threads <n>',
      description: 'worker threads of its part of each run (default the catalog’s)',
      parse: intArg('--threads', 1),
    },
    {
      flags: '--node-name <name>',
      description: 'its name in the cluster and in report file names (default GF_NODE, else the host name)',
      parse: (v: string) => checkName('--node-name', v),
    },
    verboseOption('write the JSON log to stderr instead of data/system/logs'),
  ],
  details:
    'Members meet in Redis: heartbeats, a leader lease, one crawl stream each, the control channel (docs/cluster.md).\n' +
    'The first member to start leads; when it stops, another takes over within the lease time (5 s).\n' +
    'Start a crawl from anywhere with `greenfinger crawl --cluster NAME --url …`; watch with `status --cluster NAME`.\n' +
    'The leader runs the catalogs’ schedules (--schedule): each due run is a cluster run over every member.\n' +
    'SIGTERM or Ctrl-C leaves gracefully: pages in flight finish and what is left in its stream is re-homed to the others.',
  examples: [
    'greenfinger node --cluster docs --data ./data-1 --node-name n1',
    'GF_REDIS_URL=redis://10.0.0.5:6379 DATABASE_URL=postgres://gf@10.0.0.5/gf greenfinger node --cluster docs --threads 8',
  ],
  run: (ctx, _args, opts) => runNode(opts, ctx.io),
}) satisfies CommandSpec;

async function runNode(opts: NodeOptions, io: Io): Promise<number> {
  let node: ClusterNode | undefined;
  try {
    probeDataRoot(opts.data ?? envDataStore());
    const log = opts.verbose ? createLogger({ destination: 2 }) : createLogger({ destination: logFile(opts.data) });
    const unknown = unknownEnv();
    if (unknown.length > 0) log.warn({ variables: unknown }, `unknown GF_* variables ignored: ${unknown.join(', ')}`);
    const { ClusterNode } = await import('@greenfinger/cluster');
    node = await ClusterNode.start({
      cluster: opts.cluster,
      nodeName: opts.nodeName,
      dataRoot: opts.data,
      threads: opts.threads,
      log,
      // The catalogs' schedules run on the leader: each run it starts is a cluster run over every member.
      onScheduled: (r) =>
        io.err(`greenfinger: the schedule of "${r.catalog}" started a ${r.action} on the cluster (job ${r.jobId})\n`),
    });
    io.err(
      `greenfinger: member "${node.name}" of cluster "${opts.cluster}" (${node.isLeader() ? 'leader' : 'follower'}), data ${node.gf.layout.root}; Ctrl-C leaves\n`,
    );
    node.onCompleted((m) =>
      io.err(`greenfinger: run ${m.runId} completed: ${String(m.reason)}${m.published ? ', published' : ''}\n`),
    );
    return await untilSignal(node, io);
  } catch (err) {
    await node?.close().catch(() => undefined);
    return reportError(io, err);
  }
}

/** data/system/logs/greenfinger.log, as the other commands log there. */
function logFile(data: string | undefined): string {
  const dir = join(data ?? envDataStore(), 'system', 'logs');
  makeDirs(dir);
  return join(dir, 'greenfinger.log');
}

/** SIGTERM or SIGINT: leave gracefully; a second signal exits at once (the leader re-homes the rest). */
function untilSignal(node: ClusterNode, io: Io): Promise<number> {
  return new Promise((resolve) => {
    const off = onStopSignals(io, {
      first: {
        line: (signal) =>
          `greenfinger: ${signal}: leaving the cluster (pages in flight finish; the rest is re-homed)\n`,
        stop: () =>
          node.leave().then(
            () => {
              off();
              resolve(EXIT.ok);
            },
            (err: unknown) => resolve(reportError(io, err)),
          ),
      },
    });
  });
}

/**
 * `crawl --cluster NAME`: the CrawlRunner a member's jobs use (ClusterCrawlRunner: the verb goes to the leader, the
 * members' counters come back as progress, the merged report as the end), for a process that is no member and opens
 * no store of its own. What `onStart` is told of the catalog is what the leader answered: its id and name (this
 * process holds no row of it, so url and settings are left empty).
 */
export async function clusterCrawlRunner(cluster: string): Promise<CrawlRunner> {
  const { ClusterCrawlRunner } = await import('@greenfinger/cluster');
  return new ClusterCrawlRunner({
    cluster,
    redisUrl: redisUrl(),
    log: silentLogger(),
    leaving: () => false,
    row: async (catalogId, started): Promise<Catalog> => ({
      id: catalogId,
      name: started.catalog,
      url: '',
      startUrl: '',
      settings: {} as Catalog['settings'],
      indexVersion: started.version,
      searchVersion: -1,
      runningState: started.action,
      createdAt: '',
      updatedAt: '',
    }),
  });
}

/** Members this command started, to be stopped when the run is over. */
interface LocalMembers {
  stop(): Promise<void>;
}

/**
 * `crawl --cluster NAME --nodes N`: when no member of the cluster is running, start N here (`greenfinger node` child
 * processes, data roots DATA/node-1 … DATA/node-N, names HOST-1 …) and wait until they are listed; they leave
 * gracefully once the run is over. With members running already, nothing is started.
 */
export async function startLocalMembers(
  client: ClusterClient,
  cluster: string,
  n: number,
  data: string | undefined,
  io: Io,
  quiet = false,
): Promise<LocalMembers | undefined> {
  if ((await client.status()).members.length > 0) {
    if (!quiet) io.err(`greenfinger: cluster "${cluster}" has members running; --nodes starts none\n`);
    return undefined;
  }
  const root = data ?? envDataStore();
  const host = hostname().split('.')[0] || 'node';
  const children: ChildProcess[] = [];
  for (let i = 1; i <= n; i++) {
    const args = [
      process.argv[1] ?? '',
      'node',
      '--cluster',
      cluster,
      '--data',
      join(root, `node-${i}`),
      '--node-name',
      `${host}-${i}`,
    ];
    children.push(spawn(process.execPath, args, { stdio: 'ignore', env: process.env }));
  }
  const stop = async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null) return resolve();
            const t = setTimeout(() => {
              c.kill('SIGKILL');
              resolve();
            }, 60_000);
            c.once('exit', () => {
              clearTimeout(t);
              resolve();
            });
          }),
      ),
    );
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if ((await client.status()).members.length >= n) {
      if (!quiet) io.err(`started ${n} local member${n === 1 ? '' : 's'} of cluster "${cluster}" under ${root}\n`);
      return { stop };
    }
    if (children.some((c) => c.exitCode !== null)) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new CrawlerError('CLUSTER', `the ${n} local members of cluster "${cluster}" did not all start`, {
    fix: `start one by hand to see why: greenfinger node --cluster ${cluster} --data ${join(root, 'node-1')} --verbose`,
  });
}

/** Each member's part of a cluster run, after the summary. */
export function formatNodes(r: ClusterRunReport): string {
  const lines = Object.entries(r.byNode).map(
    ([node, part]) =>
      `  ${node}: saved ${part.produced.saved}, dispatched ${part.urls.dispatched}, handled ${part.urls.handled}, ended ${part.ending.reason}`,
  );
  for (const [node, why] of Object.entries(r.missing ?? {})) lines.push(`  ${node}: no report (${why})`);
  return `by member:\n${lines.join('\n')}\n`;
}

/** `status --cluster NAME [--json]`: members, the leader, and the run in progress with each member's part. */
export async function clusterStatus(cluster: string, json: boolean, io: Io): Promise<number> {
  const { ClusterClient } = await import('@greenfinger/cluster');
  const client = await ClusterClient.open({ cluster, redisUrl: redisUrl(), log: silentLogger() });
  try {
    const status = await client.status();
    io.out(json ? `${JSON.stringify(status)}\n` : formatClusterStatus(status));
    return EXIT.ok;
  } finally {
    await client.close();
  }
}

function formatClusterStatus(s: ClusterStatus): string {
  const lines = [
    `cluster "${s.cluster}": ${s.members.length} member${s.members.length === 1 ? '' : 's'}, leader ${s.leader?.name ?? 'none'}`,
  ];
  for (const m of s.members) {
    const part = m.run
      ? ` — saved ${m.run.saved}, handled ${m.run.handled}, active ${m.run.active}, held ${m.run.held}`
      : '';
    lines.push(`  ${m.name}${m.leader ? ' (leader)' : ''}: pid ${m.pid} on ${m.host}, since ${m.startedAt}${part}`);
  }
  if (s.dead.length > 0) lines.push(`  gone (heartbeat expired): ${s.dead.join(', ')}`);
  if (s.run) {
    const r = s.run;
    lines.push(
      `run ${r.runId}: ${r.action} of "${r.catalog}" v${r.version} on ${r.members.join(', ')} — dispatched ${r.dispatched}, handled ${r.handled}, in streams ${r.streamed}${r.ending ? `, ending: ${r.ending}` : ''}`,
    );
  } else lines.push('nothing is running');
  if (s.schedules && s.schedules.catalogs.length > 0) {
    lines.push(`scheduled (the leader ${s.schedules.leader} starts them on every member; seen ${s.schedules.at}):`);
    lines.push(formatSchedules(s.schedules.catalogs).trimEnd());
  }
  for (const r of s.stopped) {
    lines.push(
      `stopped: run ${r.runId}, ${r.action} of "${r.catalog}" v${r.version} (${r.reason} at ${r.endedAt}), ${r.left} urls left — greenfinger resume --cluster ${s.cluster} --id ${r.catalogId}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** `pause --cluster NAME`: stop the run in progress on every member (written once, broadcast on the control channel). */
export async function clusterPause(cluster: string, json: boolean, io: Io): Promise<number> {
  const { ClusterClient } = await import('@greenfinger/cluster');
  const client = await ClusterClient.open({ cluster, redisUrl: redisUrl(), log: silentLogger() });
  try {
    const stopped = await client.stop();
    if (json) io.out(`${JSON.stringify({ cluster, runId: stopped?.runId ?? null, paused: stopped !== null })}\n`);
    else
      io.out(
        stopped ? `stopping run ${stopped.runId} on every member of "${cluster}"\n` : `nothing runs on "${cluster}"\n`,
      );
    return stopped ? EXIT.ok : EXIT.failed;
  } finally {
    await client.close();
  }
}
