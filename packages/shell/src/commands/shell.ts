import { type CommandSpec, defineCommand } from '../command-spec.js';
import { memberOptions } from './member.js';
import { dataOption } from './options.js';

/** `greenfinger shell`: the prompt over one long-lived Greenfinger (repl.ts). */
export const SHELL_COMMAND = defineCommand<{ data?: string; cluster?: string; nodeName?: string }>({
  cli: 'shell',
  summary: 'Open the prompt greenfinger:> over this data store: crawls run in its background; help lists its commands.',
  options: [
    dataOption(),
    ...memberOptions(
      'open the prompt as a member of this cluster: crawl verbs run on the cluster, writes go to its leader',
    ),
  ],
  details:
    'The prompt takes the same commands and options as the one-line verbs (catalog-list is catalog list), plus\n' +
    'catalog-save (an interview), test-url, options, index-info and vector-info. A crawl verb starts a job in the\n' +
    'background; status shows it live, q then Return detaches. Tab completes, history is kept in\n' +
    'system/shell-history, Ctrl-C cancels the line or the command, Ctrl-D or exit leaves (a crawl running is\n' +
    'paused first, so resume continues it). Not on a terminal it reads one command a line and exits at EOF with\n' +
    'the status of the last command that failed (docs/shell.md).\n' +
    'With --cluster NAME the prompt is a member of the cluster (docs/cluster.md): a crawl verb is a cluster run\n' +
    '(status shows the members added up), pause stops it on every member, writes go to the leader; leaving\n' +
    'leaves the cluster.',
  examples: [
    'greenfinger shell --data ./data',
    "printf 'catalog-list\\nsearch json dumps\\n' | greenfinger shell --data ./data",
    'greenfinger shell --cluster docs --node-name prompt-1 --data ./data-prompt',
  ],
  run: async (ctx, _args, opts) => {
    const { runShell } = await import('../repl.js');
    return runShell({ data: opts.data, cluster: opts.cluster, nodeName: opts.nodeName }, ctx.io);
  },
}) satisfies CommandSpec;
