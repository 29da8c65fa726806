import type { UrlFate } from '@greenfinger/core';
import { recrawlNote } from '@greenfinger/core/internal';
import { InvalidArgumentError } from 'commander';
import { type CommandSpec, defineCommand } from '../command-spec.js';
import { EXIT } from '../io.js';
import { dataOption, jsonOption, verboseOption } from './options.js';
import { idOrName } from './versions.js';

interface WhyOptions {
  catalog?: string;
  version?: number;
  json?: boolean;
}

function parseVersion(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) {
    throw new InvalidArgumentError('a version is a whole number from 0');
  }
  return n;
}

/** `why <url>`: what became of a url in a catalog version, from the url ledger. */
export const WHY_COMMAND = defineCommand<WhyOptions>({
  cli: 'why',
  prompt: 'why',
  summary: 'Say why a url is (or is not) indexed: its state and last outcome in the url ledger.',
  args: [{ name: '<url>', description: 'the url, as a link or the address bar gives it' }],
  options: [
    {
      flags: '--catalog <id|name>',
      description: 'the catalog (default: the one whose current version holds the url, else contains it)',
    },
    { flags: '--version <n>', description: 'the catalog version (default: the current one)', parse: parseVersion },
    dataOption('data root holding system/ and user/ (default ./data or GF_DATA_STORE)'),
    jsonOption(
      'print exactly one JSON document: {catalog: {id, name}, version, url, row: {id, state, outcome, detail, status, reason, referrer, depth, redirects, foundAs, priority, fetchedAt, …} | null, explanation}',
    ),
    verboseOption(),
  ],
  details:
    'States: queued, crawling, done (fetched and handled), failed (the fetch or its handling failed),\n' +
    'rejected (refused before any request), deleted (its page was removed by hand).',
  examples: [
    'greenfinger why http://127.0.0.1:8084/library/json.html',
    'greenfinger why https://other.example/ --catalog python --json',
  ],
  run: async (ctx, args, opts) => {
    const gf = await ctx.gf();
    const url = args[0] ?? '';
    const catalog = idOrName(opts.catalog);
    const fate = await gf.ledger.why(url, {
      ...(catalog ? { catalog } : {}),
      ...(opts.version !== undefined ? { version: opts.version } : {}),
    });
    ctx.io.out(opts.json ? `${JSON.stringify({ ...fate, row: fate.row ?? null })}\n` : formatFate(fate));
    return EXIT.ok;
  },
}) satisfies CommandSpec;

/** A url's priority as it was queued: `0.712 (front queue 2): depth 0.5 · type 0.9 · …`. */
export function formatPriority(p: NonNullable<UrlFate['row']>['priority']): string {
  if (!p) return '-';
  const parts = Object.entries(p.parts)
    .map(([name, v]) => `${name} ${v}`)
    .join(' · ');
  return `${p.score} (front queue ${p.queue}): ${parts}`;
}

/** A few aligned lines, then the explanation. */
export function formatFate(fate: UrlFate): string {
  const r = fate.row;
  const lines: Array<[string, string]> = [
    ['url', fate.url],
    ['catalog', `${fate.catalog.name} (${fate.catalog.id}), version ${fate.version}`],
  ];
  if (r) {
    lines.push(['state', r.state]);
    if (r.outcome) lines.push(['outcome', r.detail ? `${r.outcome} (${r.detail})` : r.outcome]);
    lines.push(['status', r.status === null ? '-' : String(r.status)]);
    if (r.reason) lines.push(['reason', r.reason]);
    lines.push(['referrer', r.referrer ?? '-']);
    lines.push(['depth', String(r.depth)]);
    if (r.priority) lines.push(['priority', formatPriority(r.priority)]);
    if (r.redirects.length > 0) lines.push(['redirects', r.redirects.join(' → ')]);
    if (r.foundAs) lines.push(['found as', r.foundAs]);
    lines.push(['fetched', r.fetchedAt ?? '-']);
    const recrawl = recrawlNote(r);
    // A url refused by its schedule already says it as its reason.
    if (recrawl && r.detail !== 'schedule') lines.push(['recrawl', recrawl]);
    if (r.changedAt) {
      const n = r.changeCount ?? 1;
      lines.push(['changed', `${r.changedAt} (${n} change${n === 1 ? '' : 's'} in this version)`]);
    }
    lines.push(['url id', r.id]);
  } else {
    lines.push(['state', 'not in the ledger']);
  }
  const width = Math.max(...lines.map(([k]) => k.length));
  const others = fate.others?.length ? `\nalso held by: ${fate.others.map((c) => c.name).join(', ')}\n` : '';
  return `${lines.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}\n\n${fate.explanation}\n${others}`;
}
