import type { RemoteAdmin } from '@greenfinger/cluster';
import { Greenfinger, type GreenfingerComponents } from '@greenfinger/core';
import { Command, CommanderError, Option } from 'commander';
import { addCommand, afterText, type CommandContext, type CommandSpec } from './command-spec.js';
import { afterTextIn, commandsIn, GROUPS } from './command-table.js';
import { redisUrl } from './commands/cluster.js';
import { commandLogger, EXIT, type Io, processIo, reportError } from './io.js';

export const VERSION = '0.1.0';

export { intArg, listArg, numberArg } from './args.js';

/**
 * The one-line CLI, built from the command table: each command with a `cli` path, its options and help, running its
 * handler over a Greenfinger opened for it (on first use) and closed after.
 */
export function buildProgram(io: Io, setCode: (code: number) => void): Command {
  const program = new Command('greenfinger')
    .description('Crawl a site into a searchable, versioned collection, and search it by words or by meaning.')
    .version(VERSION, '-v, --version')
    .showSuggestionAfterError(true)
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.out(s),
      writeErr: (s) => io.err(s),
      outputError: (s, write) =>
        // One line, a suggestion ("Did you mean --max-pages?") included.
        write(
          `greenfinger: ${s
            .replace(/^error: /, '')
            .trim()
            .replace(/\s*\n\s*/g, ' ')} — see \`greenfinger help\`\n`,
        ),
    });
  program.addHelpText(
    'after',
    '\nExamples:\n  greenfinger crawl --url https://docs.example.com/\n  greenfinger search "json dumps" --mode words\n  greenfinger help crawl',
  );
  const groups = new Map<string, Command>();
  for (const spec of commandsIn('cli')) {
    const words = (spec.cli ?? '').split(' ');
    const name = words.pop() ?? '';
    let parent = program;
    const group = words[0];
    if (group) {
      let cmd = groups.get(group);
      if (!cmd) {
        const g = GROUPS.find((x) => x.name === group);
        cmd = program.command(group).description(g?.summary ?? '');
        if (g) cmd.addHelpText('after', afterText(g, 'cli'));
        groups.set(group, cmd);
      }
      parent = cmd;
    }
    addCommand(parent, spec, name, 'cli', afterTextIn(spec, 'cli'), async (args, opts) => {
      setCode(await runOnce(spec, io, args, opts));
    });
  }
  return program;
}

/**
 * One command of the one-line CLI: a Greenfinger opened on first use, an error in one line, the store closed. With
 * `--cluster NAME` (an administrative verb) the process is no member: its writes go to the cluster's leader (and, with a
 * per-node database, the leader's answer is written into its own after); its reads stay on its own stores.
 */
async function runOnce(spec: CommandSpec, io: Io, args: string[], opts: Record<string, unknown>): Promise<number> {
  let gf: Greenfinger | undefined;
  let remote: RemoteAdmin | undefined;
  const data = opts.data as string | undefined;
  const cluster = typeof opts.cluster === 'string' ? opts.cluster : undefined;
  const ctx: CommandContext = {
    io,
    mode: 'cli',
    signal: new AbortController().signal,
    gf: async (toFile = false) => {
      if (gf) return gf;
      const log = commandLogger(data, { verbose: opts.verbose === true, toFile });
      let components: GreenfingerComponents | undefined;
      if (cluster) {
        const { openRemoteAdmin } = await import('@greenfinger/cluster');
        remote = await openRemoteAdmin({ cluster, redisUrl: redisUrl(), log });
        components = remote.components;
      }
      gf = await Greenfinger.open({ settings: { dataStore: data }, log, components });
      remote?.attach(gf);
      return gf;
    },
  };
  let reported = false;
  try {
    return await spec.run(ctx, args, opts);
  } catch (err) {
    reported = true;
    return reportError(io, err);
  } finally {
    // After a reported error, closing a store that failed to open fails the same way again: one line, not two.
    const quiet = (p: Promise<void> | undefined) => (reported ? p?.catch(() => undefined) : p);
    await quiet(gf?.close());
    await quiet(remote?.close());
  }
}

/** Parse and run; returns the exit code. */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help')
        return EXIT.ok;
      return EXIT.usage;
    }
    return reportError(io, err);
  }
  return code;
}

export { Option };
