import { intArg } from '../args.js';
import { type CommandSpec, defineCommand } from '../command-spec.js';
import { EXIT } from '../io.js';
import { formatChangeSet } from './changes.js';
import { type CatalogRefOptions, catalogRefOf, catalogRefOptions } from './versions.js';

interface DiffOptions extends CatalogRefOptions {
  from: number;
  to: number;
}

/** `diff`: two kept versions of a catalog compared, the way a run's change set is made. */
export const DIFF_COMMAND = defineCommand<DiffOptions>({
  cli: 'diff',
  prompt: 'diff',
  summary: 'Compare two kept versions of a catalog: urls added, changed (with a short diff), removed.',
  options: [
    { flags: '--from <version>', description: 'the older version', parse: intArg('--from', 0), required: true },
    { flags: '--to <version>', description: 'the newer version', parse: intArg('--to', 0), required: true },
    ...catalogRefOptions(
      'print exactly one JSON document: {catalog: {id, name}, from, to, added: [url], changed: [{url, diff}], removed: [url]}',
    ),
  ],
  details:
    'A page in both versions is changed only when its article text changed beyond volatile parts (dates, times,\n' +
    "counters, tokens) and the catalog's --change-distance; see docs/freshness.md. `greenfinger versions` lists the\n" +
    'versions kept.',
  examples: ['greenfinger diff --name docs --from 0 --to 1', 'greenfinger diff --name docs --from 1 --to 2 --json'],
  run: async (ctx, _args, opts) => {
    const { io } = ctx;
    const ref = catalogRefOf(opts, io, 'diff');
    if (!ref) return EXIT.usage;
    const gf = await ctx.gf();
    const answer = await gf.changes.diff(ref, opts.from, opts.to);
    if (opts.json) io.out(`${JSON.stringify(answer)}\n`);
    else io.out(formatChangeSet(`catalog "${answer.catalog.name}", v${answer.from} → v${answer.to}`, answer));
    return EXIT.ok;
  },
}) satisfies CommandSpec;
