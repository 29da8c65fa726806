import { Greenfinger } from '@greenfinger/core';
import { type Command, Option } from 'commander';
import { formatResults } from '../format.js';
import { commandLogger, EXIT, type Io, reportError } from '../io.js';
import { intArg, listArg } from '../program.js';

interface SearchOptions {
  mode: 'words' | 'meaning';
  catalog?: string[];
  size?: number;
  cursor?: string;
  data?: string;
  json?: boolean;
  verbose?: boolean;
}

export function searchCommand(program: Command, io: Io, setCode: (code: number) => void): void {
  program
    .command('search')
    .description(
      'Search published catalogs by words (full text) or by meaning (text vectors). Never reads the database.',
    )
    .argument('<query>', 'what to look for')
    .addOption(new Option('--mode <mode>', 'words or meaning').choices(['words', 'meaning']).default('words'))
    .option('--catalog <idOrName>', 'only these catalogs (repeatable, comma list; default all published)', listArg)
    .option('--size <n>', 'results per page (1-1000, default 10)', intArg('--size', 1))
    .option('--cursor <cursor>', 'the nextCursor of the previous page')
    .option('--data <dir>', 'data root (default ./data or GF_DATA_STORE)')
    .option('--json', 'print exactly one JSON document: {results, total, nextCursor}')
    .option('--verbose', 'write the JSON log to stderr')
    .addHelpText(
      'after',
      '\nExamples:\n  greenfinger search "json dumps"\n  greenfinger search "how do I read a file line by line" --mode meaning --size 5 --json',
    )
    .action(async (query: string, opts: SearchOptions) => {
      setCode(await runSearch(query, opts, io));
    });
}

async function runSearch(query: string, opts: SearchOptions, io: Io): Promise<number> {
  let gf: Greenfinger | undefined;
  try {
    gf = await Greenfinger.open({
      settings: { dataStore: opts.data },
      log: commandLogger(opts.data, { verbose: opts.verbose, toFile: false }),
    });
    const r = await gf.search.search({
      q: query,
      mode: opts.mode,
      catalogs: opts.catalog,
      size: opts.size ?? 10,
      cursor: opts.cursor,
    });
    if (opts.json) {
      const results = r.results.map((h) => ({
        id: h.id,
        title: h.title,
        url: h.url,
        catalog: h.catalog,
        version: h.version,
        score: h.score,
        highlights: h.highlights,
      }));
      io.out(`${JSON.stringify({ results, total: r.total, nextCursor: r.nextCursor })}\n`);
    } else {
      io.out(formatResults(r));
    }
    return EXIT.ok;
  } catch (err) {
    return reportError(io, err);
  } finally {
    await gf?.close();
  }
}
