import { DELETE_ORDER, type DeleteLayer, type DeleteReport } from '@greenfinger/core';
import { intArg } from '../args.js';
import { type CommandContext, type CommandSpec, defineCommand } from '../command-spec.js';
import { EXIT } from '../io.js';
import { writeToLeader } from './catalog.js';
import { type CatalogRefOptions, catalogRefOf, catalogRefOptions, parseLayers, table } from './versions.js';

interface DeleteOptions extends CatalogRefOptions {
  version?: number;
  keepLatest?: number | boolean;
  all?: boolean;
  layers?: string;
  dryRun?: boolean;
  force?: boolean;
  purge?: boolean;
}

export const DELETE_COMMAND = defineCommand<DeleteOptions>({
  cli: 'delete',
  prompt: 'delete',
  summary:
    'Delete versions of a catalog, layer by layer: vector → index → file → db (a half-finished delete never ' +
    'leaves a searchable pointer to bytes already gone).',
  options: [
    ...catalogRefOptions('print exactly one JSON document: {versions, results: [{version, layer, count, bytes}], …}'),
    { flags: '--version <n>', description: 'delete this version', parse: intArg('--version', 0) },
    {
      flags: '--keep-latest [n]',
      description: 'keep the newest N versions (default 1) and the served one; delete the rest',
      parse: intArg('--keep-latest', 0),
    },
    { flags: '--all', description: 'delete every version' },
    { flags: '--layers <layers>', description: 'only these layers: vector+index+file+db (default all four)' },
    { flags: '--dry-run', description: 'walk exactly as the delete would, count, and write nothing' },
    {
      flags: '--force',
      description: 'allow deleting the version search reads (search then has nothing for this catalog)',
    },
    {
      flags: '--purge',
      description: 'with --all: also remove the catalog index, its asset folder and its entry in catalogs.json',
    },
    writeToLeader(),
  ],
  details:
    "The db layer also removes the version's working state (frontier, url marks, content fingerprints).\n" +
    'Deleting the served version needs --force; it stops being served when its file or db layer goes.',
  examples: [
    'greenfinger delete --name docs --version 0 --dry-run',
    'greenfinger delete --name docs --keep-latest 2',
    'greenfinger delete --name docs --version 3 --layers vector   # then: replay --layers vector',
    'greenfinger delete --name docs --all --force --purge --json',
  ],
  run: (ctx, _args, opts) => runDelete(ctx, opts),
}) satisfies CommandSpec;

async function runDelete(ctx: CommandContext, opts: DeleteOptions): Promise<number> {
  const { io } = ctx;
  const ref = catalogRefOf(opts, io, 'delete');
  if (!ref) return EXIT.usage;
  const chosen = [opts.version !== undefined, opts.keepLatest !== undefined, opts.all === true].filter(Boolean);
  if (chosen.length !== 1) {
    io.err('greenfinger: delete needs exactly one of --version N, --keep-latest [N] or --all\n');
    return EXIT.usage;
  }
  const layers = opts.layers ? parseLayers<DeleteLayer>(opts.layers, DELETE_ORDER, 'vector+index') : undefined;
  const gf = await ctx.gf(!opts.dryRun);
  const report = await gf.versions.delete(ref, {
    version: opts.version,
    keepLatest: opts.keepLatest,
    all: opts.all,
    layers,
    dryRun: opts.dryRun,
    force: opts.force,
    purge: opts.purge,
  });
  if (opts.json) io.out(`${JSON.stringify(report)}\n`);
  else io.out(formatDelete(report));
  const failed = report.results.find((r) => r.error);
  if (failed) {
    io.err(
      `greenfinger: deleting the ${failed.layer} layer of version ${failed.version} failed: ${failed.error} — ` +
        'fix that and run the same command again (what was removed stays removed)\n',
    );
    return EXIT.failed;
  }
  return EXIT.ok;
}

function formatDelete(r: DeleteReport): string {
  const verb = r.dryRun ? 'would delete' : 'deleted';
  if (r.versions.length === 0 && !r.purged) return `catalog "${r.catalog}": nothing to delete\n`;
  const rows = [['version', 'layer', 'count', 'bytes', '']];
  for (const x of r.results) {
    rows.push([String(x.version), x.layer, String(x.count), String(x.bytes), x.error ?? x.note ?? '']);
  }
  const lines = [
    `catalog "${r.catalog}": ${verb} version${r.versions.length === 1 ? '' : 's'} ${r.versions.join(', ') || '-'} (${r.layers.join('+')})${r.dryRun ? ' — dry run, nothing written' : ''}`,
    table(rows).trimEnd(),
  ];
  if (r.purged) lines.push('purged: the catalog index, its assets and its entry in catalogs.json are gone');
  lines.push(r.searchVersion >= 0 ? `search reads version ${r.searchVersion}` : 'search reads nothing of this catalog');
  return `${lines.join('\n')}\n`;
}
