import { type CatalogRef, type Greenfinger, isUuid, type UrlFate } from '@greenfinger/core';
import { type Command, InvalidArgumentError } from 'commander';
import { EXIT, type Io, reportError } from '../io.js';
import { openGreenfinger } from './versions.js';

interface WhyOptions {
  catalog?: string;
  version?: number;
  data?: string;
  json?: boolean;
  verbose?: boolean;
}

function parseVersion(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) {
    throw new InvalidArgumentError('a version is a whole number from 0');
  }
  return n;
}

/** `greenfinger why <url>`: what became of a url in a catalog version, from the url ledger. */
export function whyCommand(program: Command, io: Io, setCode: (code: number) => void): void {
  program
    .command('why')
    .description('Say why a url is (or is not) indexed: its state and last outcome in the url ledger.')
    .argument('<url>', 'the url, as a link or the address bar gives it')
    .option(
      '--catalog <id|name>',
      'the catalog (default: the one whose current version holds the url, else contains it)',
    )
    .option('--version <n>', 'the catalog version (default: the current one)', parseVersion)
    .option('--data <dir>', 'data root holding system/ and user/ (default ./data or GF_DATA_STORE)')
    .option(
      '--json',
      'print exactly one JSON document: {catalog: {id, name}, version, url, row: {id, state, outcome, detail, status, reason, referrer, depth, fetchedAt, …} | null, explanation}',
    )
    .option('--verbose', 'write the JSON log to stderr')
    .addHelpText(
      'after',
      '\nStates: queued, crawling, done (fetched and handled), failed (the fetch or its handling failed),\n' +
        'rejected (refused before any request), deleted (its page was removed by hand).\n\n' +
        'Examples:\n  greenfinger why http://127.0.0.1:8084/library/json.html\n' +
        '  greenfinger why https://other.example/ --catalog python --json',
    )
    .action(async (url: string, opts: WhyOptions) => {
      setCode(await runWhy(url, opts, io));
    });
}

async function runWhy(url: string, opts: WhyOptions, io: Io): Promise<number> {
  let gf: Greenfinger | undefined;
  try {
    gf = await openGreenfinger(opts, false);
    const catalog: CatalogRef | undefined = opts.catalog
      ? isUuid(opts.catalog.trim().toLowerCase())
        ? { id: opts.catalog.trim().toLowerCase() }
        : { name: opts.catalog }
      : undefined;
    const fate = await gf.ledger.why(url, {
      ...(catalog ? { catalog } : {}),
      ...(opts.version !== undefined ? { version: opts.version } : {}),
    });
    io.out(opts.json ? `${JSON.stringify({ ...fate, row: fate.row ?? null })}\n` : formatFate(fate));
    return EXIT.ok;
  } catch (err) {
    return reportError(io, err);
  } finally {
    await gf?.close();
  }
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
    lines.push(['fetched', r.fetchedAt ?? '-']);
    lines.push(['url id', r.id]);
  } else {
    lines.push(['state', 'not in the ledger']);
  }
  const width = Math.max(...lines.map(([k]) => k.length));
  const others = fate.others?.length ? `\nalso held by: ${fate.others.map((c) => c.name).join(', ')}\n` : '';
  return `${lines.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}\n\n${fate.explanation}\n${others}`;
}
