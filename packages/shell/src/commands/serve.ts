import type { ClusterClient, ClusterNode } from '@greenfinger/cluster';
import { createLogger, envDataStore, Greenfinger, probeDataRoot, unknownEnv } from '@greenfinger/core/internal';
import { intArg } from '../args.js';
import { type CommandSpec, defineCommand } from '../command-spec.js';
import { EXIT, type Io, reportError } from '../io.js';
import { onStopSignals } from '../stop-signals.js';
import { memberOptions, startMember } from './member.js';
import { dataOption } from './options.js';

interface ServeOptions {
  host?: string;
  port?: number;
  data?: string;
  cluster?: string;
  nodeName?: string;
}

/** `serve`: the REST API (and, later, the page) over one long-lived Greenfinger, until SIGTERM or Ctrl-C. */
export const SERVE_COMMAND = defineCommand<ServeOptions>({
  cli: 'serve',
  summary: 'Serve the REST API with sign-in over this data store; crawls run in its background, one per catalog.',
  options: [
    { flags: '--host <address>', description: 'address to listen on (default 127.0.0.1 or GF_SERVER_HOST)' },
    {
      flags: '--port <n>',
      description: 'port to listen on, 0 = any free one (default 50080 or GF_SERVER_PORT)',
      parse: intArg('--port', 0),
    },
    dataOption(),
    ...memberOptions('serve as a member of this cluster: crawl jobs run on the cluster, writes go to its leader'),
  ],
  details:
    'Logs are pino JSON on stdout; the address and how to sign in go to stderr. SIGTERM or Ctrl-C closes it\n' +
    'gracefully: requests in flight finish, running crawls stop so they can resume, nothing is published half-way.\n' +
    'There is no default user: add one first. Catalogs with a --schedule run on it here, as `watch` runs them.\n' +
    'With --cluster NAME the server is a member of the cluster (docs/cluster.md): searches and lists answer from\n' +
    'its own stores, administrative writes go to the leader, a crawl job is a cluster run (its progress the members\n' +
    'added up, its report the merged one) and stopping it stops the run everywhere; SIGTERM leaves the cluster and\n' +
    'lets the run go on without it.',
  examples: [
    'printf "%s\\n" "$PASSWORD" | greenfinger user add admin --role admin --password-stdin',
    'greenfinger serve --port 50080',
    'GF_REDIS_URL=redis://10.0.0.5:6379 greenfinger serve --cluster docs --node-name api-1 --data ./data-api',
    'curl -s -XPOST localhost:50080/v2/login -H "content-type: application/json" -d \'{"username":"admin","password":"…"}\'',
  ],
  // Its own Greenfinger: the log goes to stdout as JSON lines, and it lives until a signal.
  run: (ctx, _args, opts) => runServe(opts, ctx.io),
}) satisfies CommandSpec;

async function runServe(opts: ServeOptions, io: Io): Promise<number> {
  // Loaded here, not with every command: the API and the cluster client (fastify, ioredis) add about half a
  // second of CPU to the start of a command that needs neither.
  const [{ startServer }, { ClusterClient }] = await Promise.all([
    import('@greenfinger/api'),
    import('@greenfinger/cluster'),
  ]);
  let gf: Greenfinger | undefined;
  let node: ClusterNode | undefined;
  let client: ClusterClient | undefined;
  try {
    const log = createLogger({ destination: 1 });
    const unknown = unknownEnv();
    if (unknown.length > 0) log.warn({ variables: unknown }, `unknown GF_* variables ignored: ${unknown.join(', ')}`);
    // Before any store opens: a data root that cannot be created or written fails here, in one line (the factory's
    // probe below then checks user/ too, unless the pages go to another blob store).
    probeDataRoot(opts.data ?? envDataStore(), { userDir: false });
    if (opts.cluster) {
      node = await startMember({ cluster: opts.cluster, nodeName: opts.nodeName, data: opts.data }, log);
      gf = node.gf;
    } else gf = await Greenfinger.open({ settings: { dataStore: opts.data }, log });
    gf.factory.probeDataRoot();
    // GET /v2/cluster: the members, the leader and the run, as `status --cluster` reads them.
    if (node) client = await ClusterClient.open({ cluster: node.keys.cluster, redisUrl: node.redisUrl, log });
    const statusOf = client;
    const cluster = statusOf ? { name: statusOf.keys.cluster, status: () => statusOf.status() } : undefined;
    // An embedding endpoint is asked its width before serving: a wrong GF_EMBEDDING_URL stops here, in one line.
    if (gf.settings.embeddingProvider !== 'local') log.info((await gf.embedding()).describe());
    const server = await startServer(gf, { host: opts.host, port: opts.port, cluster });
    // GF_PRELOAD_TEXT_MODEL: the local model loads now, so the first meaning search does not wait for it.
    if (gf.settings.preloadTextModel && gf.settings.embeddingProvider === 'local') {
      const preloading = gf;
      void preloading
        .embedding()
        .then((client) => preloading.log.info(`text model preloaded: ${client.describe()}`))
        .catch((err: unknown) => preloading.log.warn({ err }, 'the text model did not preload'));
    }
    io.err(
      `greenfinger: serving ${server.url}/v2 (description: ${server.url}/v2/openapi.json, docs: ${server.url}/v2/docs)\n`,
    );
    if (node)
      io.err(
        `greenfinger: member "${node.name}" of cluster "${opts.cluster}" (${node.isLeader() ? 'leader' : 'follower'}); crawl jobs run on the cluster\n`,
      );
    for (const note of server.notes) io.err(`greenfinger: ${note}\n`);
    const member = node;
    // The catalogs' schedules (--schedule) run here as jobs, as `watch` runs them; on a cluster member the ClusterNode
    // runs them while it leads, as cluster runs (docs/freshness.md#schedules).
    const schedules = new AbortController();
    const started = gf;
    const watching = member
      ? Promise.resolve()
      : started.schedules
          .watch({ signal: schedules.signal })
          .then(() => undefined)
          .catch((err: unknown) => started.log.error({ err }, 'the schedules stopped'));
    // A member leaves the cluster after the last request: its part of a run ends, the run goes on without it.
    const close = member
      ? async () => {
          await server.app.close();
          await statusOf?.close();
          await member.leave();
        }
      : async () => {
          schedules.abort();
          await server.close();
          await watching;
        };
    return await untilSignal(close, gf.settings.stopDeadlineMs, io);
  } catch (err) {
    await client?.close().catch(() => undefined);
    if (node) await node.close().catch(() => undefined);
    else await gf?.close().catch(() => undefined);
    return reportError(io, err);
  }
}

/** Wait for SIGTERM or SIGINT, then close gracefully; a second signal, or the deadline passing, exits at once. */
function untilSignal(close: () => Promise<void>, deadlineMs: number, io: Io): Promise<number> {
  return new Promise((resolve) => {
    const off = onStopSignals(io, {
      first: {
        line: (signal) =>
          `greenfinger: ${signal}: closing (requests in flight finish, crawls stop so they can resume)\n`,
        deadline: {
          ms: deadlineMs + 30_000,
          line: `greenfinger: still closing after ${deadlineMs} ms: exiting; resume continues the crawls\n`,
        },
        stop: () =>
          close().then(
            () => {
              off();
              resolve(EXIT.ok);
            },
            (err: unknown) => resolve(reportError(io, err)),
          ),
      },
      second: {
        line: (signal) =>
          `greenfinger: ${signal} again: exiting now; what was committed is kept, resume continues the crawls\n`,
      },
    });
  });
}
