import type { ChangeSet, ChangesQuery } from '@greenfinger/core/internal';
import { InvalidArgumentError } from 'commander';
import { type CommandSpec, defineCommand } from '../command-spec.js';
import { EXIT } from '../io.js';
import { type CatalogRefOptions, catalogRefOf, catalogRefOptions } from './versions.js';

interface ChangesOptions extends CatalogRefOptions {
  since?: ChangesQuery;
}

/** `--since VERSION|DATE`: a version number, or a date the runs ended at or after. */
export function parseSince(value: string): ChangesQuery {
  const v = value.trim();
  if (/^\d+$/.test(v) && Number.isSafeInteger(Number(v))) return { sinceVersion: Number(v) };
  const at = /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v) : Number.NaN;
  if (Number.isNaN(at)) {
    throw new InvalidArgumentError(
      `--since takes a version number (3) or a date (2026-12-05, 2026-12-05T10:00:00Z), got "${value}"`,
    );
  }
  return { sinceDate: new Date(at) };
}

/** A change set for a terminal: one line a url (`+` added, `~` changed with its diff indented, `-` removed). */
export function formatChangeSet(head: string, set: ChangeSet): string {
  const count = `${set.added.length} added, ${set.changed.length} changed, ${set.removed.length} removed`;
  const lines = [`${head}: ${count}`];
  for (const url of set.added) lines.push(`+ ${url}`);
  for (const c of set.changed) {
    lines.push(`~ ${c.url}`);
    for (const line of c.diff.split('\n').filter(Boolean)) lines.push(`    ${line}`);
  }
  for (const url of set.removed) lines.push(`- ${url}`);
  return `${lines.join('\n')}\n`;
}

/** `changes`: the change log of a catalog — the latest publishing run's change set, or every run since. */
export const CHANGES_COMMAND = defineCommand<ChangesOptions>({
  cli: 'changes',
  prompt: 'changes',
  summary: 'Print what the latest run that published changed: urls added, changed (with a short diff), removed.',
  options: [
    {
      flags: '--since <version|date>',
      description: 'every run after the version was first published (a merge on it included), or since the date',
      parse: parseSince,
    },
    ...catalogRefOptions(
      'print exactly one JSON document: {catalog: {id, name}, runs: [{version, action, at}], added: [url], changed: [{url, diff}], removed: [url]}',
    ),
  ],
  details:
    'A page counts as changed only when its article text changed beyond volatile parts (dates and times,\n' +
    '"3 minutes ago", counters, session and CSRF tokens); see docs/freshness.md. Several runs fold into one set:\n' +
    'a url added then removed is no change, a url changed twice shows its last diff.',
  examples: [
    'greenfinger changes --name docs',
    'greenfinger changes --name docs --since 0 --json',
    'greenfinger changes --name docs --since 2026-12-01',
  ],
  run: async (ctx, _args, opts) => {
    const { io } = ctx;
    const ref = catalogRefOf(opts, io, 'changes');
    if (!ref) return EXIT.usage;
    const gf = await ctx.gf();
    const answer = await gf.changes.changes(ref, opts.since ?? {});
    if (opts.json) {
      io.out(`${JSON.stringify(answer)}\n`);
      return EXIT.ok;
    }
    const runs = answer.runs.map((r) => `${r.action} of v${r.version} at ${r.at}`);
    const head = `catalog "${answer.catalog.name}", ${runs.length === 0 ? 'no run' : runs.length === 1 ? runs[0] : `${runs.length} runs (${runs[0]} … ${runs.at(-1)})`}`;
    io.out(formatChangeSet(head, answer));
    return EXIT.ok;
  },
}) satisfies CommandSpec;
