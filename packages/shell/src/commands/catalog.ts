import {
  type Catalog,
  type CatalogRef,
  defaultCatalogSettings,
  describeChangeFeeds,
  type Greenfinger,
  isUuid,
} from '@greenfinger/core/internal';
import {
  type CommandContext,
  type CommandSpec,
  defineCommand,
  type GroupSpec,
  type OptionSpec,
} from '../command-spec.js';
import { EXIT } from '../io.js';
import { clusterOption } from './cluster.js';
import {
  dataOption,
  jsonOption,
  SETTINGS_OPTIONS,
  type SettingsOptions,
  settingsOf,
  verboseOption,
} from './options.js';
import { storesBlock } from './stores-block.js';
import { type CatalogRefOptions, catalogRefOf, catalogRefOptions, table } from './versions.js';

interface DefinitionOptions extends CatalogRefOptions, SettingsOptions {
  startUrl?: string;
}

interface CatalogDeleteOptions extends CatalogRefOptions {
  purge?: boolean;
}

/** A catalog named by one word: an id, a url, or else a name. */
function refOfWord(word: string): CatalogRef {
  if (isUuid(word)) return { id: word };
  if (/^(?:https?:\/\/|file:)/i.test(word)) return { url: word };
  return { name: word };
}

/** `--cluster NAME` on a writing verb: the write goes to that cluster's leader. */
export const writeToLeader = () =>
  clusterOption(
    'write through the leader of this cluster (GF_REDIS_URL names the Redis); reads stay on this data root',
  );

const LIST_OPTIONS = [dataOption(), jsonOption('print exactly one JSON document: [catalog]'), verboseOption()];

/** The definition options of `catalog create` and `catalog update`, after their own. */
function definitionOptions(own: OptionSpec[]): OptionSpec[] {
  return [
    ...own,
    writeToLeader(),
    dataOption(),
    jsonOption('print exactly one JSON document: the catalog'),
    verboseOption(),
    ...SETTINGS_OPTIONS,
  ];
}

/** `catalog …` on the one-line CLI. */
export const CATALOG_GROUP: GroupSpec = {
  name: 'catalog',
  summary: 'Catalogs as objects: list, show, create, update and delete their definitions.',
  details:
    'A catalog is a site to crawl: its url (identity and boundary), start url, name and crawl settings.\n' +
    'crawl --url creates one on the fly; catalog create defines one without crawling.',
  examples: [
    'greenfinger catalog list',
    'greenfinger catalog create --url https://docs.example.com/ --name docs --max-pages 500 --outputs file+index',
    'greenfinger catalog show --name docs --json',
    'greenfinger catalog update docs --max-pages 1000 --exclude "/archive/**"',
    'greenfinger catalog delete --name docs --purge',
  ],
};

export const CATALOG_COMMANDS: CommandSpec[] = [
  defineCommand<CatalogRefOptions>({
    cli: 'catalog list',
    prompt: 'catalog-list',
    summary: 'List the catalogs: name, id, url, the version search reads and the one being written.',
    options: LIST_OPTIONS,
    examples: ['greenfinger catalog list', 'greenfinger catalogs --json'],
    promptExamples: ['catalog-list', 'catalog-list --json'],
    run: (ctx, _args, opts) => runList(ctx, opts),
  }),
  defineCommand<CatalogRefOptions>({
    cli: 'catalog show',
    prompt: 'catalog-show',
    summary: 'Show a catalog definition, with every setting (defaults applied).',
    options: catalogRefOptions('print exactly one JSON document: the catalog'),
    examples: ['greenfinger catalog show --name docs', 'greenfinger catalog show --id <id> --json'],
    promptExamples: [
      'catalog-show --name docs',
      'catalog-show              # the catalog crawled in the background now',
      'catalog-show --id <id> --json',
    ],
    run: (ctx, _args, opts) => runShow(ctx, opts),
  }),
  defineCommand<DefinitionOptions>({
    cli: 'catalog create',
    prompt: 'catalog-create',
    summary: 'Define a catalog without crawling it.',
    options: definitionOptions([
      { flags: '--url <url>', description: 'the site: identity and boundary of the catalog', required: true },
      { flags: '--start-url <url>', description: 'where fetching begins; must sit under --url (default: --url)' },
      { flags: '--name <name>', description: 'a unique name (default: the host)' },
    ]),
    examples: [
      'greenfinger catalog create --url https://docs.example.com/ --start-url https://docs.example.com/3/ --name docs',
      'greenfinger catalog create --url http://127.0.0.1:8084/ --max-pages 100 --no-images --json',
    ],
    run: (ctx, _args, opts) => runCreate(ctx, opts),
  }),
  defineCommand<DefinitionOptions>({
    cli: 'catalog update',
    prompt: 'catalog-update',
    summary: 'Change a catalog: its url, start url, name or settings. Versions already written stay as they are.',
    args: [{ name: '<catalog>', description: 'the catalog to change: its id, name or url' }],
    options: definitionOptions([
      { flags: '--url <url>', description: 'a new url (identity and boundary)' },
      { flags: '--start-url <url>', description: 'a new start url (under the url)' },
      { flags: '--name <name>', description: 'a new name' },
    ]),
    examples: [
      'greenfinger catalog update docs --max-pages 1000 --interval 250',
      'greenfinger catalog update docs --name documentation --exclude "/archive/**"',
    ],
    run: (ctx, args, opts) => runUpdate(ctx, args[0] ?? '', opts),
  }),
  defineCommand<CatalogDeleteOptions>({
    cli: 'catalog delete',
    prompt: 'catalog-delete',
    summary: 'Delete a catalog definition; with --purge, all its versions and data too.',
    options: [
      { flags: '--purge', description: 'also delete every version: vectors, index, files, rows, working state' },
      writeToLeader(),
      ...catalogRefOptions('print exactly one JSON document: {deleted, purge}'),
    ],
    details: 'Without --purge only a catalog holding no versions can be deleted (its data would be left behind).',
    examples: ['greenfinger catalog delete --name docs --purge', 'greenfinger catalog delete --id <id> --json'],
    run: (ctx, _args, opts) => runDelete(ctx, opts),
  }),
  defineCommand<CatalogRefOptions>({
    cli: 'catalogs',
    summary: 'List the catalogs (the same as `catalog list`).',
    options: LIST_OPTIONS,
    examples: ['greenfinger catalogs', 'greenfinger catalogs --json'],
    run: (ctx, _args, opts) => runList(ctx, opts),
  }),
];

