import type { ReplayLayer, ReplayReport } from '@greenfinger/core';
import { intArg } from '../args.js';
import { type CommandContext, type CommandSpec, defineCommand } from '../command-spec.js';
import { EXIT } from '../io.js';
import { type CatalogRefOptions, catalogRefOf, catalogRefOptions, parseLayers } from './versions.js';

interface ReplayOptions extends CatalogRefOptions {
  version?: number;
  layers?: string;
}

const REPLAY_LAYERS: readonly ReplayLayer[] = ['file', 'index', 'vector'];

export const REPLAY_COMMAND = defineCommand<ReplayOptions>({
  cli: 'replay',
  prompt: 'replay',
  summary:
    'Rebuild output layers of a stored version: file refetches only missing pages and pictures; index and ' +
    'vector are rebuilt from the files and fetch nothing.',
  options: [
    ...catalogRefOptions('print exactly one JSON document: the replay report'),
    {
      flags: '--version <n>',
      description: 'the version to replay (default: the one search reads, else the one being written)',
      parse: intArg('--version', 0),
    },
    {
      flags: '--layers <layers>',
      description: 'layers to rebuild: file+index+vector (run in that order)',
      required: true,
    },
  ],
  details:
    'The site is never crawled again: file fetches only the urls whose files are missing, from the urls the rows\n' +
    'record; index and vector read the text back from the files. Replaying twice changes nothing (same ids).\n' +
    'Replaying the served version rewrites its entry in user/index/catalogs.json, so search answers again.',
  examples: [
    'greenfinger replay --name docs --layers index+vector     # after deleting user/index and user/vector',
    'greenfinger replay --name docs --layers file --version 2 --json',
  ],
  run: (ctx, _args, opts) => runReplay(ctx, opts),
}) satisfies CommandSpec;

async function runReplay(ctx: CommandContext, opts: ReplayOptions): Promise<number> {
  const { io } = ctx;
  const ref = catalogRefOf(opts, io, 'replay');
  if (!ref) return EXIT.usage;
  const layers = parseLayers<ReplayLayer>(opts.layers ?? '', REPLAY_LAYERS, 'index+vector');
  const gf = await ctx.gf(true);
  let shown = false;
  const report = await gf.replay.replay(ref, {
    version: opts.version,
    layers,
    onProgress:
      io.tty && !opts.json
        ? (p) => {
            shown = true;
            io.err(`\rreplay ${p.layer}: ${p.done}/${p.total}\u001b[K`);
          }
        : undefined,
  });
  if (shown) io.err('\n');
  if (opts.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
  else io.out(formatReplay(report));
  const problem = problems(report);
  if (problem) {
    io.err(`greenfinger: ${problem}\n`);
    return EXIT.failed;
  }
  return EXIT.ok;
}

/** One line when something could not be rebuilt, naming the fix. */
function problems(r: ReplayReport): string | undefined {
  const f = r.layers.file;
  if (f && f.pages.unreachable + f.images.unreachable > 0) {
    const first = f.failures[0];
    return (
      `${f.pages.unreachable} pages and ${f.images.unreachable} pictures could not be fetched again` +
      (first ? ` (first: ${first.url}: ${first.reason})` : '') +
      ' — check the site and run the same replay again'
    );
  }
  const failed = (r.layers.index?.failed ?? 0) + (r.layers.vector?.failed ?? 0);
  if (failed > 0) {
    return `${failed} pages could not be rebuilt (a missing text file is the usual reason) — run replay --layers file first, then this one again`;
  }
  return undefined;
}

function formatReplay(r: ReplayReport): string {
  const lines = [
    `replayed catalog "${r.catalog}" version ${r.version} in ${(r.elapsedMs / 1000).toFixed(1)} s, ${r.requests} requests`,
  ];
  const f = r.layers.file;
  if (f) {
    const c = (x: typeof f.pages) =>
      `${x.checked} checked, ${x.intact} intact, ${x.written} written, ${x.changed} changed, ${x.unreachable} unreachable`;
    lines.push(`file: pages ${c(f.pages)}; pictures ${c(f.images)}`);
  }
  if (r.layers.index) lines.push(`index: ${r.layers.index.written} documents, ${r.layers.index.failed} failed`);
  if (r.layers.vector)
    lines.push(
      `vector: ${r.layers.vector.written} pages, ${r.layers.vector.chunks} chunks, ${r.layers.vector.failed} failed`,
    );
  if (r.republished) lines.push('published: search reads this catalog again (user/index/catalogs.json)');
  if (r.path) lines.push(`report: ${r.path}`);
  return `${lines.join('\n')}\n`;
}
