import { type CatalogRef, isUuid, type VersionInfo } from '@greenfinger/core/internal';
import { type CommandSpec, defineCommand, type OptionSpec } from '../command-spec.js';
import { EXIT, type Io } from '../io.js';
import { dataOption, jsonOption, verboseOption } from './options.js';

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
export function catalogRefOptions(json: string): OptionSpec[] {
  return [
    { flags: '--id <id>', description: 'the catalog id' },
    { flags: '--name <name>', description: 'the catalog name' },
    { flags: '--url <url>', description: 'the catalog url' },
    dataOption('data root holding system/ and user/ (default ./data or GF_DATA_STORE)'),
    jsonOption(json),
    verboseOption(),
  ];
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

export { parseLayers } from './options.js';

/** A catalog named by `--catalog`: an id (any case) or else a name. */
export function idOrName(word: string | undefined): CatalogRef | undefined {
  const w = word?.trim();
  if (!w) return undefined;
  return isUuid(w.toLowerCase()) ? { id: w.toLowerCase() } : { name: word };
}

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

export const VERSIONS_COMMAND = defineCommand<CatalogRefOptions>({
  cli: 'versions',
  prompt: 'versions',
  summary: 'List the versions of a catalog: which one search reads, which are complete, what each holds.',
  options: catalogRefOptions(
    'print exactly one JSON document: [{version, state, published, serving, saved, images, startedAt, endedAt, search}]',
  ),
  details:
    'States: serving (search reads it), published (complete, not served), incomplete (its last run ended\n' +
    'unpublished), running (being written now), empty (nothing stored yet).\n' +
    'Search: what search reads of it — words+meaning; words; meaning 312/526 (published for words when its fetch\n' +
    'ended, its vectors still being written: meaning answers from the 312 pages embedded so far; after a stop or a\n' +
    'crash, resume writes the rest); meaning (a rebuild: this version answers by meaning until the new one is complete).',
  examples: ['greenfinger versions --name docs', 'greenfinger versions --url https://docs.example.com/ --json'],
  run: async (ctx, _args, opts) => {
    const { io } = ctx;
    const ref = catalogRefOf(opts, io, 'versions');
    if (!ref) return EXIT.usage;
    const gf = await ctx.gf();
    const catalog = await (await gf.catalogs()).get(ref);
    const versions = await gf.versions.list({ id: catalog.id });
    if (opts.json) {
      const out = versions.map(({ version, state, published, serving, saved, images, startedAt, endedAt, search }) => ({
        version,
        state,
        published,
        serving,
        saved,
        images,
        startedAt,
        endedAt,
        search,
      }));
      io.out(`${JSON.stringify(out)}\n`);
    } else {
      io.out(formatVersions(catalog.name, catalog.id, versions));
    }
    return EXIT.ok;
  },
}) satisfies CommandSpec;

function formatVersions(name: string, id: string, versions: VersionInfo[]): string {
  if (versions.length === 0) return `catalog "${name}" (${id}) has no versions yet — crawl it first\n`;
  const rows = [['version', 'state', 'search', 'saved', 'images', 'action', 'started', 'ended']];
  const meaningFrom = versions.find((v) => v.search.meaning && !v.search.words)?.version;
  const wordsAt = versions.find((v) => v.search.words)?.version;
  for (const v of versions) {
    rows.push([
      String(v.version),
      v.state,
      searchOf(v, meaningFrom, wordsAt),
      String(v.saved),
      String(v.images),
      v.action ?? '-',
      v.startedAt ?? '-',
      v.endedAt ?? '-',
    ]);
  }
  return `catalog "${name}" (${id})\n${table(rows)}`;
}

/** `words+meaning`, `words; meaning 312/526`, `words; vectors 312/526 (meaning: v3)`, `meaning (until v4 is complete)`. */
function searchOf(v: VersionInfo, meaningFrom: number | undefined, wordsAt: number | undefined): string {
  const e = v.search.embedding;
  const counts = e ? `${e.embedded}/${e.pages}` : '';
  if (v.search.words && v.search.meaning) return e ? `words; meaning ${counts}` : 'words+meaning';
  if (v.search.words)
    return `words; vectors ${counts || 'incomplete'}${meaningFrom !== undefined ? ` (meaning: v${meaningFrom})` : ''}`;
  if (v.search.meaning) return `meaning${wordsAt !== undefined ? ` (until v${wordsAt} is complete)` : ''}`;
  return '-';
}
