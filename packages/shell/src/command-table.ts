import { afterText, type CommandSpec, type GroupSpec, type Mode, optionsIn } from './command-spec.js';
import { ALERT_COMMANDS, ALERT_GROUP } from './commands/alert.js';
import { CATALOG_COMMANDS, CATALOG_GROUP } from './commands/catalog.js';
import { CATALOG_SAVE_COMMAND } from './commands/catalog-save.js';
import { CHANGES_COMMAND } from './commands/changes.js';
import { NODE_COMMAND } from './commands/cluster.js';
import { CONTROL_COMMANDS } from './commands/control.js';
import { CRAWL_COMMANDS } from './commands/crawl.js';
import { DELETE_COMMAND } from './commands/delete.js';
import { DIFF_COMMAND } from './commands/diff.js';
import { EXPORT_COMMAND } from './commands/export.js';
import { INFO_COMMANDS } from './commands/info.js';
import { MCP_COMMAND } from './commands/mcp.js';
import { MODELS_COMMANDS, MODELS_GROUP } from './commands/models.js';
import { PAGE_COMMAND } from './commands/page.js';
import { REPLAY_COMMAND } from './commands/replay.js';
import { SEARCH_COMMAND } from './commands/search.js';
import { SERVE_COMMAND } from './commands/serve.js';
import { SHELL_COMMAND } from './commands/shell.js';
import { TEST_URL_COMMAND } from './commands/test-url.js';
import { USER_COMMANDS, USER_GROUP } from './commands/user.js';
import { VERSIONS_COMMAND } from './commands/versions.js';
import { WATCH_COMMAND } from './commands/watch.js';
import { WHY_COMMAND } from './commands/why.js';

/**
 * Every command, declared once. The one-line CLI (program.ts) registers each one that has a `cli` path, the prompt
 * (repl.ts) each one that has a `prompt` name, both with the same options, parsers, help text and handler; the order
 * here is the order `help` lists them in.
 */
export const COMMANDS: readonly CommandSpec[] = [
  ...CRAWL_COMMANDS,
  SEARCH_COMMAND,
  REPLAY_COMMAND,
  DELETE_COMMAND,
  VERSIONS_COMMAND,
  CHANGES_COMMAND,
  DIFF_COMMAND,
  ...ALERT_COMMANDS,
  ...CATALOG_COMMANDS,
  ...CONTROL_COMMANDS,
  WHY_COMMAND,
  PAGE_COMMAND,
  EXPORT_COMMAND,
  ...USER_COMMANDS,
  ...MODELS_COMMANDS,
  WATCH_COMMAND,
  SERVE_COMMAND,
  MCP_COMMAND,
  NODE_COMMAND,
  TEST_URL_COMMAND,
  SHELL_COMMAND,
  CATALOG_SAVE_COMMAND,
  ...INFO_COMMANDS,
];

/** The prompt lists its commands in Greenfinger 2.0's order (parity.md §1). */
const PROMPT_ORDER = [
  'catalog-list',
  'catalog-show',
  'catalog-save',
  'catalog-create',
  'catalog-update',
  'catalog-delete',
  'catalog-cats',
  'versions',
  'changes',
  'diff',
  'alert-add',
  'alert-list',
  'alert-remove',
  'crawler-report',
  'crawl',
  'update',
  'merge',
  'resume',
  'rebuild',
  'pause',
  'status',
  'delete',
  'replay',
  'test-url',
  'options',
  'search',
  'index-info',
  'vector-info',
  'why',
];

/** The groups of the one-line CLI (`catalog …`, `user …`). */
export const GROUPS: readonly GroupSpec[] = [CATALOG_GROUP, USER_GROUP, MODELS_GROUP, ALERT_GROUP];

/** The commands of one mode. */
export function commandsIn(mode: Mode): CommandSpec[] {
  if (mode === 'cli') return COMMANDS.filter((c) => c.cli !== undefined);
  const rank = (c: CommandSpec) => {
    const i = PROMPT_ORDER.indexOf(c.prompt ?? '');
    return i < 0 ? PROMPT_ORDER.length : i;
  };
  return COMMANDS.filter((c) => c.prompt !== undefined).sort((a, b) => rank(a) - rank(b));
}

/** The prompt's command of that name. */
export function promptCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.prompt === name);
}

/** An example line of the one-line CLI in the prompt's words: `greenfinger catalog list` → `catalog-list`. */
export function toPromptLine(line: string): string {
  if (!line.startsWith('greenfinger ')) return line;
  const rest = line.slice('greenfinger '.length);
  const spec = [...COMMANDS]
    .filter((c) => c.cli && c.prompt && (rest === c.cli || rest.startsWith(`${c.cli} `)))
    .sort((a, b) => (b.cli?.length ?? 0) - (a.cli?.length ?? 0))[0];
  return spec?.cli && spec.prompt ? `${spec.prompt}${rest.slice(spec.cli.length)}` : rest;
}

/** The text after a command's options, in the mode's words. */
export function afterTextIn(spec: CommandSpec, mode: Mode): string {
  return afterText(spec, mode, toPromptLine);
}

/** The options a command takes in a mode, by long flag (`--max-pages`), for completion. */
export function flagsOf(spec: CommandSpec, mode: Mode): string[] {
  return optionsIn(spec, mode).map((o) => o.flags.split(/[ ,]+/).find((f) => f.startsWith('--')) ?? o.flags);
}
