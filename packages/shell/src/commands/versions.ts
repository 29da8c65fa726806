import { type CatalogRef, Greenfinger, type VersionInfo } from '@greenfinger/core';
import type { Command } from 'commander';
import { commandLogger, EXIT, type Io, reportError } from '../io.js';

/** Options every command that names one catalog takes. */
export interface CatalogRefOptions {
  id?: string;
  name?: string;
  url?: string;
  data?: string;
  json?: boolean;
  verbose?: boolean;
}

/** `--id | --name | --url`, `--data`, `--json`, `--verbose`. */
export function catalogRefOptions(command: Command, json: string): Command {
  return command
    .option('--id <id>', 'the catalog id')
    .option('--name <name>', 'the catalog name')
    .option('--url <url>', 'the catalog url')
    .option('--data <dir>', 'data root holding system/ and user/ (default ./data or GF_DATA_STORE)')
    .option('--json', json)
    .option('--verbose', 'write the JSON log to stderr');
}

/** The catalog named on the command line; undefined (after one line on stderr) when none or several are. */
export function catalogRefOf(opts: CatalogRefOptions, io: Io, verb: string): CatalogRef | undefined {
  const given = [opts.id, opts.name, opts.url].filter((v) => v !== undefined);
  if (given.length !== 1) {
    io.err(`greenfinger: ${verb} needs exactly one catalog — give one of --id, --name or --url\n`);
    return undefined;
  }
  return { id: opts.id, name: opts.name, url: opts.url };
}

/** Open the data store for a command; `toFile` sends the JSON log to data/system/logs. */
export function openGreenfinger(opts: CatalogRefOptions, toFile: boolean): Promise<Greenfinger> {
  return Greenfinger.open({
    settings: { dataStore: opts.data },
    log: commandLogger(opts.data, { verbose: opts.verbose, toFile }),
  });
}

export { parseLayers } from './options.js';

/** Left-aligned columns, two spaces apart. */
export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return `${rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}

export function versionsCommand(program: Command, io: Io, setCode: (code: number) => void): void {
  catalogRefOptions(
    program
      .command('versions')
      .description('List the versions of a catalog: which one search reads, which are complete, what each holds.'),
    'print exactly one JSON document: [{version, state, published, serving, saved, images, startedAt, endedAt}]',
  )
    .addHelpText(
      'after',
      '\nStates: serving (search reads it), published (complete, not served), incomplete (its last run ended\n' +
        'unpublished), running (being written now), empty (nothing stored yet).\n\n' +
        'Examples:\n  greenfinger versions --name docs\n  greenfinger versions --url https://docs.example.com/ --json',
    )
    .action(async (opts: CatalogRefOptions) => {
      setCode(await runVersions(opts, io));
    });
}

async function runVersions(opts: CatalogRefOptions, io: Io): Promise<number> {
  const ref = catalogRefOf(opts, io, 'versions');
  if (!ref) return EXIT.usage;
  let gf: Greenfinger | undefined;
  try {
    gf = await openGreenfinger(opts, false);
    const catalog = await (await gf.catalogs()).get(ref);
    const versions = await gf.versions.list({ id: catalog.id });
    if (opts.json) {
      const out = versions.map(({ version, state, published, serving, saved, images, startedAt, endedAt }) => ({
        version,
        state,
        published,
        serving,
        saved,
        images,
        startedAt,
        endedAt,
      }));
      io.out(`${JSON.stringify(out)}\n`);
    } else {
      io.out(formatVersions(catalog.name, catalog.id, versions));
    }
    return EXIT.ok;
  } catch (err) {
    return reportError(io, err);
  } finally {
    await gf?.close();
  }
}

function formatVersions(name: string, id: string, versions: VersionInfo[]): string {
  if (versions.length === 0) return `catalog "${name}" (${id}) has no versions yet — crawl it first\n`;
  const rows = [['version', 'state', 'saved', 'images', 'action', 'started', 'ended']];
  for (const v of versions) {
    rows.push([
      String(v.version),
      v.state,
      String(v.saved),
      String(v.images),
      v.action ?? '-',
      v.startedAt ?? '-',
      v.endedAt ?? '-',
    ]);
  }
  return `catalog "${name}" (${id})\n${table(rows)}`;
}
