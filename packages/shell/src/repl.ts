import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { Greenfinger, makeDirs, reportOf } from '@greenfinger/core/internal';
import { Command, CommanderError } from 'commander';
import { addCommand, type CommandContext, type CommandSpec } from './command-spec.js';
import { afterTextIn, commandsIn, flagsOf, promptCommand } from './command-table.js';
import { startMember } from './commands/member.js';
import { commandLogger, EXIT, type Io, reportError } from './io.js';
import type { PromptSession } from './prompt-session.js';
import { onStopSignals } from './stop-signals.js';

export const PROMPT = 'greenfinger:> ';
/** Lines of history kept in system/shell-history. */
export const HISTORY_SIZE = 1000;
/** The width `help <command>` wraps at, on every terminal (docs/shell.md holds the same text). */
export const HELP_WIDTH = 110;

export interface ShellOptions {
  data?: string | undefined;
  /** Open the prompt as a member of this cluster (its jobs run on the cluster; its writes go to the leader). */
  cluster?: string | undefined;
  nodeName?: string | undefined;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** @default input and output are terminals */
  interactive?: boolean;
}

/** Split a line into words: blanks separate, '…' and "…" quote, a backslash escapes the next character. */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | undefined;
  let started = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (ch === '\\' && quote !== "'" && i + 1 < line.length) {
      word += line[++i];
      started = true;
    } else if (quote) {
      if (ch === quote) quote = undefined;
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) words.push(word);
      word = '';
      started = false;
    } else {
      word += ch;
      started = true;
    }
  }
  if (quote) throw new Error(`a ${quote} quote is not closed`);
  if (started) words.push(word);
  return words;
}

/** A commander command for one prompt command (parsing, and `help <command>`). */
function promptProgram(
  io: Io,
  spec: CommandSpec,
  action: (args: string[], opts: Record<string, unknown>) => Promise<void>,
) {
  const root = new Command('').exitOverride().configureOutput({
    writeOut: (s) => io.out(s),
    writeErr: (s) => io.err(s),
    getOutHelpWidth: () => HELP_WIDTH,
    getErrHelpWidth: () => HELP_WIDTH,
    outputError: (s, write) =>
      write(
        `greenfinger: ${s
          .replace(/^error: /, '')
          .trim()
          .replace(/\s*\n\s*/g, ' ')} — see \`help ${spec.prompt}\`\n`,
      ),
  });
  const name = spec.prompt ?? '';
  const cmd = addCommand(root, spec, name, 'prompt', afterTextIn(spec, 'prompt'), action);
  cmd.exitOverride().configureOutput({ getOutHelpWidth: () => HELP_WIDTH, getErrHelpWidth: () => HELP_WIDTH });
  return { root, cmd };
}

/** What `help <command>` prints in the prompt (and docs/shell.md shows). */
export function promptHelp(spec: CommandSpec): string {
  const sink: string[] = [];
  const io: Io = { out: (t) => sink.push(t), err: (t) => sink.push(t), tty: false };
  const { cmd } = promptProgram(io, spec, async () => undefined);
  return `${cmd
    .helpInformation()
    .replace(/^Usage: {2}/, 'Usage: ')
    .replace(/^Usage: {1,2}/, 'Usage: ')}${afterTextIn(spec, 'prompt')}\n`;
}

/** `help`: every prompt command with its summary. */
export function promptIndex(): string {
  const specs = commandsIn('prompt');
  const width = Math.max(...specs.map((s) => (s.prompt ?? '').length));
  return (
    `${specs.map((s) => `  ${(s.prompt ?? '').padEnd(width)}  ${s.summary}`).join('\n')}\n` +
    '\nhelp <command> shows its options and examples. Tab completes commands, options and catalog names;\n' +
    'Ctrl-C cancels the line or the command running; Ctrl-D or exit leaves.\n'
  );
}

