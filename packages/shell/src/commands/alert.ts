import { ALERT_MODES, type AlertListing, type AlertMode } from '@greenfinger/core/internal';
import { InvalidArgumentError } from 'commander';
import { type CommandSpec, defineCommand, type GroupSpec } from '../command-spec.js';
import { EXIT } from '../io.js';
import { type CatalogRefOptions, catalogRefOf, catalogRefOptions, table } from './versions.js';

interface AlertOptions extends CatalogRefOptions {
  mode?: AlertMode;
  label?: string;
}

/** `--mode words|meaning|hybrid`. */
function modeArg(value: string): AlertMode {
  const mode = value.trim().toLowerCase();
  if (!(ALERT_MODES as readonly string[]).includes(mode)) {
    throw new InvalidArgumentError(`--mode takes ${ALERT_MODES.join(', ')}, got "${value}"`);
  }
  return mode as AlertMode;
}

/** `alert …` on the one-line CLI. */
export const ALERT_GROUP: GroupSpec = {
  name: 'alert',
  summary: "A catalog's saved searches, run over what each publishing run added or changed: add, list, remove.",
  details:
    'After a run publishes, each saved search runs over the pages the run added or changed; one that matches\n' +
    "fires: its matches go in the webhook's payload (--webhook on the catalog) and alert list shows its last\n" +
    'firing. See docs/freshness.md#alerts.',
  examples: [
    'greenfinger alert add --name docs "deprecated"',
    'greenfinger alert add --name docs "breaking change in the api" --mode hybrid --label api-breaks',
    'greenfinger alert list --name docs',
    'greenfinger alert remove al-3f9c2a1b07',
  ],
};

/** A catalog's alerts and webhooks for a terminal. */
export function formatAlerts(a: AlertListing): string {
  const lines = [`catalog "${a.catalog.name}" (${a.catalog.id})`];
  if (a.alerts.length === 0) lines.push('no saved search — add one: greenfinger alert add --name NAME "words"');
  else {
    lines.push(
      table([
        ['id', 'name', 'mode', 'query', 'last fired', 'matches'],
        ...a.alerts.map((r) => [
          r.id,
          r.name,
          r.mode,
          r.query,
          r.lastFiredAt ?? 'never',
          r.lastMatches ? String(r.lastMatches.length) : '-',
        ]),
      ]).trimEnd(),
    );
    for (const r of a.alerts) {
      for (const m of r.lastMatches ?? []) lines.push(`  ${r.id} matched ${m.url}${m.title ? ` (${m.title})` : ''}`);
    }
  }
  if (a.webhooks.length === 0) lines.push('webhooks: none (catalog update NAME --webhook URL)');
  for (const w of a.webhooks) {
    const d = w.lastDelivery;
    const last = d
      ? `${d.status}${d.httpStatus ? ` (HTTP ${d.httpStatus})` : ''}, ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}, at ${d.at}${d.error ? ` — ${d.error}` : ''}`
      : 'nothing sent yet';
    lines.push(`webhook ${w.url}: ${last}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `alert add|list|remove`: saved searches of a catalog (the one-line CLI). */
export const ALERT_COMMANDS: CommandSpec[] = [
  defineCommand<AlertOptions>({
    cli: 'alert add',
    prompt: 'alert-add',
    summary: 'Save a search on a catalog: it fires when a page a publishing run adds or changes matches it.',
    args: [{ name: '<query>', description: 'the words (or question, in meaning and hybrid modes) to watch for' }],
    options: [
      { flags: '--mode <mode>', description: 'words (default), meaning or hybrid', parse: modeArg },
      { flags: '--label <name>', description: 'a name for it, unique in the catalog (default: the query)' },
      ...catalogRefOptions('print exactly one JSON document: the alert {id, catalogId, name, query, mode, …}'),
    ],
    examples: ['greenfinger alert add --name docs "deprecated"', 'greenfinger alert add --name docs "price" --json'],
    run: async (ctx, [query = ''], opts) => {
      const ref = catalogRefOf(opts, ctx.io, 'alert add');
      if (!ref) return EXIT.usage;
      const row = await (await ctx.gf()).alerts.add(ref, { query, mode: opts.mode, name: opts.label });
      ctx.io.out(opts.json ? `${JSON.stringify(row)}\n` : `added alert ${row.id} "${row.name}" (${row.mode})\n`);
      return EXIT.ok;
    },
  }),
  defineCommand<AlertOptions>({
    cli: 'alert list',
    prompt: 'alert-list',
    summary: "A catalog's saved searches with their last firing, and the last delivery to each webhook.",
    options: catalogRefOptions(
      'print exactly one JSON document: {catalog, alerts: [{id, name, query, mode, lastFiredAt, lastMatches}], webhooks: [{url, lastDelivery}]}',
    ),
    examples: ['greenfinger alert list --name docs', 'greenfinger alert list --name docs --json'],
    run: async (ctx, _args, opts) => {
      const ref = catalogRefOf(opts, ctx.io, 'alert list');
      if (!ref) return EXIT.usage;
      const listing = await (await ctx.gf()).alerts.list(ref);
      ctx.io.out(opts.json ? `${JSON.stringify(listing)}\n` : formatAlerts(listing));
      return EXIT.ok;
    },
  }),
  defineCommand<AlertOptions>({
    cli: 'alert remove',
    prompt: 'alert-remove',
    summary: 'Remove a saved search by its id (or, with the catalog named, by its name).',
    args: [{ name: '<id>', description: 'the alert id (alert list shows it), or its name with --name CATALOG' }],
    options: catalogRefOptions('print exactly one JSON document: the alert removed'),
    examples: ['greenfinger alert remove al-3f9c2a1b07', 'greenfinger alert remove deprecated --name docs'],
    run: async (ctx, [id = ''], opts) => {
      const named = [opts.id, opts.name, opts.url].some((v) => v !== undefined);
      const ref = named ? catalogRefOf(opts, ctx.io, 'alert remove') : undefined;
      if (named && !ref) return EXIT.usage;
      const row = await (await ctx.gf()).alerts.remove(ref, id);
      ctx.io.out(opts.json ? `${JSON.stringify(row)}\n` : `removed alert ${row.id} "${row.name}"\n`);
      return EXIT.ok;
    },
  }),
];
