import { commandsIn } from './command-table.js';
import { promptHelp, promptIndex } from './repl.js';

/**
 * docs/shell.md, generated from the command table: every prompt command with the text `help <command>` prints.
 * A unit test keeps the file and the table in agreement; regenerate with
 * `node -e "import('./packages/shell/dist/shell-docs.js').then((m) => process.stdout.write(m.shellDocs()))" > docs/shell.md`.
 */
export function shellDocs(): string {
  const intro = `# The prompt: \`greenfinger shell\`

\`\`\`sh
greenfinger shell --data ./data                                  # the prompt greenfinger:> on a terminal
printf 'catalog-list\\nsearch json dumps\\n' | greenfinger shell     # a script: one command a line
\`\`\`

The prompt holds one Greenfinger open over the data store for as long as it runs, and takes the commands of the
one-line verbs with the same options (\`catalog-list\` is \`catalog list\`; \`--data\` and \`--verbose\` belong to the
command line). Both are built from one command table (\`packages/shell/src/command-table.ts\`), and this page is
generated from it: each section is exactly what \`help <command>\` prints.

- **Crawls run in the background.** \`crawl\`, \`update\`, \`merge\`, \`rebuild\` and \`resume\` start a job and the
  prompt comes back at once. \`status\` shows the running jobs live, redrawn once a second (pages per second, drops
  by outcome); \`q\` then Return, or Ctrl-C, detaches and the crawl goes on; \`status\` attaches again.
- **Habits.** Tab completes commands, options and catalog names (after \`--name\` and \`--catalog\`). History is kept
  across sessions in \`system/shell-history\` (the last 1000 commands; answers to questions are not kept). Ctrl-C
  cancels the line, or the command in the foreground (a question, the live view), without leaving. Ctrl-D or
  \`exit\` leaves; while a crawl runs it asks first, and if you go it pauses the crawl (pages in flight finish,
  nothing is published, the frontier is kept) so \`resume\` continues it. An error is one line and never ends the
  prompt.
- **Not on a terminal** the prompt reads one command a line, prints the results and exits at EOF with the status of
  the last command that failed (0 if none). There a crawl verb waits for its job and prints its summary, so the
  next line sees what it published; \`catalog-save\` needs \`--json\` (the interview needs a terminal). Lines
  starting with \`#\` are comments. A SIGINT or SIGTERM stops it gracefully (crawls pause so \`resume\`
  continues them); a second one exits at once (code 130), as it does for every long-running verb.
- Words are split at blanks; \`'…'\` and \`"…"\` quote, a backslash escapes. \`search json dumps\` needs no quotes.

## The commands

\`\`\`text
${promptIndex().trimEnd()}
\`\`\`
`;
  const sections = commandsIn('prompt').map(
    (spec) => `## ${spec.prompt}\n\n${spec.summary}\n\n\`\`\`text\n${promptHelp(spec).trimEnd()}\n\`\`\`\n`,
  );
  const tail = `## help, exit

\`help\` lists the commands, \`help <command>\` prints one of the sections above. \`exit\` (or \`quit\`, or Ctrl-D)
leaves the prompt.

## For developers

The one-line CLI is \`main(argv, io)\` (\`packages/shell/src/program.ts\`) over any \`Io\`, so
\`packages/shell/test\` drives it in-process: the command table's help, bad input as one line with exit 2, and the
stop-signal helper \`onStopSignals(io, { first, second })\` (\`stop-signals.ts\`, the one place SIGINT and SIGTERM
are handled). \`e2e/\` runs the built CLI as a process. The page that \`serve\` answers takes the types of the
API's answers from the API's own description, generated into \`packages/web/src/api-types.gen.ts\` by
\`node packages/web/scripts/api-types.mjs\` (see [page.md](page.md#types-of-the-apis-answers)).
`;
  return [intro, ...sections, tail].join('\n');
}
