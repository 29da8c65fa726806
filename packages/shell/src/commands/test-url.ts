import type { TestUrlReport } from '@greenfinger/core';
import { intArg } from '../args.js';
import { type CommandSpec, defineCommand } from '../command-spec.js';
import { EXIT } from '../io.js';
import { dataOption, jsonOption, verboseOption } from './options.js';
import { idOrName } from './versions.js';

interface TestUrlOptions {
  url: string;
  catalog?: string;
  lines?: number;
  json?: boolean;
}

const MARK = { pass: 'ok  ', refuse: 'STOP', fail: 'FAIL', skip: '-   ', note: 'note' } as const;

/** `test-url --url U [--catalog C]`: one url through the whole pipeline, nothing saved. */
export const TEST_URL_COMMAND = defineCommand<TestUrlOptions>({
  cli: 'test-url',
  prompt: 'test-url',
  summary:
    "Fetch one url through a catalog's whole pipeline without saving anything: every stage's verdict, the text, " +
    'the pictures, and where each link would go.',
  options: [
    { flags: '--url <url>', description: 'the url to test', required: true },
    {
      flags: '--catalog <id|name>',
      description: 'the catalog whose rules apply (default: the one whose scope holds the url, else the only one)',
    },
    { flags: '--lines <n>', description: 'lines of article text to show (default 8)', parse: intArg('--lines', 0) },
    dataOption(),
    jsonOption('print exactly one JSON document: {url, catalog, stages, outcome, fetch, title, text, pictures, links}'),
    verboseOption(),
  ],
  details:
    "The crawl's own page pipeline runs dry: the acceptors (scope, start-url prefix, assets, robots.txt, depth,\n" +
    'patterns), then every stage of the document pipeline in its order — known-url, recrawl, trap, head, metadata,\n' +
    'fetch, status, children, markup, render, extract, canonical, robots, links, noindex, document filters, import,\n' +
    'unmodified, dedup, reserve, images, output — and the first that refuses ends the url, as in a crawl: what\n' +
    'test-url says is what a crawl does. Nothing is stored, queued, published or counted.\n' +
    'Each link found is run through the acceptors: queued, or refused by the acceptor named.',
  examples: [
    'greenfinger test-url --url http://127.0.0.1:8084/library/json.html',
    'greenfinger test-url --url https://www.python.org/ --catalog python',
    'greenfinger test-url --url http://127.0.0.1:8084/index.html --lines 3 --json',
  ],
  run: async (ctx, _args, opts) => {
    const gf = await ctx.gf();
    const report = await gf.testUrl.test({ url: opts.url, catalog: idOrName(opts.catalog), textLines: opts.lines });
    ctx.io.out(opts.json ? `${JSON.stringify(report)}\n` : formatTestUrl(report));
    return EXIT.ok;
  },
}) satisfies CommandSpec;

export function formatTestUrl(r: TestUrlReport): string {
  const width = Math.max(...r.stages.map((s) => s.stage.length));
  const lines = [
    `${r.url}`,
    `catalog "${r.catalog.name}" version ${r.version} (${r.catalog.why}), depth ${r.depth}`,
    '',
    ...r.stages.map((s) => `  ${MARK[s.verdict]}  ${s.stage.padEnd(width)}  ${s.detail}`),
    '',
    `outcome: ${r.outcome}${r.outcome === 'SAVED' ? ' (a crawl would save it)' : ''}`,
  ];
  if (r.title !== null) lines.push(`title: ${r.title}`);
  if (r.text.length > 0) lines.push(`text (${r.textChars} characters):`, ...r.text.map((t) => `  ${t.slice(0, 150)}`));
  if (r.pictures.length > 0) {
    lines.push(
      `pictures (${r.pictures.length}):`,
      ...r.pictures.map((p) => `  ${p.url}${p.alt ? `  "${p.alt}"` : ''}`),
    );
  }
  if (r.links.length > 0) {
    const queued = r.links.filter((l) => l.fate === 'queued').length;
    lines.push(`links (${r.links.length}: ${queued} would be queued, ${r.links.length - queued} not):`);
    for (const l of r.links) {
      lines.push(
        l.fate === 'queued'
          ? `  queued   ${l.url}`
          : l.fate === 'refused'
            ? `  refused  ${l.url} — ${l.acceptor}: ${l.reason}`
            : `  skipped  ${l.url} — ${l.reason}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
