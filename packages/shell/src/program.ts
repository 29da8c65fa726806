import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { catalogCommand } from './commands/catalog.js';
import { controlCommands } from './commands/control.js';
import { crawlCommand } from './commands/crawl.js';
import { deleteCommand } from './commands/delete.js';
import { replayCommand } from './commands/replay.js';
import { searchCommand } from './commands/search.js';
import { serveCommand } from './commands/serve.js';
import { userCommand } from './commands/user.js';
import { versionsCommand } from './commands/versions.js';
import { whyCommand } from './commands/why.js';
import { EXIT, type Io, processIo, reportError } from './io.js';

export const VERSION = '0.1.0';

export function intArg(name: string, min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < min)
      throw new InvalidArgumentError(`${name} must be a whole number ≥ ${min}, got "${value}"`);
    return n;
  };
}

export function numberArg(name: string, min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min)
      throw new InvalidArgumentError(`${name} must be a number ≥ ${min}, got "${value}"`);
    return n;
  };
}

/** Repeatable, comma-separated list options. */
export function listArg(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ];
}

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
  crawlCommand(program, io, setCode);
  searchCommand(program, io, setCode);
  replayCommand(program, io, setCode);
  deleteCommand(program, io, setCode);
  versionsCommand(program, io, setCode);
  catalogCommand(program, io, setCode);
  controlCommands(program, io, setCode);
  whyCommand(program, io, setCode);
  userCommand(program, io, setCode);
  serveCommand(program, io, setCode);
  return program;
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
