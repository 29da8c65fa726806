import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CrawlerError, envDataStore } from '@greenfinger/core/internal';
import { InvalidArgumentError } from 'commander';
import { type CommandSpec, defineCommand } from '../command-spec.js';
import { EXIT } from '../io.js';
import { dataOption, jsonOption, verboseOption } from './options.js';
import { idOrName } from './versions.js';

interface PageOptions {
  catalog?: string;
  version?: number;
  markdown?: boolean;
  json?: boolean;
  data?: string;
}

function parseVersion(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) {
    throw new InvalidArgumentError('a version is a whole number from 0');
  }
  return n;
}

/** `page <url|id>`: a saved page as it was kept — its article text, or with --markdown its Markdown. */
export const PAGE_COMMAND = defineCommand<PageOptions>({
  cli: 'page',
  summary: 'Print a saved page: its article text, or with --markdown its Markdown with front matter.',
  args: [{ name: '<url|id>', description: "the page's url, or its resource id" }],
  options: [
    {
      flags: '--catalog <id|name>',
      description: 'the catalog (default: the one whose current version holds the url)',
    },
    { flags: '--version <n>', description: 'the catalog version (default: the current one)', parse: parseVersion },
    { flags: '--markdown', description: 'print the Markdown (front matter: title, url, catalog, version, fetched)' },
    dataOption('data root holding system/ and user/ (default ./data or GF_DATA_STORE)'),
    jsonOption(
      'print exactly one JSON document: {id, url, title, catalog: {id, name}, version, fetchedAt, source, markdown}',
    ),
    verboseOption(),
  ],
  details:
    "The Markdown is the page's .md file when `replay --layers file` wrote it, else made now from the stored\n" +
    "html (source: html); a document's Markdown is its text (source: text).",
  examples: [
    'greenfinger page http://127.0.0.1:8084/library/json.html --markdown',
    'greenfinger page http://127.0.0.1:8084/library/json.html --catalog python --version 2 --json',
  ],
  run: async (ctx, args, opts) => {
    mustExist(resolve(opts.data ?? envDataStore()));
    const gf = await ctx.gf();
    const word = (args[0] ?? '').trim();
    const byUrl = /^(https?|file):/i.test(word);
    const ref = {
      ...(byUrl ? { url: word } : { id: word }),
      catalog: idOrName(opts.catalog),
      version: opts.version,
    };
    if (opts.json || opts.markdown) {
      const page = await gf.pages.markdown(ref);
      ctx.io.out(opts.json ? `${JSON.stringify(page)}\n` : page.markdown);
      return EXIT.ok;
    }
    const row = await gf.pages.resource(ref);
    const text = (await gf.blobs.getText(row.textPath)) ?? '';
    ctx.io.out(`${row.title}\n${row.url}\n\n${text.trimEnd()}\n`);
    return EXIT.ok;
  },
}) satisfies CommandSpec;

function mustExist(root: string): void {
  if (existsSync(root)) return;
  throw new CrawlerError('NOT_FOUND', `the data root ${root} does not exist: nothing was crawled there`, {
    fix: `give --data the folder a crawl wrote (or GF_DATA_STORE), or crawl into it first: greenfinger crawl --url <site> --data ${root}`,
  });
}
