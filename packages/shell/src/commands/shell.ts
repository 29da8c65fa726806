import { type CommandSpec, defineCommand } from '../command-spec.js';
import { dataOption } from './options.js';

/** `greenfinger shell`: the prompt over one long-lived Greenfinger (repl.ts). */
export const SHELL_COMMAND = defineCommand<{ data?: string }>({
  cli: 'shell',
  summary: 'Open the prompt greenfinger:> over this data store: crawls run in its background; help lists its commands.',
  options: [dataOption()],
  details:
    'The prompt takes the same commands and options as the one-line verbs (catalog-list is catalog list), plus\n' +
    'catalog-save (an interview), test-url, options, index-info and vector-info. A crawl verb starts a job in the\n' +
    'background; status shows it live, q then Return detaches. Tab completes, history is kept in\n' +
    'system/shell-history, Ctrl-C cancels the line or the command, Ctrl-D or exit leaves (a crawl running is\n' +
    'paused first, so resume continues it). Not on a terminal it reads one command a line and exits at EOF with\n' +
    'the status of the last command that failed (docs/shell.md).',
  examples: [
    'greenfinger shell --data ./data',
    "printf 'catalog-list\\nsearch json dumps\\n' | greenfinger shell --data ./data",
  ],
  run: async (ctx, _args, opts) => {
    const { runShell } = await import('../repl.js');
    return runShell({ data: opts.data }, ctx.io);
  },
}) satisfies CommandSpec;
