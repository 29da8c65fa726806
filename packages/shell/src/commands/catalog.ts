import {
  type Catalog,
  type CatalogRef,
  CrawlerError,
  defaultCatalogSettings,
  type Greenfinger,
  isUuid,
} from '@greenfinger/core';
import type { Command } from 'commander';
import { EXIT, type Io, reportError } from '../io.js';
import { type SettingsOptions, settingsOf, settingsOptions } from './options.js';
import { type CatalogRefOptions, catalogRefOf, catalogRefOptions, openGreenfinger, table } from './versions.js';

interface DefinitionOptions extends CatalogRefOptions, SettingsOptions {
  startUrl?: string;
}

interface CatalogDeleteOptions extends CatalogRefOptions {
  purge?: boolean;
}

/** A catalog named by one word: an id, a url, or else a name. */
function refOfWord(word: string): CatalogRef {
  if (isUuid(word)) return { id: word };
  if (/^https?:\/\//i.test(word)) return { url: word };
  return { name: word };
}

async function withData(opts: CatalogRefOptions, io: Io, toFile: boolean, work: (gf: Greenfinger) => Promise<number>) {
  let gf: Greenfinger | undefined;
  try {
    gf = await openGreenfinger(opts, toFile);
    return await work(gf);
  } catch (err) {
    return reportError(io, err);
  } finally {
    await gf?.close();
  }
}

export function catalogCommand(program: Command, io: Io, setCode: (code: number) => void): void {
  const catalog = program
    .command('catalog')
    .description('Catalogs as objects: list, show, create, update and delete their definitions.')
    .addHelpText(
      'after',
      '\nA catalog is a site to crawl: its url (identity and boundary), start url, name and crawl settings.\n' +
        'crawl --url creates one on the fly; catalog create defines one without crawling.\n\n' +
        'Examples:\n  greenfinger catalog list\n' +
        '  greenfinger catalog create --url https://docs.example.com/ --name docs --max-pages 500 --outputs file+index\n' +
        '  greenfinger catalog show --name docs --json\n' +
        '  greenfinger catalog update docs --max-pages 1000 --exclude "/archive/**"\n' +
        '  greenfinger catalog delete --name docs --purge',
    );

  catalog
    .command('list')
    .description('List the catalogs: name, id, url, the version search reads and the one being written.')
    .option('--data <dir>', 'data root (default ./data or GF_DATA_STORE)')
    .option('--json', 'print exactly one JSON document: [catalog]')
    .option('--verbose', 'write the JSON log to stderr')
    .addHelpText('after', '\nExamples:\n  greenfinger catalog list\n  greenfinger catalogs --json')
    .action(async (opts: CatalogRefOptions) => setCode(await runList(opts, io)));

  catalogRefOptions(
    catalog.command('show').description('Show a catalog definition, with every setting (defaults applied).'),
    'print exactly one JSON document: the catalog',
  )
    .addHelpText(
      'after',
      '\nExamples:\n  greenfinger catalog show --name docs\n  greenfinger catalog show --id <id> --json',
    )
    .action(async (opts: CatalogRefOptions) => setCode(await runShow(opts, io)));

  settingsOptions(
    catalog
      .command('create')
      .description('Define a catalog without crawling it.')
      .requiredOption('--url <url>', 'the site: identity and boundary of the catalog')
      .option('--start-url <url>', 'where fetching begins; must sit under --url (default: --url)')
      .option('--name <name>', 'a unique name (default: the host)')
      .option('--data <dir>', 'data root (default ./data or GF_DATA_STORE)')
      .option('--json', 'print exactly one JSON document: the catalog')
      .option('--verbose', 'write the JSON log to stderr'),
  )
    .addHelpText(
      'after',
      '\nExamples:\n  greenfinger catalog create --url https://docs.example.com/ --start-url https://docs.example.com/3/ --name docs\n' +
        '  greenfinger catalog create --url http://127.0.0.1:8084/ --max-pages 100 --no-images --json',
    )
    .action(async (opts: DefinitionOptions) => setCode(await runCreate(opts, io)));

  settingsOptions(
    catalog
      .command('update')
      .description('Change a catalog: its url, start url, name or settings. Versions already written stay as they are.')
      .argument('<catalog>', 'the catalog to change: its id, name or url')
      .option('--url <url>', 'a new url (identity and boundary)')
      .option('--start-url <url>', 'a new start url (under the url)')
      .option('--name <name>', 'a new name')
      .option('--data <dir>', 'data root (default ./data or GF_DATA_STORE)')
      .option('--json', 'print exactly one JSON document: the catalog')
      .option('--verbose', 'write the JSON log to stderr'),
  )
    .addHelpText(
      'after',
      '\nExamples:\n  greenfinger catalog update docs --max-pages 1000 --interval 250\n' +
        '  greenfinger catalog update docs --name documentation --exclude "/archive/**"',
    )
    .action(async (word: string, opts: DefinitionOptions) => setCode(await runUpdate(word, opts, io)));

  catalogRefOptions(
    catalog
      .command('delete')
      .description('Delete a catalog definition; with --purge, all its versions and data too.')
      .option('--purge', 'also delete every version: vectors, index, files, rows, working state'),
    'print exactly one JSON document: {deleted, purge}',
  )
    .addHelpText(
      'after',
      '\nWithout --purge only a catalog holding no versions can be deleted (its data would be left behind).\n\n' +
        'Examples:\n  greenfinger catalog delete --name docs --purge\n  greenfinger catalog delete --id <id> --json',
    )
    .action(async (opts: CatalogDeleteOptions) => setCode(await runDelete(opts, io)));

  program
    .command('catalogs')
    .description('List the catalogs (the same as `catalog list`).')
    .option('--data <dir>', 'data root (default ./data or GF_DATA_STORE)')
    .option('--json', 'print exactly one JSON document: [catalog]')
    .option('--verbose', 'write the JSON log to stderr')
    .addHelpText('after', '\nExamples:\n  greenfinger catalogs\n  greenfinger catalogs --json')
    .action(async (opts: CatalogRefOptions) => setCode(await runList(opts, io)));
}

function runList(opts: CatalogRefOptions, io: Io): Promise<number> {
  return withData(opts, io, false, async (gf) => {
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
  });
}

function runShow(opts: CatalogRefOptions, io: Io): Promise<number> {
  const ref = catalogRefOf(opts, io, 'catalog show');
  if (!ref) return Promise.resolve(EXIT.usage);
  return withData(opts, io, false, async (gf) => {
    const c = withDefaults(await (await gf.catalogs()).get(ref));
    io.out(opts.json ? `${JSON.stringify(c)}\n` : formatCatalog(c));
    return EXIT.ok;
  });
}

function runCreate(opts: DefinitionOptions, io: Io): Promise<number> {
  return withData(opts, io, false, async (gf) => {
    const c = await (await gf.catalogs()).create({
      url: opts.url as string,
      startUrl: opts.startUrl,
      name: opts.name,
      settings: settingsOf(opts),
    });
    io.out(opts.json ? `${JSON.stringify(c)}\n` : `created ${formatCatalog(c)}`);
    return EXIT.ok;
  });
}

function runUpdate(word: string, opts: DefinitionOptions, io: Io): Promise<number> {
  return withData(opts, io, false, async (gf) => {
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
  });
}

function runDelete(opts: CatalogDeleteOptions, io: Io): Promise<number> {
  const ref = catalogRefOf(opts, io, 'catalog delete');
  if (!ref) return Promise.resolve(EXIT.usage);
  return withData(opts, io, true, async (gf) => {
    const { deleted: c, purge } = await gf.deleteCatalog(ref, { purge: opts.purge === true });
    if (opts.json) io.out(`${JSON.stringify({ deleted: c, purge })}\n`);
    else
      io.out(
        `deleted catalog "${c.name}" (${c.id})${purge ? ` and versions ${purge.versions.join(', ') || '(none)'} with all their data` : ''}\n`,
      );
    return EXIT.ok;
  });
}

/** Every setting, defaults applied: a catalog stored before a setting existed shows what a crawl would use. */
function withDefaults(c: Catalog): Catalog {
  return { ...c, settings: { ...defaultCatalogSettings, ...c.settings } };
}

function formatCatalog(c: Catalog): string {
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
    `  threads ${s.threads} · host concurrency ${s.hostConcurrency} · retries ${s.maxRetries} · max versions ${s.maxVersions}`,
    `  outputs ${s.outputs.join('+')} · images ${s.images ? 'yes' : 'no'} · robots.txt ${s.robots ? 'obeyed' : 'ignored'} · sitemap ${s.sitemap ? 'read' : 'not read'}`,
    `  include ${s.include.length ? s.include.join(', ') : '-'} · exclude ${s.exclude.length ? s.exclude.join(', ') : '-'}`,
    `  acceptors ${s.acceptors.length ? s.acceptors.join(', ') : 'all'} · fetcher ${s.fetcher} · content extractor ${s.contentExtractor} · content dedup ${s.contentDedup || 'node setting (GF_CONTENT_DEDUP)'}`,
  ];
  return `${lines.join('\n')}\n`;
}
