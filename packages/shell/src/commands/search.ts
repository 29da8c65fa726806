import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  CATALOG_CATS,
  CrawlerError,
  envDataStore,
  type PictureSearchHit,
  SEARCH_MODES,
  type SearchHit,
  type SearchMode,
  WORDS_MATCHES,
  type WordsMatch,
} from '@greenfinger/core';
import { intArg, listArg } from '../args.js';
import { type CommandSpec, defineCommand } from '../command-spec.js';
import { formatResults } from '../format.js';
import { EXIT } from '../io.js';
import { type InlineImageProtocol, inlineImageProtocol, pictureLine } from '../thumbnails.js';
import { dataOption, jsonOption, verboseOption } from './options.js';

interface SearchOptions {
  mode?: SearchMode;
  preferDetailPages?: boolean;
  catalog?: string[];
  size?: number;
  cursor?: string;
  cat?: string;
  version?: number;
  like?: string;
  match?: WordsMatch;
  json?: boolean;
  data?: string;
}

export const SEARCH_COMMAND = defineCommand<SearchOptions>({
  cli: 'search',
  prompt: 'search',
  summary:
    'Search published catalogs by words (full text), meaning (text vectors), both (hybrid), or pictures (one result per kept picture). Never reads the database.',
  args: [{ name: '[query]', description: 'what to look for ("" lists what was kept; none with --like)' }],
  promptArgs: [{ name: '[query...]', description: 'what to look for (no quotes needed); blank lists what was kept' }],
  options: [
    {
      flags: '--mode <mode>',
      description:
        'hybrid, words, meaning or pictures (default: hybrid when the catalogs have text vectors, else words)',
      choices: SEARCH_MODES,
    },
    {
      flags: '--match <match>',
      description:
        'words: auto (default: a sentence, 4+ words without quotes one of which is on half the pages or more, is a question, ranked by any of its words and pairs of them, the best page with all of them in the first three; else all words), all (every word, else any) or any',
      choices: WORDS_MATCHES,
    },
    {
      flags: '--no-prefer-detail-pages',
      description: 'rank by match alone (default: articles above listings, by link density)',
    },
    {
      flags: '--catalog <idOrName>',
      description: 'only these catalogs (repeatable, comma list; default all published)',
      parse: listArg,
    },
    { flags: '--size <n>', description: 'results per page (1-1000, default 10)', parse: intArg('--size', 1) },
    {
      flags: '--cursor <cursor>',
      description:
        'the nextCursor of the previous page (words and a blank query: to any depth; meaning, hybrid, pictures: an offset up to 1000)',
    },
    {
      flags: '--cat <category>',
      description: `only catalogs of this category (the catalog's settings.cat: ${CATALOG_CATS.join(', ')})`,
    },
    {
      flags: '--version <n>',
      description:
        'search this kept version of one catalog (with --catalog) instead of the published one; every mode answers from it alone',
      parse: intArg('--version', 0),
    },
    {
      flags: '--like <pictureId>',
      description:
        'pictures like this one (the id or imageId of a pictures result, from --mode pictures --json): a pictures search without a query',
    },
    dataOption(),
    jsonOption(
      'print exactly one JSON document: {mode, results, total, nextCursor}, words adds match (all, any or question), pictures rankings; pictures results add pictureUrl, file, width, height, caption, pages; --like adds likeBy, likeOf',
    ),
    verboseOption(),
  ],
  examples: [
    'greenfinger search "json dumps"',
    'greenfinger search "make a deep copy of an object including nested ones" --mode words   # a question',
    'greenfinger search "copy nested object" --mode words --match any',
    'greenfinger search "make a deep copy of an object including nested ones" --mode hybrid',
    'greenfinger search "how do I read a file line by line" --mode meaning --size 5 --json',
    'greenfinger search "ferry timetable" --no-prefer-detail-pages',
    'greenfinger search "the dialog for exporting webp images" --mode pictures --json',
    'greenfinger search --mode pictures --like 6f1c…   # pictures like a pictures result (its id from --json)',
    'greenfinger search "opening hours" --catalog harbour --version 3',
    'greenfinger search "election results" --cat news',
    'greenfinger search "" --size 20    # a blank query lists what was kept, newest fetch first',
  ],
  promptExamples: [
    'search json dumps',
    'search how do I read a file line by line --mode meaning --size 5',
    'search the dialog for exporting webp images --mode pictures',
    'search --mode pictures --like 6f1c…   # pictures like a pictures result (its id from --json)',
    'search opening hours --catalog harbour --version 3',
    'search            # a blank query lists what was kept: newest fetch first, each with its opening text',
  ],
  run: async (ctx, args, opts) => {
    if (ctx.mode === 'cli' && args.length === 0 && opts.like === undefined) {
      throw new CrawlerError('BAD_INPUT', 'search needs a query, or --like with a picture id', {
        fix: 'greenfinger search "<words>" ("" lists what was kept), or greenfinger search --mode pictures --like <id>',
      });
    }
    if (ctx.mode === 'cli') mustExist(resolve(opts.data ?? envDataStore()));
    const gf = await ctx.gf();
    const r = await gf.search.search({
      q: args.join(' '),
      mode: opts.mode ?? 'auto',
      catalogs: opts.catalog,
      size: opts.size ?? 10,
      cursor: opts.cursor,
      preferDetailPages: opts.preferDetailPages,
      cat: opts.cat,
      version: opts.version,
      like: opts.like,
      match: opts.match,
    });
    // Pictures like one name it first: what they are like, and by what.
    const like = r.likeOf ? `like ${r.likeOf.title} — ${r.likeOf.url} (by ${r.likeBy})\n` : '';
    if (opts.json) {
      const shown = (h: SearchHit) => {
        const { catalogId: _c, textPath: _t, ...rest } = h;
        return rest;
      };
      const results = r.results.map(shown);
      ctx.io.out(
        `${JSON.stringify({ mode: r.mode, ...(r.match ? { match: r.match } : {}), results, total: r.total, nextCursor: r.nextCursor, ...(r.rankings ? { rankings: r.rankings } : {}), ...(r.note ? { note: r.note } : {}), ...(r.likeOf ? { likeBy: r.likeBy, likeOf: shown(r.likeOf) } : {}) })}\n`,
      );
    } else if (ctx.mode === 'prompt') {
      // The prompt's list shows each result's picture: a thumbnail where the terminal draws one, else its url.
      const protocol = ctx.session?.interactive ? inlineImageProtocol(process.env) : null;
      ctx.io.out(like + formatResults(r, (h) => resultPicture(h, protocol, gf.layout.user)));
    } else {
      ctx.io.out(like + formatResults(r));
    }
    return EXIT.ok;
  },
}) satisfies CommandSpec;

/** A pictures result's own picture, else a page's first one (how many more it shows), as one line. */
function resultPicture(h: SearchHit, protocol: InlineImageProtocol | null, user: string): string | undefined {
  const own = h as Partial<PictureSearchHit>;
  if (typeof own.pictureUrl === 'string' && typeof own.file === 'string') {
    // The url line already names the picture: only a thumbnail adds anything.
    const line = pictureLine({ path: own.file, url: own.pictureUrl }, 0, protocol, user);
    return line.startsWith('     picture: ') ? undefined : line;
  }
  const first = h.pictures?.[0];
  return first ? pictureLine(first, (h.pictures?.length ?? 1) - 1, protocol, user) : undefined;
}

/**
 * Search reads a data root and never creates one: a missing one (a typo, or a path that cannot exist such as one
 * under /proc) is said in one line, naming it, instead of "nothing has been published".
 */
function mustExist(root: string): void {
  if (existsSync(root)) return;
  throw new CrawlerError('NOT_FOUND', `the data root ${root} does not exist: nothing was crawled there`, {
    fix: `give --data the folder a crawl wrote (or GF_DATA_STORE), or crawl into it first: greenfinger crawl --url <site> --data ${root}`,
  });
}
