import type { Greenfinger } from '@greenfinger/core';
import { type Command, Option } from 'commander';
import type { Io } from './io.js';
import type { PromptSession } from './prompt-session.js';

/** One option of a command, declared once for the one-line CLI and the prompt. */
export interface OptionSpec {
  /** Commander's flags, e.g. `--max-pages <n>`, `--no-images`, `--keep-latest [n]`. */
  flags: string;
  description: string;
  /** Parses (and checks) the value; throws commander's InvalidArgumentError with a line naming the flag. */
  parse?: (value: string, previous: never) => unknown;
  default?: unknown;
  choices?: readonly string[];
  required?: boolean;
  /** Only on the one-line command line (`--data`, `--verbose`): the prompt has one data store and one log. */
  cliOnly?: boolean;
  /** Only in the prompt (`status --all`): the one-line CLI keeps its flags as they are. */
  promptOnly?: boolean;
}

/** A positional argument: `<query>`, `[url]`, `[query...]`. */
export interface ArgSpec {
  name: string;
  description: string;
}

/** What a command runs with: an output sink, the Greenfinger, and in the prompt its session. */
export interface CommandContext {
  io: Io;
  mode: 'cli' | 'prompt';
  /**
   * The Greenfinger: the prompt's one long-lived instance, or on the one-line CLI one opened on first use (after the
   * command checked its arguments, so a wrong use is reported before any store is touched) and closed when the
   * command ends. `toFile` sends the one-line CLI's JSON log to data/system/logs (the prompt always logs there).
   */
  gf(toFile?: boolean): Promise<Greenfinger>;
  /** Aborted when Ctrl-C cancels the command in the prompt's foreground; never on the one-line CLI. */
  signal: AbortSignal;
  /** The prompt: questions, the live view, the jobs of the session. Undefined on the one-line CLI. */
  session?: PromptSession | undefined;
}

/** A command declared once: the one-line CLI and the prompt are both built from these. */
export interface CommandSpec<O = Record<string, unknown>> {
  /** Its path on the one-line CLI (`crawl`, `catalog list`); absent for a prompt-only command. */
  cli?: string;
  /** Its name in the prompt (`crawl`, `catalog-list`); absent for a command of the one-line CLI only. */
  prompt?: string;
  summary: string;
  args?: ArgSpec[];
  /** The prompt's positional arguments when they differ (`search json dumps` takes the words unquoted). */
  promptArgs?: ArgSpec[];
  options: OptionSpec[];
  /** What `help <command>` says after the options, before the examples. */
  details?: string;
  /** Whole command lines as the one-line CLI takes them (`greenfinger …`); the prompt shows them in its own names. */
  examples: string[];
  /** Examples for the prompt when they cannot be derived from `examples`. */
  promptExamples?: string[];
  /** Runs the command; returns the exit code (EXIT). An error thrown is reported in one line by the caller. */
  run(ctx: CommandContext, args: string[], opts: O): Promise<number>;
}

/** A group of the one-line CLI (`catalog …`, `user …`): its own help, no action. */
export interface GroupSpec {
  name: string;
  summary: string;
  details?: string;
  examples: string[];
}

/** Declare a command with typed options. */
export function defineCommand<O>(spec: CommandSpec<O>): CommandSpec {
  return spec as unknown as CommandSpec;
}

export type Mode = CommandContext['mode'];

/** The text after the options: the details, then the examples (in the prompt's names there). */
export function afterText(
  spec: Pick<CommandSpec, 'details' | 'examples' | 'promptExamples'>,
  mode: Mode,
  toPrompt: (line: string) => string = (l) => l,
): string {
  const examples = mode === 'prompt' ? (spec.promptExamples ?? spec.examples.map(toPrompt)) : spec.examples;
  return `${spec.details ? `\n${spec.details}\n` : ''}\nExamples:\n${examples.map((e) => `  ${e}`).join('\n')}`;
}

function toOption(o: OptionSpec): Option {
  const option = new Option(o.flags, o.description);
  if (o.choices) option.choices(o.choices);
  if (o.parse) option.argParser(o.parse as (value: string, previous: unknown) => unknown);
  if (o.default !== undefined) option.default(o.default);
  if (o.required) option.makeOptionMandatory();
  return option;
}

/** The options of a command in one mode (the prompt drops `--data` and `--verbose`). */
export function optionsIn(spec: CommandSpec, mode: Mode): OptionSpec[] {
  return spec.options.filter((o) => (mode === 'cli' ? !o.promptOnly : !o.cliOnly));
}

/**
 * Add the command to a commander parent under `name`, with its arguments, options and help; `action` receives the
 * positional values (a variadic one spread) and the options.
 */
export function addCommand(
  parent: Command,
  spec: CommandSpec,
  name: string,
  mode: Mode,
  after: string,
  action: (args: string[], opts: Record<string, unknown>) => Promise<void>,
): Command {
  const cmd = parent.command(name).description(spec.summary);
  for (const a of (mode === 'prompt' ? spec.promptArgs : undefined) ?? spec.args ?? [])
    cmd.argument(a.name, a.description);
  for (const o of optionsIn(spec, mode)) cmd.addOption(toOption(o));
  cmd.addHelpText('after', after);
  cmd.action(async (...params: unknown[]) => {
    const self = params.at(-1) as Command;
    const args = self.processedArgs.flatMap((a: unknown) =>
      a === undefined ? [] : Array.isArray(a) ? a.map(String) : [String(a)],
    );
    await action(args, self.opts());
  });
  return cmd;
}
