import type { Job, ScheduledCatalog, ScheduledRun } from '@greenfinger/core/internal';
import { type CommandSpec, defineCommand } from '../command-spec.js';
import { EXIT, reportError } from '../io.js';
import { onStopSignals } from '../stop-signals.js';
import { dataOption, jsonOption, verboseOption } from './options.js';

interface WatchOptions {
  name?: string[];
  once?: boolean;
  list?: boolean;
  json?: boolean;
}

/** `watch`: the catalogs' schedules (`--schedule`) run in the foreground until Ctrl-C or SIGTERM. */
export const WATCH_COMMAND = defineCommand<WatchOptions>({
  cli: 'watch',
  summary: 'Run the catalogs on their schedules (--schedule) in the foreground; Ctrl-C stops cleanly.',
  options: [
    { flags: '--name <catalog...>', description: 'only these catalogs (default: every catalog with a schedule)' },
    { flags: '--once', description: 'run what is due now, then exit' },
    { flags: '--list', description: 'print each scheduled catalog with its last and next run, then exit' },
    dataOption(),
    jsonOption('one JSON line per run as it ends ({catalog, action, state, version, saved, …}); with --list, the list'),
    verboseOption(),
  ],
  details:
    'A due catalog runs a merge (new urls, and the pages held that are due revisited with a conditional GET), or a resume when\n' +
    'its last run was stopped or killed (nothing fetched twice, nothing lost), or a crawl when it never ran; one run\n' +
    'at a time. `every 6h` counts from the end of the last run; a cron expression is in local time. The first Ctrl-C\n' +
    'or SIGTERM stops the run going on (pages in flight finish, nothing is published; the next due run resumes it) and\n' +
    'exits; a second one exits at once. `serve` runs the same schedules. Set one with --schedule on catalog create,\n' +
    'catalog update or crawl.',
  examples: [
    'greenfinger catalog update docs --schedule "every 6h"',
    'greenfinger watch',
    'greenfinger watch --name docs --once',
    'greenfinger watch --list',
  ],
  run: async (ctx, _args, opts) => {
    const { io } = ctx;
    const gf = await ctx.gf(true);
    if (opts.list) {
      const list = await gf.schedules.list(opts.name, { changes: true });
      io.out(opts.json ? `${JSON.stringify(list)}\n` : formatSchedules(list));
      return EXIT.ok;
    }
    if ((await gf.schedules.list(opts.name)).length === 0) {
      io.err(
        'greenfinger: no catalog has a schedule — give one: greenfinger catalog update NAME --schedule "every 6h"\n',
      );
      return EXIT.usage;
    }
    const stop = new AbortController();
    const off = onStopSignals(io, {
      first: {
        line: '\nstopping: the run going on finishes its pages in flight; the next due run resumes it\n',
        stop: () => stop.abort(),
        deadline: {
          ms: () => gf.settings.stopDeadlineMs + 5000,
          line: 'greenfinger: stopped without waiting for the rest; nothing stored is lost\n',
        },
      },
    });
    try {
      const runs = await gf.schedules.watch({
        names: opts.name,
        signal: stop.signal,
        once: opts.once,
        onStart: (job) => {
          if (!opts.json) io.err(`${stamp()} ${job.action} of "${job.catalog}" started (job ${job.jobId})\n`);
        },
        onRun: (run) => io.out(opts.json ? `${JSON.stringify(runLine(run))}\n` : `${stamp()} ${formatRun(run)}\n`),
        onIdle: (next) => {
          if (!opts.json && next?.nextRunAt) io.err(`${stamp()} next: "${next.catalog}" at ${next.nextRunAt}\n`);
        },
      });
      if (opts.once && runs.length === 0 && !opts.json) io.err('greenfinger: nothing is due now\n');
      return runs.some((r) => r.job.state === 'failed') ? EXIT.failed : EXIT.ok;
    } catch (err) {
      return reportError(io, err);
    } finally {
      off();
    }
  },
}) satisfies CommandSpec;

function stamp(): string {
  return new Date().toISOString().slice(0, 19).replace('T', ' ');
}

/** What one scheduled run did, for --json. */
function runLine(run: ScheduledRun) {
  const job: Job = run.job;
  const report = job.report && 'ending' in job.report ? job.report : undefined;
  return {
    catalog: run.catalog,
    catalogId: run.catalogId,
    action: run.action,
    jobId: job.jobId,
    state: job.state,
    version: job.version,
    saved: report?.produced.saved ?? null,
    published: report?.ending.published ?? null,
    reason: report?.ending.reason ?? null,
    note: report?.ending.note ?? null,
    error: job.error?.message ?? null,
    startedAt: job.startedAt,
    endedAt: job.endedAt,
  };
}

function formatRun(run: ScheduledRun): string {
  const r = runLine(run);
  if (r.state === 'failed') return `${r.action} of "${r.catalog}" failed: ${r.error}`;
  const what = r.note ?? `${r.saved ?? 0} pages saved, ${r.published ? 'published' : 'not published'} (${r.reason})`;
  return `${r.action} of "${r.catalog}" version ${r.version} ${r.state}: ${what}`;
}

/** The scheduled catalogs as a small table. */
export function formatSchedules(list: ScheduledCatalog[]): string {
  if (list.length === 0) return 'no catalog has a schedule\n';
  const changes = list.some((s) => s.lastChanges !== undefined);
  const rows = list.map((s) => [
    s.catalog,
    s.schedule,
    s.lastRunAt ?? 'never',
    s.running ? 'running now' : (s.nextRunAt ?? 'never (the expression matches no date)'),
    ...(changes
      ? [s.lastChanges ? `+${s.lastChanges.added} ~${s.lastChanges.changed} -${s.lastChanges.removed}` : '-']
      : []),
  ]);
  const head = ['catalog', 'schedule', 'last run ended', 'next run', ...(changes ? ['last changes'] : [])];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return `${[line(head), ...rows.map(line)].join('\n')}\n`;
}