async function runList(ctx: CommandContext, opts: CatalogRefOptions): Promise<number> {
  const { io } = ctx;
  const gf = await ctx.gf();
  const list = await (await gf.catalogs()).list();
  if (opts.json) {
    io.out(`${JSON.stringify(list)}\n`);
    return EXIT.ok;
  }
  if (list.length === 0) {
    io.out('no catalogs yet — greenfinger crawl --url <site> creates one\n');
    return EXIT.ok;
  }
  const rows = [['name', 'id', 'url', 'serving', 'writing', 'state']];
  for (const c of list) {
    rows.push([
      c.name,
      c.id,
      c.url,
      c.searchVersion >= 0 ? `v${c.searchVersion}` : '-',
      `v${c.indexVersion}`,
      c.runningState === 'none' ? 'idle' : c.runningState,
    ]);
  }
  io.out(table(rows));
  return EXIT.ok;
}

async function runShow(ctx: CommandContext, opts: CatalogRefOptions): Promise<number> {
  const { io } = ctx;
  // In the prompt, no catalog named shows the one crawled in the background (when exactly one is).
  const running = ctx.session && !opts.id && !opts.name && !opts.url ? await runningCatalog(ctx) : undefined;
  const ref = running ? { id: running } : catalogRefOf(opts, io, 'catalog show');
  if (!ref) return EXIT.usage;
  const gf = await ctx.gf();
  const c = withDefaults(await (await gf.catalogs()).get(ref));
  io.out(
    opts.json ? `${JSON.stringify(c)}\n` : `${formatCatalog(c)}${await picturesBlock(gf, c)}${await storesBlock(gf)}`,
  );
  return EXIT.ok;
}

/**
 * The picture vectors of the version search reads (else the one being written), from the index that keeps them: the
 * caption-meaning vectors and the image vectors (contentMode text+image) — what pictures search can rank by.
 */
async function picturesBlock(gf: Greenfinger, c: Catalog): Promise<string> {
  const index = gf.factory.index();
  const version = c.searchVersion >= 0 ? c.searchVersion : c.indexVersion;
  const scopes = [{ catalogId: c.id, version }];
  const [caption, image] = await Promise.all([
    index.pictureVectorCount?.(scopes) ?? 0,
    index.pictureImageVectorCount?.(scopes) ?? 0,
  ]);
  return `pictures\n  version ${version}: ${caption} caption vectors · ${image} image vectors (content mode ${c.settings.contentMode})\n`;
}

/** The id of the one catalog a job of this prompt crawls now. */
async function runningCatalog(ctx: CommandContext): Promise<string | undefined> {
  const live = (await ctx.gf()).jobs.list().filter((j) => j.state === 'running' || j.state === 'queued');
  return live.length === 1 ? live[0]?.catalogId : undefined;
}

