import type { Greenfinger, HostRate, Job, RunStatus } from '@greenfinger/core';
import { type CommandContext, type CommandSpec, defineCommand } from '../command-spec.js';
import { embeddingProgress } from '../format.js';
import { EXIT } from '../io.js';
import { clusterOption, clusterPause, clusterStatus } from './cluster.js';
import { dataOption, jsonOption } from './options.js';
import { storesBlock } from './stores-block.js';
import { type CatalogRefOptions, catalogRefOf } from './versions.js';
import { formatSchedules } from './watch.js';

interface StatusOptions {
  cluster?: string;
  json?: boolean;
  all?: boolean;
}

const n = (v: number): string => v.toLocaleString('en-US');

/** `pause` and `status`: runs of this prompt's jobs, and of other processes through the run locks in system/locks. */
export const CONTROL_COMMANDS: CommandSpec[] = [
  defineCommand<CatalogRefOptions>({
    cli: 'pause',
    prompt: 'pause',
    summary: 'Stop a running crawl gracefully: pages in flight finish, the frontier is kept, nothing is published.',
    options: [
      { flags: '--id <id>', description: 'the catalog with this id' },
      { flags: '--name <name>', description: 'the catalog with this name' },
      { flags: '--url <url>', description: 'the catalog with this url' },
      clusterOption('stop the run of this cluster on every member (no catalog needed: one run per cluster)'),
      dataOption(),
      jsonOption('print exactly one JSON document'),
    ],
    details: 'Continue later with resume.',
    examples: ['greenfinger pause --name docs', 'greenfinger resume --name docs'],
    run: async (ctx, _args, opts: CatalogRefOptions & { cluster?: string }) => {
      if (opts.cluster) return clusterPause(opts.cluster, opts.json === true, ctx.io);
      const gf = await ctx.gf();
      const { io } = ctx;
      if (ctx.session) {
        const ref = catalogRefOf(opts, io, 'pause');
        if (!ref) return EXIT.usage;
        const catalog = await (await gf.catalogs()).get(ref);
        if (gf.jobs.running(catalog.id)) {
          const job = await gf.jobs.stop({ id: catalog.id });
          if (opts.json) io.out(`${JSON.stringify(job)}\n`);
          else
            io.out(
              `paused "${catalog.name}" (job ${job.jobId}, ${job.state}); continue with: resume --id ${catalog.id}\n`,
            );
          return EXIT.ok;
        }
      }
      const { catalog, pid } = await gf.crawler.pause({ id: opts.id, name: opts.name, url: opts.url });
      if (opts.json) io.out(`${JSON.stringify({ catalogId: catalog.id, catalog: catalog.name, pid, paused: true })}\n`);
      else io.out(`paused "${catalog.name}" (process ${pid}); continue with: greenfinger resume --id ${catalog.id}\n`);
      return EXIT.ok;
    },
  }),
  defineCommand<StatusOptions>({
    cli: 'status',
    prompt: 'status',
    summary: 'What runs now on this data store, with live counters.',
    options: [
      clusterOption('the members of this cluster, its leader and its run ({members:[{name, leader, …}], leader, run})'),
      dataOption(),
      jsonOption(
        'print exactly one JSON document: [{catalogId, catalog, action, version, pid, since, counters, queued, hosts, embedding}]',
      ),
      { flags: '--all', description: 'also the jobs of this prompt that ended', promptOnly: true },
    ],
    examples: ['greenfinger status', 'greenfinger status --json', 'greenfinger status --cluster docs --json'],
    promptExamples: [
      'status          # live counters of the crawls running in the background, once a second; q then Return detaches',
      'status --all    # also the jobs of this session that ended',
      'status --json',
    ],
    run: async (ctx, _args, opts) => {
      if (opts.cluster) return clusterStatus(opts.cluster, opts.json === true, ctx.io);
      const gf = await ctx.gf();
      if (ctx.session) return promptStatus(ctx, gf, opts);
      const runs = await gf.crawler.status();
      if (opts.json) ctx.io.out(`${JSON.stringify(runs)}\n`);
      else {
        ctx.io.out(formatStatus(runs));
        ctx.io.out(`\n${await storesBlock(gf)}`);
        // The schedules: what runs next by itself (watch or serve), and what each last run changed.
        const scheduled = await gf.schedules.list(undefined, { changes: true });
        if (scheduled.length > 0) ctx.io.out(`\nscheduled (watch or serve runs them):\n${formatSchedules(scheduled)}`);
      }
      return EXIT.ok;
    },
  }),
];

function formatStatus(runs: RunStatus[]): string {
  if (runs.length === 0) return 'nothing is running\n';
  return `${runs
    .map((r) => {
      const c = r.counters;
      const counts = c
        ? ` — saved ${c.saved}, dispatched ${c.dispatched}, handled ${c.handled}, queued ${r.queued ?? 0}, ${(r.pagesPerSecond ?? 0).toFixed(1)} pages/s` +
          (r.embedding ? `, ${embeddingProgress(r.embedding)}` : '')
        : '';
      const hosts = r.hosts?.length ? `\n  ${hostsLine(r.hosts)}` : '';
      return `${r.catalog ?? r.catalogId} ${r.action ?? 'crawl'} v${r.version ?? '?'} (process ${r.pid}, since ${r.since})${counts}${hosts}`;
    })
    .join('\n')}\n`;
}

