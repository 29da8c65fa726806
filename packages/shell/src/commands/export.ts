import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  CrawlerError,
  EXPORT_FORMATS,
  type ExportFormat,
  ExportService,
  type ExportSummary,
  envDataStore,
} from '@greenfinger/core/internal';
import { InvalidArgumentError } from 'commander';
import { intArg } from '../args.js';
import { type CommandContext, type CommandSpec, defineCommand } from '../command-spec.js';
import { EXIT } from '../io.js';
import { type CatalogRefOptions, catalogRefOf, catalogRefOptions } from './versions.js';

interface ExportOptions extends CatalogRefOptions {
  version?: number;
  format?: ExportFormat;
  out?: string;
  chunks?: boolean;
}

function formatArg(value: string): ExportFormat {
  if ((EXPORT_FORMATS as readonly string[]).includes(value)) return value as ExportFormat;
  throw new InvalidArgumentError(`"${value}" is not an export format: give one of ${EXPORT_FORMATS.join(', ')}`);
}

/** `export`: a stored version as JSON lines, a Markdown tree, a WARC or a WACZ, streamed to a file. */
export const EXPORT_COMMAND = defineCommand<ExportOptions>({
  cli: 'export',
  summary: 'Export a stored version as JSON lines, a Markdown tree, a WARC or a WACZ (web archive) file.',
  options: [
    ...catalogRefOptions('print exactly one JSON document: the export summary (pages, pictures, bytes, …)'),
    {
      flags: '--version <n>',
      description: 'the version to export (default: the one search reads, else the one being written)',
      parse: intArg('--version', 0),
    },
    {
      flags: '--format <format>',
      description: `${EXPORT_FORMATS.join(' | ')}`,
      required: true,
      parse: formatArg,
    },
    {
      flags: '--out <path>',
      description: 'a new file (a new or empty folder for markdown); - writes to stdout (not markdown)',
      required: true,
    },
    { flags: '--chunks', description: 'jsonl: add each page’s embedded chunks with their vectors' },
  ],
  details:
    'jsonl: one line per page (url, title, text, markdown, fetchedAt, version, pictures; chunks with --chunks).\n' +
    'markdown: one .md per page under <host>[_<port>]/<path>, with front matter.\n' +
    'warc: a .warc.gz, a response record per page with the status line and headers it was fetched with (pages\n' +
    'saved before those were kept: resource records, counted in the summary), pictures as resource records.\n' +
    'wacz: the WARC, its CDXJ index, pages/pages.jsonl and datapackage.json with digests (ReplayWeb.page opens it).\n' +
    'The export streams page by page: memory stays flat however large the version (docs/export.md).',
  examples: [
    'greenfinger export --name python --format jsonl --out python.jsonl',
    'greenfinger export --name python --format wacz --out python.wacz',
    'greenfinger export --name python --version 2 --format markdown --out python-md/',
    'greenfinger export --name python --format jsonl --chunks --out - | head -1',
  ],
  run: (ctx, _args, opts) => runExport(ctx, opts),
}) satisfies CommandSpec;

async function runExport(ctx: CommandContext, opts: ExportOptions): Promise<number> {
  const { io } = ctx;
  const ref = catalogRefOf(opts, io, 'export');
  if (!ref) return EXIT.usage;
  const format = opts.format as ExportFormat;
  const out = opts.out ?? '';
  if (out === '-' && format === 'markdown') {
    io.err('greenfinger: --out - cannot take the markdown format (a folder of files): give --out a folder\n');
    return EXIT.usage;
  }
  const root = resolve(opts.data ?? envDataStore());
  if (!existsSync(root)) {
    throw new CrawlerError('NOT_FOUND', `the data root ${root} does not exist: nothing was crawled there`, {
      fix: 'give --data the folder a crawl wrote (or GF_DATA_STORE)',
    });
  }
  const gf = await ctx.gf();
  const exports = new ExportService(gf);
  const plan = await exports.plan({ catalog: ref, version: opts.version, format, chunks: opts.chunks });
  let shown = false;
  const onProgress = (p: { done: number; total: number }) => {
    shown = true;
    io.err(`\rexport ${format}: ${p.done}/${p.total} pages\u001b[K`);
  };
  const options = { onProgress: io.tty && !opts.json ? onProgress : undefined };
  let summary: ExportSummary;
  try {
    summary =
      out === '-'
        ? await exports.write(plan, process.stdout, options)
        : await exports.writeTo(plan, resolve(out), options);
  } finally {
    if (shown) io.err('\n');
  }
  if (opts.json) {
    if (out === '-') io.err(`${JSON.stringify(summary)}\n`);
    else io.out(`${JSON.stringify(summary, null, 2)}\n`);
  } else {
    (out === '-' ? io.err : io.out)(`${summaryLine(summary, out)}\n`);
  }
  return summary.pages === 0 ? EXIT.failed : EXIT.ok;
}

/** `exported 526 pages (12 pictures) of "python" version 0 as wacz to python.wacz, 8.1 MB`, and what was left out. */
export function summaryLine(s: ExportSummary, out: string): string {
  const size = s.bytes > 0 ? `, ${(s.bytes / 1e6).toFixed(1)} MB` : '';
  const pictures = s.pictures > 0 ? ` (${s.pictures} pictures)` : '';
  const to = out === '-' ? 'stdout' : out;
  const lines = [
    `exported ${s.pages} pages${pictures} of "${s.catalog.name}" version ${s.version} as ${s.format} to ${to}${size}`,
  ];
  if (s.withoutResponse > 0) {
    lines.push(
      `${s.withoutResponse} pages were saved before their answers were kept: written as WARC resource records (no status line, no headers)`,
    );
  }
  if (s.missing > 0) {
    lines.push(
      `${s.missing} pages left out: their files are gone (e.g. ${s.missingExamples[0]}); replay --layers file refetches them`,
    );
  }
  return lines.join('\n');
}
