import type { ClusterClient, ClusterReplayReport } from '@greenfinger/cluster';
import {
  type CatalogRef,
  envDataStore,
  loadSettings,
  type ReplayLayer,
  type ReplayReport,
  silentLogger,
} from '@greenfinger/core';
import { intArg } from '../args.js';
import { type CommandContext, type CommandSpec, defineCommand } from '../command-spec.js';
import { EXIT, type Io, reportError } from '../io.js';
import { clusterOption } from './cluster.js';
import { type CatalogRefOptions, catalogRefOf, catalogRefOptions, parseLayers } from './versions.js';

interface ReplayOptions extends CatalogRefOptions {
  version?: number;
  layers?: string;
  cluster?: string;
  slicePages?: number;
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
    clusterOption('replay over this cluster: slices of 200 pages to every member, each rebuilds its own stores'),
    {
      flags: '--slice-pages <n>',
      description: 'with --cluster: pages per slice, 1–10000 (default 200; smaller spreads a small version wider)',
      parse: intArg('--slice-pages', 1, 10_000),
    },
  ],
  details:
    'The site is never crawled again: file fetches only the urls whose files are missing, from the urls the rows\n' +
    'record; index and vector read the text back from the files. Replaying twice changes nothing (same ids).\n' +
    'Replaying the served version rewrites its entry in user/index/catalogs.json, so search answers again.\n' +
    'On the one-line CLI, --cluster NAME sends it to that cluster: the leader cuts the pages into slices of 200\n' +
    'that the members pull; each rebuilds the pages of its slice whose files it holds, the rest go on to the others;\n' +
    'a slice whose member fails is done again by the leader. Every member ends with the whole index\n' +
    '(docs/cluster.md, "Replay: the one scatter and gather").',
  examples: [
    'greenfinger replay --name docs --layers index+vector     # after deleting user/index and user/vector',
    'greenfinger replay --name docs --layers file --version 2 --json',
    'greenfinger replay --cluster docs --name docs --layers index   # every member, after deleting their user/index',
  ],
  promptExamples: [
    'replay --name docs --layers index+vector     # after deleting user/index and user/vector',
    'replay --name docs --layers file --version 2 --json',
  ],
  run: (ctx, _args, opts) => runReplay(ctx, opts),
}) satisfies CommandSpec;

async function runReplay(ctx: CommandContext, opts: ReplayOptions): Promise<number> {
  const { io } = ctx;
  const ref = catalogRefOf(opts, io, 'replay');
  if (!ref) return EXIT.usage;
  const layers = parseLayers<ReplayLayer>(opts.layers ?? '', REPLAY_LAYERS, 'index+vector');
  if (opts.slicePages !== undefined && !opts.cluster) {
    io.err('greenfinger: --slice-pages cuts a cluster replay into slices: give --cluster NAME too, or leave it out\n');
    return EXIT.usage;
  }
  if (opts.cluster) return runClusterReplay(opts.cluster, ref, opts, layers, io);
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

/** `replay --cluster NAME`: sent to the leader, waited for with the same progress line and report (plus byNode). */
async function runClusterReplay(
  cluster: string,
  ref: CatalogRef,
  opts: ReplayOptions,
  layers: ReplayLayer[],
  io: Io,
): Promise<number> {
  let client: ClusterClient | undefined;
  let shown = false;
  try {
    const redisUrl = loadSettings({ dataStore: envDataStore() }).redisUrl;
    const { ClusterClient } = await import('@greenfinger/cluster');
    client = await ClusterClient.open({ cluster, redisUrl, log: silentLogger() });
    const report = await client.replay(
      { ...ref, version: opts.version, layers, slicePages: opts.slicePages },
      {
        onStarted: (s) => {
          if (!opts.json)
            io.err(
              `replay of "${s.catalog}" version ${s.version} on cluster "${cluster}": ${s.pages} pages in ${s.slices} slices (replay ${s.replayId})\n`,
            );
        },
        onProgress:
          io.tty && !opts.json
            ? (p) => {
                shown = true;
                io.err(`\r${p.layers.map((l) => `replay ${l}: ${p.done}/${p.total}`).join(', ')}\u001b[K`);
              }
            : undefined,
      },
    );
    if (shown) io.err('\n');
    if (opts.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
    else io.out(`${formatReplay(report)}${formatByNode(report)}`);
    const problem = problems(report) ?? clusterProblems(report);
    if (problem) {
      io.err(`greenfinger: ${problem}\n`);
      return EXIT.failed;
    }
    return EXIT.ok;
  } catch (err) {
    if (shown) io.err('\n');
    return reportError(io, err);
  } finally {
    await client?.close();
  }
}

function formatByNode(r: ClusterReplayReport): string {
  const lines = Object.entries(r.byNode)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([node, n]) => `  ${node}: ${n.slices} slices, ${n.pages} pages, ${n.requests} requests`);
  for (const d of r.redone) lines.push(`  ${d.node}: slice ${d.task} (${d.pages} pages) done again (${d.why})`);
  for (const [node, why] of Object.entries(r.missing ?? {})) lines.push(`  ${node}: ${why}`);
  return `by member:\n${lines.join('\n')}\n`;
}

function clusterProblems(r: ClusterReplayReport): string | undefined {
  if (r.unrebuilt > 0) {
    return `${r.unrebuilt} pages were rebuilt by no member — see the members' logs and run the same replay again`;
  }
  return undefined;
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
    const markdown = f.markdown ? `; Markdown written for ${f.markdown} pages` : '';
    lines.push(`file: pages ${c(f.pages)}; pictures ${c(f.images)}${markdown}`);
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