/**
 * `greenfinger shell`: the prompt `greenfinger:>` over one long-lived Greenfinger. On a terminal: completion, history
 * in system/shell-history, crawls in the background, the live view; not on one, it reads a command a line and exits
 * at EOF with the status of the last command that failed (0 if none).
 */
export async function runShell(options: ShellOptions, io: Io): Promise<number> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const interactive =
    options.interactive ?? Boolean((input as NodeJS.ReadStream).isTTY && (output as NodeJS.WriteStream).isTTY);
  const log = commandLogger(options.data, { toFile: true });
  const node = options.cluster
    ? await startMember({ cluster: options.cluster, nodeName: options.nodeName, data: options.data }, log)
    : undefined;
  const gf = node?.gf ?? (await Greenfinger.open({ settings: { dataStore: options.data }, log }));
  try {
    gf.factory.probeDataRoot();
    const shell = new Shell(gf, { input, output, interactive, io });
    if (node && interactive)
      io.err(`member "${node.name}" of cluster "${options.cluster}": crawl verbs run on the cluster\n`);
    return await shell.loop();
  } finally {
    // A member leaves gracefully (its part of a run ends; the others go on), which closes its Greenfinger.
    if (node) await node.leave();
    else await gf.close();
  }
}

class Shell implements PromptSession {
  readonly interactive: boolean;
  readonly #gf: Greenfinger;
  readonly #io: Io;
  readonly #input: NodeJS.ReadableStream;
  readonly #output: NodeJS.WritableStream;
  readonly #historyFile: string;
  #rl!: Interface;
  readonly #lines: string[] = [];
  #waiter: ((line: string | undefined) => void) | undefined;
  #closed = false;
  /** The command in the foreground, cancelled by Ctrl-C. */
  #foreground: AbortController | undefined;
  #catalogNames: string[] = [];
  #lastFailure: number = EXIT.ok;

