import { Greenfinger, type RunStatus } from '@greenfinger/core';
import type { Command } from 'commander';
import { commandLogger, EXIT, type Io, reportError } from '../io.js';

interface RefOptions {
  id?: string;
  name?: string;
  url?: string;
  data?: string;
  json?: boolean;
}

/** `pause` and `status`: control runs in other processes through the run locks in system/locks. */
export function controlCommands(program: Command, io: Io, setCode: (code: number) => void): void {
  program
    .command('pause')
    .description('Stop a running crawl gracefully: pages in flight finish, the frontier is kept, nothing is published.')
    .option('--id <id>', 'the catalog with this id')
    .option('--name <name>', 'the catalog with this name')
    .option('--url <url>', 'the catalog with this url')
    .option('--data <dir>', 'data root (default ./data or GF_DATA_STORE)')
    .option('--json', 'print exactly one JSON document')
    .addHelpText(
      'after',
      '\nContinue later with resume.\n\nExamples:\n  greenfinger pause --name docs\n  greenfinger resume --name docs',
    )
    .action(async (opts: RefOptions) => {
      setCode(
        await withGf(opts, io, async (gf) => {
          const { catalog, pid } = await gf.crawler.pause({ id: opts.id, name: opts.name, url: opts.url });
          if (opts.json)
            io.out(`${JSON.stringify({ catalogId: catalog.id, catalog: catalog.name, pid, paused: true })}\n`);
          else
            io.out(`paused "${catalog.name}" (process ${pid}); continue with: greenfinger resume --id ${catalog.id}\n`);
          return EXIT.ok;
        }),
      );
    });

  program
    .command('status')
    .description('What runs now on this data store, with live counters.')
    .option('--data <dir>', 'data root (default ./data or GF_DATA_STORE)')
    .option(
      '--json',
      'print exactly one JSON document: [{catalogId, catalog, action, version, pid, since, counters, queued}]',
    )
    .addHelpText('after', '\nExamples:\n  greenfinger status\n  greenfinger status --json')
    .action(async (opts: RefOptions) => {
      setCode(
        await withGf(opts, io, async (gf) => {
          const runs = await gf.crawler.status();
          if (opts.json) io.out(`${JSON.stringify(runs)}\n`);
          else io.out(formatStatus(runs));
          return EXIT.ok;
        }),
      );
    });
}

async function withGf(opts: RefOptions, io: Io, fn: (gf: Greenfinger) => Promise<number>): Promise<number> {
  let gf: Greenfinger | undefined;
  try {
    gf = await Greenfinger.open({
      settings: { dataStore: opts.data },
      log: commandLogger(opts.data, { toFile: false }),
    });
    return await fn(gf);
  } catch (err) {
    return reportError(io, err);
  } finally {
    await gf?.close();
  }
}

function formatStatus(runs: RunStatus[]): string {
  if (runs.length === 0) return 'nothing is running\n';
  return `${runs
    .map((r) => {
      const c = r.counters;
      const counts = c
        ? ` — saved ${c.saved}, dispatched ${c.dispatched}, handled ${c.handled}, queued ${r.queued ?? 0}, ${(r.pagesPerSecond ?? 0).toFixed(1)} pages/s`
        : '';
      return `${r.catalog ?? r.catalogId} ${r.action ?? 'crawl'} v${r.version ?? '?'} (process ${r.pid}, since ${r.since})${counts}`;
    })
    .join('\n')}\n`;
}
