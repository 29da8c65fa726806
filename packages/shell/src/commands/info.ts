import { CATALOG_CATS, defaultCatalogSettings, type RunReport } from '@greenfinger/core';
import { intArg } from '../args.js';
import { type CommandContext, type CommandSpec, defineCommand } from '../command-spec.js';
import { formatSummary } from '../format.js';
import { EXIT } from '../io.js';
import { jsonOption, SETTINGS_OPTIONS } from './options.js';
import { type CatalogRefOptions, catalogRefOf, catalogRefOptions, table } from './versions.js';

const n = (v: number): string => v.toLocaleString('en-US');

/** The prompt's read-only views: categories, run reports, options, the index and the vectors. */
export const INFO_COMMANDS: CommandSpec[] = [
  defineCommand<{ json?: boolean }>({
    prompt: 'catalog-cats',
    summary: 'The categories a catalog can be filed under (--cat), with how many catalogs each holds.',
    options: [jsonOption('print exactly one JSON document: [{cat, catalogs}]')],
    examples: ['catalog-cats', 'catalog-cats --json'],
    promptExamples: ['catalog-cats', 'catalog-cats --json'],
    run: async (ctx, _args, opts) => {
      const all = await (await (await ctx.gf()).catalogs()).list();
      const cats = CATALOG_CATS.map((cat) => ({
        cat,
        catalogs: all.filter((c) => (c.settings.cat ?? 'other') === cat).length,
      }));
      ctx.io.out(
        opts.json
          ? `${JSON.stringify(cats)}\n`
          : table([['cat', 'catalogs'], ...cats.map((c) => [c.cat, String(c.catalogs)])]),
      );
      return EXIT.ok;
    },
  }),
  defineCommand<CatalogRefOptions & { version?: number }>({
    prompt: 'crawler-report',
    summary: "A version's last run report: what it saved, where every url went, how it ended.",
    options: [
      ...catalogRefOptions('print exactly one JSON document: the run report'),
      {
        flags: '--version <n>',
        description: 'the version (default: the newest with a report)',
        parse: intArg('--version', 0),
      },
    ],
    examples: ['crawler-report --name docs', 'crawler-report --name docs --version 2 --json'],
    promptExamples: ['crawler-report --name docs', 'crawler-report --name docs --version 2 --json'],
    run: async (ctx, _args, opts) => {
      const ref = catalogRefOf(opts, ctx.io, 'crawler-report');
      if (!ref) return EXIT.usage;
      const gf = await ctx.gf();
      const catalog = await (await gf.catalogs()).get(ref);
      const reports = await (await gf.database()).resources.listReports(catalog.id);
      const pick =
        opts.version === undefined
          ? reports.sort((a, b) => b.version - a.version)[0]
          : reports.find((r) => r.version === opts.version);
      if (!pick) {
        ctx.io.err(
          `greenfinger: catalog "${catalog.name}" has no run report${opts.version === undefined ? '' : ` for version ${opts.version}`} — versions --name "${catalog.name}" lists what it holds\n`,
        );
        return EXIT.usage;
      }
      const report: RunReport = pick.report;
      ctx.io.out(opts.json ? `${JSON.stringify(report, null, 2)}\n` : formatSummary(report));
      return EXIT.ok;
    },
  }),
  defineCommand<{ json?: boolean }>({
    prompt: 'options',
    summary: 'The crawl settings a catalog stores, as options of the crawl verbs and catalog-save, with defaults.',
    options: [jsonOption('print exactly one JSON document: the default catalog settings')],
    examples: ['options', 'options --json'],
    promptExamples: ['options', 'options --json'],
    run: async (ctx, _args, opts) => {
      if (opts.json) {
        ctx.io.out(`${JSON.stringify(defaultCatalogSettings)}\n`);
        return EXIT.ok;
      }
      const width = Math.max(...SETTINGS_OPTIONS.map((o) => o.flags.length));
      ctx.io.out(
        `${SETTINGS_OPTIONS.map((o) => `  ${o.flags.padEnd(width)}  ${o.description}`).join('\n')}\n` +
          `defaults: ${JSON.stringify(defaultCatalogSettings)}\n`,
      );
      return EXIT.ok;
    },
  }),
  defineCommand<{ json?: boolean }>({
    prompt: 'index-info',
    summary: 'The full-text index: documents per catalog and version, and its size on disk.',
    options: [jsonOption('print exactly one JSON document: the index statistics')],
    examples: ['index-info', 'index-info --json'],
    promptExamples: ['index-info', 'index-info --json'],
    run: async (ctx, _args, opts) => {
      const stats = await (await ctx.gf()).index().stats();
      return statsView(ctx, opts, stats, 'documents', (names) => [
        ['catalog', 'version', 'documents'],
        ...stats.catalogs.flatMap((c) =>
          c.versions.map((v) => [names.get(c.catalogId) ?? c.catalogId, `v${v.version}`, n(v.documents)]),
        ),
      ]);
    },
  }),
  defineCommand<{ json?: boolean }>({
    prompt: 'vector-info',
    summary: 'The text vectors: points per collection (embedding width), catalog and version, and their size.',
    options: [jsonOption('print exactly one JSON document: the vector statistics')],
    examples: ['vector-info', 'vector-info --json'],
    promptExamples: ['vector-info', 'vector-info --json'],
    run: async (ctx, _args, opts) => {
      const stats = await (await ctx.gf()).vectorFamily().stats();
      return statsView(ctx, opts, stats, 'vectors', (names) => [
        ['collection', 'dims', 'catalog', 'version', 'points'],
        ...stats.collections.flatMap((c) =>
          c.versions.map((v) => [
            c.collection,
            String(c.dims),
            names.get(v.catalogId) ?? v.catalogId,
            `v${v.version}`,
            n(v.points),
          ]),
        ),
      ]);
    },
  }),
];

/** A store's statistics: its JSON, or its name, size and a table of rows (catalog names for ids). */
async function statsView(
  ctx: CommandContext,
  opts: { json?: boolean },
  stats: { name: string; bytes?: number | undefined },
  what: string,
  rows: (names: Map<string, string>) => string[][],
): Promise<number> {
  if (opts.json) {
    ctx.io.out(`${JSON.stringify(stats)}\n`);
    return EXIT.ok;
  }
  const list = await (await (await ctx.gf()).catalogs()).list();
  const table_ = rows(new Map(list.map((c) => [c.id, c.name])));
  ctx.io.out(
    `${stats.name}${stats.bytes !== undefined ? `, ${n(stats.bytes)} bytes` : ''}\n${table_.length > 1 ? table(table_) : `no ${what}\n`}`,
  );
  return EXIT.ok;
}
