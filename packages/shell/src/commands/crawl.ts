import type { ClusterRunReport } from '@greenfinger/cluster';
import {
  type CrawlProgress,
  type CrawlRunner,
  type CrawlVerb,
  envDataStore,
  type Greenfinger,
  type Job,
  loadSettings,
  parseUserUrl,
  probeDataRoot,
  type RunReport,
  silentLogger,
} from '@greenfinger/core/internal';
import { type CommandContext, type CommandSpec, defineCommand, type OptionSpec } from '../command-spec.js';
import { explainNothingSaved, formatProgress, formatSummary } from '../format.js';
import { EXIT, type Io, reportError } from '../io.js';
import { onStopSignals } from '../stop-signals.js';
import { clusterCrawlRunner, clusterOption, formatNodes, nodesOption, redisUrl, startLocalMembers } from './cluster.js';
import {
  dataOption,
  jsonOption,
  SETTINGS_OPTIONS,
  type SettingsOptions,
  settingsOf,
  verboseOption,
} from './options.js';

interface CrawlOptions extends SettingsOptions {
  cluster?: string;
  /** With --cluster: local members to start when none runs. */
  nodes?: number;
  refresh?: boolean;
  url?: string;
  /** The first is where fetching begins; any further one is another start reference (the catalog's `seedUrls`). */
  startUrl?: string[];
  name?: string;
  id?: string;
  data?: string;
  json?: boolean;
  verbose?: boolean;
  forcePublish?: boolean;
}

const VERBS: Array<{ verb: CrawlVerb; summary: string; help: string; example: string }> = [
  {
    verb: 'crawl',
    summary: 'Crawl a catalog: a new --url creates it; --id, --name or --url name an existing one.',
    help:
      'The url is the identity and the boundary: pages outside it are not crawled. --start-url must sit under it.\n' +
      'Pages this version already holds are not fetched again (their stored links are followed).',
    example:
      '  greenfinger crawl --url http://127.0.0.1:8084/ --start-url http://127.0.0.1:8084/index.html\n' +
      '  greenfinger crawl --name docs --max-pages 100 --outputs file+index --json',
  },
  {
    verb: 'update',
    summary: 'Fetch only urls not seen before in the current version; new pages only. --refresh = merge.',
    help: 'Known pages are not requested: their links are read from the stored html. Publishes when it ends normally.',
    example: '  greenfinger update --name docs\n  greenfinger update --name docs --refresh   # same as merge',
  },
  {
    verb: 'merge',
    summary: 'Update, and revisit the pages held that are due with conditional GET; rewrite only pages that changed.',
    help:
      'An unchanged site answers 304 and nothing is written. A changed page keeps its id; search shows the new text.\n' +
      'A page is due when a change feed names it or its recrawl interval has come. Naming no feed, a catalog whose site\n' +
      'has a sitemap reads it by default: pages whose lastmod did not move wait for their interval (1 day at first).\n' +
      '--change-feed none on the catalog revisits every page held, as merge did before (docs/freshness.md).',
    example: '  greenfinger merge --name docs --json',
  },
  {
    verb: 'rebuild',
    summary: 'Write a new version of the catalog in full; the published one keeps serving until the new one publishes.',
    help: 'An interrupted rebuild leaves search as it was; continue it with resume.',
    example: '  greenfinger rebuild --name docs',
  },
  {
    verb: 'resume',
    summary: 'Continue what is left on the frontier after a stop or a crash, as the interrupted run would have.',
    help: 'Nothing is fetched twice and the counters continue. Fails when the frontier of the current version is empty.',
    example: '  greenfinger resume --name docs',
  },
];

function crawlOptions(verb: CrawlVerb): OptionSpec[] {
  return [
    {
      flags: '--url <url>',
      description: verb === 'crawl' ? 'the site: identity and boundary of the catalog' : 'the catalog with this url',
    },
    {
      flags: '--name <name>',
      description: verb === 'crawl' ? 'catalog name (default: the host)' : 'the catalog with this name',
    },
    { flags: '--id <id>', description: 'the catalog with this id' },
    ...(verb === 'crawl'
      ? [
          {
            flags: '--start-url <url>',
            description:
              'where fetching begins; must sit under --url (default: --url); give it again for more start references',
            parse: (value: string, previous: string[] = []) => [...previous, value],
          },
        ]
      : []),
    ...(verb === 'update' ? [{ flags: '--refresh', description: 'also revisit the pages held (= merge)' }] : []),
    ...SETTINGS_OPTIONS,
    clusterOption('send the verb to the leader of this cluster and wait, with the same progress and summary'),
    nodesOption(),
    dataOption('data root holding system/ and user/ (default ./data or GF_DATA_STORE)'),
    jsonOption('print exactly one JSON document: the run report'),
    {
      flags: '--force-publish',
      description: 'publish even a version with far fewer pages than the one serving (see --min-publish-ratio)',
    },
    verboseOption('write the JSON log to stderr instead of data/system/logs'),
  ];
}