async function runCreate(ctx: CommandContext, opts: DefinitionOptions): Promise<number> {
  const { io } = ctx;
  const gf = await ctx.gf();
  const c = await (await gf.catalogs()).create({
    url: opts.url as string,
    startUrl: opts.startUrl,
    name: opts.name,
    settings: settingsOf(opts),
  });
  io.out(opts.json ? `${JSON.stringify(c)}\n` : `created ${formatCatalog(c)}`);
  return EXIT.ok;
}

async function runUpdate(ctx: CommandContext, word: string, opts: DefinitionOptions): Promise<number> {
  const { io } = ctx;
  const gf = await ctx.gf();
  const catalogs = await gf.catalogs();
  const existing = await catalogs.get(refOfWord(word));
  const c = await catalogs.update(existing.id, {
    url: opts.url,
    startUrl: opts.startUrl,
    name: opts.name,
    settings: settingsOf(opts),
  });
  const entry = (await gf.published.list()).find((p) => p.catalogId === c.id);
  if (entry && (entry.name !== c.name || entry.url !== c.url)) {
    await gf.published.publish({ ...entry, name: c.name, url: c.url, updatedAt: undefined });
  }
  io.out(opts.json ? `${JSON.stringify(c)}\n` : `updated ${formatCatalog(c)}`);
  return EXIT.ok;
}

async function runDelete(ctx: CommandContext, opts: CatalogDeleteOptions): Promise<number> {
  const { io } = ctx;
  const ref = catalogRefOf(opts, io, 'catalog delete');
  if (!ref) return EXIT.usage;
  const gf = await ctx.gf(true);
  const { deleted: c, purge } = await gf.deleteCatalog(ref, { purge: opts.purge === true });
  if (opts.json) io.out(`${JSON.stringify({ deleted: c, purge })}\n`);
  else
    io.out(
      `deleted catalog "${c.name}" (${c.id})${purge ? ` and versions ${purge.versions.join(', ') || '(none)'} with all their data` : ''}\n`,
    );
  return EXIT.ok;
}

/** Every setting, defaults applied: a catalog stored before a setting existed shows what a crawl would use. */
export function withDefaults(c: Catalog): Catalog {
  return { ...c, settings: { ...defaultCatalogSettings, ...c.settings } };
}

export function formatCatalog(c: Catalog): string {
  const s = c.settings;
  const lines = [
    `catalog "${c.name}" (${c.id})`,
    `  url           ${c.url}`,
    `  start url     ${c.startUrl}`,
    `  serving       ${c.searchVersion >= 0 ? `version ${c.searchVersion}` : 'nothing published yet'}`,
    `  writing       version ${c.indexVersion}${c.runningState === 'none' ? '' : ` (${c.runningState} running)`}`,
    `  created       ${c.createdAt}   updated ${c.updatedAt}`,
    'settings',
    `  depth ${s.depth} · max pages ${s.maxPages} · duration ${s.durationMinutes} min · interval ${s.intervalMs} ms`,
    `  threads ${s.threads} · host concurrency ${s.hostConcurrency} · burst ${s.burst} · retries ${s.maxRetries} · max versions ${s.maxVersions}`,
    `  outputs ${s.outputs.join('+')} · content mode ${s.contentMode} · images ${s.images ? 'yes' : 'no'} · robots.txt ${s.robots ? 'obeyed' : 'ignored'} · sitemap ${s.sitemap ? 'read' : 'not read'}`,
    `  include ${s.include.length ? s.include.join(', ') : '-'} · exclude ${s.exclude.length ? s.exclude.join(', ') : '-'}`,
    `  schedule ${s.schedule ? `${s.schedule} (watch or serve runs it)` : 'none'} · recrawl interval ${Number.parseInt(s.recrawlMax, 10) === 0 ? 'off (every merge revisits every page)' : `${s.recrawlMin} to ${s.recrawlMax}, adaptive`}`,
    `  change feeds ${describeChangeFeeds(c)}`,
    `  webhooks ${s.webhooks.length ? s.webhooks.join(', ') : 'none'}${s.webhooks.length ? ' (greenfinger alert list: the last delivery to each)' : ''}`,
    `  priority weights ${Object.entries(s.priorityWeights)
      .map(([part, w]) => `${part}=${w}`)
      .join(',')}`,
    `  acceptors ${s.acceptors.length ? s.acceptors.join(', ') : 'all'} · fetcher ${s.fetcher} · extractor ${s.extractor} · content extractor ${s.contentExtractor} · content dedup ${s.contentDedup || 'node setting (GF_CONTENT_DEDUP)'}`,
  ];
  return `${lines.join('\n')}\n`;
}