  constructor(
    gf: Greenfinger,
    o: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream; interactive: boolean; io: Io },
  ) {
    this.#gf = gf;
    this.interactive = o.interactive;
    this.#input = o.input;
    this.#output = o.output;
    this.#io = {
      out: (t) => void this.#output.write(t),
      err: (t) => void (this.interactive ? this.#output : process.stderr).write(t),
      tty: o.interactive,
    };
    this.#historyFile = join(gf.layout.system, 'shell-history');
  }

  async loop(): Promise<number> {
    this.#open();
    // Not on a terminal (a script killed): stop the jobs gracefully and leave; a second signal exits at once. On a
    // terminal, readline's own SIGINT handling applies (#open).
    const offSignals = this.interactive
      ? () => undefined
      : onStopSignals(this.#io, {
          first: {
            line: 'greenfinger: interrupted: stopping (crawls pause so resume can continue)\n',
            stop: () => {
              this.#closed = true;
              this.#rl.close();
              this.#foreground?.abort();
            },
          },
        });
    try {
      if (this.interactive)
        this.#io.out('Greenfinger — help lists the commands, Tab completes, exit or Ctrl-D leaves.\n');
      this.#refreshCatalogs();
      for (;;) {
        if (this.interactive && !this.#closed) {
          this.#rl.setPrompt(PROMPT);
          this.#rl.prompt();
        }
        const line = await this.#next();
        if (line === undefined) {
          if (this.interactive) this.#io.out('\n');
          if (await this.#mayLeave()) break;
          if (this.#closed) this.#open();
          continue;
        }
        const words = line.trim();
        // A `q` left over after a live view that ended by itself is not worth an error.
        if (words === '' || words.startsWith('#') || words === 'q') continue;
        if (words === 'exit' || words === 'quit') {
          if (await this.#mayLeave()) break;
          continue;
        }
        const code = await this.#runLine(words).catch((err: unknown) => reportError(this.#io, err));
        if (code !== EXIT.ok) this.#lastFailure = code;
        this.#refreshCatalogs();
      }
    } finally {
      offSignals();
      this.#rl.close();
    }
    await this.#pauseJobs();
    return this.#lastFailure;
  }

  /** Run one line: `help`, or a command of the table. */
  run(line: string): Promise<number> {
    return this.#runLine(line);
  }

  async #runLine(line: string): Promise<number> {
    const io = this.#io;
    let words: string[];
    try {
      words = splitWords(line);
    } catch (err) {
      io.err(`greenfinger: ${(err as Error).message}\n`);
      return EXIT.usage;
    }
    const [name = '', ...rest] = words;
    if (name === 'help' || name === '?') {
      const spec = rest[0] ? promptCommand(rest[0]) : undefined;
      if (rest[0] && !spec) return this.#unknown(rest[0]);
      io.out(spec ? promptHelp(spec) : promptIndex());
      return EXIT.ok;
    }
    const spec = promptCommand(name);
    if (!spec) return this.#unknown(name);
    let code: number = EXIT.ok;
    const { root } = promptProgram(io, spec, async (args, opts) => {
      code = await this.#runCommand(spec, args, opts);
    });
    try {
      await root.parseAsync([name, ...rest], { from: 'user' });
    } catch (err) {
      if (err instanceof CommanderError) return err.code === 'commander.helpDisplayed' ? EXIT.ok : EXIT.usage;
      throw err;
    }
    return code;
  }

  #unknown(name: string): number {
    const near = commandsIn('prompt')
      .map((s) => s.prompt ?? '')
      .filter((p) => p.startsWith(name.slice(0, 3)));
    this.#io.err(
      `greenfinger: unknown command "${name}"${near.length ? ` — did you mean ${near.slice(0, 3).join(', ')}?` : ''} (help lists them)\n`,
    );
    return EXIT.usage;
  }

  async #runCommand(spec: CommandSpec, args: string[], opts: Record<string, unknown>): Promise<number> {
    const controller = new AbortController();
    this.#foreground = controller;
    const ctx: CommandContext = {
      io: this.#io,
      mode: 'prompt',
      gf: async () => this.#gf,
      signal: controller.signal,
      session: this,
    };
    try {
      return await spec.run(ctx, args, opts);
    } catch (err) {
      return reportError(this.#io, err);
    } finally {
      if (this.#foreground === controller) this.#foreground = undefined;
    }
  }

  ask(question: string, signal?: AbortSignal): Promise<string | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    if (this.interactive && !this.#closed) {
      this.#rl.setPrompt(question);
      this.#rl.prompt();
    }
    const queued = this.#lines.shift();
    if (queued !== undefined) {
      this.#forget(queued);
      return Promise.resolve(queued);
    }
    if (this.#closed) return Promise.resolve(undefined);
    const cancel = this.#foreground?.signal;
    return new Promise((resolve) => {
      const done = (line: string | undefined) => {
        signal?.removeEventListener('abort', withdraw);
        cancel?.removeEventListener('abort', withdraw);
        if (line !== undefined) this.#forget(line);
        resolve(line);
      };
      const withdraw = () => {
        if (this.#waiter === done) this.#waiter = undefined;
        done(undefined);
      };
      this.#waiter = done;
      signal?.addEventListener('abort', withdraw);
      cancel?.addEventListener('abort', withdraw);
    });
  }

  /** An answer to a question is not a command: it leaves the history. */
  #forget(answer: string): void {
    if (!this.interactive) return;
    const history = (this.#rl as unknown as { history: string[] }).history;
    if (history[0] === answer.trim() || history[0] === answer) {
      history.shift();
      writeHistory(this.#historyFile, history);
    }
  }

  /** The next line typed (or read), undefined at EOF. */
  #next(): Promise<string | undefined> {
    const line = this.#lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.#closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.#waiter = resolve;
    });
  }

  #open(): void {
    this.#closed = false;
    const history = this.interactive ? readHistory(this.#historyFile) : [];
    this.#rl = createInterface({
      input: this.#input,
      output: this.interactive ? this.#output : undefined,
      terminal: this.interactive,
      prompt: PROMPT,
      history,
      historySize: HISTORY_SIZE,
      removeHistoryDuplicates: true,
      completer: (line: string) => this.#complete(line),
    });
    this.#rl.on('line', (line) => {
      const waiter = this.#waiter;
      if (waiter) {
        this.#waiter = undefined;
        waiter(line);
      } else this.#lines.push(line);
    });
    this.#rl.on('close', () => {
      this.#closed = true;
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter?.(undefined);
    });
    this.#rl.on('SIGINT', () => {
      if (this.#foreground) {
        this.#io.out('^C\n');
        this.#foreground.abort();
        return;
      }
      // Cancel the line: clear it and show a fresh prompt.
      this.#rl.write(null, { ctrl: true, name: 'u' });
      this.#io.out('^C\n');
      this.#rl.setPrompt(PROMPT);
      this.#rl.prompt();
    });
    if (this.interactive) {
      this.#rl.on('history', (lines: string[]) => writeHistory(this.#historyFile, lines));
    }
  }

  /** Leaving while crawls run: ask first (on a terminal); they pause when the prompt closes. */
  async #mayLeave(): Promise<boolean> {
    const running = this.#gf.jobs.list().filter((j) => j.state === 'running' || j.state === 'queued');
    if (running.length === 0 || !this.interactive) return true;
    if (this.#closed) this.#open();
    const names = running.map((j) => `"${j.catalog}"`).join(', ');
    const answer = await this.ask(`a crawl of ${names} runs: pause it and leave? (resume continues it) [y/N] `);
    if (answer === undefined) return true;
    return /^y(es)?$/i.test(answer.trim());
  }

  async #pauseJobs(): Promise<void> {
    const running = this.#gf.jobs.list().filter((j) => j.state === 'running' || j.state === 'queued');
    if (running.length === 0) return;
    this.#io.out(`pausing ${running.map((j) => `"${j.catalog}"`).join(', ')}: the pages in flight finish…\n`);
    await this.#gf.jobs.close();
    for (const j of running) this.#io.out(`paused "${j.catalog}"; continue with: resume --name "${j.catalog}"\n`);
  }

  #refreshCatalogs(): void {
    this.#gf
      .catalogs()
      .then((c) => c.list())
      .then(
        (list) => {
          this.#catalogNames = list.map((c) => c.name);
        },
        (err: unknown) => this.#gf.log.debug({ err: reportOf(err).line }, 'catalog names for completion'),
      );
  }

  /** Tab: command names first, then the command's options, and catalog names after --name, --catalog, --id. */
  #complete(line: string): [string[], string] {
    const words = line.split(/\s+/);
    const current = words.at(-1) ?? '';
    const names = [...commandsIn('prompt').map((s) => s.prompt ?? ''), 'help', 'exit'];
    if (words.length <= 1) return [names.filter((n) => n.startsWith(current)), current];
    const spec = promptCommand(words[0] ?? '');
    if (words[0] === 'help') return [names.filter((n) => n.startsWith(current)), current];
    const previous = words.at(-2);
    if (previous === '--name' || previous === '--catalog') {
      return [this.#catalogNames.filter((n) => n.startsWith(current)).map(quoted), current];
    }
    if (spec && (current.startsWith('-') || current === '')) {
      const flags = flagsOf(spec, 'prompt').filter((f) => f.startsWith(current) && !words.includes(f));
      return [flags, current];
    }
    return [[], current];
  }
}

function quoted(name: string): string {
  return /\s/.test(name) ? `"${name}"` : name;
}

/** The history file, newest first (readline's order); missing or unreadable is empty. */
function readHistory(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).reverse().slice(0, HISTORY_SIZE);
  } catch {
    return [];
  }
}

/** Oldest first, one a line, at most HISTORY_SIZE; a failure to write is not worth ending the prompt for. */
function writeHistory(file: string, newestFirst: string[]): void {
  try {
    makeDirs(dirname(file));
    writeFileSync(file, `${newestFirst.slice(0, HISTORY_SIZE).reverse().join('\n')}\n`);
  } catch {
    // ignored: history is a convenience
  }
}