/** crawl, update, merge, rebuild, resume: in the foreground on the one-line CLI, as a background job in the prompt. */
export const CRAWL_COMMANDS: CommandSpec[] = VERBS.map(({ verb, summary, help, example }) =>
  defineCommand<CrawlOptions>({
    cli: verb,
    prompt: verb,
    summary,
    options: crawlOptions(verb),
    details:
      `${help}\nA run that ends normally (frontier drained, --max-pages or --duration reached) publishes its version;\n` +
      'Ctrl-C (or `greenfinger pause`) stops gracefully and publishes nothing — continue with resume.\n' +
      'A run whose site did not answer, whose robots.txt answered 5xx, that saved nothing, or whose version holds\n' +
      'far fewer pages than the one serving (--min-publish-ratio) publishes nothing; the served version keeps serving.\n' +
      'Exit code 1 when nothing was published or saved (0 for an update or merge that found nothing changed),\n' +
      '2 for wrong use, 130 after Ctrl-C (the process ends within GF_STOP_DEADLINE_MS of it).',
    examples: example.split('\n').map((line) => line.trim()),
    promptExamples: [
      ...example.split('\n').map((line) => line.trim().replace(/^greenfinger /, '')),
      'status        # the live view of the crawl running in the background; q then Return detaches',
    ],
    run: async (ctx, _args, opts) => {
      const action: CrawlVerb = verb === 'update' && opts.refresh ? 'merge' : verb;
      return ctx.session ? startJob(action, opts, ctx) : runCrawl(action, opts, ctx);
    },
  }),
);

/** The settings flags given, with the start urls after the first as the catalog's further start references. */
function settingsWithSeeds(opts: CrawlOptions): ReturnType<typeof settingsOf> {
  const settings = settingsOf(opts);
  const more = opts.startUrl?.slice(1) ?? [];
  return more.length > 0 ? { ...settings, seedUrls: more } : settings;
}

/** The catalog a crawl verb needs, or one line saying what to give (exit 2). */
function needsCatalog(action: CrawlVerb, opts: CrawlOptions, io: Io): boolean {
  if (opts.url || opts.id || opts.name) return false;
  io.err(
    `greenfinger: ${action} needs a catalog — give ${action === 'crawl' ? '--url <site> (creates it) or ' : ''}--id, --name or --url of an existing one\n`,
  );
  return true;
}

/**
 * In the prompt: the run starts in the background of the prompt's Greenfinger (a job). On a terminal the prompt
 * comes back at once (`status` watches it); not on one (a script) the job is waited for and its summary printed, so
 * the next line sees what it wrote.
 */
async function startJob(action: CrawlVerb, opts: CrawlOptions, ctx: CommandContext): Promise<number> {
  const { io } = ctx;
  if (needsCatalog(action, opts, io)) return EXIT.usage;
  const gf = await ctx.gf();
  const job = await gf.jobs.start({
    action,
    url: opts.url,
    startUrl: opts.startUrl?.[0],
    name: opts.name,
    id: opts.id,
    settings: settingsWithSeeds(opts),
    forcePublish: opts.forcePublish,
  });
  if (ctx.session?.interactive) {
    io.out(
      `${action} of "${job.catalog}" version ${job.version ?? '?'} runs in the background (job ${job.jobId})\n` +
        `  status watches it (q then Return detaches) · pause --name "${job.catalog}" stops it so resume can continue\n`,
    );
    return EXIT.ok;
  }
  const ended = await new Promise<Job>((resolve) => {
    const stop = gf.jobs.subscribe({ jobId: job.jobId }, (e) => {
      if (e.type !== 'end') return;
      stop();
      resolve(e.job);
    });
  });
  if (!ended.report || !('ending' in ended.report)) {
    io.err(`greenfinger: ${ended.error?.message ?? `the ${action} failed`}\n`);
    return EXIT.failed;
  }
  return reportRun(ended.report, opts, io, false);
}

/**
 * On the one-line CLI: the run in the foreground, its progress line on a terminal, Ctrl-C stopping it gracefully.
 * The run goes through a CrawlRunner, as a job's does: this process's crawler, or with `--cluster` the cluster's
 * (the verb sent to its leader, the members' counters as progress, the merged report as the end; no store opened here).
 */