const live = (j: Job) => j.state === 'running' || j.state === 'queued';

/**
 * The busy hosts' pace in one line: `hosts: a.test 2/s (setting 4/s) · 1 in flight · 3 waiting · paused 1.5s`; a rate
 * of null is unlimited (interval 0, nothing slowed it).
 */
export function hostsLine(hosts: HostRate[]): string {
  const rate = (r: number | null) => (r === null ? 'unlimited' : `${r}/s`);
  const one = (h: HostRate) =>
    `${h.host} ${rate(h.ratePerSecond)}` +
    (h.ratePerSecond !== h.settingPerSecond ? ` (setting ${rate(h.settingPerSecond)})` : '') +
    `, ${h.inFlight} in flight` +
    (h.queued > 0 ? `, ${h.queued} waiting` : '') +
    (h.pausedForMs > 0 ? `, paused ${(h.pausedForMs / 1000).toFixed(1)}s` : '');
  return `hosts: ${hosts.map(one).join(' · ')}`;
}

/**
 * In the prompt: on a terminal, while jobs of this session run, the live view (redrawn once a second until `q`
 * Return, Ctrl-C or their end); otherwise the jobs once, and the runs of other processes.
 */
async function promptStatus(ctx: CommandContext, gf: Greenfinger, opts: StatusOptions): Promise<number> {
  const { io } = ctx;
  const jobs = gf.jobs.list().filter((j) => opts.all || live(j));
  const others = (await gf.crawler.status()).filter((r) => r.pid !== process.pid);
  if (opts.json) {
    io.out(`${JSON.stringify({ jobs, others })}\n`);
    return EXIT.ok;
  }
  if (ctx.session?.interactive && jobs.some(live)) return liveView(ctx, gf);
  if (jobs.length === 0 && others.length === 0) {
    io.out(opts.all ? 'no jobs in this session, and nothing else is running\n' : 'nothing is running\n');
    return EXIT.ok;
  }
  io.out(jobs.map((j) => `${jobLines(j).join('\n')}\n`).join(''));
  if (others.length > 0) io.out(formatStatus(others));
  return EXIT.ok;
}

/** A job's counters in two lines: progress, then where the drops went by outcome. */
export function jobLines(j: Job): string[] {
  const c = j.counters;
  const head = `${j.catalog} · ${j.action} v${j.version ?? '?'} · ${j.state}`;
  if (!c) return [j.error ? `${head} — ${j.error.message}` : head];
  const lines = [
    `${head} · saved ${n(c.saved)} · images ${n(c.images)} · dispatched ${n(c.dispatched)} · handled ${n(c.handled)} · ` +
      `queued ${n(j.queued)} · ${j.pagesPerSecond.toFixed(1)} pages/s · ${Math.round(c.elapsedMs / 1000)}s`,
  ];
  const drops: Array<[string, number]> = [
    ...Object.entries(c.rejected).map(([k, v]): [string, number] => [k.replace(/^REJECTED_/, '').toLowerCase(), v]),
  ];
  drops.sort((a, b) => b[1] - a[1]);
  if (j.embedding && (j.state === 'running' || j.state === 'queued')) lines.push(`  ${embeddingProgress(j.embedding)}`);
  if (j.hosts?.length && live(j)) lines.push(`  ${hostsLine(j.hosts)}`);
  lines.push(`  drops: ${drops.length ? drops.map(([k, v]) => `${k} ${n(v)}`).join(' · ') : 'none'}`);
  if (j.error) lines.push(`  ${j.error.message}`);
  return lines;
}

/** The live view: the running jobs redrawn in place once a second; `q` then Return (or Ctrl-C) detaches. */
async function liveView(ctx: CommandContext, gf: Greenfinger): Promise<number> {
  const { io } = ctx;
  const session = ctx.session;
  if (!session) return EXIT.ok;
  const watched = new Set(
    gf.jobs
      .list()
      .filter(live)
      .map((j) => j.jobId),
  );
  const detach = new AbortController();
  let drawn = 0;
  const draw = () => {
    const jobs = gf.jobs.list().filter((j) => watched.has(j.jobId));
    const lines = jobs.flatMap(jobLines);
    io.out(`${drawn > 0 ? `\u001b[${drawn}F\u001b[J` : ''}${lines.join('\n')}\n`);
    drawn = lines.length;
    if (!jobs.some(live)) detach.abort();
  };
  io.out('live view, once a second — q then Return detaches (the crawl goes on; status attaches again)\n');
  draw();
  const timer = setInterval(draw, 1000);
  const stop = () => detach.abort();
  ctx.signal.addEventListener('abort', stop);
  try {
    while (!detach.signal.aborted) {
      const line = await session.ask('', detach.signal);
      if (line === undefined || line.trim().toLowerCase() === 'q') break;
    }
  } finally {
    clearInterval(timer);
    ctx.signal.removeEventListener('abort', stop);
  }
  const ended = gf.jobs.list().filter((j) => watched.has(j.jobId) && !live(j));
  for (const j of ended) io.out(`${j.catalog}: ${j.action} ${j.state}${j.error ? ` — ${j.error.message}` : ''}\n`);
  if (ended.length < watched.size) io.out('detached; the crawl goes on in the background — status attaches again\n');
  return EXIT.ok;
}