async function runCrawl(action: CrawlVerb, opts: CrawlOptions, ctx: CommandContext): Promise<number> {
  const { io } = ctx;
  if (needsCatalog(action, opts, io)) return EXIT.usage;
  const cluster = opts.cluster;
  let gf: Greenfinger | undefined;
  const controller = new AbortController();
  const offSignals = onStopSignals(io, {
    first: {
      line: opts.json
        ? ''
        : cluster
          ? '\nstopping the cluster run: pages in flight finish, nothing is published\n'
          : '\nstopping: finishing the pages in flight (Ctrl-C again to quit at once; nothing stored is lost)\n',
      stop: () => controller.abort(),
      // A hard deadline for a run of this process: whatever the stop waits for (a slow page, a stuck store), the
      // process ends. What was committed is on disk; resume continues from there, as after a kill.
      ...(cluster
        ? {}
        : {
            deadline: {
              ms: () => stopDeadlineMs(gf),
              line: (ms: number) =>
                `greenfinger: stopped after ${ms / 1000} s without waiting for the rest (GF_STOP_DEADLINE_MS); nothing stored is lost — continue with resume\n`,
            },
          }),
    },
  });
  let progressShown = false;
  let members: { stop(): Promise<void> } | undefined;
  try {
    const settings = settingsWithSeeds(opts);
    let runner: CrawlRunner;
    if (cluster) {
      if (opts.nodes) members = await localMembers(cluster, opts, io);
      runner = await clusterCrawlRunner(cluster);
    } else {
      // Before the log file or any store: a malformed url, or a data root that is read-only, full or a file, fails
      // here in one line, and nothing is created on disk for it.
      if (opts.url) parseUserUrl(opts.url, '--url');
      for (const u of opts.startUrl ?? []) parseUserUrl(u, '--start-url');
      probeDataRoot(opts.data ?? envDataStore());
      gf = await ctx.gf(true);
      runner = gf.factory.crawlRunner(gf.crawler);
    }
    const report: RunReport = await runner.crawl({
      action,
      url: opts.url,
      startUrl: opts.startUrl?.[0],
      name: opts.name,
      id: opts.id,
      settings,
      signal: controller.signal,
      forcePublish: opts.forcePublish,
      onStart: ({ catalog, version, created, embedding }) => {
        if (opts.json) return;
        io.err(
          `${created ? 'created catalog' : `${action}:`} "${catalog.name}" (${catalog.id}) version ${version}${cluster ? ` on cluster "${cluster}"` : ''}${catalog.startUrl ? `: ${catalog.startUrl}` : ''}\n`,
        );
        if (embedding) io.err(`embeddings: ${embedding}\n`);
      },
      onProgress:
        io.tty && !opts.json
          ? (p: CrawlProgress) => {
              progressShown = true;
              io.err(`\r${formatProgress(p)}\u001b[K`);
            }
          : undefined,
    });
    if (progressShown) io.err('\n');
    return reportRun(report, opts, io, controller.signal.aborted);
  } catch (err) {
    if (progressShown) io.err('\n');
    return reportError(io, err);
  } finally {
    offSignals();
    await members?.stop();
  }
}

/** `crawl --cluster NAME --nodes N`: members started here when none runs (see startLocalMembers). */
async function localMembers(cluster: string, opts: CrawlOptions, io: Io) {
  const { ClusterClient } = await import('@greenfinger/cluster');
  const client = await ClusterClient.open({ cluster, redisUrl: redisUrl(), log: silentLogger() });
  try {
    return await startLocalMembers(client, cluster, opts.nodes ?? 1, opts.data, io, opts.json);
  } finally {
    await client.close();
  }
}

/** The summary (or the JSON report) and the exit code a run earned, with one line saying why when it failed. */
function reportRun(report: RunReport, opts: CrawlOptions, io: Io, interrupted: boolean): number {
  if (opts.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
  else io.out(`${formatSummary(report)}${'byNode' in report ? formatNodes(report as ClusterRunReport) : ''}`);
  if (interrupted) return EXIT.interrupted;
  const withheld = report.ending.withheld;
  if (withheld && withheld.cause !== 'nothing-saved') {
    io.err(`greenfinger: ${withheld.line}\n`);
    return EXIT.failed;
  }
  if (report.ending.reason === 'error') {
    io.err(`greenfinger: ${report.ending.note ?? 'the crawl stopped on an error; nothing was published'}\n`);
    return EXIT.failed;
  }
  if (report.produced.saved > 0) return EXIT.ok;
  if (nothingChanged(report)) {
    if (!opts.json) io.err(`${report.ending.note}\n`);
    return EXIT.ok;
  }
  io.err(`greenfinger: ${explainNothingSaved(report)}\n`);
  return EXIT.failed;
}

/** How long a stop may take after the first signal: GF_STOP_DEADLINE_MS (the settings, once read). */
function stopDeadlineMs(gf: Greenfinger | undefined): number {
  if (gf) return gf.settings.stopDeadlineMs;
  try {
    return loadSettings().stopDeadlineMs;
  } catch {
    return 5000;
  }
}

/** An update or merge that ended normally and found nothing new or changed: a success, not a failure. */
function nothingChanged(report: RunReport): boolean {
  return report.ending.published && (report.action === 'update' || report.action === 'merge');
}
